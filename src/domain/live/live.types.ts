import type { Quote } from "../quote/quote.types";

/** What a client subscribes to: a symbol's quote, or its bars of one resolution as they form. */
export type LiveChannel = "quote" | "candle";

/** The resolutions bars are built for from ticks: 1 and 5 minutes, and the UTC day. */
export const LIVE_RESOLUTIONS = ["1", "5", "D"] as const;
export type LiveResolution = (typeof LIVE_RESOLUTIONS)[number];

export function isLiveResolution(value: unknown): value is LiveResolution {
  return typeof value === "string" && (LIVE_RESOLUTIONS as readonly string[]).includes(value);
}

/** Seconds a bar of each resolution spans. */
export const RESOLUTION_SECONDS: Record<LiveResolution, number> = { "1": 60, "5": 300, D: 86_400 };

/**
 * Where a change came from. `simulated`: the tick simulator of the generated sample (not a market price, and said so
 * on every push); `store`: an import or a provider run committed it; `upstream`: gateway mode's poll.
 */
export type LiveOrigin = "simulated" | "store" | "upstream";

/** A quote that changed, in its listing's currency. */
export interface QuoteChange {
  symbol: string;
  quote: Quote;
  origin: LiveOrigin;
}

/** The bar of one resolution that a tick moved: still forming, or closed by the first tick after its end. */
export interface LiveBar {
  symbol: string;
  resolution: LiveResolution;
  /** Start of the bar, Unix seconds (UTC). */
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  /** Volume traded within the bar (the growth of the quote's day volume across its ticks). */
  v: number;
  currency: string;
  closed: boolean;
}

export interface CandleChange {
  symbol: string;
  bar: LiveBar;
  origin: LiveOrigin;
}

export type LiveEvent = ({ channel: "quote" } & QuoteChange) | ({ channel: "candle" } & CandleChange);

export type LiveListener = (event: LiveEvent) => void;

/**
 * Carries changes between replicas (Redis pub/sub, src/sources/live/): one channel per symbol, listened to only while
 * this replica has a subscriber of that symbol.
 */
export interface LiveRelay {
  /** Sends a change to the other replicas; never throws (a relay that is down drops it and says so once). */
  publish(change: QuoteChange): void;
  /** From now on, changes of this symbol published elsewhere reach `deliver`. */
  follow(symbol: string): void;
  unfollow(symbol: string): void;
  close(): Promise<void>;
}
