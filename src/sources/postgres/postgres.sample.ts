import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import Database from "better-sqlite3";
import type { PoolClient } from "pg";
import { from as copyFrom } from "pg-copy-streams";

/**
 * The generated sample on PostgreSQL: built as SQLite by the generator (src/tools/sample/, untouched), then streamed
 * table by table into PostgreSQL with COPY. Same seed, anchor and scale: the same rows, hence the same answers.
 */

/** Tables others reference come first; the rest follow in name order. */
const FIRST = ["meta", "exchanges", "securities", "listings"];
/** SQLite's own tables, and API keys (a deployment's keys are its own, never sample data). */
const SKIPPED = /^(sqlite_.*|api_keys)$/;
/** Big tables loaded without their primary key, which is built once at the end: far cheaper than row by row. */
const INDEX_AFTER = new Set(["daily_bars", "intraday_bars", "fx_daily", "quarterly_financials", "dividends"]);
const CHUNK_CHARS = 1 << 18;

/**
 * `sample_series` with PostgreSQL's types; the generator creates it on SQLite (sample.series.ts SERIES_TABLE_SQL),
 * never a migration, so only a generated sample has it. Flags stay 0/1 integers: the synthesizer reads them so.
 */
const SERIES_TABLE_SQL = `CREATE TABLE sample_series (
  listing_id      bigint PRIMARY KEY REFERENCES listings(id),
  stream          bigint NOT NULL,
  market          text COLLATE "C" NOT NULL,
  style           text COLLATE "C" NOT NULL,
  first_day       integer NOT NULL,
  last_day        integer NOT NULL,
  final_price     double precision NOT NULL,
  base_decimals   integer NOT NULL,
  volatility      double precision NOT NULL,
  beta            double precision NOT NULL,
  drift           double precision NOT NULL,
  volume          double precision NOT NULL,
  volume_share    double precision NOT NULL,
  mean_reversion  double precision NOT NULL,
  with_factor     integer NOT NULL,
  gaps            integer NOT NULL,
  intraday_bars   integer NOT NULL,
  session_start   integer NOT NULL,
  close_second    integer NOT NULL,
  stored          integer NOT NULL
)`;

export interface SampleSpec {
  seed: number;
  anchorDate: string;
  scale: number;
}

/**
 * Where the SQLite build of a sample is kept, beside MDG_SQLITE_PATH's file: named by seed, anchor and scale, so a
 * later load of the same sample (another database, `npm run sample -- --target postgres`) reuses it.
 */
export function sampleBuildPath(sqlitePath: string, s: SampleSpec): string {
  return join(dirname(sqlitePath), `sample-${s.seed}-${s.anchorDate}-${s.scale}.db`);
}

export interface LoadTiming {
  /** Building the SQLite sample (0 when an existing build was reused). */
  buildMs: number;
  /** Copying it into PostgreSQL, indexes and statistics included. */
  copyMs: number;
  rows: number;
}

/**
 * Builds the sample as SQLite at `file` unless it is there, then copies it into PostgreSQL through `client`, which
 * must be inside a transaction on a database whose schema was just created (postgres.migrate.ts `fillEmpty`).
 */
export async function loadSample(
  client: PoolClient,
  file: string,
  spec: SampleSpec,
  opts: { log?: (msg: string) => void; signal?: AbortSignal } = {},
): Promise<LoadTiming> {
  const log = opts.log ?? (() => undefined);
  const { ensureSampleStore } = await import("../../tools/sample/sample.store");
  const built = await ensureSampleStore(file, { ...spec, log: opts.log, signal: opts.signal });
  const started = performance.now();
  const rows = await copySqliteStore(client, file, log);
  const copyMs = Math.round(performance.now() - started);
  log(`Copied the sample (${rows.toLocaleString("en-US")} rows) into PostgreSQL in ${(copyMs / 1000).toFixed(1)} s`);
  return { buildMs: built.ms ?? 0, copyMs, rows };
}

