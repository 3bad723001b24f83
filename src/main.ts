import type { Logger } from "pino";
import { existsSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { type Config, loadConfig } from "./platform/config";
import { createLogger } from "./platform/logger";
import { fullGarbageCollection } from "./platform/memory";
import type { SearchIndexReader } from "./domain/search/search.live";
import { checkDescriptorHeadroom } from "./http/server/server.connections";
import { type EarlyServer, listenEarly } from "./http/server/server.startup";
import type { ChangeNotice } from "./domain/ports/source.changes";
import { openSources, type Sources } from "./app.sources";

/**
 * The service's modules (GraphQL schema, Apollo, the REST routes, the search index), loaded only once the store is
 * there: a first start builds the sample store with none of them in memory, so their ~60 MiB and the build's peak do
 * not stack (BENCHMARKS.md, "Sample store"). The modules above are the few the early server and the build need.
 */
async function loadServiceModules() {
  await import("reflect-metadata");
  const [app, answers, devKey, auth, clock, index, live, hub, simulator, context] = await Promise.all([
    import("./app"),
    import("./domain/answers"),
    import("./platform/auth/auth.dev-key"),
    import("./platform/auth/auth.service"),
    import("./platform/clock"),
    import("./domain/search/search.index"),
    import("./domain/search/search.live"),
    import("./domain/live/live.hub"),
    import("./domain/live/live.simulator"),
    import("./http/http.context"),
  ]);
  return {
    createApp: app.createApp,
    SERVICE_PRINCIPAL: app.SERVICE_PRINCIPAL,
    ROW_STORE_ANSWERS: answers.ROW_STORE_ANSWERS,
    ensureDevKey: devKey.ensureDevKey,
    ApiKeyService: auth.ApiKeyService,
    systemClock: clock.systemClock,
    SearchIndex: index.SearchIndex,
    LiveSearchIndex: live.LiveSearchIndex,
    LiveHub: hub.LiveHub,
    TickSimulator: simulator.TickSimulator,
    createContext: context.createContext,
  };
}

/**
 * V8 lets the old generation grow to four times what survived the last full
 * collection when the machine has plenty of memory; under bulk load that is
 * 350 MiB of resident memory for about 70 MiB of live data. Growing by 80 %
 * holds the peak near 250 MiB for a few percent more CPU in collections,
 * with no hard cap that could end the process.
 */
const HEAP_GROWING_PERCENT = 80;

/**
 * While the search index is built: its ~1.5 s of reading the store leave ~90 MB of garbage over ~45 MB that lives, so
 * 80 % growth let the heap reach ~135 MB; 25 % holds it near 118 MB (peak RSS 234 → 214 MiB in a later start, and as
 * much in a first start, where this is the peak once the build is done: BENCHMARKS.md, "Sample store").
 */
const INDEX_HEAP_GROWING_PERCENT = 25;

/**
 * Builds the store when missing (in a worker; `signal` ends it), opens it, builds the search index and the app.
 * `early` answers meanwhile and says which phase it is in.
 */
async function openService(config: Config, logger: Logger, early: EarlyServer, signal: AbortSignal) {
  early.setPhase("building");
  // MDG_DATA_SOURCE picks the sources (src/sources/source.factory.ts); SQLite builds the sample data set when missing.
  const sources = await openSources(config, { log: (msg: string) => logger.info(msg), signal, logger });
  // A store build sets its own heap growth for its thread and puts V8's default back when done (sample.memory.ts).
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  if (sources.sampleBuilt) logger.info(sources.sampleBuilt, "built the generated sample data set");
  early.setPhase("starting");
  const source = sources.market;
  try {
    signal.throwIfAborted();
    const modules = await loadServiceModules();
    const { createApp, ROW_STORE_ANSWERS, ensureDevKey, ApiKeyService, systemClock, SearchIndex, LiveSearchIndex } =
      modules;
    const started = Date.now();
    // A store other processes write: the index follows its change notices (new, renamed, removed securities),
    // those committed while it is built included (applied again if the build saw them: no harm).
    let live: InstanceType<typeof LiveSearchIndex> | undefined;
    const meanwhile: ChangeNotice[] = [];
    sources.changes?.subscribe((notice) => (live ? live.apply(notice) : void meanwhile.push(notice)));
    // Gateway mode indexes nothing: the upstream searches itself.
    setFlagsFromString(`--heap-growing-percent=${INDEX_HEAP_GROWING_PERCENT}`);
    let built: InstanceType<typeof SearchIndex>;
    try {
      built = sources.answers ? await SearchIndex.empty() : await SearchIndex.build(source);
    } finally {
      setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    }
    logger.info({ securities: built.size, ms: Date.now() - started }, "search index ready");
    let searchIndex: SearchIndexReader = built;
    if (sources.changes) {
      const { changes } = sources;
      const following = new LiveSearchIndex(built, source, changes.catchUp && (() => changes.catchUp!()));
      for (const notice of meanwhile) await following.apply(notice);
      searchIndex = live = following;
    }
    // Building the index leaves about 90 MB of garbage that V8 would otherwise keep as heap for a long while.
    fullGarbageCollection();
    signal.throwIfAborted();

    const ingest = config.ingest.jobs.length > 0 ? await ingestJobs(config, sources, logger) : undefined;
    const { answers, metricsRegistry, upstreamState } = sources;
    const deps = {
      config,
      source,
      clock: systemClock,
      searchIndex,
      answers: answers ?? ROW_STORE_ANSWERS,
      // Gateway mode (its upstream client's) and MDG_INGEST (the scheduler's) never go together: config refuses it.
      metricsRegistry: metricsRegistry ?? ingest?.metrics?.registry,
      upstreamState,
      ingestStatus: ingest && (() => ingest.scheduler.status()),
      liveHub: new modules.LiveHub(),
    };
    const apiKeys = new ApiKeyService(sources.keys, systemClock, { bootstrapKey: config.bootstrapApiKey });
    // A first start with no key at all gets a local development key in the store's own file (data/dev-key for
    // data/market.db; never in production).
    await ensureDevKey(config, apiKeys, logger);
    const { app, apollo, upgrade, live: livePrices } = await createApp(deps, apiKeys, logger);
    if (signal.aborted) {
      await apollo.stop();
      signal.throwIfAborted();
    }
    // SIMULATED PRICES (docs/live.md): the generated sample has no market behind it, so by default its subscribed
    // quotes take a seeded random walk; MDG_SIMULATE_TICKS turns it on or off whatever the store.
    const sampleSeed = await generatedSampleSeed(config);
    let simulator: InstanceType<typeof modules.TickSimulator> | undefined;
    if (config.live.simulateTicks ?? sampleSeed !== undefined) {
      const ctx = modules.createContext(deps, "live-simulator", modules.SERVICE_PRINCIPAL);
      simulator = new modules.TickSimulator(livePrices.hub, (symbol) => deps.answers.quote.get(ctx, { symbol }), {
        seed: sampleSeed ?? config.sample.seed,
        tickMs: config.live.simulateTickMs,
        clock: systemClock,
        onError: (symbol, err) => logger.warn({ symbol, err }, "live: no last quote to simulate from"),
      });
      simulator.start();
      logger.info(
        { tickMs: config.live.simulateTickMs },
        "live: simulated ticks for subscribed symbols (MDG_SIMULATE_TICKS)",
      );
    }
    return { sources, app, apollo, upgrade, livePrices, simulator, ingest: ingest?.scheduler };
  } catch (err) {
    await sources.close();
    throw err;
  }
}

/**
 * MDG_INGEST's jobs (src/application/ingest/), run in this process into its own store: a SQLite store through a
 * connection of their own (so the service's connection sees their commits, as it sees any other writer's), a
 * PostgreSQL store through its pool, one replica per job under its advisory lock.
 */
async function ingestJobs(config: Config, sources: Sources, logger: Logger) {
  const [{ createIngestScheduler }, { openIngestSink }, { ImportSetupError }] = await Promise.all([
    import("./application/ingest/ingest.service"),
    import("./application/cli/ingest.cli"),
    import("./application/import/import.kinds"),
  ]);
  const importSink = sources.importSink;
  const openSink =
    config.dataSource === "sqlite"
      ? () => openIngestSink(config)
      : importSink
        ? async () => ({ sink: importSink(), close: async () => undefined })
        : async () => {
            throw new ImportSetupError(`ingesting into MDG_DATA_SOURCE=${config.dataSource} is not supported yet`);
          };
  return createIngestScheduler({
    config,
    openSink,
    locks: sources.locks,
    log: { info: (line) => logger.info(line), error: (line) => logger.error(line) },
  });
}

/** How long open WebSockets get to answer their 1001 close before they are cut. */
const WS_CLOSE_GRACE_MS = 2_000;

/**
 * The seed of the generated sample when the SQLite store is one (its `meta` row, which only the generator writes);
 * undefined for any other store.
 */
async function generatedSampleSeed(config: Config): Promise<number | undefined> {
  if (config.dataSource !== "sqlite" || !existsSync(config.sqlitePath)) return undefined;
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(config.sqlitePath, { readonly: true, fileMustExist: true });
  try {
    const seed = db.prepare("SELECT value FROM meta WHERE key = 'seed'").pluck().get() as string | undefined;
    return seed === undefined ? undefined : Number(seed);
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  // A local .env is a convenience for trial runs; the environment always wins over it.
  if (existsSync(".env")) process.loadEnvFile(".env");
  const config = loadConfig();
  const logger = createLogger(config);
  checkDescriptorHeadroom(config, logger);

  // Listening first: /healthz answers and /readyz says "building" while the store is built or opened (a worker
  // thread builds it, so the event loop stays free); the app is mounted on the same socket once it is ready.
  const early = await listenEarly(config, logger);
  const starting = new AbortController();
  let stop = async (signal: string): Promise<void> => {
    if (starting.signal.aborted) {
      logger.warn({ signal }, "second signal: exiting now");
      process.exit(1);
    }
    logger.info({ signal }, "shutting down during start-up: ending the store build, if any");
    starting.abort(new Error(`${signal} during start-up`));
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));

  let started: Awaited<ReturnType<typeof openService>>;
  try {
    started = await openService(config, logger, early, starting.signal);
  } catch (err) {
    if (!starting.signal.aborted) throw err;
    // ensureSampleStore has ended its worker, removed its scratch file and released the lock.
    await early.close();
    logger.info("stopped during start-up");
    process.exit(0);
  }
  const { sources, app, apollo, ingest, upgrade, livePrices, simulator } = started;
  await early.mount(app, upgrade);
  ingest?.start();
  if (ingest) logger.info({ jobs: config.ingest.jobs.map((j) => j.name) }, "ingest jobs scheduled (MDG_INGEST)");
  const { connections } = early;
  logger.info(
    {
      port: early.port,
      dataSource: config.dataSource,
      rateLimits: config.rateLimit.redisUrl ? "redis" : "memory",
      bootstrapKey: config.bootstrapApiKey ? "set" : "unset",
    },
    `listening on http://localhost:${early.port} (GraphiQL at /graphql)`,
  );

  // SIGTERM: /readyz 503, stop accepting, answer every in-flight request (up to MDG_SHUTDOWN_TIMEOUT_MS), close the
  // store, exit 0.
  let stopping = false;
  stop = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, "second signal: exiting now");
      process.exit(1);
    }
    stopping = true;
    logger.info(
      { signal, inFlight: connections.inFlight, deadlineMs: config.shutdownTimeoutMs },
      "shutting down: no new connections, finishing in-flight requests",
    );
    early.markUnready();
    // New WebSockets are refused from now on (the contract's 500); open ones are closed with 1001 after the drain.
    livePrices.ws.refuse();
    livePrices.graphql.refuse();
    simulator?.stop();
    // Kept listening a while (MDG_SHUTDOWN_DELAY_MS, 0 by default): a balancer that polls /readyz sees 503 first.
    if (config.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
    let socketsClosed: Promise<void> = Promise.resolve();
    const result = await connections.drain(config.shutdownTimeoutMs, () => {
      const grace = Math.min(WS_CLOSE_GRACE_MS, config.shutdownTimeoutMs);
      socketsClosed = Promise.all([livePrices.ws.close(grace), livePrices.graphql.close(grace)]).then(() => undefined);
    });
    await socketsClosed;
    // A run under way finishes its batch and stops there (or stops waiting to retry); the store closes after it.
    await ingest?.stop(Math.max(1_000, config.shutdownTimeoutMs - result.ms));
    // Apollo's stop also closes the rate-limit counters (Redis connection).
    await apollo.stop().catch((err) => logger.error({ err }, "stopping GraphQL failed"));
    await sources.close();
    if (result.drained) logger.info({ ms: result.ms }, "stopped: every in-flight request answered, store closed");
    else
      logger.error(
        { ms: result.ms, abandoned: result.abandoned },
        "stopped at the shutdown deadline: connections of unfinished requests were closed",
      );
    process.exit(result.drained ? 0 : 1);
  };
  process.on("unhandledRejection", (err) => logger.error({ err }, "unhandled rejection"));
}

main().catch((err) => {
  // A StartupError (config, listen, store) is one line naming the variable or path and what to fix; no stack.
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
