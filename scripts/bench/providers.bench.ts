import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import Database from "better-sqlite3";
import { PROFILE_COLUMNS } from "../../src/sources/providers/sec/sec.provider";

/**
 * `BENCH_ONLY=providers npm run bench`: a provider run against the importer loading the same rows from files, in one
 * run. The provider reads a real recorded file from a local HTTP server at the provider's own path (its base URL in
 * MDG_PROVIDER_<NAME>_URL, as the tests do); the importer then loads the rows that run wrote, as CSV files of the
 * import kinds, into the same store as it was before the run. Each measured run is a process of its own (its peak
 * RSS its own), timed inside the CLI's `main`; rounds alternate which goes first, and the ratio is the median of the
 * rounds' ratios (provider time ÷ import time; the target is at most 1.5).
 *
 * - ECB: `ingest ecb hist` on the ECB's full `eurofxref-hist.zip` (every currency, every day since 1999) into an
 *   empty folder, against `import fx` of the CSV inside it (the fx kind reads the ECB's own layout), `daily-bars`
 *   and `quotes` of the pairs the run wrote, into the store the run created with those three tables emptied.
 * - SEC: `ingest sec` (the companies dataset) for Apple on its full company-facts file, into a store listing Apple
 *   with its CIK (`ingest sec tickers --symbols AAPL` first, not measured), against `import securities` of the
 *   profiles it wrote and `import financials` of the company-facts file it fetched, into the same store as before
 *   the run. When data/bench holds NVIDIA's and Marvell's recorded files too, the same for the three companies in
 *   one run. Each also in a warm process: both sides run `WARM_RUNS` times in one process, each on a fresh copy of
 *   the store, the median of the runs after the first reported (providers.child.ts, BENCH_REPEAT).
 */

export interface ProviderBenchOptions {
  root: string;
  /** The ECB's `eurofxref-hist.zip`. */
  ecbZip: string;
  /** The SEC's company facts of Apple (CIK 320193). */
  secFacts: string;
  /** test/fixtures/providers/sec: the tickers file and Apple's submissions. */
  secFixtures: string;
  /** More companies for a run of several (their whole recorded files), when data/bench has them. */
  secMore?: SecCompanyFiles[];
  rounds: number;
  log: (line: string) => void;
}

export interface SecCompanyFiles {
  symbol: string;
  name: string;
  /** Ten digits, as in EDGAR's file names. */
  cik: string;
  submissions: string;
  facts: string;
}

interface ChildResult {
  ms: number;
  maxRssKiB: number;
  maxLoopMs: number;
  code: number;
  lines: string[];
}

interface Measured {
  name: string;
  rows: number;
  provider: ChildResult[];
  importer: ChildResult[];
  ratios: number[];
}

export const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Rows a run reports: the sum of every counts line's inserted, changed and unchanged. */
function rowsOf(lines: readonly string[]): number {
  let n = 0;
  for (const line of lines) {
    const m = /(\d+) inserted, (\d+) changed, (\d+) unchanged/.exec(line);
    if (m) n += Number(m[1]) + Number(m[2]) + Number(m[3]);
  }
  return n;
}

/** The one file of a ZIP archive of one deflated (or stored) entry, as the ECB's is. */
function unzipOne(zip: Buffer): Buffer {
  if (zip.readUInt32LE(0) !== 0x04034b50) throw new Error("not a ZIP archive");
  const method = zip.readUInt16LE(8);
  const size = zip.readUInt32LE(18);
  const start = 30 + zip.readUInt16LE(26) + zip.readUInt16LE(28);
  const body = zip.subarray(start, start + size);
  return method === 8 ? inflateRawSync(body) : Buffer.from(body);
}

async function serveFiles(routes: Record<string, Buffer>): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const body = routes[new URL(req.url ?? "/", "http://x").pathname];
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-length": body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function child(root: string, env: NodeJS.ProcessEnv, args: string[]): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["-r", "@swc-node/register", "scripts/bench/providers.child.ts", ...args], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    p.stdout.on("data", (d: Buffer) => (out += d.toString()));
    p.stderr.on("data", (d: Buffer) => (err += d.toString()));
    p.on("error", reject);
    p.on("close", (code) => {
      const last = out.trim().split("\n").pop() ?? "";
      try {
        const r = JSON.parse(last) as ChildResult;
        if (code !== 0 || r.code !== 0)
          reject(new Error(`${args.join(" ")}: exit ${code}/${r.code}\n${r.lines.join("\n")}`));
        else resolve(r);
      } catch {
        reject(new Error(`${args.join(" ")}: exit ${code}\n${out}\n${err}`));
      }
    });
  });
}

