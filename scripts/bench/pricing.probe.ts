import "reflect-metadata";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Database from "better-sqlite3";
import pino from "pino";
import { createApp } from "../../src/app";
import { ApiKeyService } from "../../src/platform/auth/auth.service";
import { fixedClock } from "../../src/platform/clock";
import { loadConfig } from "../../src/platform/config";
import { SearchIndex } from "../../src/domain/search/search.index";
import { openSqliteSource, type SqliteSource } from "../../src/sources/sqlite/sqlite.source";
import { closeWorkerPool } from "../../src/platform/workers/worker.pool";
import { ROW_STORE_ANSWERS } from "../../src/domain/answers";

/**
 * Operation prices against measured CPU (BENCHMARKS.md "Operation prices"): for each shape of the heavy kinds (ETF
 * metrics, candles, bulk), the cost the limits assign and the CPU one operation takes, main thread and worker
 * threads together (`process.cpuUsage` counts every thread of the process; nothing else runs while one operation is
 * measured). CPU time, not wall time, so that other load on a shared machine changes little.
 *
 * `node -r @swc-node/register scripts/bench/pricing.probe.ts STORE` (a full sample store; `BENCH_ONLY=pricing npm
 * run bench` builds it when missing and runs this). Each shape runs twice unmeasured, then in PRICING_RUNS (default
 * 7) interleaved rounds; the median round is reported.
 */

const KEY = "pricing-bootstrap-key-0123456789abcdef";
const ANCHOR = "2026-11-20";
const NOW = Date.parse(`${ANCHOR}T15:00:00Z`) / 1000;
const YEAR = 365 * 86_400;
const DAY = 86_400;

interface Shape {
  name: string;
  kind: "light" | "heavy ETF metrics" | "candles" | "bulk";
  path: "/graphql" | "/v1/bulk";
  body: unknown;
}

export interface PricedShape {
  name: string;
  kind: Shape["kind"];
  cost: number;
  cpuMs: number;
  usPerUnit: number;
  bytes: number;
}

