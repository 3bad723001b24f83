import "reflect-metadata";
import type { RequestListener } from "node:http";
import pino, { type Logger } from "pino";
import request from "supertest";
import { createApp, type AppOptions, type AppParts } from "../../src/app";
import { ApiKeyService } from "../../src/platform/auth/auth.service";
import { fixedClock, type Clock } from "../../src/platform/clock";
import { loadConfig } from "../../src/platform/config";
import { ROW_STORE_ANSWERS, type Answers } from "../../src/domain/answers";
import type { AppDeps } from "../../src/http/http.context";
import type { RateLimiter } from "../../src/platform/quotas/quota.service";
import { SearchIndex } from "../../src/domain/search/search.index";
import { LiveSearchIndex, type SearchIndexReader } from "../../src/domain/search/search.live";
import { SqliteChangeFeed } from "../../src/sources/sqlite/sqlite.changes";
import type { ChangeFeed } from "../../src/domain/ports/source.changes";
import type { MarketDataSource } from "../../src/domain/ports/source.capabilities";
import type { CachedSource } from "../../src/sources/source.cache";
import { openSqliteSource, type SqliteSource } from "../../src/sources/sqlite/sqlite.source";
import { SqliteApiKeyStore } from "../../src/sources/sqlite/sqlite.keys";
import { migrate } from "../../src/sources/sqlite/sqlite.migrate";
import Database from "better-sqlite3";
import { BOOTSTRAP_KEY, TEST_ANCHOR, TEST_STORE_PATH } from "./constants";
import { validatingAgent } from "./openapi";

export interface TestApp {
  /** The service as one request listener, as `npm start` serves it. */
  app: RequestListener;
  http: ReturnType<typeof request>;
  source: SqliteSource;
  apiKeys: ApiKeyService;
  deps: AppDeps;
  /** The app's per-key rate and quota counters (memory, or Redis with REDIS_URL in `env`). */
  rateLimiter: RateLimiter;
  close(): Promise<void>;
  /** POST a REST path with the bootstrap key and a JSON body. */
  post(path: string, body?: unknown, key?: string | null): request.Test;
  /** The instrument lookups the app caches across requests. */
  instrumentCache: CachedSource<MarketDataSource>;
  /** The server's `upgrade` listener (the WebSocket doors) and the live prices' hub and door. */
  upgrade: AppParts["upgrade"];
  live: AppParts["live"];
  /**
   * Counts store queries made while `fn` runs, from a cold instrument cache (the count a first request pays),
   * or with the cache as it is (`keepCache`).
   */
  countQueries<T>(fn: () => Promise<T>, opts?: { keepCache?: boolean }): Promise<{ result: T; queries: number }>;
}

let index: Promise<SearchIndex> | undefined;

export interface TestAppOptions {
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** A copy of the test store a test may change (default: the shared one). */
  storePath?: string;
  /** The market data the app serves, made from the SQLite store (default: the store itself). */
  market?: (source: SqliteSource) => MarketDataSource;
  /** Where answers come from (default: the row-store services). */
  answers?: Answers;
  /** Build the search index from `market`, for this app alone (default: one index of the store, shared by the file). */
  ownIndex?: boolean;
  /** createApp's options (the GraphQL fast path on or off). */
  app?: AppOptions;
  /**
   * The search index of the running service: built for this app alone and following the store's change log, as
   * main.ts wires it (`deps.searchIndex` is then a LiveSearchIndex).
   */
  followChanges?: boolean;
  /** The change feed `followChanges` follows (default: the SQLite store's own), e.g. a PostgreSQL replica's. */
  changes?: ChangeFeed;
  /** What the composition root adds: the scheduled jobs' status and metrics (MDG_INGEST), the live hub. */
  deps?: Pick<AppDeps, "ingestStatus" | "metricsRegistry" | "liveHub">;
}

let keysOfSharedStore: Database.Database | undefined;

/**
 * The API keys of apps on the shared store, one table for the test file like the store itself. Every Jest worker
 * opens that store, and a key one of them inserted there would move the file's data version under all the others:
 * their instrument caches drop, and a count of a cached lookup's queries reads 1 where it is 0. An app on a store of
 * its own keeps its keys in that file, as the service does; either way the key statements count in the store's
 * `stats`.
 */
function sharedStoreKeys(): Database.Database {
  if (!keysOfSharedStore) {
    keysOfSharedStore = new Database(":memory:");
    migrate(keysOfSharedStore);
  }
  return keysOfSharedStore;
}

export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const storePath = opts.storePath ?? TEST_STORE_PATH;
  const config = loadConfig({
    MDG_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
    MDG_SQLITE_PATH: storePath,
    LOG_LEVEL: "silent",
    NODE_ENV: "test",
    ...opts.env,
  });
  // The shared store is opened read-only: a test that wrote to it would change what tests in other workers read.
  const source = openSqliteSource(storePath, { mustExist: true, readonly: opts.storePath === undefined });
  // The index is read-only: share it between apps of one test file (a copy of the store holds the same securities).
  const market = opts.market ? opts.market(source) : source;
  let searchIndex: SearchIndexReader = opts.ownIndex
    ? await SearchIndex.build(market)
    : await (index ??= SearchIndex.build(source));
  if (opts.followChanges) {
    const feed = opts.changes ?? new SqliteChangeFeed(source);
    let live: LiveSearchIndex | undefined;
    feed.subscribe((notice) => live?.apply(notice));
    const catchUp = feed.catchUp?.bind(feed);
    searchIndex = live = new LiveSearchIndex(await SearchIndex.build(market), market, catchUp && (() => catchUp()));
  }
  const clock = opts.clock ?? fixedClock(`${TEST_ANCHOR}T15:00:00Z`);
  const deps: AppDeps = {
    config,
    source: market,
    clock,
    searchIndex,
    answers: opts.answers ?? ROW_STORE_ANSWERS,
    ...opts.deps,
  };
  const keys = opts.storePath === undefined ? new SqliteApiKeyStore(sharedStoreKeys(), source.stats) : source.keys;
  const apiKeys = new ApiKeyService(keys, clock, { bootstrapKey: BOOTSTRAP_KEY });
  const { app, apollo, rateLimiter, instrumentCache, upgrade, live } = await createApp(
    deps,
    apiKeys,
    opts.logger ?? pino({ level: "silent" }),
    opts.app,
  );
  // Every REST answer a test receives is checked against the OpenAPI document (test/helpers/openapi.ts).
  const http = validatingAgent(request(app));
  return {
    app,
    http,
    source,
    apiKeys,
    deps,
    rateLimiter,
    instrumentCache,
    upgrade,
    live,
    async close() {
      await Promise.all([live.ws.close(1_000), live.graphql.close(1_000)]);
      await apollo.stop();
      await source.close();
    },
    post(path, body, key = BOOTSTRAP_KEY) {
      let r = http.post(path).set("content-type", "application/json");
      if (key !== null) r = r.set("x-api-key", key);
      return body === undefined ? r : r.send(typeof body === "string" ? body : JSON.stringify(body));
    },
    async countQueries(fn, opts) {
      if (!opts?.keepCache) instrumentCache.clear();
      const before = source.stats.queries;
      const result = await fn();
      return { result, queries: source.stats.queries - before };
    },
  };
}
