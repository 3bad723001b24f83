import { setImmediate as turn } from "node:timers/promises";
import { InvalidArgumentError, SymbolNotFoundError } from "../../platform/errors";
import { parseResolution, RANGE_CAP_SECONDS } from "../candle/candle.service";
import { convertColumns, perUsdColumns, type PerUsdColumns } from "../etf/etf.metrics";
import { dayOf, fxConverter, loadFxSeries, normalizeCurrency, roundMoney } from "../fx/fx.service";
import { requireScope, SCOPE_OF_TYPE } from "../instrument/instrument.access";
import { oneYearBefore } from "../etf/etf.service";
import type { BarRow, InstrumentRow } from "../ports/source.types";
import type { RequestContext } from "../request.context";
import { aggregateBars } from "../candle/candle.service";
import { groupStats } from "./portfolio.figures";
import { lookThrough, percentages, type Exposure, type ExposureNode } from "./portfolio.exposure";
import {
  beta,
  correlationMatrix,
  mean,
  stdev,
  performanceStats,
  riskReturnRatio,
  valueSeries,
  type PositionBars,
  type ValueSeries,
} from "./portfolio.maths";
import {
  Portfolio,
  type PortfolioAllocationItem,
  type PortfolioArgs,
  type PortfolioChart,
  type PortfolioItem,
  type PortfolioMetric,
  type PortfolioPrice,
  type PortfolioRegionItem,
  type PortfolioSectorItem,
  type PortfolioStats,
} from "./portfolio.types";

const DAY = 86_400;
/** What the Bavest SDKs default to. */
export const DEFAULT_PORTFOLIO_CURRENCY = "EUR";
export const PORTFOLIO_RESOLUTIONS = ["D", "W", "M"] as const;
type PortfolioResolution = (typeof PORTFOLIO_RESOLUTIONS)[number];

const invalid = (field: string, message: string, issue = "invalid") =>
  new InvalidArgumentError(`${field}: ${message}`, [{ field, issue }]);

/**
 * Reads and checks a portfolio request, without the store: the item count (MDG_PORTFOLIO_MAX_ITEMS), each amount and
 * buy date, the currency, resolution and range. Every problem is INVALID_ARGUMENT naming its field.
 */
export function readPortfolio(ctx: RequestContext, args: PortfolioArgs): Portfolio {
  const max = ctx.config.sizes.portfolioMaxItems;
  if (args.items.length === 0) throw invalid("portfolio_items", "at least one item is required", "required");
  if (args.items.length > max) throw invalid("portfolio_items", `at most ${max} items per call`, "too many");
  const items: PortfolioItem[] = args.items.map((item, i) => {
    const symbol = item.symbol.trim();
    if (symbol === "") throw invalid(`portfolio_items.${i}.symbol`, "expected a non-empty string");
    if (!Number.isFinite(item.amount) || item.amount <= 0) {
      throw invalid(`portfolio_items.${i}.amount`, "expected a positive number");
    }
    const b = item.buyDate;
    if (b != null && (!Number.isInteger(b) || b < 0)) {
      throw invalid(`portfolio_items.${i}.buy_date`, "expected Unix seconds (a non-negative integer)");
    }
    return { symbol, amount: item.amount, buyDate: b == null ? null : Math.floor(b / DAY) * DAY };
  });
  const currency = args.currency == null ? DEFAULT_PORTFOLIO_CURRENCY : normalizeCurrency(args.currency);
  const r = parseResolution(args.resolution);
  if (!(PORTFOLIO_RESOLUTIONS as readonly string[]).includes(r)) {
    throw invalid("resolution", `portfolios are valued from daily bars: one of D, W, M`, "unknown resolution");
  }
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  for (const field of ["from", "to"] as const) {
    const v = args[field];
    if (v != null && (!Number.isInteger(v) || v < 0)) throw invalid(field, "expected Unix seconds");
  }
  const to = args.to ?? now;
  const bought = items.flatMap((i) => (i.buyDate == null ? [] : [i.buyDate]));
  const from = args.from ?? (bought.length === items.length ? Math.min(...bought) : to - 365 * DAY);
  if (from > to) throw invalid("from", `${from} is after to: ${to}`, "after to");
  if (to - from > RANGE_CAP_SECONDS.D) throw invalid("to", "a portfolio spans at most 20 years; narrow from..to");
  return Object.assign(new Portfolio(), { items, currency, from, to, resolution: r });
}

/** A position with its listing, as the store resolved it. */
interface Held {
  item: PortfolioItem;
  row: InstrumentRow;
}