function shapes(db: Database.Database): Shape[] {
  const etfs = (
    db
      .prepare(
        `SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id
         WHERE s.type = 'etf' AND l.is_primary = 1 AND l.currency = 'USD'
           AND (SELECT MIN(t) FROM daily_bars b WHERE b.listing_id = l.id) <= ?
         ORDER BY l.symbol LIMIT 40`,
      )
      .all(NOW - 9 * YEAR) as { symbol: string }[]
  ).map((r) => r.symbol);
  const stock = (
    db
      .prepare(
        `SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id
         WHERE s.type = 'stock' AND l.is_primary = 1 AND l.currency = 'USD'
           AND EXISTS (SELECT 1 FROM intraday_bars b WHERE b.listing_id = l.id)
           AND (SELECT MIN(t) FROM daily_bars b WHERE b.listing_id = l.id) <= ?
         ORDER BY l.symbol LIMIT 60`,
      )
      .all(NOW - 9 * YEAR) as { symbol: string }[]
  ).map((r) => r.symbol);
  if (etfs.length < 31 || stock.length < 50) throw new Error("the store lacks ETFs or stocks with ten years of bars");
  const json = JSON.stringify;
  const figures = "totalReturn annualisedReturn annualisedVolatility sharpeRatio maxDrawdown { value }";
  const SCALARS = "totalReturn annualisedVolatility sharpeRatio";
  // ETFs listed in USD: USD is their own currency (not asked), another currency is a conversion.
  const metrics = (
    symbol: string,
    years: number,
    resolution: string,
    currency: string,
    series = false,
    asked = figures,
  ) => {
    const range = `from: ${Math.round(NOW - years * YEAR)}, to: ${NOW}, resolution: ${json(resolution)}`;
    const converted = currency === "USD" ? "" : `, currency: ${json(currency)}`;
    const points = series ? " series { t value periodReturn cumulativeReturn }" : "";
    return `etf(symbol: ${json(symbol)}) { metrics(${range}${converted}) { ${asked}${points} } }`;
  };
  const gql = (name: string, kind: Shape["kind"], query: string): Shape => ({
    name,
    kind,
    path: "/graphql",
    body: { query },
  });
  // Figures only, as a dashboard of many ETFs asks them.
  const aliased = (n: number, years: number, currency: string) =>
    `{ ${etfs
      .slice(0, n)
      .map((etf, i) => `a${i}: ${metrics(etf, years, "D", currency, false, SCALARS)}`)
      .join(" ")} }`;
  const candle = (symbol: string, from: number, resolution: string, currency?: string) =>
    `{ candle(symbol: ${json(symbol)}, from: ${from}, to: ${NOW}, resolution: ${json(resolution)}` +
    `${currency ? `, currency: ${json(currency)}` : ""}) { t o h l c v } }`;
  const bulk = (name: string, endpoint: string, n: number, symbols: string[], params: object): Shape => ({
    name,
    kind: "bulk",
    path: "/v1/bulk",
    body: { endpoint, symbols: symbols.slice(0, n).map((symbol) => ({ symbol })), params },
  });
  const e = etfs[0]!;
  const s = stock[0]!;
  return [
    // The floor: what any operation costs the process, whatever it asks.
    gql("quote (light, for reference)", "light", `{ quote(symbol: ${json(s)}) { c d dp h l o pc t } }`),
    gql("ETF metrics, 1 y, D, USD", "heavy ETF metrics", `{ ${metrics(e, 1, "D", "USD")} }`),
    gql("ETF metrics, 5 y, D, USD", "heavy ETF metrics", `{ ${metrics(e, 5, "D", "USD")} }`),
    gql("ETF metrics, 10 y, D, USD", "heavy ETF metrics", `{ ${metrics(e, 10, "D", "USD")} }`),
    gql("ETF metrics, 10 y, D, in JPY", "heavy ETF metrics", `{ ${metrics(e, 10, "D", "JPY")} }`),
    gql("ETF metrics, 10 y, W, USD", "heavy ETF metrics", `{ ${metrics(e, 10, "W", "USD")} }`),
    gql("ETF metrics, 1 y, D, in EUR", "heavy ETF metrics", `{ ${metrics(e, 1, "D", "EUR")} }`),
    gql("ETF metrics, 10 y, M, USD", "heavy ETF metrics", `{ ${metrics(e, 10, "M", "USD")} }`),
    gql("ETF metrics, 1 y, D, USD, with series", "heavy ETF metrics", `{ ${metrics(e, 1, "D", "USD", true)} }`),
    gql("ETF metrics, 10 y, D, USD, with series", "heavy ETF metrics", `{ ${metrics(e, 10, "D", "USD", true)} }`),
    gql("5 aliased ETF metrics, 10 y, D, USD", "heavy ETF metrics", aliased(5, 10, "USD")),
    // Next to the costliest of its kind the default limit accepts (33 ETFs over ten years in JPY cost 9,929).
    gql("32 aliased ETF metrics, 10 y, D, in JPY", "heavy ETF metrics", aliased(32, 10, "JPY")),
    gql("candle, 1 y, D", "candles", candle(s, NOW - YEAR, "D")),
    gql("candle, 10 y, D", "candles", candle(s, NOW - 10 * YEAR, "D")),
    gql("candle, 10 y, D, in EUR", "candles", candle(s, NOW - 10 * YEAR, "D", "EUR")),
    gql("candle, 10 y, W", "candles", candle(s, NOW - 10 * YEAR, "W")),
    gql("candle, 10 y, M", "candles", candle(s, NOW - 10 * YEAR, "M")),
    gql("candle, 1 week, 5", "candles", candle(s, NOW - 7 * DAY, "5")),
    gql("candle, 1 week, 60", "candles", candle(s, NOW - 7 * DAY, "60")),
    bulk("bulk quote × 100", "quote", 100, [...stock, ...etfs], {}),
    bulk("bulk candle × 10, 1 y, D", "candle", 10, stock, { from: NOW - YEAR, to: NOW, resolution: "D" }),
    bulk("bulk candle × 20, 1 y, D", "candle", 20, stock, { from: NOW - YEAR, to: NOW, resolution: "D" }),
    bulk("bulk candle × 2, 10 y, D", "candle", 2, stock, { from: NOW - 10 * YEAR, to: NOW, resolution: "D" }),
    bulk("bulk etf/metrics × 3, 10 y, D", "etf/metrics", 3, etfs, { from: NOW - 10 * YEAR, to: NOW, resolution: "D" }),
    bulk("bulk etf/metrics × 10, 1 y, D", "etf/metrics", 10, etfs, { from: NOW - YEAR, to: NOW, resolution: "D" }),
  ];
}

