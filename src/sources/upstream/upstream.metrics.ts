import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { UpstreamState } from "./upstream.types";

/** Upstream latency buckets in seconds: a cached-path miss of a few ms up to the 2 s timeout and past it. */
const UPSTREAM_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10];

/** At most this many distinct paths become labels; later ones (and anything not shaped like one) are `other`. */
const MAX_ENDPOINTS = 64;
const ENDPOINT = /^\/v[01]\/[a-z][a-z/-]{0,63}$/;

const BREAKER_VALUE: Record<UpstreamState["breaker"], number> = { closed: 0, "half-open": 1, open: 2 };

export type CacheOutcome = "hit" | "miss" | "stale";

/**
 * The client's metrics on the app's registry (GET /metrics). Labels are bounded: endpoints are the contract's paths
 * (capped), outcomes a fixed list; no key, symbol, host or body ever becomes a label.
 */
export class UpstreamMetrics {
  private readonly calls: Histogram<"endpoint" | "outcome">;
  private readonly retries: Counter<"endpoint">;
  private readonly shortCircuits: Counter;
  private readonly cache: Counter<"result">;
  private readonly endpoints = new Set<string>();

  constructor(registry: Registry = new Registry(), breaker: () => UpstreamState["breaker"]) {
    const registers = [registry];
    this.calls = new Histogram({
      name: "mdg_upstream_request_duration_seconds",
      help:
        "Attempts sent to the upstream, by endpoint (the path called: /v0/bulk for a batch) and outcome " +
        "(ok, not_found, timeout, 5xx, 429, quota, connection, malformed, unauthorised, rejected)",
      labelNames: ["endpoint", "outcome"],
      buckets: UPSTREAM_BUCKETS,
      registers,
    });
    this.retries = new Counter({
      name: "mdg_upstream_retries_total",
      help: "Retried upstream attempts (connection errors, 5xx, 429), by endpoint",
      labelNames: ["endpoint"],
      registers,
    });
    this.shortCircuits = new Counter({
      name: "mdg_upstream_short_circuits_total",
      help: "Calls refused without reaching the upstream because the circuit breaker was open",
      registers,
    });
    new Gauge({
      name: "mdg_upstream_breaker_state",
      help: "The upstream circuit breaker: 0 closed, 1 half-open (one probe allowed), 2 open (nothing sent)",
      registers,
      collect() {
        this.set(BREAKER_VALUE[breaker()]);
      },
    });
    this.cache = new Counter({
      name: "mdg_upstream_cache_total",
      help:
        "Upstream answers asked of the cache: hit (fresh, from memory or Redis), miss (asked of the upstream), " +
        "stale (served past its TTL because the upstream failed or the breaker was open)",
      labelNames: ["result"],
      registers,
    });
  }

  attempt(path: string, outcome: string, seconds: number): void {
    this.calls.observe({ endpoint: this.endpointLabel(path), outcome }, seconds);
  }

  retry(path: string): void {
    this.retries.inc({ endpoint: this.endpointLabel(path) });
  }

  shortCircuit(): void {
    this.shortCircuits.inc();
  }

  cached(result: CacheOutcome, n = 1): void {
    if (n > 0) this.cache.inc({ result }, n);
  }

  private endpointLabel(path: string): string {
    if (this.endpoints.has(path)) return path;
    if (!ENDPOINT.test(path) || this.endpoints.size >= MAX_ENDPOINTS) return "other";
    this.endpoints.add(path);
    return path;
  }
}
