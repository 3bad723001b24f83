import "reflect-metadata";
import { createServer } from "node:http";
import { dirname } from "node:path";
import { existsSync, mkdirSync } from "node:fs";
import { createApp } from "./app";
import { ApiKeyService } from "./auth/auth.service";
import { systemClock } from "./common/clock";
import { loadConfig } from "./config";
import { createLogger } from "./logger";
import { ensureSampleStore } from "./sample/sample.store";
import { SearchIndex } from "./search/search.index";
import { openSqliteSource } from "./sources/sqlite/sqlite.source";

async function main(): Promise<void> {
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

  const deps = { config, source, clock: systemClock, searchIndex };
  const apiKeys = new ApiKeyService(source, systemClock, { bootstrapKey: config.bootstrapApiKey });
  const { app, apollo } = await createApp(deps, apiKeys, logger);
  const server = createServer(app);
  server.keepAliveTimeout = 65_000;
  server.listen(config.port, config.host, () => {
    logger.info({ port: config.port, dataSource: config.dataSource, bootstrapKey: config.bootstrapApiKey ? "set" : "unset" }, `listening on http://localhost:${config.port} (GraphiQL at /graphql)`);
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: finishing in-flight requests");
    server.close(async () => {
      await apollo.stop().catch(() => undefined);
      await source.close();
      logger.info("stopped");
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("unhandledRejection", (err) => logger.error({ err }, "unhandled rejection"));
}

main().catch((err) => {
  // Config errors carry their own clear message; anything else is a start-up fault.
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
