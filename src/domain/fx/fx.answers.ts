import type { RequestContext } from "../request.context";
import { dayOf, loadFxSeries, normalizeCurrency, rateOnOrBefore } from "./fx.service";

/** The latest rate between two currencies: `rate` units of `to` for one of `from`, as of `day`. */
export interface FxQuote {
  from: string;
  to: string;
  rate: number;
  /** The latest day either currency has a rate for (`YYYY-MM-DD`, UTC); the other's borrows its last known one. */
  day: string;
}

/** Exchange rates, as the resolvers ask for them (the answer level: see etf/etf.answers.ts). */
export interface FxAnswers {
  quote(ctx: RequestContext, from: string, to: string): Promise<FxQuote>;
}

/**
 * From the FX table's per-USD series, as quotes and candles convert (fx.service.ts): a cross of two currencies goes
 * through USD. A code that is not ISO 4217 is INVALID_ARGUMENT; one the store has no recent rate of is NOT_FOUND.
 */
async function latestFxQuote(ctx: RequestContext, fromRaw: string, toRaw: string): Promise<FxQuote> {
  const from = normalizeCurrency(fromRaw, "from");
  const to = normalizeCurrency(toRaw, "to");
  const today = dayOf(Math.floor(ctx.clock.now().getTime() / 1000));
  const [a, b] = await Promise.all([loadFxSeries(ctx, from, today, today), loadFxSeries(ctx, to, today, today)]);
  const days = [a, b].flatMap((s) => (s === "usd" ? [] : [s[s.length - 1]!.day]));
  const day = days.length === 0 ? today : days.sort()[days.length - 1]!;
  const perUsd = (s: typeof a) => (s === "usd" ? 1 : rateOnOrBefore(s, day)!);
  return { from, to, rate: from === to ? 1 : perUsd(b) / perUsd(a), day };
}

/** The answers computed from a row store's FX table. */
export const ROW_STORE_FX_ANSWERS: FxAnswers = Object.freeze({ quote: latestFxQuote });
