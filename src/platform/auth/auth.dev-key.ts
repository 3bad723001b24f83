import { renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Logger } from "pino";
import type { Config } from "../config";
import { KEYS_COMMAND as COMMAND } from "./auth.keys";
import type { ApiKeyService } from "./auth.service";

/** The file's name in the data directory (beside the SQLite store): the README's curl reads `data/dev-key`. */
export const DEV_KEY_FILE = "dev-key";

export type DevKeyOutcome =
  | { created: true; path: string; keyId: string }
  | { created: false; reason: "bootstrap key set" | "keys exist" | "production" | "not written" };

/**
 * A first start on a fresh checkout has no key, so every data call would answer 401 until the reader stopped the
 * service and started it again with MDG_BOOTSTRAP_API_KEY. Instead, when the key store holds no key at all and no
 * bootstrap key is configured, the service creates one local development key (every scope, the default limits,
 * stored hashed like any other) and writes it to `<data directory>/dev-key`, created with mode 0600 (owner only)
 * and moved into place whole. Only the file's path is logged, never the key.
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
  const path = join(dirname(config.sqlitePath), DEV_KEY_FILE);
  const { key, row } = await apiKeys.create({ name: "local development key", scopes: ["*"] });
  const scratch = `${path}.${process.pid}.tmp`;
  let ours = false;
  try {
    // `wx`: never through a file (or link) someone else left at the scratch name; the rename replaces the final name
    // itself, not what it may point to.
    writeFileSync(scratch, `${key}\n`, { mode: 0o600, flag: "wx" });
    ours = true;
    renameSync(scratch, path);
  } catch (err) {
    // Only a scratch file this process made is removed; one that stood in the way is left as it was.
    if (ours) rmSync(scratch, { force: true });
    // A key nobody can read is no use and must not linger.
    await apiKeys.revoke(row.id);
    logger.warn(
      { err: { message: (err as Error).message }, path },
      `could not write the local development key, so it was revoked: create a key with ${hint}`,
    );
    return { created: false, reason: "not written" };
  }
  logger.warn(
    { path, keyId: row.id },
    `no API key existed and MDG_BOOTSTRAP_API_KEY is unset: created a local development key with every scope, ` +
      `readable by this user only in the file ${path} (send it as x-api-key: $(cat ${path}))`,
  );
  return { created: true, path, keyId: row.id };
}
