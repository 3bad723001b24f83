import { GraphQLJSONObject } from "graphql-scalars";
import { ArgsType, Field, Float, InputType, Int, ObjectType } from "type-graphql";

/**
 * The portfolio analytics' GraphQL types (docs/contract.md section 4, `portfolio/*`). Every money value is in the
 * portfolio's `currency`; every return and ratio of the statistics is a fraction (0.05 means 5 %), as the Bavest
 * SDK's `PortfolioStats` sample answers them.
 */

@InputType({ description: "One position: a quantity of a security held from a day on" })
export class PortfolioItemInput {
  @Field(() => String, { description: "Symbol of the security's listing (stock, ETF, fund, crypto or forex pair)" })
  symbol: string;

  @Field(() => Float, { description: "Quantity held (shares, units, coins); positive" })
  amount: number;

  @Field(() => Int, {
    nullable: true,
    description: "Unix seconds of the purchase: the position counts from that UTC day on; null: held all along",
  })
  buyDate?: number | null;
}

@ArgsType()
export class PortfolioArgs {
  @Field(() => [PortfolioItemInput], {
    description: "The positions, at most MDG_PORTFOLIO_MAX_ITEMS (100 by default); a symbol may appear more than once",
  })
  items: PortfolioItemInput[];

  @Field(() => String, { nullable: true, description: "ISO 4217 code of every money value; default EUR" })
  currency?: string | null;

  @Field(() => Int, {
    nullable: true,
    description: "Start of the range of chart and stats, Unix seconds; default: the earliest buy date, else a year",
  })
  from?: number | null;

  @Field(() => Int, { nullable: true, description: "End of the range of chart and stats, Unix seconds; default now" })
  to?: number | null;

  @Field(() => String, { nullable: true, description: "Bars of the chart: D (default), W or M" })
  resolution?: string | null;
}

/** One position as the portfolio reads it. */
export interface PortfolioItem {
  /** Symbol of the listing held (canonical form for crypto pairs). */
  symbol: string;
  amount: number;
  /** Unix seconds of the start of the day the position counts from; null: held all along. */
  buyDate: number | null;
}

@ObjectType({ description: "The portfolio's value now, summed from its positions' latest quotes" })
export class PortfolioPrice {
  @Field(() => Float, { description: "Value at the latest quotes" })
  c: number;

  @Field(() => Float, { description: "Value at the latest quotes' opens" })
  o: number;

  @Field(() => Float, { description: "Sum of the positions' highs of the latest session" })
  h: number;

  @Field(() => Float, { description: "Sum of the positions' lows of the latest session" })
  l: number;

  @Field(() => Float, { description: "Value at the previous closes" })
  pc: number;

  @Field(() => Float, { description: "The change: c - pc" })
  d: number;

  @Field(() => Float, { description: "Percent change from pc (1.5 means 1.5 %); 0 when pc is 0" })
  dp: number;

  @Field(() => Int, { description: "Unix seconds of the latest of the quotes" })
  t: number;
}

@ObjectType({ description: "One symbol's share of the portfolio's value now" })
export class PortfolioAllocationItem {
  @Field(() => String, { description: "Symbol of the position (positions of one symbol are summed)" })
  symbol: string;

  @Field(() => Float, { description: "Percent of the value at the latest quotes (12.5 means 12.5 %)" })
  percentage: number;
}

@ObjectType({ description: "One sector's share of the portfolio, looked through its ETFs and funds" })
export class PortfolioSectorItem {
  @Field(() => String, {
    description:
      "Sector as the store names it; Other: no sector (bonds, cash, futures, crypto, currency pairs); Unknown: " +
      "the part the store cannot place (holdings of a fund summing under 100 %, a stock without a sector)",
  })
  sector: string;

  @Field(() => Float, { description: "Percent of the value at the latest quotes (12.5 means 12.5 %)" })
  percentage: number;
}

@ObjectType({ description: "One region's share of the portfolio, looked through its ETFs and funds" })
export class PortfolioRegionItem {
  @Field(() => String, {
    description:
      "Continent of the issuers' countries (Africa, Asia, Europe, North America, Oceania, South America); Other and " +
      "Unknown as for sectors",
  })
  region: string;

