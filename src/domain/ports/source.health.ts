/** How a remote source stands, as /readyz reports it (gateway mode: the upstream's circuit breaker). */
export interface UpstreamState {
  breaker: "closed" | "open" | "half-open";
  /** The last failure's kind (timeout, 5xx, connection, malformed, unauthorised), never a key or a body. */
  lastFailure?: string;
}
