import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { RequestHistogram } from "./metrics.histogram";

/**
 * Prometheus metrics of one app (`GET /metrics`). Labels are bounded by
 * construction: routes come from the route table (anything else is
 * `unmatched`), GraphQL operation names are capped, store methods are the
 * data source's. No label ever holds a key, a key id, a symbol or a raw URL.
 *
 * The request path pays one histogram observation per request (and one per
 * store call) through RequestHistogram, which finds its series by a joined
 * key instead of hashing labels as prom-client does; the request counter is
 * read from the same series when /metrics is scraped.
 */

/** Latency buckets in seconds: sub-millisecond REST answers up to the 10 s request timeout. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const STORE_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/** At most this many distinct GraphQL operation names become labels; later ones are `other`. */
export const MAX_OPERATION_NAMES = 50;
const OPERATION_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Counters of the instrument cache (src/sources/source.cache.ts), read by /metrics and by tests. */
export interface InstrumentCacheStats {
  /** Keys answered from the cache (a DataLoader batch of N keys counts N). */
  hits: number;
  /** Keys read from the data source. */
  misses: number;
  /** Times the whole cache was dropped because the source's data version changed. */
  invalidations: number;
  /** Entries held now (found instruments and unknown keys). */
  readonly size: number;
  /** Estimated bytes they hold on the heap (`entryBytes`). */
  readonly bytes: number;
}

export interface KeyCacheStats {
  readonly hits: number;
  readonly misses: number;
}

/**
 * A counter whose value is read from `read` when /metrics is scraped (counts kept elsewhere, as caches keep theirs).
 */
function counterOf(registry: Registry, name: string, help: string, read: () => number): void {
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

/** A gauge read from `read` when /metrics is scraped. */
function gaugeOf(registry: Registry, name: string, help: string, read: () => number): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.set(read());
    },
  });
}

let processRegistry: Registry | undefined;

