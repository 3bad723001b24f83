import type { Pool, PoolClient } from "pg";
import { StartupError } from "../../platform/errors";
import { MIGRATIONS, SCHEMA_TABLES, type Migration } from "./postgres.migrations";

/**
 * The advisory lock every process takes before it looks at the schema: N replicas starting at once queue on it,
 * the first migrates (and loads the sample into an empty database), the others then find nothing left to do.
 * A transaction-level lock (`pg_advisory_xact_lock`), so it is released by COMMIT or ROLLBACK, and by the server
 * when a process dies mid-way; it also works through PgBouncer in transaction mode, which session locks do not.
 */
const LOCK_KEY = [0x6d6467, 1] as const;

export interface MigrateOptions {
  /**
   * Fills a database that had no schema at all, inside the migrating transaction: what it writes is committed
   * with the schema or not at all. Never called for a database that already holds the schema.
   */
  fillEmpty?: (client: PoolClient) => Promise<void>;
  migrations?: readonly Migration[];
  /**
   * Drops every table of the schema first, in the same transaction, so that `fillEmpty` runs
   * (`npm run sample -- --target postgres`): `"if-no-data"` only when no table holds a security or an API key (else
   * it throws HoldsDataError and changes nothing), `"always"` whatever they hold (`--replace`: API keys go too).
   */
  replace?: "if-no-data" | "always";
}

/** The database holds data that `replace: "if-no-data"` will not drop. */
export class HoldsDataError extends Error {
  override name = "HoldsDataError";
}

export interface MigrateResult {
  /** Migrations this call applied (0 when another process had applied them all). */
  ran: number;
  /** Whether the database was empty and `fillEmpty` filled it. */
  filled: boolean;
}

/**
 * Applies the migrations not yet applied, all in one transaction under the advisory lock. An empty database (no
 * `schema_migrations`) gets every migration and then `fillEmpty`; a crash at any point leaves it empty for the next
 * start to try again.
 */
export async function migratePostgres(pool: Pool, opts: MigrateOptions = {}): Promise<MigrateResult> {
  const migrations = opts.migrations ?? MIGRATIONS;
  const client = await pool.connect();
  let done = false;
  try {
    await client.query("BEGIN");
    // Waiting for the lock, and loading the sample, may take longer than any request's statement may.
    await client.query("SET LOCAL statement_timeout = 0");
    await client.query("SELECT pg_advisory_xact_lock($1, $2)", [...LOCK_KEY]);
    if (opts.replace) await dropSchema(client, opts.replace);
    const exists = await client.query<{ present: boolean }>(
      "SELECT to_regclass('schema_migrations') IS NOT NULL AS present",
    );
    const empty = !exists.rows[0]!.present;
    if (empty) {
      await client.query(`CREATE TABLE schema_migrations (
        version    integer PRIMARY KEY,
        name       text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    }
    const applied = await client.query<{ v: number | null }>("SELECT max(version) AS v FROM schema_migrations");
    const current = applied.rows[0]!.v ?? 0;
    const latest = migrations[migrations.length - 1]?.version ?? 0;
    if (current > latest) {
      throw new StartupError(
        `DATABASE_URL: the schema is at version ${current}, newer than this build knows (${latest}); upgrade`,
      );
    }
    let ran = 0;
    for (const m of migrations) {
      if (m.version <= current) continue;
      await client.query(m.sql);
      await client.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
      ran++;
    }
    const filled = empty && opts.fillEmpty !== undefined;
    if (filled) await opts.fillEmpty!(client);
    await client.query("COMMIT");
    done = true;
    return { ran, filled };
  } finally {
    if (!done) await client.query("ROLLBACK").catch(() => undefined);
    // A connection that failed mid-transaction is dropped, not handed to a request.
    client.release(!done);
  }
}

/** The tables of the schema and of the sample, dropped by `replace`. */
async function dropSchema(client: PoolClient, mode: "if-no-data" | "always"): Promise<void> {
  if (mode === "if-no-data") {
    const held = await client.query<{ what: string }>(
      `SELECT what FROM (VALUES ('securities', to_regclass('securities')), ('api_keys', to_regclass('api_keys')))
         AS t(what, r) WHERE r IS NOT NULL`,
    );
    for (const { what } of held.rows) {
      const rows = await client.query(`SELECT 1 FROM ${what} LIMIT 1`);
      if (rows.rowCount) throw new HoldsDataError(`the database already holds data (${what} has rows)`);
    }
  }
  const res = await client.query<{ t: string }>(
    `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema()
     AND table_type = 'BASE TABLE' AND table_name = ANY($1::text[])`,
    [[...SCHEMA_TABLES, "sample_series", "schema_migrations"]],
  );
  if (res.rows.length === 0) return;
  await client.query(`DROP TABLE ${res.rows.map((r) => `"${r.t}"`).join(", ")} CASCADE`);
}
