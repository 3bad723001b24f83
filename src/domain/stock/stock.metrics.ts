import { Field, Float, ObjectType } from "type-graphql";
import type { RequestContext } from "../request.context";
import { dayOf, unixOfDay } from "../fx/fx.service";
import type { BarRow, QuarterlyFinancialsRow } from "../ports/source.types";
import { computeTtm, financialsTtmOf, TTM_QUARTERS } from "./stock.service";
import type { FinancialsTtm, Stock, TtmBalanceSheet, TtmFlows } from "./stock.types";

const round = (x: number, digits: number) => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

/** a / b to six decimals, or null where the quotient means nothing (b zero or negative, as stock/financials/ttm). */
export const quotient = (a: number, b: number): number | null => (b > 0 ? round(a / b, 6) : null);

/** cur / prev − 1 as a fraction; null when the earlier figure is not positive (growth from a loss means nothing). */
const growth = (cur: number, prev: number): number | null => (prev > 0 ? round(cur / prev - 1, 6) : null);

/**
 * The figures of the Bavest Python SDK's stock `Metric` model the store can derive: from the trailing twelve months
 * (the last four quarters reported, as stock/financials/ttm sums them), the latest quarter's balance sheet, the
 * latest quote and the daily bars. Every figure is null where its inputs are missing or its denominator is not
 * positive. Keys keep the SDK's spelling; the price returns, whose SDK keys mostly start with a digit (not a GraphQL
 * name), are named as the SDK's model names its attributes (`oneDayPriceReturnDaily` for `1DayPriceReturnDaily`).
 */
export const STOCK_METRIC_DESCRIPTIONS = {
  revenueGrowth: "TTM revenue over the previous four quarters' − 1 (a fraction); null without eight quarters",
  grossProfitGrowth: "TTM gross profit over the previous four quarters' − 1",
  ebitgrowth: "TTM operating income (EBIT) over the previous four quarters' − 1",
  operatingIncomeGrowth: "TTM operating income over the previous four quarters' − 1",
  netIncomeGrowth: "TTM net income over the previous four quarters' − 1",
  epsgrowth: "TTM EPS over the previous four quarters' − 1",
  dividendsperShareGrowth: "TTM dividends paid per share over the previous four quarters' − 1",
  operatingCashFlowGrowth: "TTM operating cash flow over the previous four quarters' − 1",
  freeCashFlowGrowth: "TTM free cash flow over the previous four quarters' − 1",
  assetGrowth: "Total assets of the latest quarter over those four quarters before − 1",
  bookValueperShareGrowth: "Equity per share of the latest quarter over that four quarters before − 1",
  debtGrowth: "Total debt of the latest quarter over that four quarters before − 1",
  revenuePerShare: "TTM revenue / shares outstanding of the latest quarter",
  netIncomePerShare: "TTM net income / shares outstanding",
  operatingCashFlowPerShare: "TTM operating cash flow / shares outstanding",
  freeCashFlowPerShare: "TTM free cash flow / shares outstanding",
  cashPerShare: "Cash of the latest quarter / shares outstanding",
  bookValuePerShare: "Equity of the latest quarter / shares outstanding",
  shareholdersEquityPerShare: "Equity of the latest quarter / shares outstanding (as bookValuePerShare)",
  capexPerShare: "TTM capex / shares outstanding (negative: cash spent)",
  dividendPerShare: "TTM dividends paid / shares outstanding (positive)",
  marketCap: "Latest price × shares outstanding of the latest quarter",
  enterpriseValue: "Market cap + total debt − cash",
  peRatio: "Price / TTM EPS",
  priceToSalesRatio: "Market cap / TTM revenue",
  pocfratio: "Market cap / TTM operating cash flow",
  pfcfRatio: "Market cap / TTM free cash flow",
  pbRatio: "Market cap / equity",
  evToSales: "Enterprise value / TTM revenue",
  evToOperatingCashFlow: "Enterprise value / TTM operating cash flow",
  evToFreeCashFlow: "Enterprise value / TTM free cash flow",
  earningsYield: "TTM net income / marketCap",
  freeCashFlowYield: "TTM free cash flow / marketCap",
  debtToMarketCap: "Total debt / marketCap",
  grahamNumber: "√(22.5 × TTM EPS × bookValuePerShare); null unless both are positive",
  debtToEquity: "Total debt / equity",
  debtToAssets: "Total debt / total assets",
  roe: "TTM net income / equity",
  incomeQuality: "TTM operating cash flow / TTM net income",
  dividendYield: "TTM dividends paid / marketCap (a fraction)",
  dividendYieldPercentage: "The dividend yield × 100",
  payoutRatio: "TTM dividends paid / TTM net income",
  capexToOperatingCashFlow: "TTM capex / TTM operating cash flow (negative: capex is)",
  capexToRevenue: "TTM capex / TTM revenue (negative: capex is)",
  oneDayPriceReturnDaily: "Latest price over the previous close − 1, in percent",
  fiveDayPriceReturnDaily: "Latest price over the last daily close 5 days before − 1, in percent",
  fourWeekPriceReturnDaily: "The same over 28 days",
  thirteenWeekPriceReturnDaily: "The same over 91 days",
  twentysixWeekPriceReturnDaily: "The same over 182 days",
  yearToDatePriceReturnDaily: "Latest price over the last daily close of the previous year − 1, in percent",
  oneyearPriceReturnDaily: "The same over 365 days",
  threeyearPriceReturnDaily: "The same over 1,095 days",
  fiveyearPriceReturnDaily: "The same over 1,826 days",
  tenyearPriceReturnDaily: "The same over 3,652 days",
  maxPriceReturnDaily: "Latest price over the first daily close stored − 1, in percent",
} as const;

