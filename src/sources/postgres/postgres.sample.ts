import { rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import Database from "better-sqlite3";
import type { PoolClient } from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { SampleBuilder } from "../source.sample";

/**
 * The generated sample on PostgreSQL: built as SQLite by the generator (src/tools/sample/, untouched), then streamed
 * table by table into PostgreSQL with COPY. Same seed, anchor and scale: the same rows, hence the same answers.
 */

/** Tables others reference come first; the rest follow in name order. */
const FIRST = ["meta", "exchanges", "securities", "listings"];
/** SQLite's own tables, and API keys (a deployment's keys are its own, never sample data). */
const SKIPPED = /^(sqlite_.*|api_keys)$/;

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
  exchange        text NOT NULL,
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
  /** Whether this load built the SQLite file (false: it was there before and is someone else's to keep). */
  builtHere: boolean;
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
  build: SampleBuilder,
  opts: { log?: (msg: string) => void; signal?: AbortSignal } = {},
): Promise<LoadTiming> {
  const log = opts.log ?? (() => undefined);
  const built = await build(file, { ...spec, log: opts.log, signal: opts.signal });
  const started = performance.now();
  const rows = await copySqliteStore(client, file, log);
  const copyMs = Math.round(performance.now() - started);
  log(`Copied the sample (${rows.toLocaleString("en-US")} rows) into PostgreSQL in ${(copyMs / 1000).toFixed(1)} s`);
  return { buildMs: built.ms ?? 0, builtHere: built.built, copyMs, rows };
}

/**
 * Removes the SQLite build a load made, once PostgreSQL has committed it: the database holds the sample now, and the
 * file (806 MiB at full scale) would double its disk. A build that was there before the load is left where it was.
 * Call only after the transaction that copied it has committed: a start that dies before keeps the build to reuse.
 */
export function discardSampleBuild(file: string, timing: LoadTiming, log: (msg: string) => void): void {
  if (!timing.builtHere) {
    log(`Kept the SQLite build at ${file}: it was there before this load`);
    return;
  }
  let bytes = 0;
  for (const suffix of ["", "-wal", "-shm", "-journal"]) {
    try {
      bytes += statSync(file + suffix).size;
      rmSync(file + suffix, { force: true });
    } catch {
      // Not there: nothing to remove.
    }
  }
  log(`Removed the SQLite build at ${file} (${(bytes / 2 ** 20).toFixed(0)} MiB): PostgreSQL holds the sample now`);
}

/** Copies every table of the SQLite store at `file` that PostgreSQL's schema has; returns the rows copied. */
export async function copySqliteStore(client: PoolClient, file: string, log: (msg: string) => void): Promise<number> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[]
    ).filter((t) => !SKIPPED.test(t));
    tables.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
    // Memory for building the keys and indexes after the copy (one sort each), for this transaction only.
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
    const rebuild = await dropIndexesAndKeys(client, tables);
    // The change feed's triggers (postgres.changes.ts) would log every sample row one by one: the fill is the
    // database's first state, not a change, and replicas that start after its commit read it whole.
    for (const table of tables) await client.query(`ALTER TABLE "${table}" DISABLE TRIGGER USER`);
    let total = 0;
    for (const table of tables) {
      const tableStarted = performance.now();
      const names = db.prepare(`SELECT name FROM pragma_table_info(?) ORDER BY cid`).pluck().all(table) as string[];
      const types = await columnTypes(client, table, names);
      const columns = names.map((c) => `"${c}"`).join(", ");
      const stmt = db.prepare(`SELECT ${columns} FROM "${table}"`).raw(true);
      const encoder = new BinaryRows(types);
      // Binary: no number is printed by Node nor parsed by PostgreSQL (most of the cost of a text COPY of bars).
      const copy = client.query(copyFrom(`COPY "${table}" (${columns}) FROM STDIN (FORMAT binary, FREEZE)`));
      await pipeline(Readable.from(encoder.encode(stmt.iterate() as IterableIterator<unknown[]>)), copy);
      total += encoder.rows;
      const seconds = ((performance.now() - tableStarted) / 1000).toFixed(1);
      log(`  ${table}: ${encoder.rows.toLocaleString("en-US")} rows in ${seconds} s`);
    }
    for (const table of tables) await client.query(`ALTER TABLE "${table}" ENABLE TRIGGER USER`);
    const indexStarted = performance.now();
    for (const sql of rebuild) await client.query(sql);
    log(`  keys and indexes: ${rebuild.length} in ${((performance.now() - indexStarted) / 1000).toFixed(1)} s`);
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

/**
 * Drops the keys (primary, unique, foreign) and indexes of `tables` and returns the statements that make them again:
 * building each once from sorted data after the copy costs far less than maintaining it row by row (a foreign key
 * is a lookup per row; re-adding it checks all rows in one join). Check constraints stay.
 */
