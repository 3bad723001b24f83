import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { Answers } from "../domain/answers";
import type { ApiKeyStore } from "../platform/auth/auth.types";
import { StartupError } from "../platform/errors";
import type { Config } from "../platform/config";
import type { MarketDataSource } from "../domain/ports/source.capabilities";
import type { SampleBuilder } from "./source.sample";
import type { ChangeFeed } from "../domain/ports/source.changes";
import type { ImportSink } from "../domain/ports/source.import";
import type { JobLocks } from "../domain/ports/source.locks";
import type { UpstreamState } from "./upstream/upstream.types";
import { assertStorePath } from "./sqlite/sqlite.open";

/** What the service reads: its market data, and its own API keys (apart: a gateway keeps its keys). */
export interface Sources {
  market: MarketDataSource;
  keys: ApiKeyStore;
  /**
   * Set when the sample data set was built for this start (how long it took, and where: the SQLite file, or
   * `postgres` with the SQLite build's and the copy's share of the time).
   */
  sampleBuilt?: { ms: number; path: string; buildMs?: number; copyMs?: number };
  /** Change notices, when other processes write the store (an import, replicas): the search index follows them. */
  changes?: ChangeFeed;
  /** Gateway mode: the answers over the upstream (the row-store services otherwise). */
  answers?: Answers;
  /** Gateway mode: the upstream client's metrics, for /metrics. */
  metricsRegistry?: Registry;
  /** Gateway mode: the upstream's state, for /readyz. */
  upstreamState?: () => UpstreamState;
  /** The import pipeline's writer into this store, on the same connection or pool (absent: it takes no imports). */
  importSink?: () => ImportSink;
  /** Store-wide locks of scheduled jobs, when replicas share the store (PostgreSQL). */
  locks?: JobLocks;
  /** Closes whatever was opened, once. */
  close(): Promise<void>;
}

export interface OpenSourcesOptions {
  log?: (msg: string) => void;
  /**
   * Build the generated sample data set when the SQLite file is missing
   * (default: yes). The keys CLI says no: it never fills a store by accident.
   */
  buildSample?: boolean;
  /** Open the store read-only (and refuse a missing one). */
  readonly?: boolean;
  /** Ends a sample build under way (SIGTERM during start-up): its worker, scratch file and lock go with it. */
  signal?: AbortSignal;
  /** Gateway mode: where the upstream client tells the operator of a refused upstream key (never the key). */
  logger?: Logger;
  /**
   * Builds the generated sample (the generator's `ensureSampleStore`), given by the composition root
   * (src/app.sources.ts) so that no adapter imports the generator. Required when a sample may be built.
   */
  sampleBuilder?: SampleBuilder;
  /** Gateway mode: the REST paths bulk may name (`bulkPathsOf(ROUTES)`), which the client batches. */
  bulkPaths?: ReadonlySet<string>;
}

export type { SampleBuilder };

function builderOf(opts: OpenSourcesOptions): SampleBuilder {
  if (!opts.sampleBuilder)
    throw new StartupError("openSources: a sample may be built here, but no sampleBuilder was given");
  return opts.sampleBuilder;
}

/** Why the service refuses to start with this MDG_DATA_SOURCE: a clear message, no stack. */
export class SourceUnavailableError extends StartupError {
  override name = "SourceUnavailableError";
}

/**
 * The one place that turns `MDG_DATA_SOURCE` into sources: used by main.ts,
 * the keys CLI and the benchmarks, through src/app.sources.ts, which gives it
 * the sample generator (loaded only when a store must be built: nothing that
 * serves a request imports it) and the route table's bulk paths.
 */
export async function openSources(config: Config, opts: OpenSourcesOptions = {}): Promise<Sources> {
  switch (config.dataSource) {
    case "sqlite":
      return openSqlite(config, opts);
    case "postgres":
      return openPostgres(config, opts);
    case "upstream":
      return openUpstream(config, opts);
  }
}

