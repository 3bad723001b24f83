/**
 * The seam between gateway mode's two halves: the answers
 * (src/sources/upstream/upstream.answers.ts and the domains' `*.answers.ts`)
 * say *what* to ask an upstream Bavest-compatible API; the client says *how*:
 * keep-alive connections, timeouts, retries inside a budget, the circuit
 * breaker, coalescing of identical calls, the cache with its stale-if-error
 * window, and bulk batching. The answers never see a URL's host, a key or a
 * socket; the client never knows what a quote is.
 */

/** What an answer is, for its cache TTL: quotes 5 s, bars of closed days 24 h, reference data 1 h. */
export type UpstreamDataKind = "quote" | "bars" | "reference";

/** One upstream REST call: `POST <MDG_UPSTREAM_URL><path>` with a JSON body. Reads only: all are idempotent. */
export interface UpstreamRequest {
  /** The contract's path with its version, e.g. `/v0/quote`, `/v1/etf/holdings`. */
  path: string;
  /** The JSON body; with `path` it is the key of the cache and of coalescing (key order does not matter). */
  body: Readonly<Record<string, unknown>>;
  kind: UpstreamDataKind;
}

/** An upstream answer the gateway can serve: its 200, or its 404 (the security or data is unknown upstream). */
export interface UpstreamResult {
  status: 200 | 404;
  /** The upstream's JSON body, parsed (for a 404, its error body). */
  body: unknown;
  /** Served from the cache after its TTL because the upstream failed or the breaker is open. */
  stale: boolean;
  /** Seconds since the upstream produced this answer: 0 when it came from the upstream for this call. */
  ageSeconds: number;
}

/** Where the upstream stands, for /readyz and /metrics. */
import type { UpstreamState } from "../../domain/ports/source.health";

export type { UpstreamState };

/**
 * The gateway's only way to the upstream. Every other failure than a 200 or
 * a 404 (timeouts, 5xx, 429 after retries, connection errors, malformed JSON,
 * an open breaker, the upstream's 401/403) is thrown as
 * `UpstreamUnavailableError` (src/platform/errors.ts) unless a stale answer
 * can be served instead.
 */
export interface UpstreamClient {
  request(req: UpstreamRequest, signal?: AbortSignal): Promise<UpstreamResult>;
  /**
   * Many calls of one path (a DataLoader's batch), answered in order, each
   * slot its result or the Error of that item alone. Cached items are served
   * from the cache; the misses go as `POST /v0/bulk` chunked by
   * `MDG_UPSTREAM_BULK_MAX` when bulk serves the path, else one call per item
   * with at most `MDG_UPSTREAM_CONCURRENCY` in flight.
   */
  requestMany(reqs: readonly UpstreamRequest[], signal?: AbortSignal): Promise<(UpstreamResult | Error)[]>;
  state(): UpstreamState;
  close(): Promise<void>;
}
