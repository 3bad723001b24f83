/**
 * Per-key limits (docs/contract.md section 2, 403 QUOTA_EXCEEDED): a rate per
 * minute and a quota per UTC day, both counted in units (one per request;
 * one per security for bulk; see limits.cost.ts).
 */

/** The two policies every key has, by the names the RateLimit headers use. */
export type PolicyName = "minute" | "day";

/** What a key is allowed: `Principal.ratePerMinute` and `Principal.dailyQuota`. */
export interface KeyLimits {
  keyId: string;
  ratePerMinute: number;
  dailyQuota: number;
}

/** The state of one policy after a decision. */
export interface PolicyState {
  name: PolicyName;
  /** Units allowed per window. */
  quota: number;
  /** Nominal window length in seconds (60, 86400). */
  windowSeconds: number;
  /** Units left in the current window after this decision. */
  remaining: number;
  /** Seconds until the current window ends and the units come back (at least 1). */
  resetSeconds: number;
}

export interface LimitDecision {
  allowed: boolean;
  /** Always both policies, minute first. */
  policies: readonly PolicyState[];
  /** When refused: seconds until every refusing policy has reset. */
  retryAfterSeconds: number;
  /** Names of the policies that refused, empty when allowed. */
  violated: readonly PolicyName[];
  /** What an allowed decision counted, and where, so a call refused afterwards can give its units back. */
  receipt?: ChargeReceipt;
}

export interface ChargeReceipt {
  store: CounterStore;
  request: CounterRequest;
}

/**
 * One atomic check-and-count: if both counters stay within their limits after adding `cost`, add it to both; else add
 * nothing.
 */
export interface CounterRequest {
  /** Counter ids, unique per key and window (the window's index is part of the id). */
  minuteKey: string;
  dayKey: string;
  cost: number;
  minuteLimit: number;
  dayLimit: number;
  /** How long each counter must live, in milliseconds (to the end of its window). */
  minuteTtlMs: number;
  dayTtlMs: number;
}

export interface CounterResult {
  allowed: boolean;
  /** Counts after the operation (unchanged when refused). */
  minuteUsed: number;
  dayUsed: number;
}

/** Where counters live: this process's memory, or Redis shared by every replica. */
export interface CounterStore {
  readonly kind: "memory" | "redis";
  consume(req: CounterRequest): Promise<CounterResult>;
  /**
   * Takes `cost` units back off both counters (never below 0, keeping their expiry): for a call counted and then
   * refused (a missing scope found only once the security was looked up). Returns the counts after it.
   */
  refund(req: CounterRequest): Promise<CounterResult>;
  /** Reads both counters without counting anything (`allowed` says whether `cost` more would be): for /v1/quota. */
  peek(req: CounterRequest): Promise<CounterResult>;
  close(): Promise<void>;
}