export type StockMetricFigure = keyof typeof STOCK_METRIC_DESCRIPTIONS;
export const STOCK_METRIC_FIGURES = Object.keys(STOCK_METRIC_DESCRIPTIONS) as StockMetricFigure[];

/** Price-return windows in days; the key's figure is null without a daily bar that old. */
const RETURN_DAYS = {
  fiveDayPriceReturnDaily: 5,
  fourWeekPriceReturnDaily: 28,
  thirteenWeekPriceReturnDaily: 91,
  twentysixWeekPriceReturnDaily: 182,
  oneyearPriceReturnDaily: 365,
  threeyearPriceReturnDaily: 1_095,
  fiveyearPriceReturnDaily: 1_826,
  tenyearPriceReturnDaily: 3_652,
} as const satisfies Partial<Record<StockMetricFigure, number>>;

/** The figures by kind: GraphQL's StockMetric holds each kind as an object (a selection of all of them stays small). */
export const STOCK_METRIC_GROUPS = {
  growth: [
    "revenueGrowth",
    "grossProfitGrowth",
    "ebitgrowth",
    "operatingIncomeGrowth",
    "netIncomeGrowth",
    "epsgrowth",
    "dividendsperShareGrowth",
    "operatingCashFlowGrowth",
    "freeCashFlowGrowth",
    "assetGrowth",
    "bookValueperShareGrowth",
    "debtGrowth",
    "oneDayPriceReturnDaily",
    "fiveDayPriceReturnDaily",
    "fourWeekPriceReturnDaily",
    "thirteenWeekPriceReturnDaily",
    "twentysixWeekPriceReturnDaily",
    "yearToDatePriceReturnDaily",
    "oneyearPriceReturnDaily",
    "threeyearPriceReturnDaily",
    "fiveyearPriceReturnDaily",
    "tenyearPriceReturnDaily",
    "maxPriceReturnDaily",
  ],
  perShare: [
    "revenuePerShare",
    "netIncomePerShare",
    "operatingCashFlowPerShare",
    "freeCashFlowPerShare",
    "cashPerShare",
    "bookValuePerShare",
    "shareholdersEquityPerShare",
    "capexPerShare",
    "dividendPerShare",
  ],
  valuation: [
    "marketCap",
    "enterpriseValue",
    "peRatio",
    "priceToSalesRatio",
    "pocfratio",
    "pfcfRatio",
    "pbRatio",
    "evToSales",
    "evToOperatingCashFlow",
    "evToFreeCashFlow",
    "earningsYield",
    "freeCashFlowYield",
    "debtToMarketCap",
    "grahamNumber",
    "dividendYield",
    "dividendYieldPercentage",
    "debtToEquity",
    "debtToAssets",
    "roe",
    "incomeQuality",
    "payoutRatio",
    "capexToOperatingCashFlow",
    "capexToRevenue",
  ],
} as const satisfies Record<string, readonly StockMetricFigure[]>;