/** A profile column where the store keeps it: the listing's, or the security's. */
const profileColumn = (c: string) => (["symbol", "exchange", "currency"].includes(c) ? `l.${c}` : `s.${c}`);

const csv = (header: string, rows: readonly unknown[][]) =>
  `${header}\n${rows.map((r) => r.map((v) => (v === null ? "" : String(v))).join(",")).join("\n")}\n`;

function rowsOfStore<T extends unknown[]>(store: string, sql: string): T[] {
  const db = new Database(store, { readonly: true });
  try {
    return db.prepare(sql).raw(true).all() as T[];
  } finally {
    db.close();
  }
}

function emptied(from: string, to: string, tables: readonly string[]): void {
  mkdirSync(join(to, ".."), { recursive: true });
  const db = new Database(from, { readonly: true });
  db.exec(`VACUUM INTO '${to.replace(/'/g, "''")}'`);
  db.close();
  const out = new Database(to);
  for (const t of tables) out.exec(`DELETE FROM ${t}`);
  // No free pages left for the importer to reuse: its store is as compact as the one the provider creates.
  out.exec("VACUUM");
  out.close();
}

async function rounds(
  name: string,
  n: number,
  provider: (round: number) => Promise<ChildResult>,
  importer: (round: number) => Promise<ChildResult>,
  log: (line: string) => void,
): Promise<Measured> {
  const m: Measured = { name, rows: 0, provider: [], importer: [], ratios: [] };
  for (let r = 0; r < n; r++) {
    let p: ChildResult;
    let i: ChildResult;
    if (r % 2 === 0) {
      p = await provider(r);
      i = await importer(r);
    } else {
      i = await importer(r);
      p = await provider(r);
    }
    m.provider.push(p);
    m.importer.push(i);
    m.ratios.push(p.ms / i.ms);
    m.rows = rowsOf(p.lines);
    log(
      `${name} round ${r + 1}: provider ${p.ms.toFixed(0)} ms (${rowsOf(p.lines)} rows), ` +
        `import ${i.ms.toFixed(0)} ms (${rowsOf(i.lines)} rows), ratio ${(p.ms / i.ms).toFixed(2)}`,
    );
  }
  return m;
}

