import type { Logger } from "pino";
import type { Clock } from "../clock";
import { QuotaExceededError } from "../errors";
import type { RateLimitConfig } from "../config";
import { rateLimitHeader, rateLimitHeaders, rateLimitPolicyHeader } from "./quota.headers";
import { MemoryCounterStore } from "./quota.memory";
import { RedisCounterStore } from "./quota.redis";
import type {
  CounterRequest,
  CounterResult,
  CounterStore,
  KeyLimits,
  LimitDecision,
  PolicyName,
  PolicyState,
} from "./quota.types";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** At most one "Redis connection error" warning per this many milliseconds (the client retries on its own). */
const WARN_EVERY_MS = 60_000;
/** MDG_REDIS_COOLDOWN_MS's default. */
const COOLDOWN_MS = 5_000;

/** Anything with `setHeader`: an Express response, or a test double. */
export interface HeaderSink {
  setHeader(name: string, value: string): unknown;
  removeHeader?(name: string): unknown;
}

/**
 * Per-key rate (units per minute, fixed windows on the minute) and daily
 * quota (units per UTC day), checked and counted together in one atomic
 * step. A refused call counts nothing, so a client that waits for
 * `Retry-After` is served.
 *
 * When Redis is configured but unreachable the limiter FAILS OPEN: it counts
 * in this process's memory (each replica then enforces the limits on its
 * own) instead of failing every request. The limits protect the service from
 * a noisy client; turning a Redis outage into a full outage of market data
 * would be the worse harm.
 *
 * A failed Redis call (a timeout, a connection error) starts a cooling period
 * of `cooldownMs` in which no request calls Redis; then one request probes it
 * while the others keep counting in memory. A Redis that accepts connections
 * and never answers so delays one request per period by one timeout, not
 * every request. Each change of state is logged once.
 */
/** The RateLimit headers of a count on the response; the refusal thrown when it was not allowed. */
function charged(decision: LimitDecision, cost: number, res: HeaderSink): LimitDecision {
  res.setHeader("ratelimit-policy", rateLimitPolicyHeader(decision));
  res.setHeader("ratelimit", rateLimitHeader(decision));
  if (!decision.allowed) throw quotaError(decision, Math.max(1, Math.ceil(cost)));
  return decision;
}

export class RateLimiter {
  private readonly fallback: MemoryCounterStore;
  /** Wall time (performance.now) Redis failed first in this outage; null while Redis answers. */
  private degradedSince: number | null = null;
  /** Wall time (performance.now) before which Redis is not called. */
  private retryAt = 0;
  private probing = false;
  private fallbacks = 0;

  constructor(
    readonly store: CounterStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly prefix = "mdg:",
    private readonly cooldownMs = COOLDOWN_MS,
  ) {
    this.fallback =
      store instanceof MemoryCounterStore ? store : new MemoryCounterStore(() => this.clock.now().getTime());
    this.memoryOnly = this.store === this.fallback;
  }

  /** No Redis: every count is in this process's memory. */
  private readonly memoryOnly: boolean;

  /** Counts `cost` units against the key if both its rate and its quota allow them all; otherwise counts nothing. */
  async consume(key: KeyLimits, cost: number): Promise<LimitDecision> {
    return this.memoryOnly ? this.consumeInMemory(key, cost) : this.consumeCounted(key, cost);
  }

  /** Without Redis the count is synchronous: no promise per layer on the hot path. */
  private consumeInMemory(key: KeyLimits, cost: number): LimitDecision {
    const units = Math.max(1, Math.ceil(cost));
    const { request, minuteEnd, dayEnd, now } = this.requestFor(key, units);
    return this.decide(key, units, request, this.fallback.consumeNow(request), this.fallback, minuteEnd, dayEnd, now);
  }

  private async consumeCounted(key: KeyLimits, cost: number): Promise<LimitDecision> {
    const units = Math.max(1, Math.ceil(cost));
    const { request, minuteEnd, dayEnd, now } = this.requestFor(key, units);
    const { result, store } = await this.count(request);
    return this.decide(key, units, request, result, store, minuteEnd, dayEnd, now);
  }

  private decide(
    key: KeyLimits,
    units: number,
    request: CounterRequest,
    result: CounterResult,
    store: CounterStore,
    minuteEnd: number,
    dayEnd: number,
    now: number,
  ): LimitDecision {
    const policies: PolicyState[] = [
      policy("minute", key.ratePerMinute, 60, result.minuteUsed, minuteEnd - now),
      policy("day", key.dailyQuota, 86_400, result.dayUsed, dayEnd - now),
    ];
    if (result.allowed) {
      return { allowed: true, policies, retryAfterSeconds: 0, violated: [], receipt: { store, request } };
    }
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
   * The key's limits as they stand, counting nothing: what a call of one unit would be told (`allowed`, `violated`,
   * `retryAfterSeconds`), with no receipt. Read where `consume` would count (Redis, or memory while failing open).
   */
  async peek(key: KeyLimits): Promise<LimitDecision> {
    const { request, minuteEnd, dayEnd, now } = this.requestFor(key, 1);
    const result = await this.read(request);
    const policies: PolicyState[] = [
      policy("minute", key.ratePerMinute, 60, result.minuteUsed, minuteEnd - now),
      policy("day", key.dailyQuota, 86_400, result.dayUsed, dayEnd - now),
    ];
    const violated = policies.filter((p) => p.remaining < 1);
    return {
      allowed: violated.length === 0,
      policies,
      violated: violated.map((p) => p.name),
      retryAfterSeconds: violated.length ? Math.max(...violated.map((p) => p.resetSeconds)) : 0,
    };
  }

