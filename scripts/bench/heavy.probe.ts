import "reflect-metadata";
import { monitorEventLoopDelay } from "node:perf_hooks";
import pino from "pino";
import request from "supertest";
import { createApp } from "../../src/app";
import { ApiKeyService } from "../../src/platform/auth/auth.service";
import { fixedClock } from "../../src/platform/clock";
import { loadConfig } from "../../src/platform/config";
import { SearchIndex } from "../../src/domain/search/search.index";
import { openSqliteSource } from "../../src/sources/sqlite/sqlite.source";
import { ROW_STORE_ANSWERS } from "../../src/domain/answers";

/**
 * In-process probe of one heavy operation: CPU of this process, the longest
 * event-loop block, heap growth. `node -r @swc-node/register scripts/bench/heavy.probe.ts STORE [what]`.
 */
const KEY = "probe-bootstrap-key-0123456789";

async function main(): Promise<void> {
  const store = process.argv[2]!;
  const what = process.argv[3] ?? "bulk-metrics";
  const config = loadConfig({
    MDG_BOOTSTRAP_API_KEY: KEY,
    MDG_SQLITE_PATH: store,
    LOG_LEVEL: "silent",
    NODE_ENV: "test",
    MDG_REQUEST_TIMEOUT_MS: "60000",
  });
  const source = openSqliteSource(store, { mustExist: true });
  const clock = fixedClock("2026-11-20T15:00:00Z");
  const searchIndex = await SearchIndex.build(source);
  const apiKeys = new ApiKeyService(source.keys, clock, { bootstrapKey: KEY });
  const { app, apollo } = await createApp(
    { config, source, clock, searchIndex, answers: ROW_STORE_ANSWERS },
    apiKeys,
    pino({ level: "silent" }),
  );
  const http = request(app);
  const etfs = (
    source.db
      .prepare(
        "SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id " +
          "WHERE s.type = 'etf' AND l.is_primary = 1 ORDER BY l.symbol LIMIT 200",
      )
      .all() as { symbol: string }[]
  ).map((r) => r.symbol);
  const stocks = (
    source.db
      .prepare(
        "SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id " +
          "WHERE s.type = 'stock' AND l.is_primary = 1 ORDER BY l.symbol LIMIT 100",
      )
      .all() as { symbol: string }[]
  ).map((r) => r.symbol);
  const from = 1451606400;
  const run = async () => {
    if (what === "bulk-metrics") {
      const n = Number(process.argv[4] ?? etfs.length);
      return http
        .post("/v1/bulk")
        .set("x-api-key", KEY)
        .set("content-type", "application/json")
        .send({
          endpoint: "etf/metrics",
          symbols: etfs.slice(0, n).map((symbol) => ({ symbol })),
          params: { from, resolution: "D" },
        });
    }
    if (what === "gql-etfs") {
      const n = Number(process.argv[4] ?? etfs.length);
      const query =
        "query($s:[String!]!){ etfs(symbols:$s){ " +
        `metrics(from:${from}, resolution:"D"){ totalReturn sharpeRatio } } }`;
      return http
        .post("/graphql")
        .set("x-api-key", KEY)
        .set("content-type", "application/json")
        .send({ query, variables: { s: etfs.slice(0, n) } });
    }
    if (what === "gql-metrics") {
      const aliases = Number(process.argv[4] ?? 5);
      const body = Array.from(
        { length: aliases },
        (_, i) => `a${i}: etfs(symbols:$s){ metrics(from:${from}, resolution:"D"){ totalReturn } }`,
      ).join(" ");
      return http
        .post("/graphql")
        .set("x-api-key", KEY)
        .set("content-type", "application/json")
        .send({ query: `query($s:[String!]!){ ${body} }`, variables: { s: etfs } });
    }
    const body = stocks
      .map(
        (s, i) =>
          `c${i}: candle(symbol:"${s}", from:${from - 5 * 365 * 86400}, to:1763596800, resolution:"D"){ t o h l c v }`,
      )
      .join(" ");
    return http
      .post("/graphql")
      .set("x-api-key", KEY)
      .set("content-type", "application/json")
      .send({ query: `{ ${body} }` });
  };
  await run(); // warm-up
  global.gc?.();
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const heap0 = process.memoryUsage();
  let peak = heap0.heapUsed + heap0.arrayBuffers;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.heapUsed + m.arrayBuffers);
  }, 2);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const res = await run();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  h.disable();
  const m = process.memoryUsage();
  peak = Math.max(peak, m.heapUsed + m.arrayBuffers);
  console.log(
    JSON.stringify({
      what,
      items: etfs.length,
      status: res.status,
      bytes: res.text.length,
      wallMs: Math.round(wall),
      mainCpuMs: Math.round((cpu.user + cpu.system) / 1000),
      maxLoopBlockMs: Math.round(h.max / 1e6),
      transientMb: Math.round((peak - heap0.heapUsed - heap0.arrayBuffers) / 2 ** 20),
      body: res.status === 200 ? undefined : res.text.slice(0, 300),
    }),
  );
  await apollo.stop();
  await source.close();
}
void main();
