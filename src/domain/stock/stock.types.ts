import { CUSIP_ARG, WKN_ARG } from "../instrument/instrument.types";
import { ArgsType, Field, Float, Int, ObjectType } from "type-graphql";
import type { InstrumentRow } from "../ports/source.types";

@ObjectType({ description: "A stock (by one of its listings), with its financials, dividends and candles" })
export class Stock {
  @Field(() => String, { description: "Symbol of the listing asked for (by ISIN: the primary listing)" })
  symbol: string;

  @Field(() => String, { description: "Name of the company" })
  name: string;

  @Field(() => String, { nullable: true, description: "ISIN of the stock; null where unknown" })
  isin: string | null;

  @Field(() => String, { description: "MIC-style code of the listing's exchange" })
  exchange: string;

  @Field(() => String, { description: "ISO 4217 currency of the listing's prices" })
  currency: string;

  @Field(() => String, {
    nullable: true,
    description: "ISO 4217 currency the company reports in (null only where the key lacks the stock scope)",
  })
  reportingCurrency: string;

  @Field(() => String, { nullable: true, description: "ISO 3166 alpha-2 of domicile" })
  country: string | null;

  @Field(() => String, {
    nullable: true,
    description: "Sector (GICS-like, e.g. Information Technology); null where unknown",
  })
  sector: string | null;

  @Field(() => String, {
    nullable: true,
    description: "Industry within the sector, e.g. Semiconductors; null where unknown",
  })
  industry: string | null;

  @Field(() => Float, {
    nullable: true,
    description: "Market capitalisation in the reporting currency; null where unknown",
  })
  marketCapitalization: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "Shares outstanding as of the latest reported quarter; null where unknown",
  })
  sharesOutstanding: number | null;

  @Field(() => String, { nullable: true, description: "Next earnings date, YYYY-MM-DD" })
  nextEarningsDate: string | null;

  /** Internal: what the field resolvers work from. */
  row: InstrumentRow;
}

@ArgsType()
export class StockArgs {
  @Field(() => String, { nullable: true, description: "Symbol of any listing of the stock" })
  symbol?: string | null;

  @Field(() => String, { nullable: true, description: "ISIN; resolves to the primary listing" })
  isin?: string | null;

  @Field(() => String, { nullable: true, description: CUSIP_ARG })
  cusip?: string | null;

  @Field(() => String, { nullable: true, description: WKN_ARG })
  wkn?: string | null;
}

@ObjectType({
  description: "One reported quarter: income statement, balance sheet and cash flow, in the reporting currency",
})
export class FinancialQuarter {
  @Field(() => String, { description: "Last day of the quarter, YYYY-MM-DD" })
  periodEnd: string;

  @Field(() => Int, {
    description: "Fiscal year the quarter belongs to (the company's, which may differ from the calendar year)",
  })
  fiscalYear: number;

  @Field(() => Int, { description: "Fiscal quarter, 1 to 4" })
  fiscalQuarter: number;

  @Field(() => String, { description: "Day the quarter was reported, YYYY-MM-DD" })
  reportedDate: string;

  @Field(() => Float, { description: "Revenue of the quarter" })
  revenue: number;

  @Field(() => Float, { description: "Cost of revenue of the quarter" })
  costOfRevenue: number;

  @Field(() => Float, { description: "Revenue less cost of revenue" })
  grossProfit: number;

  @Field(() => Float, { description: "Operating income (EBIT) of the quarter" })
  operatingIncome: number;

  @Field(() => Float, { description: "Net income of the quarter; negative for a loss" })
  netIncome: number;

  @Field(() => Float, { description: "Earnings per share of the quarter, in the reporting currency" })
  eps: number;

  @Field(() => Float, { description: "Cash flow from operations of the quarter" })
  operatingCashFlow: number;

  @Field(() => Float, { description: "Negative: cash spent" })
  capex: number;

  @Field(() => Float, { description: "Operating cash flow plus capex (capex is negative)" })
  freeCashFlow: number;

  @Field(() => Float, { description: "Negative: cash paid out" })
  dividendsPaid: number;

  @Field(() => Float, { description: "Total assets at the end of the quarter" })
  totalAssets: number;

  @Field(() => Float, { description: "Total liabilities at the end of the quarter" })
  totalLiabilities: number;

  @Field(() => Float, { description: "Shareholders' equity at the end of the quarter" })
  totalEquity: number;

  @Field(() => Float, { description: "Cash and equivalents at the end of the quarter" })
  cash: number;

  @Field(() => Float, { description: "Short- and long-term debt at the end of the quarter" })
  totalDebt: number;

  @Field(() => Float, { description: "Shares outstanding at the end of the quarter (a count, not money)" })
  sharesOutstanding: number;
}

@ObjectType({ description: "Flows summed over the four quarters" })
export class TtmFlows {
  @Field(() => Float, { description: "Revenue over the four quarters" })
  revenue: number;

  @Field(() => Float, { description: "Cost of revenue over the four quarters" })
  costOfRevenue: number;

  @Field(() => Float, { description: "Revenue less cost of revenue over the four quarters" })
  grossProfit: number;