/** Copies every table of the SQLite store at `file` that PostgreSQL's schema has; returns the rows copied. */
export async function copySqliteStore(client: PoolClient, file: string, log: (msg: string) => void): Promise<number> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[]
    ).filter((t) => !SKIPPED.test(t));
    tables.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
    // Memory for building the primary keys after the copy (one sort each), for this transaction only.
    await client.query("SET LOCAL maintenance_work_mem = '256MB'");
    if (tables.includes("sample_series")) await client.query(SERIES_TABLE_SQL);
    const present = new Set(
      (
        await client.query<{ t: string }>(
          "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema()",
        )
      ).rows.map((r) => r.t),
    );
    const missing = tables.filter((t) => !present.has(t));
    if (missing.length > 0) {
      // A generator newer than this schema: refusing beats serving a sample that answers differently from SQLite.
      throw new Error(`the sample has tables the PostgreSQL schema lacks (${missing.join(", ")}); add a migration`);
    }
    let total = 0;
    for (const table of tables) {
      const columns = (db.prepare(`SELECT name FROM pragma_table_info(?) ORDER BY cid`).pluck().all(table) as string[])
        .map((c) => `"${c}"`)
        .join(", ");
      const tableStarted = performance.now();
      const pk = INDEX_AFTER.has(table) ? await dropPrimaryKey(client, table) : null;
      const stmt = db.prepare(`SELECT ${columns} FROM "${table}"`).raw(true);
      let n = 0;
      const copy = client.query(copyFrom(`COPY "${table}" (${columns}) FROM STDIN (FREEZE)`));
      await pipeline(
        Readable.from(
          (function* () {
            let chunk = "";
            for (const row of stmt.iterate() as IterableIterator<unknown[]>) {
              chunk += copyLine(row);
              n++;
              if (chunk.length >= CHUNK_CHARS) {
                yield chunk;
                chunk = "";
              }
            }
            if (chunk.length > 0) yield chunk;
          })(),
        ),
        copy,
      );
      if (pk) await client.query(`ALTER TABLE "${table}" ADD CONSTRAINT "${pk.name}" ${pk.definition}`);
      total += n;
      log(
        `  ${table}: ${n.toLocaleString("en-US")} rows in ${((performance.now() - tableStarted) / 1000).toFixed(1)} s`,
      );
    }
    // Ids the sample wrote explicitly: the identity columns continue after them for a loader's inserts.
    for (const table of ["securities", "listings"]) {
      await client.query(
        `SELECT setval(pg_get_serial_sequence('${table}', 'id'), coalesce(max(id), 0) + 1, false) FROM ${table}`,
      );
    }
    await client.query("ANALYZE");
    return total;
  } finally {
    db.close();
  }
}

function rank(table: string): number {
  const i = FIRST.indexOf(table);
  return i < 0 ? FIRST.length : i;
}

async function dropPrimaryKey(client: PoolClient, table: string): Promise<{ name: string; definition: string } | null> {
  const res = await client.query<{ name: string; definition: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint
     WHERE conrelid = $1::regclass AND contype = 'p'`,
    [table],
  );
  const pk = res.rows[0];
  if (!pk) return null;
  await client.query(`ALTER TABLE "${table}" DROP CONSTRAINT "${pk.name}"`);
  return pk;
}

/** One row in COPY's text format: tab-separated, `\N` for NULL, backslash escapes, bytea as `\x` hex. */
function copyLine(row: unknown[]): string {
  let line = "";
  for (let i = 0; i < row.length; i++) {
    if (i > 0) line += "\t";
    const v = row[i];
    if (v === null || v === undefined) line += "\\N";
    else if (typeof v === "number" || typeof v === "bigint") line += String(v);
    else if (typeof v === "string") line += /[\\\n\r\t]/.test(v) ? v.replace(/[\\\n\r\t]/g, escapeChar) : v;
    else if (Buffer.isBuffer(v)) line += `\\\\x${v.toString("hex")}`;
    else throw new Error(`cannot copy a value of type ${typeof v}`);
  }
  return `${line}\n`;
}

function escapeChar(c: string): string {
  return c === "\\" ? "\\\\" : c === "\n" ? "\\n" : c === "\r" ? "\\r" : "\\t";
}
