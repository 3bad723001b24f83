import { BusyError, QuotaExceededError } from "../errors";

/**
 * Fairness between keys (docs/operations.md "Limits and hardening"): each key may run at
 * most `maxPerKey` heavy operations at once (MDG_MAX_HEAVY_PER_KEY); one more
 * is refused at once with QUOTA_EXCEEDED and `Retry-After`, so one key's heavy
 * load cannot hold the worker threads (and the main thread's share of that
 * work) that every other key's requests need.
 *
 * The process runs at most `capacity` heavy operations at once, every key
 * together (MDG_HEAVY_CAPACITY, by default one per worker thread): one more
 * waits in line, first come first served, at most `queueMs`
 * (MDG_HEAVY_QUEUE_MS), and is then refused with BUSY and `Retry-After`.
 * Without that line every admitted operation queued its work on the worker
 * pool, and those behind the others waited out the request timeout. A key's
 * operation that waits holds one of the key's slots.
 *
 * Heavy: an operation whose priced cost (the GraphQL cost model, which bulk
 * shares) is at least `HEAVY_COST`. Counted in this process: with several
 * replicas, a key may run `maxPerKey` heavy operations on each.
 */
export const HEAVY_COST = 1_000;

/** Seconds a refused client is told to wait: heavy operations take a fraction of a second to a few seconds. */
const RETRY_AFTER_SECONDS = 1;

interface Waiter {
  grant(): void;
  timer: NodeJS.Timeout | undefined;
}

export class HeavyGate {
  private readonly running = new Map<string, number>();
  private admitted = 0;
  private readonly line: Waiter[] = [];

  constructor(
    readonly maxPerKey: number,
    readonly capacity = Number.POSITIVE_INFINITY,
    readonly queueMs = 0,
  ) {}

  /**
   * Takes a slot of `keyId` and one of the process's: the release at once when both are free, a promise of it when
   * the process's are taken (rejected with BusyError after `queueMs`). Throws QuotaExceededError when the key's are
   * taken. Call the release exactly once when the operation ends.
   */
  acquire(keyId: string): (() => void) | Promise<() => void> {
    const n = this.running.get(keyId) ?? 0;
    if (n >= this.maxPerKey) {
      throw new QuotaExceededError(
        `this key already runs ${n} heavy operations (MDG_MAX_HEAVY_PER_KEY=${this.maxPerKey}); ` +
          "retry when one has finished",
        RETRY_AFTER_SECONDS,
      );
    }
    this.running.set(keyId, n + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.running.get(keyId) ?? 1) - 1;
      if (left <= 0) this.running.delete(keyId);
      else this.running.set(keyId, left);
      this.leave();
    };
    if (this.admitted < this.capacity && this.line.length === 0) {
      this.admitted++;
      return release;
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          if (waiter.timer) clearTimeout(waiter.timer);
          resolve(release);
        },
        timer: undefined,
      };
      waiter.timer = setTimeout(() => {
        const at = this.line.indexOf(waiter);
        if (at >= 0) this.line.splice(at, 1);
        // The key's slot goes back; the process's was never taken.
        released = true;
        const left = (this.running.get(keyId) ?? 1) - 1;
        if (left <= 0) this.running.delete(keyId);
        else this.running.set(keyId, left);
        reject(
          new BusyError(
            `the service is running as many heavy operations as it can (MDG_HEAVY_CAPACITY=${this.capacity}) ` +
              `and this one waited ${this.queueMs} ms (MDG_HEAVY_QUEUE_MS); retry later`,
            Math.max(RETRY_AFTER_SECONDS, Math.ceil(this.queueMs / 1000)),
          ),
        );
      }, this.queueMs);
      this.line.push(waiter);
    });
  }

  /** An operation ended: its process slot goes to the first in line, if any. */
  private leave(): void {
    const next = this.line.shift();
    if (next) next.grant();
    else this.admitted--;
  }

  /** Heavy operations `keyId` runs now (or waits to run). */
  inFlight(keyId: string): number {
    return this.running.get(keyId) ?? 0;
  }

  /** Heavy operations running and waiting in this process, for tests and the bench. */
  stats(): { running: number; waiting: number } {
    return { running: this.admitted, waiting: this.line.length };
  }
}

/** One gate per app (per validated config object): /graphql, REST and bulk count against the same slots. */
const GATES = new WeakMap<object, HeavyGate>();

export function heavyGate(config: { maxHeavyPerKey: number; heavyCapacity: number; heavyQueueMs: number }): HeavyGate {
  let gate = GATES.get(config);
  if (!gate) {
    GATES.set(config, (gate = new HeavyGate(config.maxHeavyPerKey, config.heavyCapacity, config.heavyQueueMs)));
  }
  return gate;
}