async function openSqlite(config: Config, opts: OpenSourcesOptions): Promise<Sources> {
  const path = config.sqlitePath;
  // A path that cannot work (a folder, not SQLite, unwritable) is refused in one line naming MDG_SQLITE_PATH.
  assertStorePath(path);
  let sampleBuilt: Sources["sampleBuilt"];
  if (!opts.readonly && opts.buildSample !== false) {
    mkdirSync(dirname(path), { recursive: true });
    // It returns at once when the store exists (after removing dead builders' scratch files).
    const { seed, anchorDate, scale } = config.sample;
    const built = await builderOf(opts)(path, { seed, anchorDate, scale, log: opts.log, signal: opts.signal });
    if (built.built) sampleBuilt = { ms: built.ms ?? 0, path };
  }
  // Loaded lazily too, so that importing this module (the keys CLI's tests) does not load the SQLite driver.
  const { openSqliteSource } = await import("./sqlite/sqlite.source");
  const source = openSqliteSource(path, { readonly: opts.readonly });
  let closed: Promise<void> | undefined;
  const [{ SqliteImportSink }, { SqliteChangeFeed }] = await Promise.all([
    import("./sqlite/sqlite.import"),
    import("./sqlite/sqlite.changes"),
  ]);
  return {
    market: source,
    keys: source.keys,
    sampleBuilt,
    // An import in another process: the search index takes in its new and changed securities on its next answer.
    changes: new SqliteChangeFeed(source, {
      onError: (err) => opts.log?.(`change notices: ${err instanceof Error ? err.message : String(err)}`),
    }),
    importSink: () => new SqliteImportSink(source.db),
    close: () => (closed ??= source.close()),
  };
}

/**
 * PostgreSQL at DATABASE_URL: one pool for market data and API keys. Migrates at start under an advisory lock
 * (postgres.migrate.ts); a database without any schema also gets the generated sample, copied in the same
 * transaction, unless `buildSample` is false (the keys CLI) or the store is opened read-only (no migration at all).
 */