interface Answer {
  status: number;
  body: string;
}

function post(port: number, path: string, body: unknown): Promise<Answer> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": KEY, "content-length": Buffer.byteLength(text) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

/**
 * The service over `store` in this process, as the root builds it (fixed clock at the sample's anchor, bootstrap
 * key `key`, logs off), listening on `port` of 127.0.0.1 (0: any free one). The in-process benches share it.
 */
export async function serve(
  store: string,
  env: Record<string, string>,
  port: number,
  key = KEY,
): Promise<{ server: Server; source: SqliteSource; close(): Promise<void> }> {
  const config = loadConfig({
    MDG_BOOTSTRAP_API_KEY: key,
    MDG_SQLITE_PATH: store,
    LOG_LEVEL: "silent",
    NODE_ENV: "production",
    MDG_REQUEST_TIMEOUT_MS: "60000",
    ...env,
  });
  const source = openSqliteSource(store, { mustExist: true });
  const clock = fixedClock(`${ANCHOR}T15:00:00Z`);
  const searchIndex = await SearchIndex.build(source);
  const apiKeys = new ApiKeyService(source.keys, clock, { bootstrapKey: key });
  const { app, apollo } = await createApp(
    { config, source, clock, searchIndex, answers: ROW_STORE_ANSWERS },
    apiKeys,
    pino({ level: "silent" }),
  );
  const server = createServer(app);
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return {
    server,
    source,
    async close() {
      await new Promise((r) => server.close(r));
      await apollo.stop();
      await source.close();
    },
  };
}

