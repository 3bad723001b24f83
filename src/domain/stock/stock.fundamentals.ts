import { Field, Float, ObjectType } from "type-graphql";
import { NotFoundError } from "../../platform/errors";
import type { RequestContext } from "../request.context";
import { adjustmentFactors } from "../candle/candle.adjustment";
import { CandleAdjustment } from "../candle/candle.types";
import { dayOf, fxConverter, normalizeCurrency, unixOfDay } from "../fx/fx.service";
import type { BarRow } from "../ports/source.types";
import { statementsOf } from "./statement.service";
import { FinancialsFreq, type BalanceSheet, type CashFlowStatement, type IncomeStatement } from "./statement.types";
import { computeMetrics, quotient } from "./stock.metrics";
import type { Stock } from "./stock.types";

/**
 * What each figure of stock/fundamentals is (docs/contract.md section 4): fractions, of a fiscal year's flows (its
 * four quarters summed) and its balance sheet at the year's end, as stock/financials answers them annually. Every
 * figure is null where an input is missing or its denominator is zero or negative, as stock/metric's are.
 */
export const FUNDAMENTALS_DESCRIPTIONS = {
  equityReturn: "Net income / equity at the year's end",
  salesReturn: "Net income / revenue",
  ebitMargin: "Operating income (EBIT) / revenue",
  ebitdaMargin: "EBITDA (operating income plus depreciation and amortization) / revenue",
  capitalTurnover: "Revenue / total assets at the year's end",
  assetsReturn: "Net income / total assets at the year's end",
  ev: "Enterprise value at the year's end: market cap (closing price as traded × shares) + total debt − cash",
  evRevenue: "Enterprise value / revenue",
  evEbit: "Enterprise value / operating income (EBIT)",
  evFcf: "Enterprise value / free cash flow",
  evEbitda: "Enterprise value / EBITDA",
  priceEarningsRatio: "Closing price at the year's end / the year's EPS",
  priceBookRatio: "Market cap / equity",
  priceCashflowRatio: "Market cap / operating cash flow",
  priceSalesRatio: "Market cap / revenue",
  peg: "Price-earnings ratio / EPS growth over the previous fiscal year in percent; null unless the growth is positive",
  equityRatio: "Equity / total assets",
  debtRatio: "Total liabilities / total assets",
  debtToEquityRatio: "Total debt / equity",
  dynamicLeverage: "Net debt (total debt − cash) / operating cash flow",
  currentRatio: "Current assets / current liabilities",
  fixedAssetIntensity: "Non-current assets (total assets − current assets) / total assets",
  capitalExpenditureRatio: "Capital expenditure (the capex spent, positive) / revenue",
  assetCoverage1: "Equity / non-current assets",
  assetCoverage2: "(Equity + non-current liabilities) / non-current assets",
  cataRatio: "Current assets / total assets",
  ppeRatio: "Always null: the store holds no property, plant and equipment",
  cashRatio: "Cash / current liabilities",
  quickRatio: "(Current assets − inventory) / current liabilities",
} as const;

export type FundamentalsFigure = keyof typeof FUNDAMENTALS_DESCRIPTIONS;

const d = FUNDAMENTALS_DESCRIPTIONS;
const figure = (description: string) => Field(() => Float, { nullable: true, description });

@ObjectType("StockFundamentalsMultiples", {
  description:
    "A fiscal year's valuation multiples at its end's closing price (the SDK's multiples; its returns and margins " +
    "are the year's revenue figures)",
})
export class FundamentalsMultiples {
  @figure(d.ev) ev: number | null;
  @figure(d.evEbit) evEbit: number | null;
  @figure(d.evEbitda) evEbitda: number | null;
  @figure(d.evFcf) evFcf: number | null;
  @figure(d.evRevenue) evRevenue: number | null;
  @figure(d.peg) peg: number | null;
  @figure(d.priceBookRatio) priceBookRatio: number | null;
  @figure(d.priceCashflowRatio) priceCashflowRatio: number | null;
  @figure(d.priceEarningsRatio) priceEarningsRatio: number | null;
  @figure(d.priceSalesRatio) priceSalesRatio: number | null;
}