export type StockMetricGroup = keyof typeof STOCK_METRIC_GROUPS;
export type StockMetricFigures = Record<StockMetricFigure, number | null>;

const GROUP_DESCRIPTIONS: Record<StockMetricGroup, string> = {
  growth:
    "Growth of the TTM over the four quarters before it and of the balance sheet over a year (fractions), and the " +
    "listing's price returns (percent, under the attribute names of the SDK's model)",
  perShare: "TTM flows and balance-sheet items per share outstanding, in the answer's currency",
  valuation:
    "Market cap, enterprise value, price multiples and yields of the latest price; leverage, return and cash-flow " +
    "ratios of the TTM and the latest balance sheet",
};

const byName = <T extends [string, ...unknown[]]>(fields: T[]) => fields.sort((a, b) => (a[0] < b[0] ? -1 : 1));

/** A GraphQL object type of one kind of figures, each a nullable Float, in name order (as the linter wants). */
function groupType(group: StockMetricGroup): new () => object {
  const type = { [group]: class {} }[group]!;
  ObjectType(`StockMetric${group[0]!.toUpperCase()}${group.slice(1)}`, { description: GROUP_DESCRIPTIONS[group] })(
    type,
  );
  for (const [name] of byName(STOCK_METRIC_GROUPS[group].map((f): [string] => [f])))
    Field(() => Float, { nullable: true, description: STOCK_METRIC_DESCRIPTIONS[name as StockMetricFigure] })(
      type.prototype,
      name,
    );
  return type;
}

/**
 * A stock's metrics as the Bavest SDK's stock metric names them, grouped by kind. Its fields are declared below in
 * name order.
 */
export class StockMetric {
  symbol: string;
  currency: string;
  date: string | null;
}

/** The class with its groups of figures, which the declarations below give GraphQL. */
export type StockMetricAnswer = StockMetric & {
  [G in StockMetricGroup]: Record<(typeof STOCK_METRIC_GROUPS)[G][number], number | null>;
};

ObjectType({
  description:
    "A stock's metrics as the Bavest SDK's stock metric names them: growth, per-share figures, valuation and " +
    "ratios from the trailing twelve months and the latest quote, and price returns from the daily bars",
})(StockMetric);
for (const [name, type, nullable, description] of byName<[string, () => unknown, boolean, string]>([
  ["symbol", () => String, false, "Symbol of the listing asked for"],
  ["currency", () => String, false, "ISO 4217 currency of the money figures: the reporting currency, or the one asked"],
  ["date", () => String, true, "Period end of the latest reported quarter; null without one"],
  ...(Object.keys(STOCK_METRIC_GROUPS) as StockMetricGroup[]).map((g): [string, () => unknown, boolean, string] => {
    const t = groupType(g);
    return [g, () => t, false, GROUP_DESCRIPTIONS[g]];
  }),
]))
  Field(type as () => typeof Float, { nullable, description })(StockMetric.prototype, name);

/** The figures grouped as StockMetric holds them. */
export function groupedFigures(f: StockMetricFigures): Omit<StockMetricAnswer, keyof StockMetric> {
  return Object.fromEntries(
    Object.entries(STOCK_METRIC_GROUPS).map(([g, names]) => [g, Object.fromEntries(names.map((n) => [n, f[n]]))]),
  ) as Omit<StockMetricAnswer, keyof StockMetric>;
}

/** What the figures are computed from; money in one currency. */
export interface MetricInputs {
  /** The last four reported quarters' flows and the latest balance sheet; null with fewer than four. */
  ttm: TtmFlows | null;
  balanceSheet: TtmBalanceSheet | null;
  /** The latest price and marketCap in the money figures' currency; null without a quote or a TTM. */
  price: number | null;
  marketCap: number | null;
  /** Every reported quarter, oldest first, in the reporting currency (for the growth figures). */
  reported: readonly QuarterlyFinancialsRow[];
  /** The latest quote's price and previous close (the listing's currency), its time, and the daily bars to it. */
  quote: { c: number; pc: number; t: number } | null;
  bars: readonly BarRow[];
}