/** Process metrics (CPU, memory, event loop, GC) once per process, however many apps a test file builds. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export class Metrics {
  readonly registry = new Registry();
  /** Registries of parts built apart from the app (gateway mode's upstream client), served after the app's. */
  private readonly included: Registry[] = [];
  private readonly httpDuration: RequestHistogram<"route" | "status">;
  private readonly graphqlDuration: RequestHistogram<"operation" | "outcome">;
  private readonly operationNames = new Set<string>();
  private readonly httpObservers = new Map<string, Map<number, (seconds: number) => void>>();
  private readonly graphqlObservers = new Map<
    string,
    { ok?: (seconds: number) => void; error?: (seconds: number) => void }
  >();
  private readonly storeDuration: RequestHistogram<"method">;
  private readonly batchSize: RequestHistogram<"method">;

  constructor(opts: { keyCache?: KeyCacheStats } = {}) {
    processMetrics();
    const registers = [this.registry];
    this.httpDuration = new RequestHistogram(
      "mdg_http_request_duration_seconds",
      "Time from the request's arrival to the last byte of the answer, " +
        "by route (the route table's path, or unmatched) and status",
      ["route", "status"],
      LATENCY_BUCKETS,
      this.registry,
    );
    const httpDuration = this.httpDuration;
    new Counter({
      name: "mdg_http_requests_total",
      help: "Requests answered, by route (the route table's path, or unmatched) and status",
      labelNames: ["route", "status"],
      registers,
      collect() {
        this.reset();
        for (const s of httpDuration.totals()) this.labels(s.labels.route, s.labels.status).inc(s.count);
      },
    });
    this.graphqlDuration = new RequestHistogram(
      "mdg_graphql_operation_duration_seconds",
      `GraphQL operations on /graphql, by operation name (the first ${MAX_OPERATION_NAMES} names seen; ` +
        'then "other"; "anonymous" without one) and outcome',
      ["operation", "outcome"],
      LATENCY_BUCKETS,
      this.registry,
    );
    this.storeDuration = new RequestHistogram(
      "mdg_store_query_duration_seconds",
      "Calls of the data source (one SQL statement each for SQLite), by DataSource method",
      ["method"],
      STORE_BUCKETS,
      this.registry,
    );
    this.batchSize = new RequestHistogram(
      "mdg_dataloader_batch_size",
      "Keys per batched data-source call (one DataLoader batch), by DataSource method",
      ["method"],
      BATCH_BUCKETS,
      this.registry,
    );
    const cache = opts.keyCache;
    if (cache) {
      counterOf(
        this.registry,
        "mdg_auth_key_cache_hits_total",
        "API-key lookups answered from the in-process cache",
        () => cache.hits,
      );
      counterOf(
        this.registry,
        "mdg_auth_key_cache_misses_total",
        "API-key lookups that went to the store",
        () => cache.misses,
      );
      gaugeOf(
        this.registry,
        "mdg_auth_key_cache_hit_ratio",
        "Share of API-key lookups answered from the cache since start " +
          "(0 before any lookup; the bootstrap key never needs one)",
        () => {
          const total = cache.hits + cache.misses;
          return total === 0 ? 0 : cache.hits / total;
        },
      );
    }
  }

  /** Exposes the instrument cache's counters (src/sources/source.cache.ts). */
  observeInstrumentCache(stats: InstrumentCacheStats): void {
    const r = this.registry;
    counterOf(
      r,
      "mdg_instrument_cache_hits_total",
      "Instrument lookups (symbol or ISIN keys) answered from the in-process cache",
      () => stats.hits,
    );
    counterOf(
      r,
      "mdg_instrument_cache_misses_total",
      "Instrument lookups (symbol or ISIN keys) read from the store",
      () => stats.misses,
    );
    counterOf(
      r,
      "mdg_instrument_cache_invalidations_total",
      "Times the instrument cache was dropped because the store's data changed",
      () => stats.invalidations,
    );
    gaugeOf(
      r,
      "mdg_instrument_cache_entries",
      "Instrument lookups (found or unknown keys) held in the cache",
      () => stats.size,
    );
    gaugeOf(
      r,
      "mdg_instrument_cache_bytes",
      "Heap the cached instrument lookups hold, as the cache's budget (MDG_INSTRUMENT_CACHE_MB) counts it",
      () => stats.bytes,
    );
  }

  /** Whether the rate limits count in Redis (1) or fail open in memory (0); only when REDIS_URL is set. */
  observeRateLimitRedis(up: () => boolean): void {
    const help = "1 while rate limits count in Redis; 0 while Redis fails and they count in memory (fail open)";
    gaugeOf(this.registry, "mdg_rate_limit_redis_up", help, () => (up() ? 1 : 0));
  }

  /**
   * One answered HTTP request; `route` must come from a bounded set (see `routeLabeler`). Each route and status's
   * series is resolved once: a label object and a series key per request cost more than the observation.
   */
  observeHttp(route: string, status: number, seconds: number): void {
    let byStatus = this.httpObservers.get(route);
    if (byStatus === undefined) this.httpObservers.set(route, (byStatus = new Map()));
    let observe = byStatus.get(status);
    if (observe === undefined)
      byStatus.set(status, (observe = this.httpDuration.child({ route, status: String(status) })));
    observe(seconds);
  }

  /** The label of a GraphQL operation name: bounded in number and in spelling. */
  operationLabel(name: string | null | undefined): string {
    if (!name) return "anonymous";
    if (this.operationNames.has(name)) return name;
    if (!OPERATION_NAME.test(name) || this.operationNames.size >= MAX_OPERATION_NAMES) return "other";
    this.operationNames.add(name);
    return name;
  }

  /**
   * Records one GraphQL operation by its name, outcome and time from its request's start to its answer. The series'
   * observers are kept by label (a bounded set).
   */
  observeGraphqlOperation(name: string | null | undefined, failed: boolean, seconds: number): void {
    const operation = this.operationLabel(name);
    let observers = this.graphqlObservers.get(operation);
    if (!observers) this.graphqlObservers.set(operation, (observers = {}));
    const outcome = failed ? "error" : "ok";
    (observers[outcome] ??= this.graphqlDuration.child({ operation, outcome }))(seconds);
  }

  /**
   * The same data source with every method timed, and the number of keys of
   * each batch call (an array first argument) recorded. Built on the source as
   * its prototype, so `stats`, `kind` and anything else read through.
   */
  instrumentSource<T extends object>(source: T): T {
    const wrapped = Object.create(source) as T;
    const seen = new Set<string>();
    // From the source itself: a wrapper's own methods (a source hiding a capability) are what gets timed.
    for (let proto: object | null = source; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
      for (const name of Object.getOwnPropertyNames(proto)) {
        if (name === "constructor" || seen.has(name)) continue;
        const descriptor = Object.getOwnPropertyDescriptor(proto, name);
        if (!descriptor || !("value" in descriptor)) continue;
        seen.add(name);
        // What the source answers for the name: a method it hides (a capability it does not declare) stays absent.
        const found = Reflect.get(source, name) as unknown;
        if (typeof found !== "function") continue;
        const original = found as (...args: unknown[]) => unknown;
        let timer: ((seconds: number) => void) | undefined;
        let batch: ((keys: number) => void) | undefined;
        Object.defineProperty(wrapped, name, {
          value: (...args: unknown[]) => {
            const first = args[0];
            if (Array.isArray(first)) (batch ??= this.batchSize.child({ method: name }))(first.length);
            const started = performance.now();
            const result = original.apply(source, args);
            if (result instanceof Promise) {
              return result.finally(() =>
                (timer ??= this.storeDuration.child({ method: name }))((performance.now() - started) / 1000),
              );
            }
            return result;
          },
        });
      }
    }
    return wrapped;
  }

  /** The exposition text: this app's metrics, then the process's. */
  async render(): Promise<string> {
    const parts = [this.registry, ...this.included, processMetrics()];
    return (await Promise.all(parts.map((r) => r.metrics()))).join("\n");
  }

  include(registry: Registry): void {
    this.included.push(registry);
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
