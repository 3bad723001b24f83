import { spawn } from "node:child_process";
import { createReadStream, createWriteStream } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Client } from "pg";
import { openConfiguredSink } from "../../src/application/cli/import.cli";
import { loadConfig } from "../../src/platform/config";
import { createDatabase, databaseUrl, dropDatabase } from "./postgres.bench";

/**
 * The PostgreSQL half of the import rows: the same daily bars as the SQLite comparison, into a fresh database
 * holding the same listings, by a raw `COPY daily_bars FROM` (psql's `\copy`, no validation, the table's indexes in
 * place) and by the compiled `mdg-import` with MDG_DATA_SOURCE=postgres (validation, then a transaction a batch:
 * these new bars are COPYed straight into the table once a check finds none of them stored; a batch with stored
 * bars is COPYed into a staging table and upserted). Each runs in its own database, so neither meets the other's
 * rows.
 */

export interface PostgresImportRow {
  label: string;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
}

export type PostgresImportResult =
  { copy: PostgresImportRow; ours: PostgresImportRow; ratio: number; peakMb: number } | { missing: string };

const EXCHANGE = "XNAS";

/** Runs `cmd` to its exit, with its stderr; wall seconds from spawn to exit. */
async function timed(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ exit: number; seconds: number; stderr: string }> {
  const started = performance.now();
  const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const [exit] = (await once(child, "exit")) as [number];
  return { exit, seconds: (performance.now() - started) / 1000, stderr };
}

/** A database with the bench's exchange and one listing per symbol, written through the import sink. */
async function seededDatabase(base: string, name: string, symbols: readonly string[]): Promise<string> {
  await createDatabase(base, name);
  const url = databaseUrl(base, name);
  const { sink, close } = await openConfiguredSink(
    loadConfig({ MDG_DATA_SOURCE: "postgres", DATABASE_URL: url, LOG_LEVEL: "silent" }),
  );
  try {
    await sink.upsertExchanges([
      { code: EXCHANGE, name: "Bench Exchange", country: "US", currency: "USD", timezone: "America/New_York" },
    ]);
    await sink.upsertSecurities(
      symbols.map((symbol) => ({
        symbol,
        exchange: EXCHANGE,
        currency: "USD",
        type: "stock",
        name: `Bench ${symbol}`,
      })),
    );
  } finally {
    await close();
  }
  return url;
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/** `ours` (symbol, day, o, h, l, c, v with a header) as `daily_bars`' own columns, by the database's listing ids. */
async function tableFile(ours: string, out: string, ids: ReadonlyMap<string, number>): Promise<void> {
  const lines = createInterface({ input: createReadStream(ours), crlfDelay: Infinity });
  const file = createWriteStream(out);
  let chunk = "";
  let header = true;
  for await (const line of lines) {
    if (header || line === "") {
      header = false;
      continue;
    }
    const [symbol, day, ...rest] = line.split(",");
    chunk += `${ids.get(symbol!)},${Date.parse(`${day}T00:00:00Z`) / 1000},${rest.join(",")}\n`;
    if (chunk.length > 1 << 16) {
      if (!file.write(chunk)) await once(file, "drain");
      chunk = "";
    }
  }
  file.end(chunk);
  await once(file, "finish");
}

/** COPY against the importer on `ours` (the SQLite comparison's file), each into a fresh seeded database. */
export async function postgresImportBench(opts: {
  root: string;
  dir: string;
  ours: string;
  rows: number;
  symbols: readonly string[];
  log: (msg: string) => void;
}): Promise<PostgresImportResult> {
  const base = process.env.DATABASE_URL;
  if (!base) return { missing: "DATABASE_URL is unset" };
  const psql = await timed("psql", ["--version"], process.env, opts.root).catch(() => null);
  if (!psql || psql.exit !== 0) return { missing: "psql is not installed" };
  const names = [`mdg_bench_copy_${process.pid}`, `mdg_bench_import_${process.pid}`];
  try {
    const [copyUrl, oursUrl] = await Promise.all(names.map((n) => seededDatabase(base, n, opts.symbols)));
    const ids = new Map(
      (await query<{ id: string; symbol: string }>(copyUrl!, "SELECT id, symbol FROM listings")).map((r) => [
        r.symbol,
        Number(r.id),
      ]),
    );
    const table = join(opts.dir, "bars.pg.csv");
    await tableFile(opts.ours, table, ids);

    opts.log("import bench: PostgreSQL COPY");
    const copy = await timed(
      "psql",
      [copyUrl!, "-v", "ON_ERROR_STOP=1", "-c", `\\copy daily_bars (listing_id, t, o, h, l, c, v) FROM '${table}' CSV`],
      process.env,
      opts.root,
    );
    if (copy.exit !== 0) throw new Error(`psql \\copy failed: ${copy.stderr.slice(-2_000)}`);

    opts.log("import bench: mdg-import into PostgreSQL");
    const env = { PATH: process.env.PATH, TZ: "UTC", MDG_DATA_SOURCE: "postgres", DATABASE_URL: oursUrl };
    const cli = [process.execPath, "dist/application/cli/import.cli.js", "daily-bars", opts.ours];
    const ours = await timed("/usr/bin/time", ["-v", ...cli, "--report", join(opts.dir, "pg.csv")], env, opts.root);
    if (ours.exit !== 0 || !ours.stderr.includes(`daily-bars: ${opts.rows} inserted, 0 changed`))
      throw new Error(`the PostgreSQL import failed (exit ${ours.exit}):\n${ours.stderr.slice(-2_000)}`);
    const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(ours.stderr);

    for (const url of [copyUrl!, oursUrl!]) {
      const [{ n }] = await query<{ n: string }>(url, "SELECT count(*) AS n FROM daily_bars");
      if (Number(n) !== opts.rows) throw new Error(`${url.replace(/\/\/[^@]*@/, "//")}: ${n} bars, not ${opts.rows}`);
    }
    const row = (label: string, seconds: number): PostgresImportRow => ({
      label,
      rows: opts.rows,
      seconds,
      rowsPerSecond: opts.rows / seconds,
    });
    const copyRow = row("psql \\copy daily_bars", copy.seconds);
    const oursRow = row("mdg-import, MDG_DATA_SOURCE=postgres", ours.seconds);
    return {
      copy: copyRow,
      ours: oursRow,
      ratio: oursRow.rowsPerSecond / copyRow.rowsPerSecond,
      peakMb: kb ? Number(kb[1]) / 1024 : Number.NaN,
    };
  } finally {
    for (const n of names) await dropDatabase(base, n);
  }
}