async function openPostgres(config: Config, opts: OpenSourcesOptions): Promise<Sources> {
  const { createPostgresPool, PostgresSource } = await import("./postgres/postgres.source");
  const { migratePostgres } = await import("./postgres/postgres.migrate");
  const pool = createPostgresPool({
    url: config.postgres.url!,
    poolSize: config.postgres.poolSize,
    statementTimeoutMs: config.postgres.statementTimeoutMs,
  });
  let sampleBuilt: Sources["sampleBuilt"];
  try {
    if (!opts.readonly) {
      const started = Date.now();
      const { loadSample, sampleBuildPath, discardSampleBuild } = await import("./postgres/postgres.sample");
      const file = sampleBuildPath(config.sqlitePath, config.sample);
      let timing: Awaited<ReturnType<typeof loadSample>> | undefined;
      const fill =
        opts.buildSample === false
          ? undefined
          : async (client: import("pg").PoolClient) => {
              opts.log?.(`Empty PostgreSQL database: loading the generated sample (built as SQLite at ${file})`);
              timing = await loadSample(client, file, config.sample, builderOf(opts), {
                log: opts.log,
                signal: opts.signal,
              });
            };
      const result = await migratePostgres(pool, { fillEmpty: fill });
      if (result.filled && timing) {
        discardSampleBuild(file, timing, opts.log ?? (() => undefined));
        sampleBuilt = { ms: Date.now() - started, path: "postgres", buildMs: timing.buildMs, copyMs: timing.copyMs };
      }
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw postgresStartupError(err);
  }
  const source = new PostgresSource(pool);
  if (opts.readonly) return { market: source, keys: source.keys, sampleBuilt, close: () => source.close() };
  // Every replica polls the change version (MDG_PG_CHANGE_POLL_MS): commits by anyone reach its caches within 1 s.
  const { PostgresChangeFeed, withChanges } = await import("./postgres/postgres.changes");
  const changes = new PostgresChangeFeed(pool, {
    pollMs: config.pgChangePollMs,
    onError: (err) => opts.log?.(`change notices: ${err instanceof Error ? err.message : String(err)}`),
  });
  try {
    await changes.start();
  } catch (err) {
    await source.close();
    throw postgresStartupError(err);
  }
  const market = withChanges(source, changes);
  const { PostgresImportSink } = await import("./postgres/postgres.import");
  const { postgresJobLocks } = await import("./postgres/postgres.locks");
  const locks = postgresJobLocks(pool);
  return {
    market,
    keys: source.keys,
    sampleBuilt,
    changes,
    locks,
    importSink: () => new PostgresImportSink(pool),
    close: () => market.close(),
  };
}

/** What pg throws while connecting or migrating, as one line naming DATABASE_URL (never its value). */
function postgresStartupError(err: unknown): Error {
  if (err instanceof StartupError) return err;
  const e = err as { code?: unknown; message?: unknown };
  const message = typeof e.message === "string" ? e.message : String(err);
  const code = typeof e.code === "string" ? ` (${e.code})` : "";
  return new StartupError(`DATABASE_URL: cannot open the PostgreSQL store: ${message}${code}`, { cause: err });
}

/**
 * Gateway mode: the market data comes from the upstream API through one client; the gateway's own API keys live in
 * a SQLite file at MDG_SQLITE_PATH that holds nothing else (no sample data set is built, so a gateway is ready in
 * seconds; a file that already holds a sample store works too: its keys are the gateway's), or with
 * MDG_GATEWAY_KEYS=postgres in DATABASE_URL's database, shared by the gateway's replicas.
 */
async function openUpstream(config: Config, opts: OpenSourcesOptions): Promise<Sources> {
  const path = config.sqlitePath;
  if (config.gatewayKeys === "sqlite") {
    assertStorePath(path, { write: !opts.readonly });
    if (!opts.readonly) mkdirSync(dirname(path), { recursive: true });
  }
  // The answers make the GraphQL types' objects, whose decorators need the metadata polyfill; main.ts loads it
  // first, the keys CLI does not.
  await import("reflect-metadata");
  const [{ openSqliteSource }, { createUpstreamClient }, { createUpstreamAnswers }] = await Promise.all([
    import("./sqlite/sqlite.source"),
    import("./upstream/upstream.client"),
    import("./upstream/upstream.answers"),
  ]);
  const { createUpstreamSource } = await import("./upstream/upstream.source");
  const { Registry } = await import("prom-client");
  const keyStore =
    config.gatewayKeys === "postgres"
      ? await openPostgresKeys(config, opts)
      : openSqliteSource(path, { readonly: opts.readonly });
  const metricsRegistry = new Registry();
  const client = createUpstreamClient(config, {
    logger: opts.logger,
    registry: metricsRegistry,
    bulkPaths: opts.bulkPaths,
  });
  const market = createUpstreamSource(client);
  let closed: Promise<void> | undefined;
  return {
    market,
    keys: keyStore.keys,
    answers: createUpstreamAnswers(client),
    metricsRegistry,
    upstreamState: () => client.state(),
    close: () => (closed ??= Promise.all([market.close(), keyStore.close()]).then(() => undefined)),
  };
}

/**
 * Gateway mode with MDG_GATEWAY_KEYS=postgres: the keys in DATABASE_URL's `api_keys` table, which every replica of
 * the gateway reads (migrated at start like a store, under the advisory lock; never filled with sample data).
 */
async function openPostgresKeys(
  config: Config,
  opts: OpenSourcesOptions,
): Promise<{ keys: ApiKeyStore; close(): Promise<void> }> {
  const { createPostgresPool } = await import("./postgres/postgres.source");
  const { migratePostgres } = await import("./postgres/postgres.migrate");
  const { PostgresApiKeyStore } = await import("./postgres/postgres.keys");
  const pool = createPostgresPool({
    url: config.postgres.url!,
    poolSize: Math.min(config.postgres.poolSize, 4),
    statementTimeoutMs: config.postgres.statementTimeoutMs,
  });
  try {
    if (!opts.readonly) await migratePostgres(pool, {});
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw postgresStartupError(err);
  }
  let ended: Promise<void> | undefined;
  return { keys: new PostgresApiKeyStore(pool), close: () => (ended ??= pool.end()) };
}
