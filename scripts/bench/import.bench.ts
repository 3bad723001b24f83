import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import type { WriteStream } from "node:fs";
import Database from "better-sqlite3";
import type { ImportSink } from "../../src/domain/ports/source.import";
import { importProgress } from "../../src/application/import/import.progress";
import { runImport } from "../../src/application/import/import.run";
import { SqliteImportSink } from "../../src/sources/sqlite/sqlite.import";
import { openSqliteSource } from "../../src/sources/sqlite/sqlite.source";
import { postgresImportBench, type PostgresImportResult } from "./import.postgres.bench";

/**
 * The import rows of `npm run bench` (`BENCH_ONLY=import` runs them alone): daily bars generated for a store with no
 * sample, imported by the importer against the store's own bulk loader on the same rows in the same run, and the
 * importer's peak RSS on a 1 GB file through the compiled CLI, as the `mdg-import` bin runs it.
 *
 * - SQLite's bulk loader is the `sqlite3` shell's `.import` (CSV of the table's own columns, no validation, one
 *   transaction) into `daily_bars` of a fresh copy of the same empty store, indexes included.
 * - The importer runs as the built `mdg-import` (node startup included, as `.import` includes the shell's), or
 *   without a build in this process on a sink (`timedImport` with a `SinkFactory`): PostgreSQL's COPY comparison
 *   takes the same rows and that function with its own sink.
 */

/** Listings of the generated store: the files hold an equal run of consecutive days for each. */
export const BENCH_LISTINGS = 100;
const EXCHANGE = "XNAS";
const DAY = 86_400;
/** 1990-01-01: the first day of every listing's run. */
const FIRST_DAY = 631_152_000;

export interface ImportBenchRow {
  label: string;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  /** CPU seconds (user + system) of the work: other processes share the cores, wall time varies with them. */
  cpuSeconds: number;
}

export interface ImportBenchResult {
  rows: number;
  fileMb: number;
  loader: ImportBenchRow | { label: string; missing: string };
  ours: ImportBenchRow;
  /** ours ÷ loader (rows per second), when the loader ran. */
  ratio: number | null;
  /** The same in rows per CPU second. */
  cpuRatio: number | null;
  rss?: { fileMb: number; rows: number; peakMb: number; seconds: number; exit: number } | { missing: string };
  /** The same rows into PostgreSQL: raw COPY against the importer (with DATABASE_URL and a build). */
  postgres?: PostgresImportResult;
}

/** Opens the importer's sink on a store (for SQLite, its file); closing it ends the connection. */
export type SinkFactory = (store: string) => Promise<{ sink: ImportSink; close(): Promise<void> }>;

export const sqliteSinkFactory: SinkFactory = async (store) => {
  const source = openSqliteSource(store, { mustExist: true });
  const sink = new SqliteImportSink(source.db);
  return { sink, close: () => source.close() };
};

/** A deterministic bar for listing `i`, day `d`: o, h, l, c with cents, a whole volume. */
function bar(i: number, d: number): [string, string, string, string, number] {
  const base = 20 + ((i * 7919 + d * 31) % 5000) / 10;
  const o = base;
  const c = base + (((i + d) % 9) - 4) / 10;
  const h = Math.max(o, c) + ((d % 5) + 1) / 10;
  const l = Math.max(0, Math.min(o, c) - ((i % 5) + 1) / 10);
  return [o.toFixed(2), h.toFixed(2), l.toFixed(2), c.toFixed(2), 1_000 + ((i * 131 + d * 17) % 900_000)];
}

const symbolOf = (i: number) => `BX${String(i).padStart(5, "0")}`;

