import { existsSync, linkSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import type { Logger } from "pino";
import type { Config } from "../config";
import { KEYS_COMMAND as COMMAND } from "./auth.keys";
import type { ApiKeyService } from "./auth.service";

/** The default store's key file, beside the SQLite store: the README's curl reads `data/dev-key`. */
export const DEV_KEY_FILE = "dev-key";
/** The SQLite store whose key file is plain `dev-key`: the default `MDG_SQLITE_PATH`, `data/market.db`. */
const DEFAULT_STORE_NAME = "market";

export type DevKeyOutcome =
  | { created: true; path: string; keyId: string }
  | { created: false; reason: "bootstrap key set" | "keys exist" | "production" | "not written" }
  | { created: false; reason: "file exists"; path: string };

/**
 * The file that holds the local key of the store this configuration opens, in the data directory (the folder of
 * MDG_SQLITE_PATH): one file per key store, so that a second store started in the same folder never replaces the
 * first one's key.
 *
 * - SQLite (the service's store, or a gateway's keys with MDG_GATEWAY_KEYS=sqlite): `dev-key` for `market.db`, else
 *   `dev-key.<file name without extension>` (`data/other.db`: `data/dev-key.other`).
 * - PostgreSQL (MDG_DATA_SOURCE=postgres, or a gateway's keys with MDG_GATEWAY_KEYS=postgres, which share the one
 *   `api_keys` table): `dev-key.postgres-<database>`.
 *
 * A character that does not belong in a file name becomes `_`.
 */
export function devKeyPath(config: Config): string {
  const inPostgres =
    config.dataSource === "postgres" || (config.dataSource === "upstream" && config.gatewayKeys === "postgres");
  const dir = dirname(config.sqlitePath);
  if (inPostgres) return join(dir, `${DEV_KEY_FILE}.${safe(`postgres-${postgresDatabase(config.postgres.url)}`)}`);
  const store = basename(config.sqlitePath, extname(config.sqlitePath));
  return join(dir, store === DEFAULT_STORE_NAME ? DEV_KEY_FILE : `${DEV_KEY_FILE}.${safe(store)}`);
}

/** The database a PostgreSQL URL names; without one, libpq's default: the user's name. */
function postgresDatabase(url: string | undefined): string {
  if (!url) return "postgres";
  try {
    const u = new URL(url);
    return decodeURIComponent(u.pathname.replace(/^\//, "")) || decodeURIComponent(u.username) || "postgres";
  } catch {
    return "postgres";
  }
}

const safe = (name: string) => name.replace(/[^A-Za-z0-9._-]/g, "_");

/**
 * A first start on a fresh checkout has no key, so every data call would answer 401 until the reader stopped the
 * service and started it again with MDG_BOOTSTRAP_API_KEY. Instead, when the key store holds no key at all and no
 * bootstrap key is configured, the service creates one local development key (every scope, the default limits,
 * stored hashed like any other) and writes it to the store's own file (devKeyPath: `data/dev-key` for the default
 * store), created with mode 0600 (owner only) and put in place whole. Only the file's path is logged, never the key.
 *
 * An existing file is never replaced: it may hold the live key of another store (another database of the same name,
 * or a file written before each store had its own). A store without a key whose file exists gets no key: the log
 * names the file and says what to do, and the next start after that tries again.
 *
 * Never under NODE_ENV=production: a deployed service must not mint a credential nobody asked for; it logs how to
 * make one instead. Once any key exists (this one included), nothing is created again; revoke it like any other
 * key (`npm run keys -- revoke`).
 */
export async function ensureDevKey(config: Config, apiKeys: ApiKeyService, logger: Logger): Promise<DevKeyOutcome> {
  if (config.bootstrapApiKey) return { created: false, reason: "bootstrap key set" };
  if ((await apiKeys.list()).length > 0) return { created: false, reason: "keys exist" };
  const hint = `${COMMAND} create --name NAME --scopes SCOPES`;
  if (config.nodeEnv === "production") {
    logger.warn(`no API key exists, so every data call answers 401: create one with ${hint}`);
    return { created: false, reason: "production" };
  }
  const path = devKeyPath(config);
  if (existsSync(path)) return fileExists(path, logger, hint);
  const { key, row } = await apiKeys.create({ name: "local development key", scopes: ["*"] });
  const scratch = `${path}.${process.pid}.tmp`;
  let ours = false;
  try {
    // `wx`: never through a file (or link) someone else left at the scratch name. The link puts the whole file in
    // place under its name and fails if that name exists by then (another process's start), never replacing it.
    writeFileSync(scratch, `${key}\n`, { mode: 0o600, flag: "wx" });
    ours = true;
    linkSync(scratch, path);
  } catch (err) {
    // A key nobody can read is no use and must not linger.
    await apiKeys.revoke(row.id);
    if ((err as NodeJS.ErrnoException).code === "EEXIST" && ours) return fileExists(path, logger, hint);
    logger.warn(
      { err: { message: (err as Error).message }, path },
      `could not write the local development key, so it was revoked: create a key with ${hint}`,
    );
    return { created: false, reason: "not written" };
  } finally {
    // Only a scratch file this process made is removed; one that stood in the way is left as it was.
    if (ours) rmSync(scratch, { force: true });
  }
  logger.warn(
    { path, keyId: row.id },
    `no API key existed and MDG_BOOTSTRAP_API_KEY is unset: created a local development key with every scope, ` +
      `readable by this user only in the file ${path} (send it as x-api-key: $(cat ${path}))`,
  );
  return { created: true, path, keyId: row.id };
}

function fileExists(path: string, logger: Logger, hint: string): DevKeyOutcome {
  logger.warn(
    { path },
    `no API key exists in this store, but its local key file ${path} exists already (an earlier store's, or another ` +
      `service's): it is left as it is and no key was created. Remove the file and start again to get a new local ` +
      `key there, or create a key with ${hint}`,
  );
  return { created: false, reason: "file exists", path };
}