const heldOf = new WeakMap<Portfolio, Held[]>();
const seriesOf = new WeakMap<Portfolio, Promise<{ series: ValueSeries; positions: PositionBars[] }>>();

/**
 * The portfolio of a request, its symbols resolved in one batched lookup: an unknown symbol is NOT_FOUND, and the key
 * needs the scope of each held security's type (a stock needs `stock`, an ETF `etf`), as quote and candle do.
 */
export async function openPortfolio(ctx: RequestContext, args: PortfolioArgs): Promise<Portfolio> {
  const p = readPortfolio(ctx, args);
  const rows = await ctx.loaders.instrumentBySymbol.loadMany(p.items.map((i) => i.symbol));
  const held = p.items.map((item, i): Held => {
    const row = rows[i];
    if (row instanceof Error) throw row;
    if (!row) throw new SymbolNotFoundError(item.symbol);
    requireScope(ctx, SCOPE_OF_TYPE[row.security.type]);
    return { item: { ...item, symbol: row.listing.symbol }, row };
  });
  p.items = held.map((h) => h.item);
  heldOf.set(p, held);
  return p;
}

function heldIn(p: Portfolio): Held[] {
  const held = heldOf.get(p);
  if (!held) throw new Error("portfolio: not opened by openPortfolio");
  return held;
}

/** Each quoted position with the rate of its quote's day into the portfolio's currency. */
async function quotedPositions(ctx: RequestContext, p: Portfolio): Promise<{ quoted: Held[]; rates: number[] }> {
  const quoted = heldIn(p).filter((h) => h.row.quote != null);
  const rates = await Promise.all(
    quoted.map(async (h) => {
      const day = dayOf(h.row.quote!.t);
      return (await fxConverter(ctx, h.row.listing.currency, p.currency, day, day))(day);
    }),
  );
  return { quoted, rates };
}

/** The value now: each position's latest quote in the portfolio's currency, at the rate of its day. */
export async function portfolioPrice(ctx: RequestContext, p: Portfolio): Promise<PortfolioPrice> {
  const { quoted, rates } = await quotedPositions(ctx, p);
  let c = 0;
  let o = 0;
  let hi = 0;
  let lo = 0;
  let pc = 0;
  let t = 0;
  quoted.forEach((h, i) => {
    const q = h.row.quote!;
    const f = rates[i]! * h.item.amount;
    c += q.c * f;
    o += q.o * f;
    hi += q.h * f;
    lo += q.l * f;
    pc += q.pc * f;
    t = Math.max(t, q.t);
  });
  const m = (x: number) => roundMoney(x, p.currency);
  return {
    c: m(c),
    o: m(o),
    h: m(hi),
    l: m(lo),
    pc: m(pc),
    d: m(c - pc),
    dp: pc === 0 ? 0 : Math.round(((c - pc) / pc) * 1e6) / 1e4,
    t,
  };
}

/**
 * Each position's share of the value now (at its latest close, in the portfolio's currency), as nodes of the
 * look-through; a position without a quote has no value and no share.
 */
async function valueShares(ctx: RequestContext, p: Portfolio): Promise<{ symbol: string; node: ExposureNode }[]> {
  const { quoted, rates } = await quotedPositions(ctx, p);
  const values = quoted.map((h, i) => h.row.quote!.c * rates[i]! * h.item.amount);
  const total = values.reduce((s, v) => s + v, 0);
  if (!(total > 0)) return [];
  return quoted.map((h, i) => ({
    symbol: h.item.symbol,
    node: { security: h.row.security, weight: values[i]! / total, path: [] },
  }));
}

/** Each symbol's share of the value now, in percent (a symbol held twice is summed). */
export async function portfolioAllocation(ctx: RequestContext, p: Portfolio): Promise<PortfolioAllocationItem[]> {
  const shares = new Map<string, number>();
  for (const { symbol, node } of await valueShares(ctx, p)) shares.set(symbol, (shares.get(symbol) ?? 0) + node.weight);
  return percentages(shares).map(({ name, percentage }) => ({ symbol: name, percentage }));
}

const exposureOf = new WeakMap<Portfolio, Promise<Exposure>>();

/** The portfolio's exposure looked through its funds, computed once per request for sectors and regions alike. */
function exposure(ctx: RequestContext, p: Portfolio): Promise<Exposure> {
  let e = exposureOf.get(p);
  if (!e) {
    e = valueShares(ctx, p).then((shares) =>
      lookThrough(
        ctx,
        shares.map((s) => s.node),
      ),
    );
    exposureOf.set(p, e);
  }
  return e;
}

