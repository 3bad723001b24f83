/**
 * `npm run soak`: a bounded soak of the built service on the full sample
 * store. Mixed traffic (REST v0/v1 of many endpoints, bulk, /graphql, and a
 * share of client mistakes whose answers are known) for SOAK_DURATION
 * seconds; reports the error rate, p99 of the first and last minute after
 * warm-up, and the service's RSS growth after warm-up; writes them to the
 * "Soak" section of BENCHMARKS.md (between the soak markers only). Exits 1
 * when a target is missed: no errors, RSS growth under 10 %.
 *
 * Env: SOAK_DURATION (s, default 240), SOAK_WARMUP (s, default 60),
 * SOAK_CONNECTIONS (default 16), SOAK_STORE (default data/market.db, built
 * with the sample CLI when missing), SOAK_WRITE=0 to leave BENCHMARKS.md alone.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { createServer, type AddressInfo } from "node:net";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";

const ROOT = join(__dirname, "..");
const DURATION_S = Number(process.env.SOAK_DURATION ?? 240);
const WARMUP_S = Number(process.env.SOAK_WARMUP ?? 60);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 16);
const STORE = process.env.SOAK_STORE ?? join(ROOT, "data", "market.db");
const KEY = `soak-${randomBytes(12).toString("hex")}`;
const TARGET_RSS_GROWTH = 10;
const START_MARK = "<!-- soak:start (written by npm run soak; edit outside the markers) -->";
const END_MARK = "<!-- soak:end -->";

function log(msg: string): void {
  process.stderr.write(`[soak] ${msg}\n`);
}

// ---------------------------------------------------------------- inputs

/** Deterministic choice, so two runs send the same mix. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Inputs {
  stocks: string[];
  etfs: string[];
  crypto: string[];
  fundIsins: string[];
  words: string[];
}

function readInputs(path: string): Inputs {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const primary = (type: string, n: number) =>
    (
      db
        .prepare(
          "SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1 " +
            "WHERE s.type = ? ORDER BY s.id LIMIT ?",
        )
        .all(type, n) as { symbol: string }[]
    ).map((r) => r.symbol);
  const inputs: Inputs = {
    stocks: primary("stock", 3000),
    etfs: primary("etf", 800),
    crypto: primary("crypto", 500),
    fundIsins: (
      db
        .prepare(`SELECT isin FROM securities WHERE type = 'fund' AND isin IS NOT NULL ORDER BY id LIMIT 800`)
        .all() as { isin: string }[]
    ).map((r) => r.isin),
    words: [
      ...new Set(
        (db.prepare(`SELECT name FROM securities ORDER BY id LIMIT 2000`).all() as { name: string }[]).flatMap((r) =>
          r.name.split(/\s+/).filter((w) => w.length > 3),
        ),
      ),
    ].slice(0, 1000),
  };
  db.close();
  return inputs;
}

// ---------------------------------------------------------------- the mix

interface Call {
  kind: string;
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
  /** Statuses that are right for this call; anything else (and any 5xx or transport failure) is an error. */
  expect: number[];
}

