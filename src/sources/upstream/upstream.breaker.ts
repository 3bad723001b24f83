import type { UpstreamConfig } from "../../platform/config";
import type { UpstreamState } from "./upstream.types";

/** Outcomes over a rolling window, in buckets (opossum keeps 10 of 1 s each over its 10 s window). */
export class RollingCounts {
  private readonly buckets: { start: number; a: number; b: number }[] = [];
  private readonly bucketMs: number;

  constructor(
    private readonly windowMs: number,
    buckets = 10,
  ) {
    this.bucketMs = Math.max(1, Math.floor(windowMs / buckets));
  }

  add(nowMs: number, a: number, b: number): void {
    this.expire(nowMs);
    const start = nowMs - (nowMs % this.bucketMs);
    const last = this.buckets[this.buckets.length - 1];
    if (last && last.start === start) {
      last.a += a;
      last.b += b;
    } else {
      this.buckets.push({ start, a, b });
    }
  }

  /** Sums of both counts over the window ending now. */
  totals(nowMs: number): { a: number; b: number } {
    this.expire(nowMs);
    let a = 0;
    let b = 0;
    for (const x of this.buckets) {
      a += x.a;
      b += x.b;
    }
    return { a, b };
  }

  clear(): void {
    this.buckets.length = 0;
  }

  private expire(nowMs: number): void {
    while (this.buckets.length > 0 && this.buckets[0]!.start + this.bucketMs <= nowMs - this.windowMs) {
      this.buckets.shift();
    }
  }
}

/**
 * The circuit breaker: closed until at least `minCalls` calls in the rolling window failed at `failurePercent` or
 * more; then open for `openMs`, refusing every call at once; then half-open, letting one probe through: its success
 * closes the breaker (with a fresh window), its failure opens it again for `openMs`.
 */
export class CircuitBreaker {
  private readonly window: RollingCounts;
  private status: UpstreamState["breaker"] = "closed";
  private openedAt = 0;
  private probing = false;

  constructor(
    private readonly opts: UpstreamConfig["breaker"],
    private readonly now: () => number,
    private readonly onChange: (state: UpstreamState["breaker"]) => void = () => undefined,
  ) {
    this.window = new RollingCounts(opts.windowMs);
  }

  get state(): UpstreamState["breaker"] {
    if (this.status === "open" && this.now() - this.openedAt >= this.opts.openMs) this.set("half-open");
    return this.status;
  }

  /**
   * Whether a call may go now. In half-open, only the first caller (the probe) gets `true` until it reports back;
   * a caller that gets `true` must call `success()` or `failure()`.
   */
  tryAcquire(): boolean {
    const s = this.state;
    if (s === "closed") return true;
    if (s === "open" || this.probing) return false;
    this.probing = true;
    return true;
  }

  success(): void {
    if (this.status === "half-open") {
      this.probing = false;
      this.window.clear();
      this.set("closed");
      return;
    }
    this.window.add(this.now(), 1, 0);
  }

  failure(): void {
    const now = this.now();
    if (this.status === "half-open") {
      this.probing = false;
      this.trip(now);
      return;
    }
    if (this.status === "open") return;
    this.window.add(now, 1, 1);
    const { a: calls, b: failures } = this.window.totals(now);
    if (calls >= this.opts.minCalls && (failures * 100) / calls >= this.opts.failurePercent) this.trip(now);
  }

  private trip(now: number): void {
    this.openedAt = now;
    this.window.clear();
    this.set("open");
  }

  private set(s: UpstreamState["breaker"]): void {
    if (s === this.status) return;
    this.status = s;
    this.onChange(s);
  }
}