export async function portfolioSectors(ctx: RequestContext, p: Portfolio): Promise<PortfolioSectorItem[]> {
  const { sectors } = await exposure(ctx, p);
  return percentages(sectors).map(({ name, percentage }) => ({ sector: name, percentage }));
}

export async function portfolioRegions(ctx: RequestContext, p: Portfolio): Promise<PortfolioRegionItem[]> {
  const { regions } = await exposure(ctx, p);
  return percentages(regions).map(({ name, percentage }) => ({ region: name, percentage }));
}

/**
 * Bars a portfolio converts before it gives other requests a turn of the event loop: a 50-position portfolio over ten
 * years is some 126,000 bars, which held the loop 70-90 ms to convert in one go.
 */
const BARS_PER_TURN = 15_000;

/** Each position's daily bars over the range from its buy day, converted: one batched read per table. */
async function positionBars(ctx: RequestContext, p: Portfolio): Promise<PositionBars[]> {
  const held = heldIn(p);
  const bars = await ctx.loaders.dailyBars.loadMany(
    held.map((h) => ({ listingId: h.row.listing.id, from: Math.max(p.from, h.item.buyDate ?? p.from), to: p.to })),
  );
  const lists = bars.map((b) => {
    if (b instanceof Error) throw b;
    return b;
  });
  const firstDay = dayOf(p.from);
  const lastDay = dayOf(p.to);
  const currencies = [...new Set([p.currency, ...held.map((h) => h.row.listing.currency)])];
  const needed = held.some((h, i) => lists[i]!.length > 0 && h.row.listing.currency !== p.currency);
  const perUsd = new Map<string, PerUsdColumns>();
  if (needed) {
    const series = await Promise.all(currencies.map((c) => loadFxSeries(ctx, c, firstDay, lastDay)));
    currencies.forEach((c, i) => perUsd.set(c, perUsdColumns(series[i]!)));
  }
  const out: PositionBars[] = [];
  // Converting is synchronous: other requests are answered between runs of about BARS_PER_TURN bars, the first on a
  // turn of its own rather than at the end of the last read's.
  let sinceTurn = BARS_PER_TURN;
  for (const [i, h] of held.entries()) {
    const list: readonly BarRow[] = lists[i]!;
    const n = list.length;
    if (sinceTurn > 0 && sinceTurn + n > BARS_PER_TURN) {
      await turn();
      sinceTurn = 0;
    }
    sinceTurn += n;
    // One pass into the six columns: Float64Array.from with a mapping function per column took 55-73 ms of a
    // 50-position, ten-year portfolio's CPU, this loop 2-4 ms.
    const [t, o, hi, lo, c, v] = [0, 0, 0, 0, 0, 0].map(() => new Float64Array(n)) as [
      Float64Array,
      Float64Array,
      Float64Array,
      Float64Array,
      Float64Array,
      Float64Array,
    ];
    for (let j = 0; j < n; j++) {
      const b = list[j]!;
      t[j] = b.t;
      o[j] = b.o;
      hi[j] = b.h;
      lo[j] = b.l;
      c[j] = b.c;
      v[j] = b.v;
    }
    if (h.row.listing.currency !== p.currency && n > 0) {
      const names = { from: h.row.listing.currency, to: p.currency };
      const factor = convertColumns(
        t,
        new Float64Array(n).fill(1),
        perUsd.get(names.from)!,
        perUsd.get(names.to)!,
        names,
      ).values;
      for (let j = 0; j < n; j++) {
        const f = factor[j]!;
        o[j]! *= f;
        hi[j]! *= f;
        lo[j]! *= f;
        c[j]! *= f;
      }
    }
    out.push({ symbol: h.item.symbol, amount: h.item.amount, t, o, h: hi, l: lo, c, v });
  }
  return out;
}

/** The daily value series of a portfolio, computed once per request whichever fields ask for it. */
function dailySeries(ctx: RequestContext, p: Portfolio) {
  let s = seriesOf.get(p);
  if (!s) {
    s = positionBars(ctx, p).then(async (positions) => {
      // The sums run on a turn of their own, not at the end of the last conversion's.
      await turn();
      return { positions, series: valueSeries(positions) };
    });
    seriesOf.set(p, s);
  }
  return s;
}