  @Field(() => Float, { description: "Operating income (EBIT) over the four quarters" })
  operatingIncome: number;

  @Field(() => Float, { description: "Net income over the four quarters; negative for a loss" })
  netIncome: number;

  @Field(() => Float, { description: "Sum of the four quarterly EPS" })
  eps: number;

  @Field(() => Float, { description: "Cash flow from operations over the four quarters" })
  operatingCashFlow: number;

  @Field(() => Float, { description: "Negative: cash spent" })
  capex: number;

  @Field(() => Float, { description: "Operating cash flow plus capex over the four quarters" })
  freeCashFlow: number;

  @Field(() => Float, { description: "Negative: cash paid out" })
  dividendsPaid: number;
}

@ObjectType({ description: "Balance-sheet items of the latest of the four quarters" })
export class TtmBalanceSheet {
  @Field(() => Float, { description: "Total assets at the end of the latest quarter" })
  totalAssets: number;

  @Field(() => Float, { description: "Total liabilities at the end of the latest quarter" })
  totalLiabilities: number;

  @Field(() => Float, { description: "Shareholders' equity at the end of the latest quarter" })
  totalEquity: number;

  @Field(() => Float, { description: "Cash and equivalents at the end of the latest quarter" })
  cash: number;

  @Field(() => Float, { description: "Short- and long-term debt at the end of the latest quarter" })
  totalDebt: number;

  @Field(() => Float, { description: "Shares outstanding at the end of the latest quarter (a count, not money)" })
  sharesOutstanding: number;
}

@ObjectType({
  description:
    "Ratios of the TTM flows, the latest balance sheet and the latest price; " +
    "null where undefined (a zero or negative denominator)",
})
export class TtmRatios {
  @Field(() => Float, { nullable: true, description: "Gross profit / revenue, percent" })
  grossMargin: number | null;

  @Field(() => Float, { nullable: true, description: "Operating income / revenue, percent" })
  operatingMargin: number | null;

  @Field(() => Float, { nullable: true, description: "Net income / revenue, percent" })
  netMargin: number | null;

  @Field(() => Float, { nullable: true, description: "Net income / total equity (latest quarter), percent" })
  returnOnEquity: number | null;

  @Field(() => Float, { nullable: true, description: "Net income / total assets (latest quarter), percent" })
  returnOnAssets: number | null;

  @Field(() => Float, { nullable: true, description: "Total debt / total equity (a ratio, not percent)" })
  debtToEquity: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "Price (in the reporting currency) / TTM EPS; null when EPS is not positive",
  })
  peRatio: number | null;

  @Field(() => Float, { nullable: true, description: "Market capitalisation at the price / TTM revenue" })
  psRatio: number | null;
}

@ObjectType({ description: "The latest price the ratios use" })
export class TtmPrice {
  @Field(() => Float, { description: "Latest price of the listing, in its currency" })
  c: number;

  @Field(() => String, { description: "ISO 4217 currency of c" })
  currency: string;

  @Field(() => Int, { description: "Time of the price, Unix seconds" })
  t: number;

  @Field(() => Float, {
    description:
      "Units of the answer's currency (the reporting currency unless another was asked for) per unit of the " +
      "listing's currency on the price's day (1 when they are the same)",
  })
  fxRate: number;

  @Field(() => Float, {
    description:
      "The price c converted into the answer's currency (the reporting currency unless another was asked for)",
  })
  inReportingCurrency: number;

  @Field(() => Float, {
    description: "The price inReportingCurrency × shares outstanding of the latest quarter, in the answer's currency",
  })
  marketCapitalization: number;
}

@ObjectType({
  description:
    "Trailing-twelve-month financials from the last four reported quarters; a stock with fewer has its quarters " +
    "and null figures",
})
export class FinancialsTtm {
  @Field(() => String, { description: "Symbol of the listing asked for" })
  symbol: string;

  @Field(() => String, {
    description:
      "ISO 4217 currency of every money figure except price.c: the reporting currency, or the one asked for " +
      "(each quarter converted at its period end's rate)",
  })
  currency: string;

  @Field(() => String, {
    nullable: true,
    description: "Period end of the latest quarter used, YYYY-MM-DD; null when no quarter is reported",
  })
  asOf: string | null;

  @Field(() => [FinancialQuarter], {
    description: "The four quarters used, oldest first (those reported, when fewer than four)",
  })
  quarters: FinancialQuarter[];

  @Field(() => TtmFlows, {
    nullable: true,
    description:
      "Income and cash-flow items summed over the four quarters; null with fewer than four reported quarters",
  })
  ttm: TtmFlows | null;

  @Field(() => TtmBalanceSheet, {
    nullable: true,
    description: "Balance-sheet items of the latest quarter; null with fewer than four reported quarters",
  })
  balanceSheet: TtmBalanceSheet | null;

  @Field(() => TtmRatios, {
    nullable: true,
    description: "Margins, returns and valuation ratios; null with fewer than four reported quarters",
  })
  ratios: TtmRatios | null;

  @Field(() => TtmPrice, {
    nullable: true,
    description:
      "The latest price the valuation ratios use; null with fewer than four reported quarters, or without a price",
  })
  price: TtmPrice | null;
}