function mix(inputs: Inputs, random: () => number) {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const json = (o: unknown) => JSON.stringify(o);
  const ok = [200, 404]; // valid calls: 404 where a security has no such data (no dividends, fewer than four quarters)
  const rest = (kind: string, path: string, body: unknown, expect = ok): Call => ({
    kind,
    method: "POST",
    path,
    body: json(body),
    expect,
  });
  const gql = (kind: string, query: string, variables: Record<string, unknown>): Call => ({
    kind,
    method: "POST",
    path: "/graphql",
    body: json({ query, variables }),
    expect: [200],
  });
  const weighted: [number, () => Call][] = [
    [22, () => rest("quote", "/v1/quote", { symbol: pick(inputs.stocks) }, [200])],
    [4, () => rest("quote v0", "/v0/quote", { symbol: pick(inputs.etfs) }, [200])],
    [8, () => rest("crypto/price", "/v1/crypto/price", { symbol: pick(inputs.crypto) }, [200])],
    [5, () => rest("etf/profile", "/v1/etf/profile", { symbol: pick(inputs.etfs) })],
    [4, () => rest("etf/holdings", "/v0/etf/holdings", { symbol: pick(inputs.etfs) })],
    [4, () => rest("fund/profile", "/v1/fund/profile", { isin: pick(inputs.fundIsins) })],
    [5, () => rest("candle", "/v1/candle", { symbol: pick(inputs.stocks), resolution: "D" })],
    [8, () => rest("search", "/v1/search", { query: pick(inputs.words) }, [200])],
    [3, () => rest("list/stocks", "/v1/list/stocks", { limit: 50 }, [200])],
    [3, () => rest("dividends/annual", "/v1/dividends/annual", { symbol: pick(inputs.stocks) })],
    [3, () => rest("stock/financials/ttm", "/v1/stock/financials/ttm", { symbol: pick(inputs.stocks) })],
    [
      2,
      () =>
        rest(
          "bulk quote × 20",
          "/v1/bulk",
          { endpoint: "quote", symbols: Array.from({ length: 20 }, () => ({ symbol: pick(inputs.stocks) })) },
          [200],
        ),
    ],
    [
      6,
      () =>
        gql(
          "graphql quote",
          `query($s: String) { quote(symbol: $s) { symbol c d dp currency historicalPrice { day } } }`,
          { s: pick(inputs.stocks) },
        ),
    ],
    [
      4,
      () =>
        gql(
          "graphql crypto+etf",
          "query($c: String!, $e: String) { cryptoPrice(symbol: $c) { price } " +
            "etf(symbol: $e) { profile { name aum } } }",
          { c: pick(inputs.crypto), e: pick(inputs.etfs) },
        ),
    ],
    // Client mistakes, answered as the contract says.
    [3, () => rest("unknown symbol", "/v1/quote", { symbol: `NOPE${Math.floor(random() * 1e6)}` }, [404])],
    [2, () => ({ kind: "malformed JSON", method: "POST", path: "/v1/quote", body: '{"symbol":', expect: [404] })],
    [
      2,
      () => ({
        kind: "bad key",
        method: "POST",
        path: "/v1/quote",
        body: json({ symbol: "BTC-USD" }),
        headers: { "x-api-key": "wrong-key" },
        expect: [401],
      }),
    ],
    [1, () => ({ kind: "wrong method", method: "GET", path: "/v1/quote", expect: [404] })],
  ];
  const total = weighted.reduce((a, [w]) => a + w, 0);
  return (): Call => {
    let r = random() * total;
    for (const [w, make] of weighted) if ((r -= w) < 0) return make();
    return weighted[0]![1]();
  };
}

// ---------------------------------------------------------------- processes

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Resident memory of a process in MiB: all of it, the anonymous part (heaps), and the file-backed part (the store's
 * mapped pages).
 */
function memoryMb(pid: number): { rss: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: kb("VmRSS"), anon: kb("RssAnon"), file: kb("RssFile") };
}

async function waitHealthy(port: number, child: ChildProcess): Promise<void> {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const req = request({ host: "127.0.0.1", port, path: "/readyz" }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on("error", () => resolve(false));
      req.end();
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("the service did not become ready within 120 s");
}

// ---------------------------------------------------------------- load

interface Sample {
  at: number;
  ms: number;
  kind: string;
  status: number;
  error: boolean;
}

function send(agent: Agent, port: number, call: Call): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: call.method,
        path: call.path,
        agent,
        headers: { "content-type": "application/json", "x-api-key": KEY, ...call.headers },
        timeout: 30_000,
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0 }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout after 30 s")));
    req.on("error", reject);
    req.end(call.body);
  });
}

const percentile = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const median = (xs: number[]) => percentile(xs, 50);
const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");

// ---------------------------------------------------------------- report