@ObjectType("StockFundamentalsStability", {
  description: "A fiscal year's balance-sheet structure and leverage at its end (fractions)",
})
export class FundamentalsStability {
  @figure(d.assetCoverage1) assetCoverage1: number | null;
  @figure(d.assetCoverage2) assetCoverage2: number | null;
  @figure(d.capitalExpenditureRatio) capitalExpenditureRatio: number | null;
  @figure(d.cashRatio) cashRatio: number | null;
  @figure(d.cataRatio) cataRatio: number | null;
  @figure(d.currentRatio) currentRatio: number | null;
  @figure(d.debtRatio) debtRatio: number | null;
  @figure(d.debtToEquityRatio) debtToEquityRatio: number | null;
  @figure(d.dynamicLeverage) dynamicLeverage: number | null;
  @figure(d.equityRatio) equityRatio: number | null;
  @figure(d.fixedAssetIntensity) fixedAssetIntensity: number | null;
  @figure(d.ppeRatio) ppeRatio: number | null;
  @figure(d.quickRatio) quickRatio: number | null;
}

@ObjectType("StockFundamentalsRevenue", { description: "A fiscal year's returns and margins (fractions)" })
export class FundamentalsRevenue {
  @figure(d.assetsReturn) assetsReturn: number | null;
  @figure(d.capitalTurnover) capitalTurnover: number | null;
  @figure(d.ebitMargin) ebitMargin: number | null;
  @figure(d.ebitdaMargin) ebitdaMargin: number | null;
  @figure(d.equityReturn) equityReturn: number | null;
  @figure(d.salesReturn) salesReturn: number | null;
}

@ObjectType("StockFundamentalsYear", { description: "A fiscal year's fundamentals, as of its last day" })
export class FundamentalsYear {
  @Field(() => FundamentalsMultiples, { description: "Valuation multiples at the year's end" })
  multiples: FundamentalsMultiples;

  @Field(() => String, { description: "Last day of the fiscal year (of its fourth quarter), YYYY-MM-DD" })
  period: string;

  @Field(() => FundamentalsRevenue, { description: "Returns and margins of the year" })
  revenue: FundamentalsRevenue;

  @Field(() => FundamentalsStability, { description: "Balance-sheet structure and leverage at the year's end" })
  stability: FundamentalsStability;
}

@ObjectType("StockFundamentals", {
  description:
    "A stock's fundamentals by fiscal year, as the Bavest SDKs' stock fundamentals name them, from the annual " +
    "statements and the closing price at each year's end",
})
export class StockFundamentals {
  @Field(() => String, {
    description:
      "ISO 4217 currency of ev: the one asked for, or the reporting currency of the newest fiscal year (each year " +
      "converted at its last day's FX rate where it reported in another)",
  })
  currency: string;

  @Field(() => [FundamentalsYear], {
    description: "Each fiscal year with its four quarters reported, newest first",
  })
  years: FundamentalsYear[];
}

const DAY = 86_400;

/** How far before a fiscal year's end its closing price is looked for: a weekend, a holiday week, a short halt. */
const CLOSE_LOOKBACK_DAYS = 14;

/** The last daily bar of `day` or before it, within the lookback (bars oldest first). */
function barAt(bars: readonly BarRow[], day: string): BarRow | undefined {
  const end = unixOfDay(day) + DAY;
  let lo = 0;
  let hi = bars.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bars[mid]!.t < end) lo = mid + 1;
    else hi = mid;
  }
  const bar = bars[lo - 1];
  return bar && bar.t >= end - (CLOSE_LOOKBACK_DAYS + 1) * DAY ? bar : undefined;
}

const q = (a: number | null, b: number | null) => (a == null || b == null ? null : quotient(a, b));
const minus = (a: number | null, b: number | null) => (a == null || b == null ? null : a - b);

