import { RollingCounts } from "./upstream.breaker";

/**
 * Finagle's RetryBudget: retries over the last `windowMs` may not pass `minPerSecond × window` plus `percent` of
 * the calls made in it. Keeps a struggling upstream from receiving a retry storm on top of its load.
 */
export class RetryBudget {
  private readonly window: RollingCounts;

  constructor(
    private readonly percent: number,
    private readonly minPerSecond: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {
    this.window = new RollingCounts(windowMs);
  }

  /** A first attempt: deposits its share of a retry. */
  call(): void {
    this.window.add(this.now(), 1, 0);
  }

  /** Takes one retry from the budget; false when it is spent. */
  tryRetry(): boolean {
    const now = this.now();
    const { a: calls, b: retries } = this.window.totals(now);
    const allowed = Math.floor((this.minPerSecond * this.windowMs) / 1000 + (calls * this.percent) / 100);
    if (retries >= allowed) return false;
    this.window.add(now, 0, 1);
    return true;
  }
}
