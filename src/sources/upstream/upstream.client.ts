import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { systemClock, type Clock } from "../../platform/clock";
import type { Config, UpstreamConfig } from "../../platform/config";
import { mapLimited } from "../../platform/concurrency";
import { UpstreamUnavailableError } from "../../platform/errors";
import { CircuitBreaker } from "./upstream.breaker";
import { RetryBudget } from "./upstream.budget";
import { UpstreamCache, type CachedAnswer } from "./upstream.cache";
import { requestKey, splitVersion } from "./upstream.keys";
import { UpstreamMetrics } from "./upstream.metrics";
import { AttemptFailure, UpstreamTransport, type AttemptResult, type FailureKind } from "./upstream.transport";
import type { UpstreamClient, UpstreamRequest, UpstreamResult, UpstreamState } from "./upstream.types";

export interface UpstreamClientDeps {
  /** Where the operator hears of a refused key (once a minute at most); never given the key itself. */
  logger?: Logger;
  /** Time for the breaker, the retry budget, the cache's ages and the key warning (timeouts use real timers). */
  clock?: Clock;
  /** Where the upstream metrics are registered (the app's /metrics registry). */
  registry?: Registry;
  /**
   * Endpoints (`quote`, `etf/profile`: paths after the version) that `POST /<version>/bulk` serves: the route
   * table's single-security endpoints (`bulkPathsOf(ROUTES)`). Without it nothing goes as bulk.
   */
  bulkPaths?: ReadonlySet<string>;
  /** Random numbers in [0, 1) for the backoff's jitter (tests pass a fixed one). */
  random?: () => number;
}

/** The route table's single-security endpoints: what bulk may name (docs/contract.md section 6). */
export function bulkPathsOf(routes: readonly { path: string; singleSecurity: boolean }[]): ReadonlySet<string> {
  return new Set(routes.filter((r) => r.singleSecurity).map((r) => r.path));
}

/** At most one operator line a minute about a refused key: a misconfigured gateway would otherwise flood its log. */
const KEY_WARNING_EVERY_MS = 60_000;
/** A retry needs at least this much of the call's time left to be worth sending. */
const MIN_ATTEMPT_MS = 50;

/** The message of every failure a client sees: the kind, never a host, a key or an upstream body. */
function unavailable(kind: FailureKind | "aborted"): UpstreamUnavailableError {
  return new UpstreamUnavailableError(`the upstream data source is unavailable (${kind.replace("_", " ")})`);
}

function toUnavailable(e: unknown): UpstreamUnavailableError {
  if (e instanceof UpstreamUnavailableError) return e;
  return unavailable(e instanceof AttemptFailure ? e.kind : "connection");
}