export async function providerBench(opts: ProviderBenchOptions): Promise<string[]> {
  const { root, log } = opts;
  const dir = mkdtempSync(join(tmpdir(), "mdg-bench-providers-"));
  const zip = readFileSync(opts.ecbZip);
  const facts = readFileSync(opts.secFacts);
  const moreBodies = (opts.secMore ?? []).map((c) => ({
    ...c,
    submissions: readFileSync(c.submissions),
    facts: readFileSync(c.facts),
  }));
  const server = await serveFiles({
    "/stats/eurofxref/eurofxref-hist.zip": zip,
    "/files/company_tickers_exchange.json": readFileSync(join(opts.secFixtures, "company_tickers_exchange.json")),
    "/submissions/CIK0000320193.json": readFileSync(join(opts.secFixtures, "CIK0000320193.submissions.json")),
    "/api/xbrl/companyfacts/CIK0000320193.json": facts,
    ...Object.fromEntries(
      moreBodies.flatMap((c) => [
        [`/submissions/CIK${c.cik}.json`, c.submissions],
        [`/api/xbrl/companyfacts/CIK${c.cik}.json`, c.facts],
      ]),
    ),
  });
  const { REDIS_URL: _r, DATABASE_URL: _d, ...inherited } = process.env;
  const env = (store: string): NodeJS.ProcessEnv => ({
    ...inherited,
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
    TZ: "UTC",
    MDG_DATA_SOURCE: "sqlite",
    MDG_SQLITE_PATH: store,
    MDG_PROVIDER_ECB_URL: server.url,
    MDG_PROVIDER_SEC_URL: server.url,
    MDG_PROVIDER_SEC_DATA_URL: `${server.url}/`,
    MDG_SEC_USER_AGENT: "market-data-gateway bench bench@example.com",
  });
  const path = (...parts: string[]) => join(dir, ...parts);
  try {
    // ECB: the first provider run also gives the rows the importer loads.
    const ecbFirst = path("ecb-setup", "market.db");
    await child(root, env(ecbFirst), ["ingest", "ecb", "hist"]);
    writeFileSync(path("fx.csv"), unzipOne(zip));
    writeFileSync(
      path("daily-bars.csv"),
      csv(
        "symbol,day,o,h,l,c,v",
        rowsOfStore(
          ecbFirst,
          `SELECT l.symbol, date(b.t, 'unixepoch'), b.o, b.h, b.l, b.c, b.v FROM daily_bars b
           JOIN listings l ON l.id = b.listing_id ORDER BY l.symbol, b.t`,
        ),
      ),
    );
    writeFileSync(
      path("quotes.csv"),
      csv(
        "symbol,t,c,o,h,l,pc,v",
        rowsOfStore(
          ecbFirst,
          `SELECT l.symbol, q.t, q.c, q.o, q.h, q.l, q.pc, q.v FROM quotes q JOIN listings l ON l.id = q.listing_id`,
        ),
      ),
    );
    const ecbBase = path("ecb-base.db");
    emptied(ecbFirst, ecbBase, ["fx_daily", "daily_bars", "quotes"]);
    const ecb = await rounds(
      "ECB history",
      opts.rounds,
      (r) => child(root, env(path(`ecb-p${r}`, "market.db")), ["ingest", "ecb", "hist"]),
      (r) => {
        const store = path(`ecb-i${r}.db`);
        copyFileSync(ecbBase, store);
        return child(root, env(store), [
          "import",
          "fx",
          path("fx.csv"),
          "+",
          "daily-bars",
          path("daily-bars.csv"),
          "+",
          "quotes",
          path("quotes.csv"),
        ]);
      },
      log,
    );

    // SEC: a store listing the companies with their CIKs, then the companies dataset on it.
    const sec = await secRounds("SEC company facts, Apple", "sec-1", [], [opts.secFacts], opts.rounds, {
      root,
      env,
      path,
      log,
    });
    const runs = [ecb, ...sec];
    if (opts.secMore) {
      const more = opts.secMore.map((c) => `${c.symbol},XNAS,USD,stock,${c.name},${Number(c.cik)}`);
      writeFileSync(path("more.csv"), `symbol,exchange,currency,type,name,cik\n${more.join("\n")}\n`);
      runs.push(
        ...(await secRounds(
          `SEC company facts, Apple, ${opts.secMore.map((c) => c.name).join(", ")}`,
          "sec-3",
          ["import", "securities", path("more.csv")],
          [opts.secFacts, ...opts.secMore.map((c) => c.facts)],
          opts.rounds,
          { root, env, path, log },
        )),
      );
    }
    const more = moreBodies.map((c) => `${c.name}'s (${(c.facts.length / 2 ** 20).toFixed(1)} MiB)`).join(" and ");
    return report(runs, { zipBytes: zip.length, factsBytes: facts.length, more: more ? `, ${more}` : undefined });
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `ingest sec` (the companies dataset) into a store listing Apple (`ingest sec tickers --symbols AAPL`, not
 * measured) and the companies `setup` lists, against the import of the same rows from files into the same store as
 * it was: the profiles it wrote (`securities`, a CSV) and the quarters from the SEC's own company-facts files it
 * fetched (`financials`), as the ECB's row imports the ECB's own file.
 */
async function secRounds(
  name: string,
  folder: string,
  setup: string[],
  factsFiles: string[],
  n: number,
  ctx: {
    root: string;
    env: (store: string) => NodeJS.ProcessEnv;
    path: (...parts: string[]) => string;
    log: (line: string) => void;
  },
): Promise<Measured[]> {
  const { root, env, path } = ctx;
  const base = path(folder, "base", "market.db");
  await child(root, env(base), ["ingest", "sec", "tickers", "--symbols", "AAPL"]);
  if (setup.length > 0) await child(root, env(base), setup);
  const first = path(folder, "first.db");
  copyFileSync(base, first);
  await child(root, env(first), ["ingest", "sec"]);
  writeFileSync(
    path(folder, "securities.csv"),
    csv(
      PROFILE_COLUMNS.join(","),
      rowsOfStore(
        first,
        `SELECT ${PROFILE_COLUMNS.map(profileColumn).join(", ")} FROM securities s
         JOIN listings l ON l.security_id = s.id AND l.is_primary = 1 WHERE s.cik IS NOT NULL ORDER BY l.symbol`,
      ),
    ),
  );
  const importArgs = ["import", "securities", path(folder, "securities.csv"), "+", "financials", ...factsFiles];
  const measure = (label: string, prefix: string, repeat: number) =>
    rounds(
      label,
      n,
      (r) => {
        const store = path(folder, `${prefix}p${r}.db`);
        copyFileSync(base, store);
        return child(root, { ...env(store), BENCH_REPEAT: String(repeat) }, ["ingest", "sec"]);
      },
      (r) => {
        const store = path(folder, `${prefix}i${r}.db`);
        copyFileSync(base, store);
        return child(root, { ...env(store), BENCH_REPEAT: String(repeat) }, importArgs);
      },
      ctx.log,
    );
  return [
    await measure(name, "", 1),
    await measure(`${name}, warm process (median of runs 2 to ${WARM_RUNS})`, "w", WARM_RUNS),
  ];
}

/** Runs of one process in a warm row: the first compiles the code, the median of the others is reported. */
const WARM_RUNS = 8;

function report(runs: readonly Measured[], files: { zipBytes: number; factsBytes: number; more?: string }): string[] {
  const mib = (kib: number) => (kib / 1024).toFixed(0);
  const lines = [
    `Files: the ECB's eurofxref-hist.zip (${(files.zipBytes / 1024).toFixed(0)} KiB), Apple's company facts ` +
      `(${(files.factsBytes / 2 ** 20).toFixed(1)} MiB, 503 us-gaap concepts)${files.more ?? ""}.`,
    "",
    "| provider run | rows written | provider ms (rows/s) | provider peak RSS MiB | import of the same rows ms " +
      "(rows/s) | import peak RSS MiB | event loop held at most, ms (provider, import) | provider ÷ import (median " +
      "of rounds) | target ≤ 1.5 |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  const perSecond = (rows: number, ms: number) => Math.round((rows / ms) * 1000).toLocaleString("en-US");
  for (const r of runs) {
    const p = median(r.provider.map((x) => x.ms));
    const i = median(r.importer.map((x) => x.ms));
    const ratio = median(r.ratios);
    lines.push(
      `| ${r.name} | ${r.rows.toLocaleString("en-US")} | ${p.toFixed(0)} (${perSecond(r.rows, p)}) | ` +
        `${mib(Math.max(...r.provider.map((x) => x.maxRssKiB)))} | ` +
        `${i.toFixed(0)} (${perSecond(r.rows, i)}) | ` +
        `${mib(Math.max(...r.importer.map((x) => x.maxRssKiB)))} | ` +
        `${Math.max(...r.provider.map((x) => x.maxLoopMs)).toFixed(0)}, ` +
        `${Math.max(...r.importer.map((x) => x.maxLoopMs)).toFixed(0)} | ${ratio.toFixed(2)} (rounds ` +
        `${r.ratios.map((x) => x.toFixed(2)).join(", ")}) | ${ratio <= 1.5 ? "met" : "**missed**"} |`,
    );
  }
  return lines;
}

/** The local copies the bench reads, with where they come from (docs in BENCHMARKS.md). */
export function providerFiles(
  root: string,
): { ecbZip: string; secFacts: string; secMore?: SecCompanyFiles[] } | string {
  const ecbZip = process.env.BENCH_ECB_ZIP ?? join(root, "data/bench/eurofxref-hist.zip");
  const secFacts = process.env.BENCH_SEC_FACTS ?? join(root, "data/bench/CIK0000320193.companyfacts.json");
  const more = [
    { symbol: "NVDA", name: "NVIDIA", cik: "0001045810" },
    { symbol: "MRVL", name: "Marvell", cik: "0001835632" },
  ].map((c) => ({
    ...c,
    submissions: join(root, `data/bench/CIK${c.cik}.submissions.json`),
    facts: join(root, `data/bench/CIK${c.cik}.companyfacts.json`),
  }));
  const secMore = more.every((c) => existsSync(c.submissions) && existsSync(c.facts)) ? more : undefined;
  const missing = [ecbZip, secFacts].filter((f) => !existsSync(f));
  if (missing.length === 0) return { ecbZip, secFacts, secMore };
  return `missing ${missing.join(" and ")}: BENCHMARKS.md ("Providers against the importer") says where they come from`;
}