function writeSection(text: string): void {
  const file = join(ROOT, "BENCHMARKS.md");
  const block = `${START_MARK}\n${text.trim()}\n${END_MARK}`;
  const old = existsSync(file) ? readFileSync(file, "utf8") : "# Benchmarks\n";
  const from = old.indexOf(START_MARK);
  const to = old.indexOf(END_MARK);
  const next =
    from >= 0 && to > from
      ? old.slice(0, from) + block + old.slice(to + END_MARK.length)
      : `${old.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, next.endsWith("\n") ? next : `${next}\n`);
}

function revision(): string {
  const rev = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).stdout.trim();
  const dirty =
    spawnSync("git", ["status", "--porcelain", "--untracked-files=no"], {
      cwd: ROOT,
      encoding: "utf8",
    }).stdout.trim() !== "";
  return `${rev || "unknown"}${dirty ? " with uncommitted changes" : ""}`;
}

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  if (!existsSync(join(ROOT, "dist", "main.js")))
    throw new Error("dist/main.js is missing: run `npm run build` (npm run soak does)");
  if (!existsSync(STORE)) {
    log(`building the full sample store at ${STORE} (seed 42, anchor 2026-11-20)`);
    const r = spawnSync(
      process.execPath,
      [
        "-r",
        "@swc-node/register",
        "src/application/cli/sample.cli.ts",
        "--out",
        STORE,
        "--seed",
        "42",
        "--anchor",
        "2026-11-20",
      ],
      { cwd: ROOT, stdio: "inherit" },
    );
    if (r.status !== 0) throw new Error("the sample CLI failed");
  }
  const inputs = readInputs(STORE);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    TZ: "UTC",
    NODE_ENV: "production",
    PORT: String(port),
    HOST: "127.0.0.1",
    MDG_SQLITE_PATH: STORE,
    MDG_BOOTSTRAP_API_KEY: KEY,
    MDG_METRICS_ENABLED: process.env.MDG_METRICS_ENABLED ?? "true",
    LOG_LEVEL: "warn",
  };
  const child = spawn(process.execPath, ["dist/main.js"], { cwd: ROOT, env, stdio: ["ignore", "ignore", "inherit"] });
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const started = Date.now();
  await waitHealthy(port, child);
  log(
    `service ready on :${port} in ${Date.now() - started} ms (pid ${child.pid}); ` +
      `${CONNECTIONS} connections for ${DURATION_S} s, ${WARMUP_S} s of them warm-up`,
  );

  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const next = mix(inputs, rng(42));
  const samples: Sample[] = [];
  const rss: { at: number; mb: number; anon: number; file: number }[] = [];
  const t0 = Date.now();
  const end = t0 + DURATION_S * 1000;
  const rssTimer = setInterval(() => {
    const m = memoryMb(child.pid!);
    rss.push({ at: (Date.now() - t0) / 1000, mb: m.rss, anon: m.anon, file: m.file });
  }, 1000);
  const progress = setInterval(() => {
    const m = rss[rss.length - 1];
    log(
      `${Math.round((Date.now() - t0) / 1000)} s: ${samples.length} requests, ` +
        `RSS ${fmt(m?.mb ?? NaN)} MiB (anonymous ${fmt(m?.anon ?? NaN)})`,
    );
  }, 30_000);
  const failures = new Map<string, number>();

  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < end) {
        const call = next();
        const begun = performance.now();
        let status = 0;
        let error: boolean;
        try {
          status = (await send(agent, port, call)).status;
          error = !call.expect.includes(status);
        } catch (e) {
          error = true;
          failures.set(
            `${call.kind}: ${(e as Error).message}`,
            (failures.get(`${call.kind}: ${(e as Error).message}`) ?? 0) + 1,
          );
        }
        if (error && status)
          failures.set(`${call.kind}: status ${status}`, (failures.get(`${call.kind}: status ${status}`) ?? 0) + 1);
        samples.push({ at: (Date.now() - t0) / 1000, ms: performance.now() - begun, kind: call.kind, status, error });
      }
    }),
  );
  clearInterval(rssTimer);
  clearInterval(progress);
  agent.destroy();

  // A graceful stop under the same service: every request was answered, so it must exit 0.
  child.kill("SIGTERM");
  const exitCode = await exited;

  const measured = samples.filter((s) => s.at >= WARMUP_S);
  const errors = measured.filter((s) => s.error).length;
  const span = DURATION_S - WARMUP_S;
  const windowS = Math.min(60, span / 3);
  const first = measured.filter((s) => s.at < WARMUP_S + windowS).map((s) => s.ms);
  const last = measured.filter((s) => s.at >= DURATION_S - windowS).map((s) => s.ms);
  const p99First = percentile(first, 99);
  const p99Last = percentile(last, 99);
  // Medians over the same windows as p99: V8 grows its heap and gives it back in a sawtooth of tens of MiB,
  // so a few seconds' samples say more about the phase of the collector than about a leak.
  const inFirst = (r: { at: number }) => r.at >= WARMUP_S && r.at < WARMUP_S + windowS;
  const inLast = (r: { at: number }) => r.at >= DURATION_S - windowS;
  const rssAfterWarmup = median(rss.filter(inFirst).map((r) => r.mb));
  const rssEnd = median(rss.filter(inLast).map((r) => r.mb));
  const floorFirst = Math.min(...rss.filter(inFirst).map((r) => r.mb));
  const floorLast = Math.min(...rss.filter(inLast).map((r) => r.mb));
  const rssPeak = Math.max(...rss.map((r) => r.mb));
  const part = (key: "anon" | "file", inWindow: (r: { at: number }) => boolean) =>
    median(rss.filter(inWindow).map((r) => r[key]));
  const anonAfter = part("anon", inFirst);
  const anonEnd = part("anon", inLast);
  const fileAfter = part("file", inFirst);
  const fileEnd = part("file", inLast);
  const growth = ((rssEnd - rssAfterWarmup) / rssAfterWarmup) * 100;
  const rps = measured.length / span;
  const statuses = new Map<number, number>();
  for (const s of measured) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
  const byKind = new Map<string, number[]>();
  for (const s of measured) {
    const xs = byKind.get(s.kind) ?? [];
    xs.push(s.ms);
    byKind.set(s.kind, xs);
  }

  const errorsOk = errors === 0;
  const rssOk = growth < TARGET_RSS_GROWTH;
  const verdict = (ok: boolean) => (ok ? "met" : "**missed**");
  const lines = [
    "## Soak",
    "",
    "Written by `npm run soak` (scripts/soak.ts); every number in this section comes from one run of it. " +
      "Not part of `npm test`.",
    "",
    `- Run: ${new Date().toISOString()}, revision ${revision()}; Node.js ${process.version}, ` +
      `${cpus().length} cores, ${fmt(totalmem() / 2 ** 30)} GiB ` +
      "(the service, the load and anything else running share the cores).",
    "- Service: `node dist/main.js` (NODE_ENV=production, LOG_LEVEL=warn, rate limits in memory) " +
      `on the full store \`${STORE.replace(`${ROOT}/`, "")}\`, called with its bootstrap key; ` +
      `stopped with SIGTERM at the end: exit code ${exitCode}.`,
    `- Load: ${CONNECTIONS} keep-alive connections in a closed loop for ${DURATION_S} s; ` +
      `the first ${WARMUP_S} s are warm-up and left out. ` +
      "Mix (weights): REST v1 and v0 quote, crypto/price, etf/profile and holdings, fund/profile, candle, search, " +
      "list/stocks, dividends/annual, stock/financials/ttm, bulk quote × 20, two /graphql operations, " +
      "and about 8 % client mistakes (unknown symbol, malformed JSON, bad key, wrong method) " +
      "whose answers (404, 404, 401, 404) count as right.",
    "- An error is a transport failure or timeout, a 5xx, or a status the call should not get " +
      "(a valid call may get 404 where a security has no such data).",
    `- Windows: the first ${fmt(windowS, 0)} s after warm-up against the last ${fmt(windowS, 0)} s, ` +
      "for p99 and for RSS (the service's VmRSS, sampled every second: median of each window, " +
      "and its floor, the lowest sample).",
    "",
    "| measure | value | target |",
    "|---|---|---|",
    `| requests (after warm-up) | ${measured.length.toLocaleString("en")} (${fmt(rps, 0)} req/s) | |`,
    `| errors | ${errors} (${fmt((errors / Math.max(1, measured.length)) * 100, 3)} %) | 0: ${verdict(errorsOk)} |`,
    `| statuses | ${[...statuses.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([s, n]) => `${s}: ${n.toLocaleString("en")}`)
      .join(", ")} | |`,
    `| p99 first window | ${fmt(p99First)} ms | |`,
    `| p99 last window | ${fmt(p99Last)} ms | drift ${fmt(((p99Last - p99First) / p99First) * 100)} % |`,
    `| p50 overall | ${fmt(median(measured.map((s) => s.ms)))} ms | |`,
    `| RSS, first window | ${fmt(rssAfterWarmup)} MiB (floor ${fmt(floorFirst)}) | |`,
    `| RSS, last window | ${fmt(rssEnd)} MiB (floor ${fmt(floorLast)}; peak of the run ${fmt(rssPeak)}) ` +
      `| growth ${fmt(growth)} %, < ${TARGET_RSS_GROWTH} %: ${verdict(rssOk)} |`,
    `| of which anonymous (heaps) | ${fmt(anonAfter)} → ${fmt(anonEnd)} MiB ` +
      `| growth ${fmt(((anonEnd - anonAfter) / anonAfter) * 100)} % |`,
    `| of which file-backed (the store's mapped pages) | ${fmt(fileAfter)} → ${fmt(fileEnd)} MiB | |`,
    "",
    "p99 by kind of call (ms, after warm-up):",
    "",
    "| call | requests | p50 | p99 |",
    "|---|---|---|---|",
    ...[...byKind.entries()]
      .sort((a, b) => b[1].length - a[1].length)
      .map(
        ([k, xs]) => `| ${k} | ${xs.length.toLocaleString("en")} | ${fmt(median(xs))} | ${fmt(percentile(xs, 99))} |`,
      ),
    ...(failures.size ? ["", "Errors:", "", ...[...failures.entries()].map(([k, n]) => `- ${k}: ${n}`)] : []),
  ];
  const text = lines.join("\n");
  process.stdout.write(`${text}\n`);
  if (process.env.SOAK_WRITE !== "0") {
    writeSection(text);
    log("wrote the Soak section of BENCHMARKS.md");
  }
  return errorsOk && rssOk && exitCode === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(2);
  },
);
