import { requireScope, SCOPE_OF_TYPE } from "../instrument/instrument.access";
import { InvalidArgumentError, NotFoundError } from "../../platform/errors";
import type { RequestContext } from "../request.context";
import { dayOf, fxConverter, normalizeCurrency, roundMoney } from "../fx/fx.service";
import { resolveInstrument } from "../instrument/instrument.service";
import type { BarRow, InstrumentRow } from "../ports/source.types";
import type { CandleArgs, CandleRangeArgs, Candles } from "./candle.types";
import { adjustmentFactors, parseAdjustment } from "./candle.adjustment";
import { CandleAdjustment } from "./candle.types";

const MINUTE = 60;
const DAY = 86_400;

export const RESOLUTIONS = ["1", "5", "15", "30", "60", "D", "W", "M"] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/** The finest bars the store keeps below a day: 5 minutes. */
export const STORED_INTRADAY_MINUTES = 5;

/** How far one call may reach, so no call asks for unbounded data (documented in docs/api-stock-dividend.md). */
export const RANGE_CAP_SECONDS: Record<Resolution, number> = {
  "1": 31 * DAY,
  "5": 31 * DAY,
  "15": 31 * DAY,
  "30": 31 * DAY,
  "60": 31 * DAY,
  D: 20 * 366 * DAY,
  W: 50 * 366 * DAY,
  M: 50 * 366 * DAY,
};

/** The span before `to` that an omitted `from` covers. */
export const DEFAULT_SPAN_SECONDS: Record<Resolution, number> = {
  "1": 7 * DAY,
  "5": 7 * DAY,
  "15": 7 * DAY,
  "30": 7 * DAY,
  "60": 7 * DAY,
  D: 365 * DAY,
  W: 5 * 365 * DAY,
  M: 20 * 365 * DAY,
};

const CAP_TEXT: Record<Resolution, string> = {
  "1": "31 days",
  "5": "31 days",
  "15": "31 days",
  "30": "31 days",
  "60": "31 days",
  D: "20 years",
  W: "50 years",
  M: "50 years",
};

/** Reads a resolution as clients send it (`"D"`, `"d"`, `"15"`, `15`); anything else is the client's mistake. */
export function parseResolution(raw: string | null | undefined): Resolution {
  if (raw == null || raw.trim() === "") return "D";
  const r = raw.trim().toUpperCase();
  if ((RESOLUTIONS as readonly string[]).includes(r)) return r as Resolution;
  throw new InvalidArgumentError(`resolution: ${JSON.stringify(raw)} is not one of ${RESOLUTIONS.join(", ")}`, [
    { field: "resolution", issue: "unknown resolution" },
  ]);
}

export const isIntraday = (r: Resolution) => r !== "D" && r !== "W" && r !== "M";

/**
 * Start of the period holding instant `t`: the minute bucket for intraday
 * resolutions, 00:00 UTC of the day for D, Monday 00:00 UTC of the ISO week
 * for W, the 1st 00:00 UTC of the month for M.
 */
