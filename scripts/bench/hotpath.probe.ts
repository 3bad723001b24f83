import "reflect-metadata";
import { performance } from "node:perf_hooks";
import { createContext, type AppDeps } from "../../src/http/http.context";
import { SearchIndex } from "../../src/domain/search/search.index";
import { getSchema } from "../../src/http/graphql/schema";
import { parseBody } from "../../src/http/rest/rest.body";
import { executeRoute } from "../../src/http/rest/rest.execute";
import { ROUTES } from "../../src/http/rest/rest.routes";
import { ApiKeyService } from "../../src/platform/auth/auth.service";
import { systemClock } from "../../src/platform/clock";
import { loadConfig } from "../../src/platform/config";
import { cacheInstruments } from "../../src/sources/source.cache";
import { openSqliteSource } from "../../src/sources/sqlite/sqlite.source";
import { ROW_STORE_ANSWERS } from "../../src/domain/answers";

/**
 * In-process probe of the REST single-security operations without HTTP: the body parsed by the route's zod schema,
 * a fresh context (the request's loaders), the operation compiled by graphql-jit, the response shape. CPU per call of
 * this process, over the same inputs as the bench (5,000 quote symbols of every listing with a quote, every crypto
 * pair, every ETF), after a warm-up that fills the instrument cache.
 *
 * `node -r @swc-node/register scripts/bench/hotpath.probe.ts STORE [quote|crypto/price|etf/profile ...]`;
 * with `--cpu-prof` it gives the profile of the operations alone.
 */
const KEY = "probe-bootstrap-key-0123456789";

function shuffled<T>(items: readonly T[], seed = 42): T[] {
  const out = [...items];
  let s = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function main(): Promise<void> {
  const store = process.argv[2]!;
  const paths = process.argv.slice(3).length ? process.argv.slice(3) : ["quote", "crypto/price", "etf/profile"];
  const config = loadConfig({ MDG_BOOTSTRAP_API_KEY: KEY, MDG_SQLITE_PATH: store, LOG_LEVEL: "silent" });
  const sqlite = openSqliteSource(store, { mustExist: true });
  const deps: AppDeps = {
    config,
    source: cacheInstruments(sqlite, config.instrumentCacheBytes).source,
    clock: systemClock,
    searchIndex: await SearchIndex.build(sqlite),
    answers: ROW_STORE_ANSWERS,
  };
  const principal = await new ApiKeyService(sqlite.keys, systemClock, { bootstrapKey: KEY }).authenticate(KEY);
  const schema = getSchema();
  const symbols = (sql: string) => (sqlite.db.prepare(sql).all() as { symbol: string }[]).map((r) => r.symbol);
  const primary = (type: string) =>
    shuffled(
      symbols(
        "SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1 " +
          `JOIN quotes q ON q.listing_id = l.id WHERE s.type = '${type}'`,
      ),
    );
  const inputs: Record<string, string[]> = {
    quote: shuffled(symbols("SELECT l.symbol FROM listings l JOIN quotes q ON q.listing_id = l.id")).slice(0, 5000),
    "crypto/price": primary("crypto"),
    "etf/profile": primary("etf"),
  };
  const calls = Number(process.env.PROBE_CALLS ?? 30000);
  for (const path of paths) {
    const entry = ROUTES.find((r) => r.path === path);
    const bodies = inputs[path];
    if (!entry || !("operation" in entry) || !bodies) throw new Error(`no single-security route ${path}`);
    const raw = bodies.map((symbol) => JSON.stringify({ symbol }));
    const one = async (k: number) => {
      const variables = parseBody(entry.body, JSON.parse(raw[k % raw.length]!) as unknown);
      const ctx = createContext(deps, String(k), principal);
      return executeRoute(schema, entry, variables as Record<string, unknown>, ctx, "v1");
    };
    // Warm-up: twice over the inputs, so every key is kept by the cache (from its second miss on).
    for (let k = 0; k < raw.length * 2 + 2000; k++) await one(k);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let bytes = 0;
    // One call per turn of the event loop, as requests arriving one at a time are answered (the worst case for what
    // is done once per turn).
    for (let k = 0; k < calls; k++) {
      bytes += JSON.stringify(await one(k)).length;
      await new Promise((r) => setImmediate(r));
    }
    const cpu = process.cpuUsage(cpu0);
    const wall = performance.now() - t0;
    console.log(
      `${path.padEnd(14)} ${((cpu.user + cpu.system) / calls).toFixed(1)} µs CPU/call, ` +
        `${((wall * 1000) / calls).toFixed(1)} µs wall/call, ${(bytes / calls).toFixed(0)} bytes of JSON`,
    );
  }
  await sqlite.close();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