function fresh(r: AttemptResult): UpstreamResult {
  return { status: r.status, body: r.body, stale: false, ageSeconds: 0 };
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(v: T): void;
  reject(e: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** The shared call's answer for this caller, or its own abort (the shared call goes on for the others). */
function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(unavailable("aborted"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(unavailable("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function settled(p: Promise<UpstreamResult>): Promise<UpstreamResult | Error> {
  return p.catch((e: unknown) => (e instanceof Error ? e : toUnavailable(e)));
}

/** A bulk group: every item the same bulk-able path with the same params, each naming its security by `symbol`. */
interface BulkGroup {
  version: string;
  endpoint: string;
  params: Record<string, unknown>;
}

/** One item of a batch on its way: its deferred answer, and the cached answer it may fall back on. */
interface BatchItem {
  key: string;
  req: UpstreamRequest;
  answer: Deferred<UpstreamResult>;
  fallback?: CachedAnswer;
}

/** The client with what start-up, /readyz and tests may also want: Redis readiness and the cache's size. */
export interface GatewayUpstreamClient extends UpstreamClient {
  /** True once the shared cache in Redis takes commands (false without REDIS_URL, or after `timeoutMs`). */
  ready(timeoutMs: number): Promise<boolean>;
  cacheStats(): { entries: number; bytes: number };
}

class Client implements GatewayUpstreamClient {
  private readonly transport: UpstreamTransport;
  private readonly cache: UpstreamCache;
  private readonly breaker: CircuitBreaker;
  private readonly budget: RetryBudget;
  private readonly metrics: UpstreamMetrics;
  private readonly inFlight = new Map<string, Promise<UpstreamResult>>();
  private readonly now: () => number;
  private readonly random: () => number;
  private lastFailure: FailureKind | undefined;
  private lastKeyWarning = -Infinity;

  constructor(
    private readonly config: UpstreamConfig,
    redis: Config["rateLimit"],
    private readonly deps: UpstreamClientDeps,
  ) {
    const clock = deps.clock ?? systemClock;
    this.now = () => clock.now().getTime();
    this.random = deps.random ?? Math.random;
    this.transport = new UpstreamTransport(config);
    const logger = deps.logger;
    this.cache = new UpstreamCache(
      config,
      this.now,
      redis.redisUrl === undefined
        ? undefined
        : {
            url: redis.redisUrl,
            prefix: redis.redisKeyPrefix,
            timeoutMs: redis.redisTimeoutMs,
            cooldownMs: redis.redisCooldownMs,
            // The message only: an ioredis error may carry the URL, whose password is nobody's business.
            onError: (err) => logger?.warn({ code: (err as { code?: string }).code }, "upstream cache: Redis failed"),
          },
    );
    this.breaker = new CircuitBreaker(config.breaker, this.now, (s) =>
      logger?.warn({ breaker: s }, `upstream circuit breaker ${s}`),
    );
    this.budget = new RetryBudget(config.retry.budgetPercent, config.retry.minPerSecond, 10_000, this.now);
    this.metrics = new UpstreamMetrics(deps.registry, () => this.breaker.state);
  }

  request(req: UpstreamRequest, signal?: AbortSignal): Promise<UpstreamResult> {
    const key = requestKey(req);
    const hit = this.freshInMemory(key);
    if (hit) return Promise.resolve(hit);
    let shared = this.inFlight.get(key);
    if (!shared) {
      const p = this.load(req, key);
      this.track(key, p);
      shared = p;
    }
    return abortable(shared, signal);
  }

  async requestMany(reqs: readonly UpstreamRequest[], signal?: AbortSignal): Promise<(UpstreamResult | Error)[]> {
    const group = this.bulkGroup(reqs);
    if (!group) {
      return mapLimited(reqs, this.config.concurrency, (r) => settled(this.request(r, signal)));
    }
    const out: Promise<UpstreamResult>[] = new Array(reqs.length);
    const batch = new Map<string, BatchItem>();
    reqs.forEach((req, index) => {
      const key = requestKey(req);
      const hit = this.freshInMemory(key);
      if (hit) {
        out[index] = Promise.resolve(hit);
        return;
      }
      // Asked for by another caller already (or twice in this batch): that one call answers both.
      const shared = this.inFlight.get(key);
      if (shared) {
        out[index] = shared;
        return;
      }
      const item: BatchItem = { key, req, answer: deferred() };
      batch.set(key, item);
      this.track(key, item.answer.promise);
      out[index] = item.answer.promise;
    });
    if (batch.size > 0) void this.loadBatch(group, [...batch.values()]);
    return Promise.all(out.map((p) => settled(abortable(p, signal))));
  }

  ready(timeoutMs: number): Promise<boolean> {
    return this.cache.ready(timeoutMs);
  }

  cacheStats(): { entries: number; bytes: number } {
    return this.cache.stats;
  }

  state(): UpstreamState {
    const breaker = this.breaker.state;
    return this.lastFailure ? { breaker, lastFailure: this.lastFailure } : { breaker };
  }

  async close(): Promise<void> {
    await Promise.all([this.transport.close(), this.cache.close()]);
  }

  /** Keeps `p` as the in-flight call of `key` until it settles. */
  private track(key: string, p: Promise<UpstreamResult>): void {
    this.inFlight.set(key, p);
    const done = () => {
      if (this.inFlight.get(key) === p) this.inFlight.delete(key);
    };
    p.then(done, done);
  }

  private freshInMemory(key: string): UpstreamResult | undefined {
    const e = this.cache.peek(key);
    if (!e || !this.cache.isFresh(e)) return undefined;
    this.metrics.cached("hit");
    return this.cached(e);
  }

  private cached(e: CachedAnswer, stale = false): UpstreamResult {
    return { status: e.status, body: e.body, stale, ageSeconds: this.cache.ageSeconds(e) };
  }

  /** One request past the memory cache: Redis, then the upstream, then a stale answer if the upstream failed. */
  private async load(req: UpstreamRequest, key: string): Promise<UpstreamResult> {
    const [shared] = await this.cache.fetchShared([key]);
    if (shared && this.cache.isFresh(shared)) {
      this.metrics.cached("hit");
      return this.cached(shared);
    }
    this.metrics.cached("miss");
    return this.fetch(req, key, shared ?? this.cache.peek(key));
  }

  private async fetch(req: UpstreamRequest, key: string, fallback: CachedAnswer | undefined): Promise<UpstreamResult> {
    try {
      const r = await this.call(req.path, req.body);
      this.remember(key, req, r.status, r.body, r.bytes);
      return fresh(r);
    } catch (e) {
      return this.staleOr(fallback ?? this.cache.peek(key), e);
    }
  }

  /** The last good answer within the stale window, marked; otherwise the failure as the client sees it. */
  private staleOr(fallback: CachedAnswer | undefined, e: unknown): UpstreamResult {
    if (fallback && fallback.status === 200 && this.cache.isServable(fallback)) {
      this.metrics.cached("stale");
      return this.cached(fallback, true);
    }
    throw toUnavailable(e);
  }

  private remember(key: string, req: UpstreamRequest, status: 200 | 404, body: unknown, bytes: number): void {
    this.cache.set(key, { status, body, kind: req.kind, fetchedAt: this.now(), bytes });
  }

  /** The group when every request can ride in one bulk call (more than one of them), else null. */
  private bulkGroup(reqs: readonly UpstreamRequest[]): BulkGroup | null {
    if (reqs.length < 2 || !this.deps.bulkPaths) return null;
    const first = reqs[0]!;
    const split = splitVersion(first.path);
    if (!split || !this.deps.bulkPaths.has(split.endpoint)) return null;
    const paramsKey = (r: UpstreamRequest) => {
      const { symbol: _symbol, ...params } = r.body;
      return requestKey({ path: r.path, body: params });
    };
    const want = paramsKey(first);
    for (const r of reqs) {
      if (r.path !== first.path || typeof r.body.symbol !== "string" || paramsKey(r) !== want) return null;
    }
    const { symbol: _symbol, ...params } = first.body;
    return { version: split.version, endpoint: split.endpoint, params };
  }

  /** A batch's misses: Redis in one round trip, then `POST /<version>/bulk` per chunk of `bulkMax`. */
  private async loadBatch(group: BulkGroup, items: BatchItem[]): Promise<void> {
    try {
      const shared = await this.cache.fetchShared(items.map((i) => i.key));
      const misses: BatchItem[] = [];
      items.forEach((item, k) => {
        const e = shared[k];
        if (e && this.cache.isFresh(e)) {
          this.metrics.cached("hit");
          item.answer.resolve(this.cached(e));
        } else {
          item.fallback = e ?? this.cache.peek(item.key);
          misses.push(item);
        }
      });
      this.metrics.cached("miss", misses.length);
      const chunks: BatchItem[][] = [];
      for (let start = 0; start < misses.length; start += this.config.bulkMax) {
        chunks.push(misses.slice(start, start + this.config.bulkMax));
      }
      await mapLimited(chunks, this.config.concurrency, (chunk) => this.loadChunk(group, chunk));
    } catch (e) {
      // Nothing above should throw; if it does, no caller may wait forever.
      for (const item of items) item.answer.reject(toUnavailable(e));
    }
  }

  private async loadChunk(group: BulkGroup, chunk: BatchItem[]): Promise<void> {
    if (chunk.length === 1) {
      const item = chunk[0]!;
      await this.fetch(item.req, item.key, item.fallback).then(item.answer.resolve, item.answer.reject);
      return;
    }
    const body = {
      endpoint: group.endpoint,
      params: group.params,
      symbols: chunk.map((i) => ({ symbol: i.req.body.symbol })),
    };
    const settle = (item: BatchItem, e: unknown) => {
      try {
        item.answer.resolve(this.staleOr(item.fallback, e));
      } catch (err) {
        item.answer.reject(err);
      }
    };
    let answer: AttemptResult;
    try {
      answer = await this.call(`/${group.version}/bulk`, body);
    } catch (e) {
      for (const item of chunk) settle(item, e);
      return;
    }
    const results = (answer.body as { results?: unknown } | null)?.results;
    if (answer.status !== 200 || !Array.isArray(results) || results.length !== chunk.length) {
      this.lastFailure = "malformed";
      for (const item of chunk) settle(item, new AttemptFailure("malformed"));
      return;
    }
    // The bulk answer's size shared out: a fair estimate for the memory budget without serialising each item again.
    const bytes = Math.ceil(answer.bytes / chunk.length);
    chunk.forEach((item, k) => {
      const r = results[k] as { statusCode?: unknown; data?: unknown; error?: unknown } | null;
      if (r?.statusCode === 200 || r?.statusCode === 404) {
        const status = r.statusCode;
        const itemBody = status === 200 ? r.data : r.error;
        this.remember(item.key, item.req, status, itemBody, bytes);
        item.answer.resolve({ status, body: itemBody, stale: false, ageSeconds: 0 });
      } else {
        settle(item, new AttemptFailure(r?.statusCode === 500 ? "5xx" : "malformed"));
      }
    });
  }

  /**
   * One call, retries included, within the timeout: its 200 or 404, or the last attempt's `AttemptFailure`.
   * Refused at once while the breaker is open.
   */
  private async call(path: string, body: unknown): Promise<AttemptResult> {
    const deadline = Date.now() + this.config.timeoutMs;
    if (!this.breaker.tryAcquire()) {
      this.metrics.shortCircuit();
      throw new AttemptFailure("breaker_open");
    }
    this.budget.call();
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      try {
        const r = await this.transport.attempt(path, body, AbortSignal.timeout(Math.max(1, deadline - Date.now())));
        this.metrics.attempt(path, r.status === 200 ? "ok" : "not_found", (performance.now() - started) / 1000);
        this.breaker.success();
        return r;
      } catch (e) {
        const f = e instanceof AttemptFailure ? e : new AttemptFailure("connection");
        this.metrics.attempt(path, f.kind, (performance.now() - started) / 1000);
        if (f.kind === "unauthorised") this.warnKeyRefused();
        const wait = this.retryWait(f, attempt, deadline);
        if (wait === undefined || !this.budget.tryRetry()) {
          this.lastFailure = f.kind;
          this.breaker.failure();
          throw f;
        }
        this.metrics.retry(path);
        if (wait > 0) await sleep(wait);
      }
    }
  }

  /**
   * How long to wait before retrying, or undefined for no retry: full-jitter exponential backoff (Envoy's), or the
   * upstream's `Retry-After` when longer, provided the retry can still be answered before the call's deadline.
   */
  private retryWait(f: AttemptFailure, attempt: number, deadline: number): number | undefined {
    if (!f.retryable || attempt >= this.config.retry.max) return undefined;
    const { baseMs, maxMs } = this.config.retry;
    const backoff = this.random() * Math.min(maxMs, baseMs * 2 ** attempt);
    const wait = Math.max(backoff, f.retryAfterMs ?? 0);
    if (Date.now() + wait + MIN_ATTEMPT_MS > deadline) return undefined;
    return Math.round(wait);
  }

  private warnKeyRefused(): void {
    const now = this.now();
    if (now - this.lastKeyWarning < KEY_WARNING_EVERY_MS) return;
    this.lastKeyWarning = now;
    this.deps.logger?.error(
      { upstreamStatus: "401/403" },
      "the upstream refused MDG_UPSTREAM_API_KEY: check it (every upstream call fails until it is fixed)",
    );
  }
}

/**
 * Gateway mode's client (docs/contract.md section 9, docs/gateway.md "Gateway: resilience"): keep-alive connections to
 * `MDG_UPSTREAM_URL`; each call within `MDG_UPSTREAM_TIMEOUT_MS`, retries included, retried on connection errors,
 * 5xx and 429 inside a budget; a circuit breaker; identical calls in flight shared; answers cached per kind in
 * memory (and Redis with REDIS_URL) and served stale when the upstream fails; batches sent as bulk.
 */
export function createUpstreamClient(config: Config, deps: UpstreamClientDeps = {}): GatewayUpstreamClient {
  return new Client(config.upstream, config.rateLimit, deps);
}

/**
 * What /readyz says of the upstream: not ready while the breaker is open (nothing is sent; only stale answers or
 * failures come back), ready otherwise. The body names the breaker's state and the last failure's kind, nothing else.
 */
export function upstreamReadiness(state: UpstreamState): { ready: boolean; upstream: UpstreamState } {
  return { ready: state.breaker !== "open", upstream: state };
}
