import { QuotaExceededError } from "../errors";

/**
 * Fairness between keys (README "Limits and hardening"): each key may run at
 * most `max` heavy operations at once (MDG_MAX_HEAVY_PER_KEY); one more is
 * refused at once with QUOTA_EXCEEDED and `Retry-After`, so one key's heavy
 * load cannot hold the worker threads (and the main thread's share of that
 * work) that every other key's requests need.
 *
 * Heavy: an operation whose priced cost (the GraphQL cost model, which bulk
 * shares) is at least `HEAVY_COST`. Counted in this process: with several
 * replicas, a key may run `max` heavy operations on each.
 */
export const HEAVY_COST = 1_000;

/** Seconds a refused client is told to wait: heavy operations take a fraction of a second to a few seconds. */
const RETRY_AFTER_SECONDS = 1;

export class HeavyGate {
  private readonly running = new Map<string, number>();

  constructor(readonly max: number) {}

  /** Takes a slot for `keyId` or throws QuotaExceededError; call the answer exactly once when the operation ends. */
  acquire(keyId: string): () => void {
    const n = this.running.get(keyId) ?? 0;
    if (n >= this.max) {
      throw new QuotaExceededError(
        `this key already runs ${n} heavy operations (MDG_MAX_HEAVY_PER_KEY=${this.max}); retry when one has finished`,
        RETRY_AFTER_SECONDS,
      );
    }
    this.running.set(keyId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(keyId) ?? 1) - 1;
      if (left <= 0) this.running.delete(keyId);
      else this.running.set(keyId, left);
    };
  }

  /** Heavy operations `keyId` runs now. */
  inFlight(keyId: string): number {
    return this.running.get(keyId) ?? 0;
  }
}

/** One gate per app (per validated config object): /graphql and bulk count against the same slots. */
const GATES = new WeakMap<object, HeavyGate>();

export function heavyGate(config: { maxHeavyPerKey: number }): HeavyGate {
  let gate = GATES.get(config);
  if (!gate) GATES.set(config, (gate = new HeavyGate(config.maxHeavyPerKey)));
  return gate;
}