/** The rate of `f` on `day`, or null where the store holds none that old (a missing input, not a failed answer). */
function rateOn(f: (day: string) => number, day: string): number | null {
  try {
    return f(day);
  } catch (e) {
    if (e instanceof NotFoundError) return null;
    throw e;
  }
}

interface YearInputs {
  income: IncomeStatement;
  balance: BalanceSheet;
  cashFlow: CashFlowStatement;
  /** The fiscal year before, when its four quarters are reported too (for the EPS growth of the PEG). */
  before: IncomeStatement | undefined;
  /** Of the year's fourth quarter; the price is null without it. */
  sharesOutstanding: number;
  /** The closing price as traded at the year's end, in the reporting currency; null without one. */
  price: number | null;
  /** The reporting currency's rate into the answer's currency at the year's end; null without one. */
  evRate: number | null;
}

/**
 * One fiscal year's figures, all in its reporting currency but ev. The valuation is stock/metric's arithmetic
 * (computeMetrics) over the year's flows in place of the trailing twelve months and its end's closing price in
 * place of the latest quote.
 */
function yearOf(y: YearInputs): FundamentalsYear {
  const { income: i, balance: b, cashFlow: c } = y;
  const marketCap = y.price == null ? null : Math.round(y.price * y.sharesOutstanding * 100) / 100;
  const m = computeMetrics({
    ttm: {
      revenue: i.revenue,
      costOfRevenue: i.costOfGoodsSold,
      grossProfit: i.grossIncome,
      operatingIncome: i.ebit,
      netIncome: i.netIncome,
      eps: i.eps,
      operatingCashFlow: c.netCashProvidedByOperatingActivities,
      capex: c.capex,
      freeCashFlow: c.fcf,
      dividendsPaid: c.cashDividendsPaid,
    },
    balanceSheet: {
      totalAssets: b.totalAssets,
      totalLiabilities: b.totalLiabilities,
      totalEquity: b.totalEquity,
      cash: b.cashAndCashEquivalents,
      totalDebt: b.totalDebt,
      sharesOutstanding: y.sharesOutstanding,
    },
    price: y.price,
    marketCap,
    reported: [],
    quote: null,
    bars: [],
  });
  const ev = m.enterpriseValue;
  const prior = y.before && y.before.reportedCurrency === i.reportedCurrency ? y.before.eps : null;
  const epsGrowth = prior != null && prior > 0 ? i.eps / prior - 1 : null;
  const nonCurrentAssets = b.totalNonCurrentAssets;
  return {
    multiples: {
      ev: ev == null || y.evRate == null ? null : y.evRate === 1 ? ev : Math.round(ev * y.evRate * 100) / 100,
      evRevenue: m.evToSales,
      evEbit: q(ev, i.ebit),
      evFcf: m.evToFreeCashFlow,
      evEbitda: q(ev, i.ebitda),
      priceEarningsRatio: m.peRatio,
      priceBookRatio: m.pbRatio,
      priceCashflowRatio: m.pocfratio,
      priceSalesRatio: m.priceToSalesRatio,
      peg: q(m.peRatio, epsGrowth == null ? null : epsGrowth * 100),
    },
    stability: {
      equityRatio: quotient(b.totalEquity, b.totalAssets),
      debtRatio: quotient(b.totalLiabilities, b.totalAssets),
      debtToEquityRatio: m.debtToEquity,
      dynamicLeverage: quotient(b.netDebt, c.netCashProvidedByOperatingActivities),
      currentRatio: q(b.currentAssets, b.currentLiabilities),
      fixedAssetIntensity: q(nonCurrentAssets, b.totalAssets),
      capitalExpenditureRatio: quotient(-c.capex, i.revenue),
      assetCoverage1: q(b.totalEquity, nonCurrentAssets),
      assetCoverage2: q(
        b.totalNonCurrentLiabilities == null ? null : b.totalEquity + b.totalNonCurrentLiabilities,
        nonCurrentAssets,
      ),
      cataRatio: q(b.currentAssets, b.totalAssets),
      ppeRatio: null,
      cashRatio: q(b.cashAndCashEquivalents, b.currentLiabilities),
      quickRatio: q(minus(b.currentAssets, b.inventory), b.currentLiabilities),
    },
    revenue: {
      equityReturn: m.roe,
      salesReturn: i.netIncomeRatio,
      ebitMargin: i.operatingIncomeRatio,
      ebitdaMargin: i.ebitdaratio,
      capitalTurnover: quotient(i.revenue, b.totalAssets),
      assetsReturn: quotient(i.netIncome, b.totalAssets),
    },
    period: i.date,
  };
}

