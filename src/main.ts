import "reflect-metadata";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import { existsSync, mkdirSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createApp } from "./app";
import { ApiKeyService } from "./auth/auth.service";
import { systemClock } from "./common/clock";
import { loadConfig } from "./config";
import { createLogger } from "./logger";
import { ensureSampleStore } from "./sample/sample.store";
import { SearchIndex } from "./search/search.index";
import { createHttpServer } from "./server/server.http";
import { trackConnections } from "./server/server.shutdown";
import { openSqliteSource } from "./sources/sqlite/sqlite.source";

/**
 * One full garbage collection, now. V8 offers it only behind --expose-gc;
 * turning that flag on at run time and calling `gc` from a fresh context is
 * the documented way without changing how the service is started.
 */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

/**
 * V8 lets the old generation grow to four times what survived the last full
 * collection when the machine has plenty of memory; under bulk load that is
 * 350 MiB of resident memory for about 70 MiB of live data. Growing by 80 %
 * holds the peak near 250 MiB for a few percent more CPU in collections
 * (BENCHMARKS.md), with no hard cap that could end the process.
 */
const HEAP_GROWING_PERCENT = 80;

async function main(): Promise<void> {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  // A local .env is a convenience for trial runs; the environment always wins over it.
  if (existsSync(".env")) process.loadEnvFile(".env");
  const config = loadConfig();
  const logger = createLogger(config);

  mkdirSync(dirname(config.sqlitePath), { recursive: true });
  const built = await ensureSampleStore(config.sqlitePath, {
    seed: config.sample.seed,
    anchorDate: config.sample.anchorDate,
    log: (msg: string) => logger.info(msg),
  });
  if (built.built) logger.info({ ms: built.ms, path: config.sqlitePath }, "built the generated sample data set");

  const source = openSqliteSource(config.sqlitePath);
  const started = Date.now();
  const searchIndex = await SearchIndex.build(source);
  logger.info({ securities: searchIndex.size, ms: Date.now() - started }, "search index ready");
  // Building the index leaves about 90 MB of garbage that V8 would otherwise keep as heap for a long while.
  collectGarbage();

  const deps = { config, source, clock: systemClock, searchIndex };
  const apiKeys = new ApiKeyService(source, systemClock, { bootstrapKey: config.bootstrapApiKey });
  const { app, apollo } = await createApp(deps, apiKeys, logger);
  // Malformed HTTP answered with the contract's 404 (src/server/server.http.ts); connections followed for the drain.
  const server = createHttpServer(app, logger);
  const connections = trackConnections(server);
  server.listen(config.port, config.host, () => {
    const port = (server.address() as AddressInfo).port;
    logger.info(
      { port, dataSource: config.dataSource, rateLimits: config.rateLimit.redisUrl ? "redis" : "memory", bootstrapKey: config.bootstrapApiKey ? "set" : "unset" },
      `listening on http://localhost:${port} (GraphiQL at /graphql)`,
    );
  });

  // SIGTERM: stop accepting, answer every in-flight request (up to MDG_SHUTDOWN_TIMEOUT_MS), close the store, exit 0.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, "second signal: exiting now");
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, inFlight: connections.inFlight, deadlineMs: config.shutdownTimeoutMs }, "shutting down: no new connections, finishing in-flight requests");
    const result = await connections.drain(config.shutdownTimeoutMs);
    // Apollo's stop also closes the rate-limit counters (Redis connection).
    await apollo.stop().catch((err) => logger.error({ err }, "stopping GraphQL failed"));
    await source.close();
    if (result.drained) logger.info({ ms: result.ms }, "stopped: every in-flight request answered, store closed");
    else logger.error({ ms: result.ms, abandoned: result.abandoned }, "stopped at the shutdown deadline: connections of unfinished requests were closed");
    process.exit(result.drained ? 0 : 1);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("unhandledRejection", (err) => logger.error({ err }, "unhandled rejection"));
}

main().catch((err) => {
  // Config errors carry their own clear message; anything else is a start-up fault.
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
