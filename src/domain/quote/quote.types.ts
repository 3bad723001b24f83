import { CUSIP_ARG, WKN_ARG } from "../instrument/instrument.types";
import { ArgsType, Field, Float, Int, ObjectType } from "type-graphql";
import { SecurityTypeEnum } from "../instrument/instrument.types";

@ObjectType({ description: "Close of the day and simple moving averages of the close" })
export class HistoricalPrice {
  @Field(() => Float, { nullable: true, description: "Close of the latest trading day" })
  day: number | null;

  @Field(() => Float, { nullable: true, description: "Average close of the last 50 trading days" })
  fiftyDays: number | null;

  @Field(() => Float, { nullable: true, description: "Average close of the last 200 trading days" })
  twoHundredDays: number | null;
}

@ObjectType({
  description:
    "Company metrics of a stock; null where one of the required figures does not exist for the security " +
    "(ETFs and funds have no EPS; crypto and forex none of them) or is not known",
})
export class QuoteMetrics {
  @Field(() => Float, { description: "In the security's reporting currency" })
  marketCapitalization: number;

  @Field(() => Float, { description: "Average daily volume of the last 30 trading days" })
  avgVolume: number;

  @Field(() => Float, { description: "Earnings per share, trailing twelve months" })
  eps: number;

  @Field(() => Float, {
    nullable: true,
    description: "Price / earnings, trailing twelve months; null when TTM earnings are not positive (REST omits it)",
  })
  peRatio: number | null;

  @Field(() => Float, { description: "Shares outstanding as of the latest reported quarter" })
  sharesOutstanding: number;
}

@ObjectType({ description: "Latest quote of a listing" })
export class Quote {
  @Field(() => String, { description: "Symbol of the listing; crypto pairs in the canonical form, e.g. BTC-USD" })
  symbol: string;

  @Field(() => String, { description: "Name of the security" })
  name: string;

  @Field(() => SecurityTypeEnum, { description: "Kind of security the listing belongs to" })
  type: SecurityTypeEnum;

  @Field(() => String, {
    nullable: true,
    description: "ISIN of the security; null where it has none (crypto and forex pairs)",
  })
  isin: string | null;

  @Field(() => Float, { description: "Current (latest) price, in currency" })
  c: number;

  @Field(() => Float, { description: "Change against the previous close" })
  d: number;

  @Field(() => Float, { description: "Change in percent against the previous close" })
  dp: number;

  @Field(() => Float, { description: "High of the day, in currency" })
  h: number;

  @Field(() => Float, { description: "Low of the day, in currency" })
  l: number;

  @Field(() => Float, { description: "Open of the day, in currency" })
  o: number;

  @Field(() => Float, { description: "Close of the previous trading day, in currency" })
  pc: number;

  @Field(() => Int, { description: "Time of the quote, Unix seconds" })
  t: number;

  @Field(() => Float, { description: "Volume of the day" })
  v: number;

  @Field(() => String, { description: "ISO 4217 currency of the prices" })
  currency: string;

  @Field(() => String, { description: "MIC-style code of the exchange" })
  exchange: string;

  @Field(() => String, { nullable: true, description: "Next earnings date, YYYY-MM-DD (stocks)" })
  earningsAnnouncement: string | null;

  @Field(() => HistoricalPrice, {
    description: "Latest close and its 50- and 200-day moving averages (REST: historical_price)",
  })
  historicalPrice: HistoricalPrice;

  /** Internal: the security behind the listing, for field resolvers. */
  securityId: number;
  securityType: SecurityTypeEnum;
  marketCap: number | null;
  sharesOutstanding: number | null;
  avgVolume: number | null;
  /** Trailing-twelve-month EPS and net income as stored with the security (null unless a stock with four quarters). */
  epsTtm: number | null;
  netIncomeTtm: number | null;
}

@ArgsType()
export class QuoteArgs {
  @Field(() => String, {
    nullable: true,
    description: "Symbol of a listing (stock, ETF, fund, crypto pair, forex pair)",
  })
  symbol?: string | null;

  @Field(() => String, { nullable: true, description: "ISIN; resolves to the primary listing" })
  isin?: string | null;

  @Field(() => String, { nullable: true, description: CUSIP_ARG })
  cusip?: string | null;

  @Field(() => String, { nullable: true, description: WKN_ARG })
  wkn?: string | null;

  @Field(() => String, {
    nullable: true,
    description: "ISO 4217 code to convert prices into; the listing's own currency by default",
  })
  currency?: string | null;
}

@ArgsType()
export class QuotesArgs {
  @Field(() => [String], { description: "Symbols of listings, at most MDG_BULK_MAX_SYMBOLS (100 by default)" })
  symbols: string[];

  @Field(() => String, {
    nullable: true,
    description: "ISO 4217 code to convert prices into; each listing's own currency by default",
  })
  currency?: string | null;
}