/**
 * A stock's fundamentals (docs/contract.md section 4, stock/fundamentals): one entry per fiscal year whose four
 * quarters are reported by the clock's day, newest first, from stock/financials' annual statements as reported. The
 * price-based figures take the listing's last daily close of the year's last day or the 14 days before, as traded
 * (the store's bars are split-adjusted; the shares outstanding are as reported then), converted into the year's
 * reporting currency at that close's FX rate; `ev` is then converted into `currency` at the year's last day's rate.
 * One read of the quarters, of the daily bars over the years, and of the splits, through the request's loaders.
 */
export async function stockFundamentalsOf(
  ctx: RequestContext,
  stock: Stock,
  currency?: string | null,
): Promise<StockFundamentals> {
  const row = stock.row;
  const annual = FinancialsFreq.ANNUAL;
  const [income, balance, cashFlow, quarters] = await Promise.all([
    statementsOf(ctx, row, "ic", annual),
    statementsOf(ctx, row, "bs", annual),
    statementsOf(ctx, row, "cf", annual),
    ctx.loaders.financials.load(row.security.id),
  ]);
  const target = currency ? normalizeCurrency(currency) : (income[0]?.reportedCurrency ?? row.security.currency);
  const newest = income[0];
  const oldest = income[income.length - 1];
  if (!newest || !oldest) return Object.assign(new StockFundamentals(), { currency: target, years: [] });

  const from = unixOfDay(oldest.date) - (CLOSE_LOOKBACK_DAYS + 1) * DAY;
  const to = unixOfDay(newest.date) + DAY - 1;
  const [bars, asTraded] = await Promise.all([
    ctx.loaders.dailyBars.load({ listingId: row.listing.id, from, to }),
    adjustmentFactors(ctx, row, CandleAdjustment.NONE, from),
  ]);
  const converters = new Map<string, (day: string) => number>();
  const rate = async (fromCurrency: string, toCurrency: string, day: string) => {
    if (fromCurrency === toCurrency) return 1;
    const key = `${fromCurrency}:${toCurrency}`;
    let f = converters.get(key);
    if (!f) {
      f = await fxConverter(ctx, fromCurrency, toCurrency, dayOf(from), newest.date);
      converters.set(key, f);
    }
    return rateOn(f, day);
  };

  const years: FundamentalsYear[] = [];
  for (const [k, i] of income.entries()) {
    const fiscalYear = Number(i.calendarYear);
    const q4 = quarters.find((x) => x.fiscalYear === fiscalYear && x.fiscalQuarter === 4);
    const bar = barAt(bars, i.date);
    let price: number | null = null;
    if (bar && q4) {
      const day = dayOf(bar.t);
      const fx = await rate(row.listing.currency, i.reportedCurrency, day);
      if (fx != null) price = Math.round(bar.c * (asTraded?.price(day) ?? 1) * fx * 1e6) / 1e6;
    }
    const before = income[k + 1];
    years.push(
      yearOf({
        income: i,
        balance: balance[k]!,
        cashFlow: cashFlow[k]!,
        before: before && Number(before.calendarYear) === fiscalYear - 1 ? before : undefined,
        sharesOutstanding: q4?.sharesOutstanding ?? 0,
        price,
        evRate: await rate(i.reportedCurrency, target, i.date),
      }),
    );
  }
  return Object.assign(new StockFundamentals(), { currency: target, years });
}