function chartOf(series: ValueSeries, currency: string, r: PortfolioResolution): PortfolioChart {
  if (series.t.length === 0) return { s: "no_data", t: [], o: [], h: [], l: [], c: [], v: [] };
  const bars: BarRow[] = series.t.map((t, i) => ({
    t,
    o: series.o[i]!,
    h: series.h[i]!,
    l: series.l[i]!,
    c: series.c[i]!,
    v: series.v[i]!,
  }));
  const out = r === "D" ? bars : aggregateBars(bars, r);
  const m = (x: number) => roundMoney(x, currency);
  return {
    s: "ok",
    t: out.map((b) => b.t),
    o: out.map((b) => m(b.o)),
    h: out.map((b) => m(b.h)),
    l: out.map((b) => m(b.l)),
    c: out.map((b) => m(b.c)),
    v: out.map((b) => Math.round(b.v * 1e4) / 1e4),
  };
}

export async function portfolioChart(ctx: RequestContext, p: Portfolio): Promise<PortfolioChart> {
  const { series } = await dailySeries(ctx, p);
  return chartOf(series, p.currency, p.resolution as PortfolioResolution);
}

/** Rounds a statistic to ten significant decimals, so a figure does not carry float noise into the answer. */
const r10 = (x: number) => (Number.isFinite(x) ? Math.round(x * 1e10) / 1e10 : 0);

function roundAll<K extends string>(figures: Record<K, number>): Record<K, number> {
  const out = { ...figures };
  for (const k in out) out[k] = r10(out[k]);
  return out;
}

export async function portfolioStats(ctx: RequestContext, p: Portfolio): Promise<PortfolioStats> {
  const { series, positions } = await dailySeries(ctx, p);
  if (series.t.length === 0) return { riskReturnRatio: null, correlation: null, series: null, stats: null };
  // The statistics, the correlations and the answer's series each take a turn of their own (a 50-position ten-year
  // portfolio's 2-8, 6-13 and 15-30 ms), not one after the sums.
  await turn();
  const figures = performanceStats(Float64Array.from(series.t), series.index, ctx.config.riskFreeRatePercent);
  // A symbol held twice answers once, with the returns of its longest-held position (its prices are the same).
  const bySymbol = new Map<string, { returns: Float64Array; days: number }>();
  positions.forEach((pos, k) => {
    const returns = series.returns[k]!;
    let days = 0;
    for (const r of returns) if (r === r) days++;
    const known = bySymbol.get(pos.symbol);
    if (!known || days > known.days) bySymbol.set(pos.symbol, { returns, days });
  });
  const symbols = [...bySymbol.keys(), "total"];
  const returns = [...[...bySymbol.values()].map((x) => x.returns), series.totalReturns];
  await turn();
  const matrix = correlationMatrix(returns);
  await turn();
  return {
    riskReturnRatio: Object.fromEntries(symbols.map((symbol, i) => [symbol, r10(riskReturnRatio(returns[i]!))])),
    correlation: Object.fromEntries(
      symbols.map((symbol, i) => [symbol, Object.fromEntries(symbols.map((o, j) => [o, r10(matrix[i]![j]!)]))]),
    ),
    series: chartOf(series, p.currency, "D"),
    stats: groupStats(roundAll(figures)),
  };
}

/** Each value of a position's closes on `days` (the last close on or before each), NaN before its first. */
function closesOn(pos: PositionBars, days: readonly number[]): Float64Array {
  const out = new Float64Array(days.length).fill(Number.NaN);
  let j = -1;
  for (let i = 0; i < days.length; i++) {
    while (j + 1 < pos.t.length && pos.t[j + 1]! <= days[i]!) j++;
    if (j >= 0) out[i] = pos.c[j]!;
  }
  return out;
}

/** Annualised growth from `a` to `b` over `days` calendar days; 0 over no time. */
const annualised = (a: number, b: number, days: number) => (days > 0 && a > 0 ? (b / a) ** (365.25 / days) - 1 : 0);

/**
 * The portfolio's metrics over the year to `to` (Finnhub's names, as the SDK's PortfolioMetric): its positions held
 * all year, whatever their buy dates, so the figures describe the portfolio as it stands. With a benchmark (a
 * symbol of any type the key may read), beta, Jensen's alpha and the Treynor ratio against it; without, 0.
 */