function growthFigures(reported: readonly QuarterlyFinancialsRow[]) {
  if (reported.length < 2 * TTM_QUARTERS) return {};
  const cur = computeTtm(reported, null);
  const prev = computeTtm(reported.slice(0, -TTM_QUARTERS), null);
  const [c, p] = [cur.ttm, prev.ttm];
  const [cb, pb] = [cur.latest, prev.latest];
  return {
    revenueGrowth: growth(c.revenue, p.revenue),
    grossProfitGrowth: growth(c.grossProfit, p.grossProfit),
    ebitgrowth: growth(c.operatingIncome, p.operatingIncome),
    operatingIncomeGrowth: growth(c.operatingIncome, p.operatingIncome),
    netIncomeGrowth: growth(c.netIncome, p.netIncome),
    epsgrowth: growth(c.eps, p.eps),
    dividendsperShareGrowth:
      cb.sharesOutstanding > 0 && pb.sharesOutstanding > 0
        ? growth(-c.dividendsPaid / cb.sharesOutstanding, -p.dividendsPaid / pb.sharesOutstanding)
        : null,
    operatingCashFlowGrowth: growth(c.operatingCashFlow, p.operatingCashFlow),
    freeCashFlowGrowth: growth(c.freeCashFlow, p.freeCashFlow),
    assetGrowth: growth(cb.totalAssets, pb.totalAssets),
    bookValueperShareGrowth:
      cb.sharesOutstanding > 0 && pb.sharesOutstanding > 0
        ? growth(cb.totalEquity / cb.sharesOutstanding, pb.totalEquity / pb.sharesOutstanding)
        : null,
    debtGrowth: growth(cb.totalDebt, pb.totalDebt),
  };
}

/** Percent change of the price over a reference close; null without a positive one. */
const priceReturn = (c: number, ref: number | undefined) =>
  ref != null && ref > 0 ? round((c / ref - 1) * 100, 4) : null;

/** The close of the last bar at or before `t` (bars oldest first). */
function closeAt(bars: readonly BarRow[], t: number): number | undefined {
  let lo = 0;
  let hi = bars.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bars[mid]!.t <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? bars[lo - 1]!.c : undefined;
}

function priceReturns(quote: MetricInputs["quote"], bars: readonly BarRow[]) {
  if (!quote) return {};
  const day = unixOfDay(dayOf(quote.t));
  const out: Partial<Record<StockMetricFigure, number | null>> = {
    oneDayPriceReturnDaily: priceReturn(quote.c, quote.pc),
    yearToDatePriceReturnDaily: priceReturn(
      quote.c,
      closeAt(bars, unixOfDay(`${dayOf(quote.t).slice(0, 4)}-01-01`) - 1),
    ),
    maxPriceReturnDaily: priceReturn(quote.c, bars[0]?.c),
  };
  for (const [k, days] of Object.entries(RETURN_DAYS))
    out[k as StockMetricFigure] = priceReturn(quote.c, closeAt(bars, day - days * 86_400));
  return out;
}

