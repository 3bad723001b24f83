import type { CounterRequest, CounterResult, CounterStore } from "./quota.types";

interface Counter {
  count: number;
  /** Epoch milliseconds (of the limiter's clock) after which the counter is gone. */
  expiresAt: number;
}

/** Expired counters are swept after this many operations, so memory stays bounded by the active keys. */
const SWEEP_EVERY = 1_000;

/**
 * Counters in this process's memory: the default, and the fallback while
 * Redis is unreachable. Each replica counts on its own here.
 */
export class MemoryCounterStore implements CounterStore {
  readonly kind = "memory" as const;
  private readonly counters = new Map<string, Counter>();
  private ops = 0;

  constructor(private readonly now: () => number) {}

  async consume(req: CounterRequest): Promise<CounterResult> {
    return this.consumeNow(req);
  }

  /** `consume` without the promise: the limiter's hot path when memory is where it counts (quota.service.ts). */
  consumeNow(req: CounterRequest): CounterResult {
    const now = this.now();
    if (++this.ops % SWEEP_EVERY === 0) this.sweep(now);
    const minute = this.live(req.minuteKey, now);
    const day = this.live(req.dayKey, now);
    const minuteUsed = minute?.count ?? 0;
    const dayUsed = day?.count ?? 0;
    if (minuteUsed + req.cost > req.minuteLimit || dayUsed + req.cost > req.dayLimit) {
      return { allowed: false, minuteUsed, dayUsed };
    }
    // Live counters count up in place; only a new window's counter is a new entry.
    if (minute) minute.count += req.cost;
    else this.counters.set(req.minuteKey, { count: req.cost, expiresAt: now + req.minuteTtlMs });
    if (day) day.count += req.cost;
    else this.counters.set(req.dayKey, { count: req.cost, expiresAt: now + req.dayTtlMs });
    return { allowed: true, minuteUsed: minuteUsed + req.cost, dayUsed: dayUsed + req.cost };
  }

  async refund(req: CounterRequest): Promise<CounterResult> {
    const now = this.now();
    const minute = this.live(req.minuteKey, now);
    const day = this.live(req.dayKey, now);
    if (minute) minute.count = Math.max(0, minute.count - req.cost);
    if (day) day.count = Math.max(0, day.count - req.cost);
    return { allowed: true, minuteUsed: minute?.count ?? 0, dayUsed: day?.count ?? 0 };
  }

  async peek(req: CounterRequest): Promise<CounterResult> {
    const now = this.now();
    const minuteUsed = this.live(req.minuteKey, now)?.count ?? 0;
    const dayUsed = this.live(req.dayKey, now)?.count ?? 0;
    const allowed = minuteUsed + req.cost <= req.minuteLimit && dayUsed + req.cost <= req.dayLimit;
    return { allowed, minuteUsed, dayUsed };
  }

  /** Number of live counters (for tests of the sweep). */
  get size(): number {
    return this.counters.size;
  }

  async close(): Promise<void> {
    this.counters.clear();
  }

  private live(key: string, now: number): Counter | undefined {
    const c = this.counters.get(key);
    if (c === undefined) return undefined;
    if (c.expiresAt <= now) {
      this.counters.delete(key);
      return undefined;
    }
    return c;
  }

  private sweep(now: number): void {
    for (const [key, c] of this.counters) if (c.expiresAt <= now) this.counters.delete(key);
  }
}