/** An empty store (migrated, no sample) with one exchange and `listings` securities of one listing each. */
export function createBenchStore(path: string, listings: number): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
  const source = openSqliteSource(path);
  const { db } = source;
  db.transaction(() => {
    db.prepare(`INSERT INTO exchanges (code, name, country, currency, timezone) VALUES (?, ?, 'US', 'USD', ?)`).run(
      EXCHANGE,
      "Bench Exchange",
      "America/New_York",
    );
    const security = db.prepare(`INSERT INTO securities (id, type, name, currency) VALUES (?, 'stock', ?, 'USD')`);
    const listing = db.prepare(
      `INSERT INTO listings (id, security_id, symbol, exchange, currency, is_primary) VALUES (?, ?, ?, ?, 'USD', 1)`,
    );
    for (let i = 1; i <= listings; i++) {
      security.run(i, `Bench Security ${i}`);
      listing.run(i, i, symbolOf(i), EXCHANGE);
    }
  })();
  db.pragma("wal_checkpoint(TRUNCATE)");
  void source.close();
}

/** A copy of `from` at `to` (VACUUM INTO: the same pages, no WAL). */
export function copyStore(from: string, to: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(to + suffix, { force: true });
  const db = new Database(from, { readonly: true });
  try {
    db.exec(`VACUUM INTO '${to.replace(/'/g, "''")}'`);
  } finally {
    db.close();
  }
}

async function write(out: WriteStream, chunk: string): Promise<void> {
  if (!out.write(chunk)) await once(out, "drain");
}

/**
 * Writes `rows` daily bars over `listings` listings (listing by listing, day after day, as vendor files come):
 * `ours` in the import's columns (symbol, day, o, h, l, c, v), `table` (when given) the same rows in `daily_bars`'
 * own columns without a header, for `.import`.
 */
export async function writeBarFiles(opts: {
  rows: number;
  listings: number;
  ours: string;
  table?: string;
}): Promise<void> {
  const perListing = Math.ceil(opts.rows / opts.listings);
  const ours = createWriteStream(opts.ours);
  const table = opts.table ? createWriteStream(opts.table) : undefined;
  await write(ours, "symbol,day,o,h,l,c,v\n");
  let n = 0;
  let a = "";
  let b = "";
  for (let i = 1; i <= opts.listings && n < opts.rows; i++) {
    const symbol = symbolOf(i);
    for (let d = 0; d < perListing && n < opts.rows; d++, n++) {
      const [o, h, l, c, v] = bar(i, d);
      const t = FIRST_DAY + d * DAY;
      a += `${symbol},${new Date(t * 1000).toISOString().slice(0, 10)},${o},${h},${l},${c},${v}\n`;
      if (table) b += `${i},${t},${o},${h},${l},${c},${v}\n`;
      if (a.length > 1 << 16) {
        await write(ours, a);
        a = "";
        if (table) await write(table, b);
        b = "";
      }
    }
  }
  await write(ours, a);
  ours.end();
  await once(ours, "finish");
  if (table) {
    await write(table, b);
    table.end();
    await once(table, "finish");
  }
}

