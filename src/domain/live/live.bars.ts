import type { Quote } from "../quote/quote.types";
import { RESOLUTION_SECONDS, type LiveBar, type LiveResolution } from "./live.types";

/**
 * The bars of one symbol and resolution built from its ticks. A tick inside the current bar moves it; the first tick
 * after its end closes it (returned once more with `closed: true`) and opens the next at the tick's price. The volume
 * of a bar is what the quote's day volume grew by across its ticks (a new day starts it again).
 */
export class BarBuilder {
  private bar: LiveBar | undefined;
  private lastDayVolume: number | undefined;

  constructor(
    readonly symbol: string,
    readonly resolution: LiveResolution,
  ) {}

  /** The bars the tick touched, oldest first: the closed one (if it closed one) and the one forming. */
  tick(quote: Quote): LiveBar[] {
    const span = RESOLUTION_SECONDS[this.resolution];
    const start = Math.floor(quote.t / span) * span;
    const traded = this.lastDayVolume === undefined || quote.v < this.lastDayVolume ? 0 : quote.v - this.lastDayVolume;
    this.lastDayVolume = quote.v;
    const out: LiveBar[] = [];
    const bar = this.bar;
    if (bar && start < bar.t) return out;
    if (bar && start === bar.t) {
      bar.h = Math.max(bar.h, quote.c);
      bar.l = Math.min(bar.l, quote.c);
      bar.c = quote.c;
      bar.v += traded;
    } else {
      if (bar) out.push({ ...bar, closed: true });
      const c = quote.c;
      this.bar = {
        symbol: this.symbol,
        resolution: this.resolution,
        t: start,
        o: c,
        h: c,
        l: c,
        c,
        v: traded,
        currency: quote.currency,
        closed: false,
      };
    }
    out.push({ ...this.bar! });
    return out;
  }
}