  @Field(() => Float, { description: "Percent of the value at the latest quotes (12.5 means 12.5 %)" })
  percentage: number;
}

@ObjectType({
  description:
    "The portfolio's value day by day as OHLCV bars; bar i is t[i], o[i], h[i], l[i], c[i], v[i]. Each value sums " +
    "the positions held that day at their bars (the last close where a position's market was shut)",
})
export class PortfolioChart {
  @Field(() => String, { description: '"ok" with bars; "no_data" with empty arrays when no position has a bar' })
  s: string;

  @Field(() => [Int], { description: "Start of each bar's period, Unix seconds" })
  t: number[];

  @Field(() => [Float], { description: "Value at the opens" })
  o: number[];

  @Field(() => [Float], { description: "Sum of the positions' highs" })
  h: number[];

  @Field(() => [Float], { description: "Sum of the positions' lows" })
  l: number[];

  @Field(() => [Float], { description: "Value at the closes" })
  c: number[];

  @Field(() => [Float], { description: "Sum of the positions' traded volumes (mixed units: shares, coins)" })
  v: number[];
}

@ObjectType({ description: "Figures of the returns of one period length (days, months or calendar years)" })
export class PortfolioPeriodFigures {
  @Field(() => Float, { description: "Sharpe ratio, annualised: (mean × periods a year - riskFree) / volatility" })
  sharpe: number;

  @Field(() => Float, { description: "Sortino ratio, annualised: mean excess return over its downside deviation" })
  sortino: number;

  @Field(() => Float, { description: "Mean return × periods a year (252, 12 or 1)" })
  mean: number;

  @Field(() => Float, { description: "Volatility: sample standard deviation × sqrt(periods a year)" })
  vol: number;

  @Field(() => Float, { description: "Sample skewness, bias-corrected (pandas' skew)" })
  skew: number;

  @Field(() => Float, { description: "Sample excess kurtosis, bias-corrected (pandas' kurt)" })
  kurt: number;

  @Field(() => Float, { description: "Best return" })
  best: number;

  @Field(() => Float, { description: "Worst return" })
  worst: number;
}

@ObjectType({
  description:
    "Performance statistics of the portfolio's time-weighted returns (each day's return is that of the positions " +
    "held the day before, so buying adds no return); fractions (0.05 means 5 %), 0 where the range is too short",
})
export class PortfolioStatFigures {
  @Field(() => Float, { description: "Annual risk-free rate the ratios use (MDG_RISK_FREE_RATE, as a fraction)" })
  riskFree: number;

  @Field(() => Float, { description: "Return over the range" })
  totalReturn: number;

  @Field(() => Float, { description: "Compound annual growth rate over the range" })
  cagr: number;

  @Field(() => Float, { description: "Deepest fall from a running peak, zero or negative" })
  maxDrawdown: number;

  @Field(() => Float, { description: "Calmar ratio: cagr / -maxDrawdown; 0 without a drawdown" })
  calmar: number;

  @Field(() => Float, { description: "Annualised return over the range: cagr" })
  inception: number;

  @Field(() => Float, { description: "Return since the last close of the previous month" })
  mtd: number;

  @Field(() => Float, { description: "Return over the last three months; 0 when the range is shorter" })
  threeMonth: number;

  @Field(() => Float, { description: "Return over the last six months; 0 when the range is shorter" })
  sixMonth: number;

  @Field(() => Float, { description: "Return since the last close of the previous year" })
  ytd: number;

  @Field(() => Float, { description: "Return over the last year; 0 when the range is shorter" })
  oneYear: number;

  @Field(() => Float, { description: "Annualised return over the last three years; 0 when the range is shorter" })
  threeYear: number;

  @Field(() => Float, { description: "Annualised return over the last five years; 0 when the range is shorter" })
  fiveYear: number;

  @Field(() => Float, { description: "Annualised return over the last ten years; 0 when the range is shorter" })
  tenYear: number;

  @Field(() => PortfolioPeriodFigures, { description: "Of daily returns (252 a year)" })
  daily: PortfolioPeriodFigures;

  @Field(() => PortfolioPeriodFigures, { description: "Of monthly returns (month-end closes, 12 a year)" })
  monthly: PortfolioPeriodFigures;