/** Whether the `sqlite3` shell is on PATH (the bulk loader compared against). */
export function sqliteShell(): string | null {
  const r = spawnSync("sqlite3", ["--version"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim().split(" ")[0]! : null;
}

/** `sqlite3 <store> .import --csv <file> daily_bars`, timed from spawn to exit. */
export function sqliteDotImport(store: string, file: string, rows: number): ImportBenchRow {
  const started = performance.now();
  // /usr/bin/time for the shell's CPU time (spawnSync reports none).
  const timed = existsSync("/usr/bin/time");
  const args = [store, `.import --csv ${file} daily_bars`];
  const r = timed
    ? spawnSync("/usr/bin/time", ["-f", "cpu %U %S", "sqlite3", ...args], { encoding: "utf8" })
    : spawnSync("sqlite3", args, { encoding: "utf8" });
  const seconds = (performance.now() - started) / 1000;
  const cpu = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
  const stderr = cpu ? r.stderr.slice(0, cpu.index) : r.stderr;
  if (r.status !== 0 || stderr.trim() !== "") throw new Error(`sqlite3 .import failed: ${stderr.trim()}`);
  const count = new Database(store, { readonly: true }).prepare("SELECT count(*) FROM daily_bars").pluck().get();
  if (count !== rows) throw new Error(`sqlite3 .import loaded ${String(count)} rows, not ${rows}`);
  const cpuSeconds = cpu ? Number(cpu[1]) + Number(cpu[2]) : Number.NaN;
  return { label: "sqlite3 .import", rows, seconds, rowsPerSecond: rows / seconds, cpuSeconds };
}

/** The importer on `file` into `store` through `open`, in this process, timed from opening the sink to its close. */
export async function timedImport(
  label: string,
  open: SinkFactory,
  store: string,
  file: string,
  dir: string,
): Promise<ImportBenchRow> {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const { sink, close } = await open(store);
  let summary;
  try {
    summary = await runImport(
      { kind: "daily-bars", files: [file], dryRun: false, maxErrors: 1, reportPath: join(dir, "rejections.csv") },
      sink,
      importProgress("daily-bars", false, () => undefined),
    );
  } finally {
    await close();
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  if (summary.rejected > 0 || summary.inserted !== summary.rows)
    throw new Error(`the import inserted ${summary.inserted} of ${summary.rows} rows (${summary.rejected} rejected)`);
  return {
    label,
    rows: summary.rows,
    seconds,
    rowsPerSecond: summary.rows / seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

/**
 * The compiled CLI importing `file` into `store`, started as the `mdg-import` bin starts it (`node
 * dist/application/cli/import.cli.js`): wall seconds, and from `/usr/bin/time -v` its CPU seconds and peak RSS
 * ("Maximum resident set size").
 */
export async function cliPeakRss(
  root: string,
  store: string,
  file: string,
  dir: string,
): Promise<{ peakMb: number; seconds: number; cpuSeconds: number; exit: number; stderr: string }> {
  const started = performance.now();
  const child = spawn(
    "/usr/bin/time",
    [
      "-v",
      process.execPath,
      "dist/application/cli/import.cli.js",
      "daily-bars",
      file,
      "--report",
      join(dir, "rss-rejections.csv"),
    ],
    {
      cwd: root,
      env: { PATH: process.env.PATH, TZ: "UTC", MDG_DATA_SOURCE: "sqlite", MDG_SQLITE_PATH: store },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const [exit] = (await once(child, "exit")) as [number];
  const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
  if (!kb) throw new Error(`no peak RSS in /usr/bin/time's output:\n${stderr.slice(-2_000)}`);
  const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
  const system = /System time \(seconds\): ([\d.]+)/.exec(stderr);
  return {
    peakMb: Number(kb[1]) / 1024,
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: Number(user?.[1] ?? Number.NaN) + Number(system?.[1] ?? Number.NaN),
    exit,
    stderr,
  };
}

export interface ImportBenchOptions {
  root: string;
  /** Scratch folder (removed at the end). */
  dir: string;
  rows: number;
  /** Size of the RSS run's file, bytes (0: skip that run). */
  rssFileBytes: number;
  log: (msg: string) => void;
}

/** The speed comparison and the RSS run; every file and store lives in `dir`. */
export async function importBench(opts: ImportBenchOptions): Promise<ImportBenchResult> {
  const { dir, rows, log } = opts;
  mkdirSync(dir, { recursive: true });
  try {
    const empty = join(dir, "empty.db");
    createBenchStore(empty, BENCH_LISTINGS);
    const ours = join(dir, "bars.csv");
    const table = join(dir, "bars.table.csv");
    log(`import bench: writing ${rows.toLocaleString("en-US")} daily bars over ${BENCH_LISTINGS} listings`);
    await writeBarFiles({ rows, listings: BENCH_LISTINGS, ours, table });
    const fileMb = statSync(ours).size / 2 ** 20;

    const shell = sqliteShell();
    let loader: ImportBenchResult["loader"];
    if (shell) {
      const store = join(dir, "loader.db");
      copyStore(empty, store);
      log(`import bench: sqlite3 ${shell} .import`);
      loader = sqliteDotImport(store, table, rows);
    } else {
      loader = { label: "sqlite3 .import", missing: "the sqlite3 shell is not installed (apt-get install sqlite3)" };
      log(`import bench: ${loader.missing}; the importer runs without its comparison`);
    }
    const store = join(dir, "ours.db");
    copyStore(empty, store);
    log("import bench: the importer");
    // As a user runs it, when built (npm run bench builds first); in this process through the sink otherwise.
    let own: ImportBenchRow;
    if (existsSync(join(opts.root, "dist/application/cli/import.cli.js"))) {
      const r = await cliPeakRss(opts.root, store, ours, dir);
      if (r.exit !== 0 || !r.stderr.includes(`daily-bars: ${rows} inserted, 0 changed`))
        throw new Error(`the import failed (exit ${r.exit}):\n${r.stderr.slice(-2_000)}`);
      own = {
        label: "mdg-import (node dist/…/import.cli.js)",
        rows,
        seconds: r.seconds,
        rowsPerSecond: rows / r.seconds,
        cpuSeconds: r.cpuSeconds,
      };
    } else {
      own = await timedImport("the import, in process", sqliteSinkFactory, store, ours, dir);
    }
    let postgres: PostgresImportResult;
    if (!existsSync(join(opts.root, "dist/application/cli/import.cli.js"))) {
      postgres = { missing: "no build (npm run build)" };
    } else {
      const symbols = Array.from({ length: BENCH_LISTINGS }, (_, i) => symbolOf(i + 1));
      postgres = await postgresImportBench({ root: opts.root, dir, ours, rows, symbols, log });
    }
    const ratio = "missing" in loader ? null : own.rowsPerSecond / loader.rowsPerSecond;
    const cpuRatio = "missing" in loader ? null : loader.cpuSeconds / own.cpuSeconds;
    rmSync(table, { force: true });

    let rss: ImportBenchResult["rss"];
    if (opts.rssFileBytes > 0) {
      if (!existsSync(join(opts.root, "dist/application/cli/import.cli.js"))) {
        rss = { missing: "no build (npm run build)" };
      } else {
        // About 46 bytes a row: enough listings of 10,000 days each to reach the size.
        const rssRows = Math.ceil(opts.rssFileBytes / 46);
        const listings = Math.ceil(rssRows / 10_000);
        const big = join(dir, "big.csv");
        const bigStore = join(dir, "big.db");
        createBenchStore(bigStore, listings);
        log(`import bench: writing ${rssRows.toLocaleString("en-US")} daily bars for the RSS run`);
        await writeBarFiles({ rows: rssRows, listings, ours: big });
        const size = statSync(big).size;
        log(`import bench: the compiled CLI on ${(size / 2 ** 20).toFixed(0)} MiB`);
        const r = await cliPeakRss(opts.root, bigStore, big, dir);
        rss = { fileMb: size / 2 ** 20, rows: rssRows, peakMb: r.peakMb, seconds: r.seconds, exit: r.exit };
        rmSync(big, { force: true });
      }
    }
    return { rows, fileMb, loader, ours: own, ratio, cpuRatio, rss, postgres };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The section's table and verdicts (bench.ts adds the heading, machine and revision). */
export function importBenchLines(r: ImportBenchResult): string[] {
  const row = (x: ImportBenchRow) =>
    `| ${x.label} | ${fmt(x.rows)} | ${fmt(x.seconds, 2)} | ${fmt(x.rowsPerSecond)} | ${fmt(x.cpuSeconds, 2)} |`;
  const lines = [
    `${fmt(r.rows)} daily bars of ${BENCH_LISTINGS} listings (${fmt(r.fileMb, 1)} MiB of CSV), each into a fresh ` +
      "copy of the same empty store (the schema's tables and indexes, no sample). `sqlite3 .import` reads the " +
      "same rows in `daily_bars`' own columns and checks nothing; the importer reads symbols and days, validates " +
      "every row, and upserts in batches of one transaction each. Seconds from start to the last commit; CPU " +
      "seconds (user + system) of the same work, which vary less with what else the cores run.",
    "",
    "| loader | rows | seconds | rows/s | CPU seconds |",
    "|---|---|---|---|---|",
  ];
  if ("missing" in r.loader) lines.push(`| ${r.loader.label} | not run: ${r.loader.missing} | | | |`);
  else lines.push(row(r.loader));
  lines.push(row(r.ours));
  lines.push("");
  const verdicts: string[] = [];
  if (r.ratio === null) {
    verdicts.push("- Speed against `sqlite3 .import`: **not measured** (no sqlite3 shell)");
  } else {
    verdicts.push(
      `- Speed against \`sqlite3 .import\`: **${fmt(r.ratio, 2)}×** in rows per second (target ≥ 0.50: ` +
        `${r.ratio >= 0.5 ? "met" : "missed"}); ${fmt(r.cpuRatio ?? Number.NaN, 2)}× in rows per CPU second`,
    );
  }
  if (!r.rss) verdicts.push("- Peak RSS on a 1 GB file: not run (BENCH_IMPORT_RSS_MB=0)");
  else if ("missing" in r.rss) verdicts.push(`- Peak RSS on a 1 GB file: not run (${r.rss.missing})`);
  else {
    const met = r.rss.peakMb * 1.048576 < 200 && r.rss.exit === 0;
    verdicts.push(
      `- Peak RSS of \`node dist/application/cli/import.cli.js daily-bars\` on ${fmt(r.rss.fileMb)} MiB ` +
        `(${fmt(r.rss.rows)} rows, ${fmt(r.rss.seconds)} s, exit ${r.rss.exit}), \`/usr/bin/time -v\`: ` +
        `**${fmt(r.rss.peakMb)} MiB** (target < 200 MB: ${met ? "met" : "missed"})`,
    );
  }
  const pg = r.postgres;
  if (!pg || "missing" in pg) {
    verdicts.push(`- PostgreSQL, against a raw COPY: not run (${pg ? pg.missing : "not asked"})`);
  } else {
    const pgRow = (x: { label: string; rows: number; seconds: number; rowsPerSecond: number }) =>
      `| ${x.label} | ${fmt(x.rows)} | ${fmt(x.seconds, 2)} | ${fmt(x.rowsPerSecond)} |`;
    verdicts.push(
      "",
      "The same file into PostgreSQL, each into a fresh database holding the same listings (the schema's " +
        "indexes in place): `psql`'s `\\copy` of the rows in `daily_bars`' own columns, unvalidated, against the " +
        "compiled importer with `MDG_DATA_SOURCE=postgres` (it validates every row and writes each batch in a " +
        "transaction of its own: bars of which a check in the same statement string finds none stored are COPYed " +
        "straight into the table, as these are; others are COPYed into a staging table and upserted). Seconds " +
        "from spawn to exit.",
      "",
      "| loader | rows | seconds | rows/s |",
      "|---|---|---|---|",
      pgRow(pg.copy),
      pgRow(pg.ours),
      "",
      `- Speed against PostgreSQL's COPY: **${fmt(pg.ratio, 2)}×** in rows per second (target ≥ 0.50: ` +
        `${pg.ratio >= 0.5 ? "met" : "missed"}); the importer's peak RSS ${fmt(pg.peakMb)} MiB`,
    );
  }
  return [...lines, ...verdicts];
}

/** For a quick look without bench.ts: `node -r @swc-node/register scripts/bench/import.bench.ts [rows]`. */
if (require.main === module) {
  const rows = Number(process.argv[2] ?? 1_000_000);
  void importBench({
    root: join(__dirname, "..", ".."),
    dir: join(process.env.TMPDIR ?? "/tmp", `mdg-import-bench-${process.pid}`),
    rows,
    rssFileBytes: Number(process.env.BENCH_IMPORT_RSS_MB ?? 0) * 2 ** 20,
    log: (m) => console.error(m),
  }).then((r) => {
    writeFileSync(1, importBenchLines(r).join("\n") + "\n");
  });
}