/** Pure arithmetic of the figures (the screener computes the same for every stock). */
export function computeMetrics(i: MetricInputs): Record<StockMetricFigure, number | null> {
  const out = Object.fromEntries(STOCK_METRIC_FIGURES.map((k) => [k, null])) as Record<
    StockMetricFigure,
    number | null
  >;
  Object.assign(out, priceReturns(i.quote, i.bars));
  const t = i.ttm;
  const b = i.balanceSheet;
  if (!t || !b) return out;
  Object.assign(out, growthFigures(i.reported));
  const n = b.sharesOutstanding;
  const perShare = (x: number) => quotient(x, n);
  Object.assign(out, {
    revenuePerShare: perShare(t.revenue),
    netIncomePerShare: perShare(t.netIncome),
    operatingCashFlowPerShare: perShare(t.operatingCashFlow),
    freeCashFlowPerShare: perShare(t.freeCashFlow),
    cashPerShare: perShare(b.cash),
    bookValuePerShare: perShare(b.totalEquity),
    shareholdersEquityPerShare: perShare(b.totalEquity),
    capexPerShare: perShare(t.capex),
    dividendPerShare: perShare(-t.dividendsPaid),
    debtToEquity: quotient(b.totalDebt, b.totalEquity),
    debtToAssets: quotient(b.totalDebt, b.totalAssets),
    roe: quotient(t.netIncome, b.totalEquity),
    incomeQuality: quotient(t.operatingCashFlow, t.netIncome),
    payoutRatio: quotient(-t.dividendsPaid, t.netIncome),
    capexToOperatingCashFlow: quotient(t.capex, t.operatingCashFlow),
    capexToRevenue: quotient(t.capex, t.revenue),
  });
  const bvps = out.bookValuePerShare;
  if (bvps != null && t.eps > 0 && bvps > 0) out.grahamNumber = round(Math.sqrt(22.5 * t.eps * bvps), 6);
  const mc = i.marketCap;
  if (i.price == null || mc == null) return out;
  const ev = round(mc + b.totalDebt - b.cash, 2);
  const dividendYield = quotient(-t.dividendsPaid, mc);
  Object.assign(out, {
    marketCap: mc,
    enterpriseValue: ev,
    peRatio: quotient(i.price, t.eps),
    priceToSalesRatio: quotient(mc, t.revenue),
    pocfratio: quotient(mc, t.operatingCashFlow),
    pfcfRatio: quotient(mc, t.freeCashFlow),
    pbRatio: quotient(mc, b.totalEquity),
    evToSales: quotient(ev, t.revenue),
    evToOperatingCashFlow: quotient(ev, t.operatingCashFlow),
    evToFreeCashFlow: quotient(ev, t.freeCashFlow),
    earningsYield: quotient(t.netIncome, mc),
    freeCashFlowYield: quotient(t.freeCashFlow, mc),
    debtToMarketCap: quotient(b.totalDebt, mc),
    dividendYield,
    dividendYieldPercentage: dividendYield == null ? null : round(dividendYield * 100, 4),
  });
  return out;
}

/** The figures in money (the rest are ratios, the same in any currency). */
const MONEY_FIGURES = [
  ...STOCK_METRIC_GROUPS.perShare,
  "marketCap",
  "enterpriseValue",
  "grahamNumber",
] as const satisfies readonly StockMetricFigure[];

/**
 * A stock's metrics as of the clock's day. The ratios are of the reporting currency's figures (as
 * stock/financials/ttm's ratios are), so the currency asked moves none; the money figures are of stock/financials/ttm's
 * figures in `currency` (each quarter at its period end's rate, the price at its day's). Growth compares the TTM with
 * the four quarters before it; price returns are of the listing's prices.
 */
export async function stockMetricOf(
  ctx: RequestContext,
  stock: Stock,
  currency?: string | null,
): Promise<StockMetricAnswer> {
  const row = stock.row;
  const today = dayOf(Math.floor(ctx.clock.now().getTime() / 1000));
  const q = row.quote;
  const [reporting, asked, all, bars] = await Promise.all([
    financialsTtmOf(ctx, row),
    currency ? financialsTtmOf(ctx, row, currency) : null,
    ctx.loaders.financials.load(row.security.id),
    q ? ctx.loaders.dailyBars.load({ listingId: row.listing.id, from: 0, to: q.t }) : Promise.resolve([]),
  ]);
  const reported = all.filter((x) => x.reportedDate <= today);
  const quote = q ? { c: q.c, pc: q.pc, t: q.t } : null;
  const of = (ttm: FinancialsTtm) =>
    computeMetrics({
      ttm: ttm.ttm,
      balanceSheet: ttm.balanceSheet,
      price: ttm.price?.inReportingCurrency ?? null,
      marketCap: ttm.price?.marketCapitalization ?? null,
      reported,
      quote,
      bars,
    });
  const figures = of(reporting);
  if (asked && asked.currency !== reporting.currency) {
    const money = of(asked);
    for (const k of MONEY_FIGURES) figures[k] = money[k];
  }
  const answer = asked ?? reporting;
  return Object.assign(new StockMetric(), {
    symbol: row.listing.symbol,
    currency: answer.currency,
    date: answer.asOf,
    ...groupedFigures(figures),
  });
}