/** The cost the limits assign: what the door says when the limit is 1 and the shape is refused for it. */
function refusedCost(shape: Shape, answer: Answer): number {
  // Not refused at a limit of 1: it costs 1 (every object field costs at least that).
  if (answer.status === 200 && !answer.body.includes('"errors"')) return 1;
  if (shape.path === "/graphql") {
    const body = JSON.parse(answer.body) as { errors?: { extensions?: { actual?: number } }[] };
    const actual = body.errors?.[0]?.extensions?.actual;
    if (typeof actual !== "number") throw new Error(`${shape.name}: no cost in ${answer.body.slice(0, 300)}`);
    return actual;
  }
  const m = /this call costs (\d+)/.exec(answer.body);
  if (!m) throw new Error(`${shape.name}: no cost in ${answer.body.slice(0, 300)}`);
  return Number(m[1]);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function priceShapes(
  store: string,
  opts: { runs?: number; port?: number; log?: (s: string) => void } = {},
): Promise<PricedShape[]> {
  const runs = opts.runs ?? Number(process.env.PRICING_RUNS ?? 7);
  const log = opts.log ?? ((s: string) => console.error(s));
  const db = new Database(store, { readonly: true, fileMustExist: true });
  const list = shapes(db);
  db.close();
  const port = opts.port ?? 0;
  const priced = await serve(store, {}, port);
  const pricer = await serve(store, { MDG_GRAPHQL_MAX_COST: "1" }, 0);
  const portOf = (s: Server) => (s.address() as AddressInfo).port;
  const out: PricedShape[] = [];
  try {
    // Every shape first, twice, unmeasured: the main thread's and the worker's code is then as optimised for the
    // first shape measured as for the last.
    const costs = new Map<Shape, number>();
    const bytes = new Map<Shape, number>();
    for (let round = 0; round < 2; round++) {
      for (const shape of list) {
        if (round === 0)
          costs.set(shape, refusedCost(shape, await post(portOf(pricer.server), shape.path, shape.body)));
        const warm = await post(portOf(priced.server), shape.path, shape.body);
        if (warm.status !== 200 || warm.body.includes('"errors"')) {
          throw new Error(`${shape.name}: ${warm.status} ${warm.body.slice(0, 300)}`);
        }
        bytes.set(shape, warm.body.length);
      }
    }
    // Interleaved rounds (every shape once per round), so that a change in the machine's other load falls on every
    // shape alike; a cheap shape repeats within its round until it has spent about 20 ms, and counts per operation.
    const reps = new Map<Shape, number>();
    for (const shape of list) {
      const before = process.cpuUsage();
      await post(portOf(priced.server), shape.path, shape.body);
      const used = process.cpuUsage(before);
      reps.set(shape, Math.min(50, Math.max(1, Math.ceil(20_000 / Math.max(1, used.user + used.system)))));
    }
    const samples = new Map<Shape, number[]>(list.map((shape) => [shape, []]));
    for (let round = 0; round < runs; round++) {
      for (const shape of list) {
        const n = reps.get(shape)!;
        const before = process.cpuUsage();
        for (let i = 0; i < n; i++) await post(portOf(priced.server), shape.path, shape.body);
        const used = process.cpuUsage(before);
        samples.get(shape)!.push((used.user + used.system) / 1000 / n);
      }
    }
    for (const shape of list) {
      const cost = costs.get(shape)!;
      const cpuMs = median(samples.get(shape)!);
      const row = {
        name: shape.name,
        kind: shape.kind,
        cost,
        cpuMs,
        usPerUnit: (cpuMs * 1000) / cost,
        bytes: bytes.get(shape)!,
      };
      log(`${row.name}: cost ${cost}, ${cpuMs.toFixed(1)} ms CPU, ${row.usPerUnit.toFixed(1)} µs/unit`);
      out.push(row);
    }
  } finally {
    await priced.close();
    await pricer.close();
    await closeWorkerPool();
  }
  return out;
}

/** The table BENCHMARKS.md records. */
export function pricingTable(rows: readonly PricedShape[]): string[] {
  const lines = [
    "| shape | kind | cost (units) | CPU ms | CPU µs per unit | answer bytes |",
    "|---|---|---:|---:|---:|---:|",
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.name} | ${r.kind} | ${r.cost.toLocaleString("en-US")} | ${r.cpuMs.toFixed(1)} | ` +
        `${r.usPerUnit.toFixed(1)} | ${r.bytes.toLocaleString("en-US")} |`,
    );
  }
  // The light quote is the floor every operation pays, for reference: the target is over the heavy kinds.
  const per = rows.filter((r) => r.kind !== "light").map((r) => r.usPerUnit);
  const lo = Math.min(...per);
  const hi = Math.max(...per);
  lines.push("");
  lines.push(
    `CPU µs per unit over the ETF-metrics, candle and bulk shapes: ${lo.toFixed(1)} to ${hi.toFixed(1)}, ` +
      `a spread of ${(hi / lo).toFixed(2)}× (target: within 2×).`,
  );
  return lines;
}

if (require.main === module) {
  const store = process.argv[2];
  if (!store) {
    console.error("usage: pricing.probe.ts STORE");
    process.exit(2);
  }
  priceShapes(store)
    .then((rows) => console.log(pricingTable(rows).join("\n")))
    .catch((e) => {
      console.error(e instanceof Error ? (e.stack ?? e.message) : e);
      process.exitCode = 1;
    });
}