  private requestFor(
    key: KeyLimits,
    units: number,
  ): { request: CounterRequest; minuteEnd: number; dayEnd: number; now: number } {
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
    return { request, minuteEnd, dayEnd, now };
  }

  /** Reads the counters where `count` would count them; a failing Redis is read around as `count` does. */
  private async read(request: CounterRequest): Promise<CounterResult> {
    if (this.store === this.fallback || this.degradedSince !== null) return this.fallback.peek(request);
    try {
      return await this.store.peek(request);
    } catch {
      // `count` notices the outage and logs it once; a read alone only falls back.
      return this.fallback.peek(request);
    }
  }

  /**
   * The door's hook: counts `cost` units, puts the RateLimit headers on the
   * response whatever the outcome, and throws QuotaExceededError (403, with
   * Retry-After) when the key's rate or quota is spent.
   */
  async charge(key: KeyLimits, cost: number, res: HeaderSink): Promise<LimitDecision> {
    const decision = this.memoryOnly ? this.consumeInMemory(key, cost) : await this.consumeCounted(key, cost);
    return charged(decision, cost, res);
  }

  /**
   * `charge` without a promise where the count needs none (no Redis: counted in memory): the same count, headers and
   * refusal (thrown), for a caller that saves the promise on its hot path.
   */
  chargeNow(key: KeyLimits, cost: number, res: HeaderSink): LimitDecision | Promise<LimitDecision> {
    return this.memoryOnly ? charged(this.consumeInMemory(key, cost), cost, res) : this.charge(key, cost, res);
  }

  /**
   * Gives back `units` of what `decision` counted, for a call refused after it was counted (a scope that depends on
   * the security named, known only once it was looked up): a refused call counts nothing. Returns the decision as it
   * stands after the refund, or null when nothing of the call stays counted (its answer then carries no RateLimit
   * fields). If the counter store fails, the units stay counted (the limits fail open, never closed).
   */
  async refund(decision: LimitDecision, units: number): Promise<LimitDecision | null> {
    const receipt = decision.receipt;
    if (!receipt || units <= 0) return decision;
    const give = Math.min(units, receipt.request.cost);
    let counts: CounterResult;
    try {
      counts = await receipt.store.refund({ ...receipt.request, cost: give });
    } catch (err) {
      const message = (err as Error).message;
      this.logger.warn({ err: { message } }, "rate limits: a refused call's units could not be given back");
      return decision;
    }
    if (give === receipt.request.cost) return null;
    const used: Record<PolicyName, number> = { minute: counts.minuteUsed, day: counts.dayUsed };
    return {
      ...decision,
      policies: decision.policies.map((p) => ({ ...p, remaining: Math.max(0, p.quota - used[p.name]) })),
      receipt: { store: receipt.store, request: { ...receipt.request, cost: receipt.request.cost - give } },
    };
  }

  /**
   * The door's hook for a call refused after it was counted: gives `units` back and puts the RateLimit fields as
   * they now stand on the response, or takes them off when the call no longer counts at all.
   */
  async giveBack(decision: LimitDecision, units: number, res: HeaderSink): Promise<void> {
    const after = await this.refund(decision, units);
    for (const [name, value] of Object.entries(rateLimitHeaders(after ?? decision))) {
      if (after) res.setHeader(name, value);
      else res.removeHeader?.(name);
    }
  }

  async close(): Promise<void> {
    await this.store.close();
    if (this.fallback !== this.store) await this.fallback.close();
  }

  /** Whether counting happens in Redis now: null without Redis, false while failing open (for /metrics). */
  get redisUp(): boolean | null {
    if (this.store === this.fallback) return null;
    return this.degradedSince === null;
  }

  /** Counts in Redis, or in memory while Redis is failing; says which, so a refund goes to the same counters. */
  private async count(request: CounterRequest): Promise<{ result: CounterResult; store: CounterStore }> {
    const inMemory = async () => ({ result: await this.fallback.consume(request), store: this.fallback });
    if (this.store === this.fallback) return inMemory();
    const down = this.degradedSince !== null;
    // Cooling down, or another request is already probing: memory, without waiting for Redis.
    if (down && (this.probing || performance.now() < this.retryAt)) {
      this.fallbacks++;
      return inMemory();
    }
    if (down) this.probing = true;
    try {
      const result = await this.store.consume(request);
      if (this.degradedSince !== null) {
        const sinceMs = Math.round(performance.now() - this.degradedSince);
        this.logger.info({ fallbacks: this.fallbacks, sinceMs }, "rate limits: Redis reachable again, counting there");
        this.degradedSince = null;
        this.fallbacks = 0;
      }
      return { result, store: this.store };
    } catch (err) {
      this.fallbacks++;
      this.retryAt = performance.now() + this.cooldownMs;
      if (this.degradedSince === null) {
        this.degradedSince = performance.now();
        this.logger.warn(
          { err: { message: (err as Error).message }, cooldownMs: this.cooldownMs },
          "rate limits: Redis unreachable, counting in this process's memory (fail open); " +
            "trying Redis again once every cooling period until it answers",
        );
      }
      return inMemory();
    } finally {
      if (down) this.probing = false;
    }
  }
}

function policy(name: PolicyName, quota: number, windowSeconds: number, used: number, msLeft: number): PolicyState {
  return {
    name,
    quota,
    windowSeconds,
    remaining: Math.max(0, quota - used),
    resetSeconds: Math.max(1, Math.ceil(msLeft / 1000)),
  };
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

/**
 * The limiter a config asks for: Redis when REDIS_URL is set (falling back to memory while unreachable), else memory.
 */
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
  return new RateLimiter(store, clock, logger, config.redisKeyPrefix, config.redisCooldownMs);
}