  @Field(() => PortfolioPeriodFigures, { description: "Of calendar-year returns (year-end closes)" })
  yearly: PortfolioPeriodFigures;

  @Field(() => Float, { description: "Mean depth of the drawdowns (each fall from a peak until it is regained)" })
  avgDrawdown: number;

  @Field(() => Float, { description: "Mean length of the drawdowns, calendar days" })
  avgDrawdownDays: number;

  @Field(() => Float, { description: "Mean of the positive monthly returns" })
  avgUpMonth: number;

  @Field(() => Float, { description: "Mean of the negative monthly returns" })
  avgDownMonth: number;

  @Field(() => Float, { description: "Share of calendar years with a positive return (0 to 1)" })
  winYearPerc: number;

  @Field(() => Float, { description: "Share of rolling twelve-month returns that are positive (0 to 1)" })
  twelveMonthWinPerc: number;
}

@ObjectType({ description: "The portfolio's statistics, its positions' risk and correlations, and its value" })
export class PortfolioStats {
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description:
      "Mean over sample standard deviation of daily returns, by symbol of a position and `total` for the portfolio " +
      "(an object of numbers); null without bars",
  })
  riskReturnRatio: Record<string, number> | null;

  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description:
      "Pearson correlation of daily returns (on the days both have one), symbol by symbol and `total`: an object " +
      "of objects of numbers, -1 to 1; null without bars",
  })
  correlation: Record<string, Record<string, number>> | null;

  @Field(() => PortfolioChart, {
    nullable: true,
    description: "The daily value (portfolio/chart's); null without bars",
  })
  series: PortfolioChart | null;

  @Field(() => PortfolioStatFigures, { nullable: true, description: "The statistics; null without bars" })
  stats: PortfolioStatFigures | null;
}

@ObjectType({
  description:
    "The portfolio's metrics over the year to `to`, its positions held all year whatever their buy dates; returns " +
    "in percent (12.5 means 12.5 %); beta, alpha and Treynor 0 without a benchmark",
})
export class PortfolioMetric {
  @Field(() => Float, { description: "Jensen's alpha against the benchmark, annualised, percent" })
  alpha: number;

  @Field(() => Float, { description: "Beta of daily returns against the benchmark's" })
  beta: number;

  @Field(() => Float, {
    description: "Dividends paid on the positions (amount × split-adjusted dividend) with an ex-date in the year",
  })
  dividendPerShareAnnual: number;

  @Field(() => Float, { description: "Return over the last 52 weeks, percent" })
  fiftyTwoWeekPriceReturnDaily: number;

  @Field(() => Float, { description: "Return over the last 5 trading days, percent" })
  fiveDayPriceReturnDaily: number;

  @Field(() => Float, { description: "Sharpe ratio of the year's daily returns, annualised" })
  sharpeRatio: number;

  @Field(() => Float, { description: "Treynor ratio: (annualised return - risk-free rate) / beta, percent" })
  treynorQuotient: number;

  @Field(() => Float, { description: "Return over the last 26 weeks, percent" })
  twentySixWeekPriceReturnDaily: number;
}

/** What portfolio(...) resolves to: the request, read and checked; its figures are computed when asked. */
@ObjectType({ description: "A portfolio of positions, valued in one currency over a range" })
export class Portfolio {
  /** The positions, as read; GraphQL shows them as parallel lists (a type of their own weighs on introspection). */
  items: PortfolioItem[];

  @Field(() => [String], { description: "Symbol of each position, as read (canonical form for crypto pairs)" })
  get symbols(): string[] {
    return this.items.map((i) => i.symbol);
  }

  @Field(() => [Float], { description: "Quantity of each position" })
  get amounts(): number[] {
    return this.items.map((i) => i.amount);
  }

  @Field(() => [Int], {
    nullable: "items",
    description: "Unix seconds of the start of the day each position counts from; null where held all along",
  })
  get buyDates(): (number | null)[] {
    return this.items.map((i) => i.buyDate);
  }

  @Field(() => String, { description: "ISO 4217 code of every money value" })
  currency: string;

  @Field(() => Int, { description: "Start of the range, Unix seconds" })
  from: number;

  @Field(() => Int, { description: "End of the range, Unix seconds" })
  to: number;

  @Field(() => String, { description: "D, W or M" })
  resolution: string;
}
