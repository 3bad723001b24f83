import { CUSIP_ARG, WKN_ARG } from "../instrument/instrument.types";
import { ArgsType, Field, Float, Int, ObjectType } from "type-graphql";
import type { InstrumentRow } from "../../sources/data-source";

@ObjectType({ description: "A stock (by one of its listings), with its financials, dividends and candles" })
export class Stock {
  @Field(() => String)
  symbol: string;

  @Field(() => String)
  name: string;

  @Field(() => String, { nullable: true })
  isin: string | null;

  @Field(() => String, { description: "MIC-style code of the listing's exchange" })
  exchange: string;

  @Field(() => String, { description: "ISO 4217 currency of the listing's prices" })
  currency: string;

  @Field(() => String, { description: "ISO 4217 currency the company reports in" })
  reportingCurrency: string;

  @Field(() => String, { nullable: true, description: "ISO 3166 alpha-2 of domicile" })
  country: string | null;

  @Field(() => String, { nullable: true })
  sector: string | null;

  @Field(() => String, { nullable: true })
  industry: string | null;

  @Field(() => Float, { nullable: true, description: "In the reporting currency" })
  marketCapitalization: number | null;

  @Field(() => Float, { nullable: true })
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

  @Field(() => Int)
  fiscalYear: number;

  @Field(() => Int, { description: "1 to 4" })
  fiscalQuarter: number;

  @Field(() => String, { description: "Day the quarter was reported, YYYY-MM-DD" })
  reportedDate: string;

  @Field(() => Float)
  revenue: number;

  @Field(() => Float)
  costOfRevenue: number;

  @Field(() => Float)
  grossProfit: number;

  @Field(() => Float)
  operatingIncome: number;

  @Field(() => Float)
  netIncome: number;

  @Field(() => Float, { description: "Earnings per share" })
  eps: number;

  @Field(() => Float)
  operatingCashFlow: number;

  @Field(() => Float, { description: "Negative: cash spent" })
  capex: number;

  @Field(() => Float)
  freeCashFlow: number;

  @Field(() => Float, { description: "Negative: cash paid out" })
  dividendsPaid: number;

  @Field(() => Float)
  totalAssets: number;

  @Field(() => Float)
  totalLiabilities: number;

  @Field(() => Float)
  totalEquity: number;

  @Field(() => Float)
  cash: number;

  @Field(() => Float)
  totalDebt: number;

  @Field(() => Float)
  sharesOutstanding: number;
}

@ObjectType({ description: "Flows summed over the four quarters" })
export class TtmFlows {
  @Field(() => Float)
  revenue: number;

  @Field(() => Float)
  costOfRevenue: number;

  @Field(() => Float)
  grossProfit: number;

  @Field(() => Float)
  operatingIncome: number;

  @Field(() => Float)
  netIncome: number;

  @Field(() => Float, { description: "Sum of the four quarterly EPS" })
  eps: number;

  @Field(() => Float)
  operatingCashFlow: number;

  @Field(() => Float, { description: "Negative: cash spent" })
  capex: number;

  @Field(() => Float)
  freeCashFlow: number;

  @Field(() => Float, { description: "Negative: cash paid out" })
  dividendsPaid: number;
}

@ObjectType({ description: "Balance-sheet items of the latest of the four quarters" })
export class TtmBalanceSheet {
  @Field(() => Float)
  totalAssets: number;

  @Field(() => Float)
  totalLiabilities: number;

  @Field(() => Float)
  totalEquity: number;

  @Field(() => Float)
  cash: number;

  @Field(() => Float)
  totalDebt: number;

  @Field(() => Float)
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
      "Units of the reporting currency per unit of the listing's currency on the price's day " +
      "(1 when they are the same)",
  })
  fxRate: number;

  @Field(() => Float, { description: "c converted into the reporting currency" })
  inReportingCurrency: number;

  @Field(() => Float, {
    description: "inReportingCurrency × shares outstanding of the latest quarter, in the reporting currency",
  })
  marketCapitalization: number;
}

@ObjectType({ description: "Trailing-twelve-month financials from the last four reported quarters" })
export class FinancialsTtm {
  @Field(() => String)
  symbol: string;

  @Field(() => String, { description: "ISO 4217 currency of every money figure except price.c" })
  currency: string;

  @Field(() => String, { description: "Period end of the latest quarter used, YYYY-MM-DD" })
  asOf: string;

  @Field(() => [FinancialQuarter], { description: "The four quarters used, oldest first" })
  quarters: FinancialQuarter[];

  @Field(() => TtmFlows)
  ttm: TtmFlows;

  @Field(() => TtmBalanceSheet)
  balanceSheet: TtmBalanceSheet;

  @Field(() => TtmRatios)
  ratios: TtmRatios;

  @Field(() => TtmPrice)
  price: TtmPrice;
}