export async function portfolioMetric(
  ctx: RequestContext,
  p: Portfolio,
  benchmark: string | null,
): Promise<PortfolioMetric> {
  const held = heldIn(p).map((h) => ({ item: { ...h.item, buyDate: null }, row: h.row }));
  let bench: Held | null = null;
  if (benchmark != null && benchmark.trim() !== "") {
    const row = await ctx.loaders.instrumentBySymbol.load(benchmark.trim());
    if (!row) throw new SymbolNotFoundError(benchmark.trim());
    requireScope(ctx, SCOPE_OF_TYPE[row.security.type]);
    bench = { item: { symbol: row.listing.symbol, amount: 1, buyDate: null }, row };
  }
  // A week before the year, so the 52 weeks have a close to start from.
  const from = oneYearBefore(p.to) - 7 * DAY;
  const all = [...held, ...(bench ? [bench] : [])];
  const year = Object.assign(new Portfolio(), { ...p, from, items: all.map((h) => h.item) });
  heldOf.set(year, all);
  const [bars, dividends] = await Promise.all([positionBars(ctx, year), dividendsPaid(ctx, p, held)]);
  const positions = bench ? bars.slice(0, -1) : bars;
  const series = valueSeries(positions);
  const n = series.t.length;
  const rf = ctx.config.riskFreeRatePercent / 100;
  const zero = { beta: 0, treynorQuotient: 0, alpha: 0, sharpeRatio: 0 };
  const round = (x: number) => Math.round(x * 1e6) / 1e6;
  if (n === 0) {
    return {
      ...zero,
      fiveDayPriceReturnDaily: 0,
      twentySixWeekPriceReturnDaily: 0,
      fiftyTwoWeekPriceReturnDaily: 0,
      dividendPerShareAnnual: 0,
    };
  }
  const times = Float64Array.from(series.t);
  const last = n - 1;
  const end = series.t[last]!;
  const at = (t: number) => {
    let i = -1;
    while (i + 1 < n && times[i + 1]! <= t) i++;
    return i;
  };
  const since = (i: number) => (i < 0 || i === last ? 0 : (series.index[last]! / series.index[i]! - 1) * 100);
  const start = at(oneYearBefore(end));
  const first = Math.max(0, start);
  const inYear = (xs: Float64Array) => Array.from(xs.subarray(first + 1)).filter((x) => x === x);
  const rp = inYear(series.totalReturns);
  const sd = stdev(rp);
  const days = (end - series.t[first]!) / DAY;
  const portfolioAnnual = annualised(series.index[first]!, series.index[last]!, days);
  const out: PortfolioMetric = {
    ...zero,
    fiveDayPriceReturnDaily: round(since(last - 5)),
    twentySixWeekPriceReturnDaily: round(since(at(end - 182 * DAY))),
    fiftyTwoWeekPriceReturnDaily: round(since(start)),
    dividendPerShareAnnual: roundMoney(dividends, p.currency),
    sharpeRatio: sd === 0 ? 0 : round((mean(rp) * 252 - rf) / (sd * Math.sqrt(252))),
  };
  if (bench) {
    const closes = closesOn(bars[bars.length - 1]!, series.t);
    const br = new Float64Array(n).fill(Number.NaN);
    for (let i = 1; i < n; i++) br[i] = closes[i]! / closes[i - 1]! - 1;
    const b = beta(series.totalReturns.subarray(first + 1), br.subarray(first + 1));
    const benchFirst = closes.findIndex((c, i) => i >= first && c === c);
    const benchAnnual = benchFirst < 0 ? 0 : annualised(closes[benchFirst]!, closes[last]!, days);
    out.beta = round(b);
    out.alpha = round((portfolioAnnual - (rf + b * (benchAnnual - rf))) * 100);
    out.treynorQuotient = b === 0 ? 0 : round(((portfolioAnnual - rf) / b) * 100);
  }
  return out;
}

/** What the positions were paid in dividends with an ex-date in the year to `to`, in the portfolio's currency. */
async function dividendsPaid(ctx: RequestContext, p: Portfolio, held: readonly Held[]): Promise<number> {
  const lists = await ctx.loaders.dividends.loadMany(held.map((h) => h.row.security.id));
  const toDay = dayOf(p.to);
  const fromDay = dayOf(oneYearBefore(p.to));
  const paid = held.flatMap((h, i) => {
    const list = lists[i];
    if (list instanceof Error) throw list;
    return list!.filter((d) => d.exDate > fromDay && d.exDate <= toDay).map((d) => ({ d, amount: h.item.amount }));
  });
  const currencies = [...new Set(paid.map((x) => x.d.currency))];
  const convert = new Map(
    await Promise.all(currencies.map(async (c) => [c, await fxConverter(ctx, c, p.currency, fromDay, toDay)] as const)),
  );
  return paid.reduce((sum, { d, amount }) => sum + amount * d.adjustedAmount * convert.get(d.currency)!(d.exDate), 0);
}
