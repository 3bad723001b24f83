import type { Logger } from "pino";
import type { Clock } from "../common/clock";
import { QuotaExceededError } from "../common/errors";
import type { RateLimitConfig } from "../config";
import { rateLimitHeaders } from "./limits.headers";
import { MemoryCounterStore } from "./limits.memory";
import { RedisCounterStore } from "./limits.redis";
import type { CounterResult, CounterStore, KeyLimits, LimitDecision, PolicyName, PolicyState } from "./limits.types";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** At most one "Redis unreachable" warning per this many milliseconds. */
const WARN_EVERY_MS = 60_000;

/** Anything with `setHeader`: an Express response, or a test double. */
export interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

/**
 * Per-key rate (units per minute, fixed windows on the minute) and daily
 * quota (units per UTC day), checked and counted together in one atomic
 * step. A refused call counts nothing, so a client that waits for
 * `Retry-After` is served.
 *
 * When Redis is configured but unreachable the limiter FAILS OPEN: it counts
 * in this process's memory (each replica then enforces the limits on its
 * own) and logs a warning, at most once a minute, instead of failing every
 * request. The limits protect the service from a noisy client; turning a
 * Redis outage into a full outage of market data would be the worse harm.
 */
export class RateLimiter {
  private readonly fallback: MemoryCounterStore;
  private degradedSince: number | null = null;
  private lastWarning = 0;
  private fallbacks = 0;

  constructor(
    readonly store: CounterStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly prefix = "mdg:",
  ) {
    this.fallback = store instanceof MemoryCounterStore ? store : new MemoryCounterStore(() => this.clock.now().getTime());
  }

  /** Counts `cost` units against the key if both its rate and its quota allow them all; otherwise counts nothing. */
  async consume(key: KeyLimits, cost: number): Promise<LimitDecision> {
    const units = Math.max(1, Math.ceil(cost));
    const now = this.clock.now().getTime();
    const minute = Math.floor(now / MINUTE_MS);
    const day = Math.floor(now / DAY_MS);
    const minuteEnd = (minute + 1) * MINUTE_MS;
    const dayEnd = (day + 1) * DAY_MS;
    // The braces are a Redis Cluster hash tag: both counters of a key live on one node, as the script needs.
    const base = `${this.prefix}rl:{${key.keyId}}`;
    const request = {
      minuteKey: `${base}:m:${minute}`,
      dayKey: `${base}:d:${day}`,
      cost: units,
      minuteLimit: key.ratePerMinute,
      dayLimit: key.dailyQuota,
      minuteTtlMs: minuteEnd - now + 1_000,
      dayTtlMs: dayEnd - now + 1_000,
    };
    const result = await this.count(request);
    const policies: PolicyState[] = [
      policy("minute", key.ratePerMinute, 60, result.minuteUsed, minuteEnd - now),
      policy("day", key.dailyQuota, 86_400, result.dayUsed, dayEnd - now),
    ];
    if (result.allowed) return { allowed: true, policies, retryAfterSeconds: 0, violated: [] };
    const used: Record<PolicyName, number> = { minute: result.minuteUsed, day: result.dayUsed };
    const violated = policies.filter((p) => used[p.name] + units > p.quota);
    return {
      allowed: false,
      policies,
      violated: violated.map((p) => p.name),
      retryAfterSeconds: Math.max(...violated.map((p) => p.resetSeconds)),
    };
  }

  /**
   * The door's hook: counts `cost` units, puts the RateLimit headers on the
   * response whatever the outcome, and throws QuotaExceededError (403, with
   * Retry-After) when the key's rate or quota is spent.
   */
  async charge(key: KeyLimits, cost: number, res: HeaderSink): Promise<LimitDecision> {
    const decision = await this.consume(key, cost);
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) res.setHeader(name, value);
    if (!decision.allowed) throw quotaError(decision, Math.max(1, Math.ceil(cost)));
    return decision;
  }

  async close(): Promise<void> {
    await this.store.close();
    if (this.fallback !== this.store) await this.fallback.close();
  }

  private async count(request: Parameters<CounterStore["consume"]>[0]): Promise<CounterResult> {
    if (this.store === this.fallback) return this.fallback.consume(request);
    try {
      const result = await this.store.consume(request);
      if (this.degradedSince !== null) {
        this.logger.info({ fallbacks: this.fallbacks, sinceMs: Date.now() - this.degradedSince }, "rate limits: Redis reachable again, counting there");
        this.degradedSince = null;
        this.fallbacks = 0;
      }
      return result;
    } catch (err) {
      this.fallbacks++;
      const wallNow = Date.now();
      this.degradedSince ??= wallNow;
      if (wallNow - this.lastWarning >= WARN_EVERY_MS) {
        this.lastWarning = wallNow;
        this.logger.warn(
          { err: { message: (err as Error).message }, fallbacks: this.fallbacks },
          "rate limits: Redis unreachable, counting in this process's memory (fail open) until it is back",
        );
      }
      return this.fallback.consume(request);
    }
  }
}

function policy(name: PolicyName, quota: number, windowSeconds: number, used: number, msLeft: number): PolicyState {
  return { name, quota, windowSeconds, remaining: Math.max(0, quota - used), resetSeconds: Math.max(1, Math.ceil(msLeft / 1000)) };
}

function quotaError(decision: LimitDecision, units: number): QuotaExceededError {
  const first = decision.policies.find((p) => p.name === decision.violated[0])!;
  const what = first.name === "minute" ? `rate limit of ${first.quota} per minute` : `daily quota of ${first.quota}`;
  const message =
    units > first.quota
      ? `this call costs ${units} units, more than the key's ${what}: send fewer symbols per call`
      : `the key's ${what} is spent; retry in ${decision.retryAfterSeconds} s`;
  return new QuotaExceededError(message, decision.retryAfterSeconds);
}

/** The limiter a config asks for: Redis when REDIS_URL is set (falling back to memory while unreachable), else memory. */
export function createRateLimiter(config: RateLimitConfig, clock: Clock, logger: Logger): RateLimiter {
  const now = () => clock.now().getTime();
  if (!config.redisUrl) return new RateLimiter(new MemoryCounterStore(now), clock, logger, config.redisKeyPrefix);
  let lastError = 0;
  const store = new RedisCounterStore({
    url: config.redisUrl,
    timeoutMs: config.redisTimeoutMs,
    onError: (err) => {
      // The client reconnects on its own; one line a minute is enough to see it.
      if (Date.now() - lastError < WARN_EVERY_MS) return;
      lastError = Date.now();
      logger.warn({ err: { message: err.message } }, "rate limits: Redis connection error");
    },
  });
  store.client.once("ready", () => logger.info("rate limits: counting in Redis, shared by every replica"));
  return new RateLimiter(store, clock, logger, config.redisKeyPrefix);
}
