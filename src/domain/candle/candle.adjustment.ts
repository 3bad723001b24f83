import { InvalidArgumentError } from "../../platform/errors";
import { dayOf, fxConverter, unixOfDay } from "../fx/fx.service";
import type { BarRow, DividendRow, InstrumentRow, SplitRow } from "../ports/source.types";
import type { RequestContext } from "../request.context";
import { CANDLE_ADJUSTMENTS, CandleAdjustment } from "./candle.types";

const DAY = 86_400;

/** How far before an ex-date its previous close is looked for: a long weekend, a holiday week, a short halt. */
const PREVIOUS_CLOSE_LOOKBACK_DAYS = 14;

/** Reads `adjustment` as the resolvers and REST pass it (the enum's value, any case); absent is `splits`. */
export function parseAdjustment(raw: string | null | undefined): CandleAdjustment {
  if (raw == null) return CandleAdjustment.SPLITS;
  const a = raw.trim().toLowerCase();
  const found = CANDLE_ADJUSTMENTS.find((x) => x === a);
  if (found) return found;
  throw new InvalidArgumentError(`adjustment: ${JSON.stringify(raw)} is not one of ${CANDLE_ADJUSTMENTS.join(", ")}`, [
    { field: "adjustment", issue: "unknown adjustment" },
  ]);
}

/** A corporate action as a factor from a day on: the bars before `day` are scaled by `factor`. */
export interface AdjustmentEvent {
  day: string;
  factor: number;
}

/**
 * For each day, the product of the factors of the events after it (a bar on an event's own day is already on the
 * new basis). Events in any order; the answer is 1 after the last one.
 */
export function productAfter(events: readonly AdjustmentEvent[]): (day: string) => number {
  const sorted = [...events].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  // suffix[i]: the product of the factors of sorted[i..].
  const suffix = new Array<number>(sorted.length + 1);
  suffix[sorted.length] = 1;
  for (let i = sorted.length - 1; i >= 0; i--) suffix[i] = suffix[i + 1]! * sorted[i]!.factor;
  return (day) => {
    // The first event strictly after `day`.
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]!.day <= day) lo = mid + 1;
      else hi = mid;
    }
    return suffix[lo]!;
  };
}

/**
 * The splits as events undoing the store's convention: the store divides the prices before a split by its ratio
 * (ImportSink.upsertSplits), so a price as traded is the stored one times the ratios of the later splits.
 */
export function splitEvents(splits: readonly SplitRow[]): AdjustmentEvent[] {
  return splits
    .filter((s) => s.numerator > 0 && s.denominator > 0)
    .map((s) => ({ day: s.day, factor: s.numerator / s.denominator }));
}

/**
 * The standard backward dividend adjustment: each ex-date multiplies the prices before it by
 * 1 - amount / the close of the last bar before it. `closes` are daily bars, oldest first, on the same basis as the
 * amounts (both split-adjusted, in one currency). An ex-date without a close before it within the lookback, or
 * without a bar on or after it (the store has not reached it yet, so the latest bar stays as traded), adjusts
 * nothing; so does an amount that is not between zero and that close.
 */
export function dividendEvents(
  dividends: readonly { exDate: string; amount: number }[],
  closes: readonly BarRow[],
): AdjustmentEvent[] {
  const out: AdjustmentEvent[] = [];
  if (closes.length === 0) return out;
  const lastDay = dayOf(closes[closes.length - 1]!.t);
  for (const d of dividends) {
    if (d.exDate > lastDay) continue;
    const exStart = unixOfDay(d.exDate);
    // The last bar before the ex-date.
    let lo = 0;
    let hi = closes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (closes[mid]!.t < exStart) lo = mid + 1;
      else hi = mid;
    }
    const before = closes[lo - 1];
    if (!before || exStart - before.t > PREVIOUS_CLOSE_LOOKBACK_DAYS * DAY) continue;
    const factor = 1 - d.amount / before.c;
    if (d.amount > 0 && factor > 0) out.push({ day: d.exDate, factor });
  }
  return out;
}

/** How a bar of a day is adjusted: prices multiplied by `price`, the volume divided by `volume`. */
export interface BarFactors {
  price(day: string): number;
  volume(day: string): number;
}

const one = () => 1;

/**
 * The factors turning the store's split-adjusted bars of `row` from `from` (Unix seconds) on into `adjustment`'s
 * series, or null for `splits` (the bars as stored, read with no further query). One read of the security's splits
 * or dividends through the request's loaders, so the securities of one request (bulk items, GraphQL aliases) share
 * one query; `all` then reads the daily closes before the ex-dates in one more batched read, and the FX rates when
 * a dividend is paid in another currency than the listing's.
 */
export async function adjustmentFactors(
  ctx: RequestContext,
  row: InstrumentRow,
  adjustment: CandleAdjustment,
  from: number,
): Promise<BarFactors | null> {
  if (adjustment === CandleAdjustment.SPLITS) return null;
  if (adjustment === CandleAdjustment.NONE) {
    const splits = await ctx.loaders.splits.load(row.security.id);
    if (splits.length === 0) return null;
    const ratio = productAfter(splitEvents(splits));
    return { price: ratio, volume: ratio };
  }
  const today = dayOf(Math.floor(ctx.clock.now().getTime() / 1000));
  const dividends = (await ctx.loaders.dividends.load(row.security.id)).filter(
    (d) => d.exDate > dayOf(from) && d.exDate <= today,
  );
  if (dividends.length === 0) return null;
  const first = dividends[0]!.exDate;
  const last = dividends[dividends.length - 1]!.exDate;
  const [closes, amounts] = await Promise.all([
    ctx.loaders.dailyBars.load({
      listingId: row.listing.id,
      from: unixOfDay(first) - PREVIOUS_CLOSE_LOOKBACK_DAYS * DAY,
      to: unixOfDay(today) + DAY - 1,
    }),
    amountsIn(ctx, dividends, row.listing.currency, first, last),
  ]);
  const events = dividendEvents(amounts, closes);
  if (events.length === 0) return null;
  return { price: productAfter(events), volume: one };
}

/** Each dividend's split-adjusted amount in the listing's currency, at the FX rate of its ex-date. */
async function amountsIn(
  ctx: RequestContext,
  dividends: readonly DividendRow[],
  currency: string,
  firstDay: string,
  lastDay: string,
): Promise<{ exDate: string; amount: number }[]> {
  const others = [...new Set(dividends.map((d) => d.currency))].filter((c) => c !== currency);
  const converters = new Map(
    await Promise.all(others.map(async (c) => [c, await fxConverter(ctx, c, currency, firstDay, lastDay)] as const)),
  );
  return dividends.map((d) => ({
    exDate: d.exDate,
    amount: d.adjustedAmount * (converters.get(d.currency)?.(d.exDate) ?? 1),
  }));
}