async function dropIndexesAndKeys(client: PoolClient, tables: readonly string[]): Promise<string[]> {
  const constraints = await client.query<{ tbl: string; name: string; def: string; type: string }>(
    `SELECT c.conrelid::regclass::text AS tbl, c.conname AS name, pg_get_constraintdef(c.oid) AS def, c.contype AS type
     FROM pg_constraint c WHERE c.conrelid = ANY($1::regclass[]) AND c.contype IN ('p', 'u', 'f')
     ORDER BY c.contype = 'f', c.conname`,
    [tables],
  );
  const indexes = await client.query<{ name: string; def: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def FROM pg_index i
     WHERE i.indrelid = ANY($1::regclass[])
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.contype IN ('p', 'u'))
     ORDER BY 1`,
    [tables],
  );
  const keys = constraints.rows.filter((c) => c.type !== "f");
  const foreign = constraints.rows.filter((c) => c.type === "f");
  // Foreign keys first: they depend on the keys they reference.
  for (const c of foreign) await client.query(`ALTER TABLE ${c.tbl} DROP CONSTRAINT "${c.name}"`);
  for (const c of keys) await client.query(`ALTER TABLE ${c.tbl} DROP CONSTRAINT "${c.name}"`);
  for (const i of indexes.rows) await client.query(`DROP INDEX ${i.name}`);
  return [
    ...keys.map((c) => `ALTER TABLE ${c.tbl} ADD CONSTRAINT "${c.name}" ${c.def}`),
    ...indexes.rows.map((i) => i.def),
    ...foreign.map((c) => `ALTER TABLE ${c.tbl} ADD CONSTRAINT "${c.name}" ${c.def}`),
  ];
}

export type ColumnType = "bigint" | "integer" | "double precision" | "text" | "boolean" | "bytea";
const COLUMN_TYPES = new Set<string>(["bigint", "integer", "double precision", "text", "boolean", "bytea"]);

/** PostgreSQL's type of each of `names` in `table`: what the binary encoding writes. */
async function columnTypes(client: PoolClient, table: string, names: readonly string[]): Promise<ColumnType[]> {
  const res = await client.query<{ name: string; type: string }>(
    `SELECT attname AS name, format_type(atttypid, NULL) AS type FROM pg_attribute
     WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`,
    [table],
  );
  const byName = new Map(res.rows.map((r) => [r.name, r.type]));
  return names.map((n) => {
    const type = byName.get(n);
    if (type === undefined) throw new Error(`the sample's ${table}.${n} has no column in the PostgreSQL schema`);
    if (!COLUMN_TYPES.has(type)) throw new Error(`${table}.${n}: cannot copy into a column of type ${type}`);
    return type as ColumnType;
  });
}

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");
const BUFFER_BYTES = 1 << 20;

/**
 * Rows as COPY's binary format (the PostgreSQL manual, "COPY", "Binary Format"), in chunks of about 1 MiB: the
 * sample's SQLite rows here, an import's batches in postgres.import.ts.
 */
export class BinaryRows {
  rows = 0;
  private buf = Buffer.allocUnsafe(BUFFER_BYTES);
  private at = 0;

  constructor(private readonly types: readonly ColumnType[]) {}

  *encode(source: Iterable<unknown[]>): Generator<Buffer> {
    this.at = SIGNATURE.copy(this.buf, 0);
    this.at = this.buf.writeInt32BE(0, this.at); // flags
    this.at = this.buf.writeInt32BE(0, this.at); // header extension length
    for (const row of source) {
      // Worst case of the fixed-size fields; text and bytea make room for themselves.
      if (this.at + 2 + this.types.length * 12 > this.buf.length) yield this.flush();
      this.at = this.buf.writeInt16BE(this.types.length, this.at);
      for (let i = 0; i < this.types.length; i++) {
        const chunk = this.field(this.types[i]!, row[i]);
        if (chunk) yield chunk;
      }
      this.rows++;
    }
    if (this.at + 2 > this.buf.length) yield this.flush();
    this.at = this.buf.writeInt16BE(-1, this.at); // trailer
    yield this.flush();
  }

  private flush(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.at));
    this.at = 0;
    return out;
  }

  /** Writes one field; returns a full buffer to hand on first when the field did not fit. */
  private field(type: ColumnType, v: unknown): Buffer | null {
    const b = this.buf;
    if (v === null || v === undefined) {
      this.at = b.writeInt32BE(-1, this.at);
      return null;
    }
    switch (type) {
      case "double precision":
        this.at = b.writeInt32BE(8, this.at);
        this.at = b.writeDoubleBE(Number(v), this.at);
        return null;
      case "bigint": {
        const n = Number(v);
        if (!Number.isSafeInteger(n)) throw new Error(`not a whole number for a bigint column: ${String(v)}`);
        this.at = b.writeInt32BE(8, this.at);
        // Two's complement in two halves: the high word is floor(n / 2^32), the low word what remains.
        this.at = b.writeInt32BE(Math.floor(n / 2 ** 32), this.at);
        this.at = b.writeUInt32BE(n - Math.floor(n / 2 ** 32) * 2 ** 32, this.at);
        return null;
      }
      case "integer": {
        const n = Number(v);
        if (!Number.isInteger(n)) throw new Error(`not a whole number for an integer column: ${String(v)}`);
        this.at = b.writeInt32BE(4, this.at);
        this.at = b.writeInt32BE(n, this.at);
        return null;
      }
      case "boolean":
        this.at = b.writeInt32BE(1, this.at);
        this.at = b.writeUInt8(v === 0 || v === false ? 0 : 1, this.at);
        return null;
      case "text":
      case "bytea": {
        const bytes = Buffer.isBuffer(v) ? v : Buffer.from(String(v), "utf8");
        let out: Buffer | null = null;
        if (this.at + 4 + bytes.length + this.types.length * 12 > this.buf.length) {
          out = this.flush();
          if (4 + bytes.length + this.types.length * 12 > this.buf.length) {
            this.buf = Buffer.allocUnsafe(4 + bytes.length + this.types.length * 12 + BUFFER_BYTES);
          }
        }
        this.at = this.buf.writeInt32BE(bytes.length, this.at);
        this.at += bytes.copy(this.buf, this.at);
        return out;
      }
    }
  }
}
