import type { Clock } from "../../platform/clock";
import { Quote } from "../quote/quote.types";
import type { LiveHub } from "./live.hub";

/** How much a simulated price moves in one tick: the standard deviation of its log return (0.1 %). */
const TICK_VOLATILITY = 0.001;
/** Seconds of a trading session, to spread a security's average daily volume over its ticks. */
const SESSION_SECONDS = 23_400;

export interface TickSimulatorOptions {
  seed: number;
  /** Every this many milliseconds each subscribed symbol moves once; 0: only when `tick()` is called. */
  tickMs: number;
  clock: Clock;
  /** A symbol whose last quote could not be read (it no longer exists, the store failed): it is not simulated. */
  onError?: (symbol: string, err: unknown) => void;
}

interface Walk {
  quote: Quote;
  random: () => number;
}

/**
 * SIMULATED PRICES, for trials and demos of the generated sample, which has no market behind it: each subscribed
 * symbol's quote takes a seeded random walk (geometric, 0.1 % a tick) from its last quote in the store, and the walk
 * is published as the symbol's changes, marked `simulated` on every push. Only subscribed symbols move, and only while
 * subscribed; the store is never written. The same seed and symbol give the same walk.
 */
export class TickSimulator {
  private readonly walks = new Map<string, Walk | "loading">();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly hub: LiveHub,
    private readonly lastQuote: (symbol: string) => Promise<Quote>,
    private readonly opts: TickSimulatorOptions,
  ) {
    hub.onDemand((symbol, wanted) => (wanted ? this.follow(symbol) : this.walks.delete(symbol)));
    for (const symbol of hub.wanted()) this.follow(symbol);
  }

  start(): void {
    if (this.opts.tickMs <= 0 || this.timer) return;
    this.timer = setInterval(() => this.tick(), this.opts.tickMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Symbols whose walk is under way (their last quote read). */
  get following(): string[] {
    return [...this.walks].filter(([, w]) => w !== "loading").map(([s]) => s);
  }

  /** Moves every subscribed symbol whose last quote is known by one step, and publishes each. */
  tick(): void {
    const t = Math.floor(this.opts.clock.now().getTime() / 1000);
    for (const [symbol, walk] of this.walks) {
      if (walk === "loading") continue;
      walk.quote = step(walk.quote, walk.random, t);
      this.hub.publish({ symbol, quote: walk.quote, origin: "simulated" });
    }
  }

  /** Resolves once the symbol's last quote was read (tests wait for it before ticking). */
  async ready(symbol: string): Promise<void> {
    while (this.walks.get(symbol) === "loading") await new Promise((r) => setImmediate(r));
  }

  private follow(symbol: string): void {
    if (this.walks.has(symbol)) return;
    this.walks.set(symbol, "loading");
    this.lastQuote(symbol).then(
      (quote) => {
        if (this.walks.get(symbol) !== "loading") return;
        this.walks.set(symbol, { quote, random: seededRandom(this.opts.seed, symbol) });
      },
      (err: unknown) => {
        if (this.walks.get(symbol) === "loading") this.walks.delete(symbol);
        this.opts.onError?.(symbol, err);
      },
    );
  }
}

/** One step of the walk: a new price, the day's high, low and volume after it, at `t`. */
function step(q: Quote, random: () => number, t: number): Quote {
  const c = sixDigits(q.c * Math.exp(TICK_VOLATILITY * gaussian(random)));
  const perTick = (q.avgVolume ?? 0) / SESSION_SECONDS;
  const traded = Math.round(perTick * 2 * random());
  const d = c - q.pc;
  return Object.assign(new Quote(), q, {
    c,
    d: Math.round(d * 1e10) / 1e10,
    dp: q.pc === 0 ? 0 : Math.round((d / q.pc) * 100 * 1e4) / 1e4,
    h: Math.max(q.h, c),
    l: Math.min(q.l, c),
    v: q.v + traded,
    t: Math.max(q.t, t),
    historicalPrice: { ...q.historicalPrice, day: c },
  });
}

/** Six significant digits: a forex rate keeps its pips, a price of thousands its cents. */
function sixDigits(x: number): number {
  return Number(x.toPrecision(6));
}

/** A standard normal draw (Box-Muller). */
function gaussian(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** mulberry32, seeded by the seed and the symbol: each symbol's walk is its own, whatever else is subscribed. */
function seededRandom(seed: number, symbol: string): () => number {
  let h = seed >>> 0;
  for (let i = 0; i < symbol.length; i++) h = Math.imul(h ^ symbol.charCodeAt(i), 0x5bd1e995) >>> 0;
  let a = h;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}