export function periodStart(t: number, r: Resolution): number {
  if (isIntraday(r)) {
    const size = Number(r) * MINUTE;
    return Math.floor(t / size) * size;
  }
  const day = Math.floor(t / DAY) * DAY;
  if (r === "D") return day;
  if (r === "W") {
    // 1970-01-01 was a Thursday: (days + 3) mod 7 is 0 on Mondays.
    const sinceMonday = (((Math.floor(day / DAY) + 3) % 7) + 7) % 7;
    return day - sinceMonday * DAY;
  }
  const d = new Date(day * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
}

/** Last second of the period holding `t`. */
export function periodEnd(t: number, r: Resolution): number {
  const start = periodStart(t, r);
  if (isIntraday(r)) return start + Number(r) * MINUTE - 1;
  if (r === "D") return start + DAY - 1;
  if (r === "W") return start + 7 * DAY - 1;
  const d = new Date(start * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000 - 1;
}

/**
 * Groups bars (ascending) into the periods of `r`: open of the first bar,
 * close of the last, highest high, lowest low, summed volume; `t` is the
 * period's start. Bars already at the resolution come back as they are.
 */
export function aggregateBars(bars: readonly BarRow[], r: Resolution): BarRow[] {
  const out: BarRow[] = [];
  let cur: BarRow | null = null;
  for (const b of bars) {
    const t = periodStart(b.t, r);
    if (cur && cur.t === t) {
      if (b.h > cur.h) cur.h = b.h;
      if (b.l < cur.l) cur.l = b.l;
      cur.c = b.c;
      cur.v += b.v;
    } else {
      cur = { t, o: b.o, h: b.h, l: b.l, c: b.c, v: b.v };
      out.push(cur);
    }
  }
  return out;
}

function rangeOf(ctx: RequestContext, args: CandleRangeArgs, r: Resolution): { from: number; to: number } {
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  const to = args.to ?? now;
  const from = args.from ?? Math.max(0, to - DEFAULT_SPAN_SECONDS[r]);
  for (const [field, v] of [
    ["from", from],
    ["to", to],
  ] as const) {
    if (!Number.isInteger(v) || v < 0) {
      throw new InvalidArgumentError(`${field}: expected Unix seconds (a non-negative integer)`, [
        { field, issue: "invalid" },
      ]);
    }
  }
  if (from > to) {
    throw new InvalidArgumentError(`from: ${from} is after to: ${to}`, [{ field: "from", issue: "after to" }]);
  }
  if (to - from > RANGE_CAP_SECONDS[r]) {
    throw new InvalidArgumentError(`to: resolution ${r} answers at most ${CAP_TEXT[r]} per call; narrow from..to`, [
      { field: "to", issue: "range too long" },
    ]);
  }
  return { from, to };
}

/**
 * The name of a series: the listing, the bar size, the currency of the prices and, when it is not the default
 * `splits`, the adjustment, so a client caching answers can tell two series of one symbol apart (docs/contract.md
 * section 4).
 */
export const seriesKey = (
  symbol: string,
  r: Resolution,
  currency: string,
  adjustment: CandleAdjustment = CandleAdjustment.SPLITS,
) =>
  adjustment === CandleAdjustment.SPLITS ? `${symbol}:${r}:${currency}` : `${symbol}:${r}:${currency}:${adjustment}`;

/**
 * Candles of a resolved listing. The range is moved out to whole periods of
 * the resolution; intraday bars come from the stored 5-minute bars, D from
 * daily bars, W and M are aggregated from daily bars. With `currency`, each
 * price is converted at the FX rate of its bar's day (last known rate on
 * days without one) before aggregation. With `adjustment` other than `splits`, each bar is first moved off the
 * store's split-adjusted basis by its day's factors (candle.adjustment.ts), in the same multiplication.
 */
export async function candlesOf(ctx: RequestContext, row: InstrumentRow, args: CandleRangeArgs): Promise<Candles> {
  requireScope(ctx, SCOPE_OF_TYPE[row.security.type]);
  const r = parseResolution(args.resolution);
  const adjustment = parseAdjustment(args.adjustment);
  const target = args.currency ? normalizeCurrency(args.currency) : row.listing.currency;
  const asked = rangeOf(ctx, args, r);
  if (isIntraday(r) && Number(r) < STORED_INTRADAY_MINUTES) {
    throw new NotFoundError(
      `resolution ${r}: finer than the stored data (the finest bars kept are ${STORED_INTRADAY_MINUTES} minutes); ` +
        "use 5, 15, 30, 60, D, W or M",
      [{ field: "resolution", issue: "finer than stored data" }],
    );
  }
  const from = periodStart(asked.from, r);
  const to = periodEnd(asked.to, r);
  const range = { listingId: row.listing.id, from, to };
  // Started together, so the reads of every security of the request (bulk items, aliases) share one batch each.
  const [bars, adjust] = await Promise.all([
    isIntraday(r) ? ctx.loaders.intradayBars.load(range) : ctx.loaders.dailyBars.load(range),
    adjustmentFactors(ctx, row, adjustment, from),
  ]);
  const symbol = row.listing.symbol;
  const key = seriesKey(symbol, r, target, adjustment);
  if (bars.length === 0) {
    // A known security without bars in the range is an empty answer, not an error (docs/contract.md section 2).
    const none: number[] = [];
    return {
      symbol,
      s: "no_data",
      t: none,
      o: none,
      h: none,
      l: none,
      c: none,
      v: none,
      from,
      to,
      resolution: r,
      key,
      currency: target,
    };
  }

  let priced: readonly BarRow[] = bars;
  if (target !== row.listing.currency || adjust) {
    const fx =
      target === row.listing.currency
        ? null
        : await fxConverter(ctx, row.listing.currency, target, dayOf(bars[0]!.t), dayOf(bars[bars.length - 1]!.t));
    priced = bars.map((b) => {
      const day = dayOf(b.t);
      const f = (fx ? fx(day) : 1) * (adjust ? adjust.price(day) : 1);
      const per = adjust ? adjust.volume(day) : 1;
      if (!fx && f === 1 && per === 1) return b;
      // On the target currency's tick: a converted or adjusted price carries no more decimals than the currency
      // trades in.
      const px = (x: number) => roundMoney(x * f, target);
      return { t: b.t, o: px(b.o), h: px(b.h), l: px(b.l), c: px(b.c), v: per === 1 ? b.v : roundVolume(b.v / per) };
    });
  }
  const out = r === "D" || r === "5" ? priced : aggregateBars(priced, r);
  return {
    symbol,
    s: "ok",
    t: out.map((b) => b.t),
    o: out.map((b) => b.o),
    h: out.map((b) => b.h),
    l: out.map((b) => b.l),
    c: out.map((b) => b.c),
    v: out.map((b) => b.v),
    from,
    to,
    resolution: r,
    key,
    currency: target,
  };
}

/** A volume divided by a split ratio, without the float noise of the division (1.5-for-1 and the like). */
const roundVolume = (v: number) => Math.round(v * 1e4) / 1e4;

export async function getCandles(ctx: RequestContext, args: CandleArgs): Promise<Candles> {
  return candlesOf(ctx, await resolveInstrument(ctx, args), args);
}
