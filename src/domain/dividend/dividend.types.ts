import { CUSIP_ARG, WKN_ARG } from "../instrument/instrument.types";
import { ArgsType, Field, Float, Int, ObjectType, registerEnumType } from "type-graphql";

/** The contract's dividend row (docs/contract.md section 4); `date` is the ex-date. */
@ObjectType({ description: "One dividend; date is the ex-date" })
export class Dividend {
  @Field(() => String, {
    nullable: true,
    description: "Symbol of the security's primary listing; set where rows of several securities mix (calendar)",
  })
  symbol: string | null;

  @Field(() => String, { description: "Ex-dividend date, YYYY-MM-DD" })
  date: string;

  @Field(() => String, { nullable: true, description: "Record date, YYYY-MM-DD" })
  recordDate: string | null;

  @Field(() => String, { nullable: true, description: "Payment date, YYYY-MM-DD" })
  payDate: string | null;

  @Field(() => String, { nullable: true, description: "Declaration date, YYYY-MM-DD" })
  declarationDate: string | null;

  @Field(() => Float, { description: "Per share as paid at the time" })
  amount: number;

  @Field(() => Float, { description: "Per share, adjusted for the splits since, to today's shares" })
  adjustedAmount: number;

  @Field(() => String, { description: "ISO 4217 currency of the amounts" })
  currency: string;
}

@ObjectType({ description: "A page of the dividend calendar, sorted by ex-date" })
export class DividendCalendarPage {
  @Field(() => String, { description: "First ex-date of the window, YYYY-MM-DD" })
  from: string;

  @Field(() => String, { description: "Last ex-date of the window, YYYY-MM-DD" })
  to: string;

  @Field(() => [Dividend], { description: "Dividends going ex in the window, by ex-date (then by security)" })
  dividends: Dividend[];

  @Field(() => String, { nullable: true, description: "Pass as cursor for the next page; null on the last page" })
  nextCursor: string | null;
}

@ArgsType()
export class DividendCalendarArgs {
  @Field(() => String, { nullable: true, description: "First ex-date, YYYY-MM-DD; default today" })
  from?: string | null;

  @Field(() => String, { nullable: true, description: "Last ex-date, YYYY-MM-DD; default from + 90 days" })
  to?: string | null;

  @Field(() => String, { nullable: true, description: "Only this stock, ETF or fund" })
  symbol?: string | null;

  @Field(() => String, { nullable: true, description: "Only this stock, ETF or fund, by ISIN" })
  isin?: string | null;

  @Field(() => String, { nullable: true, description: CUSIP_ARG })
  cusip?: string | null;

  @Field(() => String, { nullable: true, description: WKN_ARG })
  wkn?: string | null;

  @Field(() => Int, {
    nullable: true,
    description: "Page size (default 100, at most MDG_LIST_MAX_LIMIT, 1000 by default)",
  })
  limit?: number | null;

  @Field(() => String, { nullable: true, description: "nextCursor of the previous page" })
  cursor?: string | null;
}

@ObjectType({ description: "Dividends of one calendar year (by ex-date)" })
export class DividendYear {
  @Field(() => Int, { description: "Calendar year of the ex-dates (UTC)" })
  year: number;

  @Field(() => Float, { description: "Sum of the amounts as paid" })
  amount: number;

  @Field(() => Float, { description: "Sum of the split-adjusted amounts" })
  adjustedAmount: number;

  @Field(() => Int, { description: "Number of payments" })
  count: number;

  @Field(() => Float, {
    nullable: true,
    description:
      "Change of adjustedAmount against the previous year, percent; " +
      "null for the first year or after a year without payments",
  })
  growth: number | null;

  @Field(() => Boolean, { description: "False for the current year, which is still running" })
  complete: boolean;
}

@ObjectType({ description: "Annual dividends of a stock, ETF or fund, with the forward dividend and yield" })
export class AnnualDividends {
  @Field(() => String, {
    description: "Symbol of the listing asked for (for a fund asked by ISIN: its primary listing)",
  })
  symbol: string;

  @Field(() => String, { nullable: true, description: "ISIN of the security; null where unknown" })
  isin: string | null;

  @Field(() => String, { description: "ISO 4217 currency of the dividend amounts" })
  currency: string;

  @Field(() => Int, {
    nullable: true,
    description: "Payments per year of the latest dividend (1, 2, 4, 12); null (none) for a security that pays none",
  })
  frequency: number | null;

  @Field(() => [DividendYear], { description: "Every calendar year from the first dividend to today, oldest first" })
  years: DividendYear[];

  @Field(() => Dividend, {
    nullable: true,
    description: "The latest dividend known today (announced, else the latest gone ex)",
  })
  latestDividend: Dividend | null;

  @Field(() => Float, {
    description:
      "Latest dividend (split-adjusted) × frequency, in currency; " +
      "0 when the latest went ex more than max(12 months, two payment periods) ago and none is announced",
  })
  forwardAnnualDividend: number;

  @Field(() => Float, {
    nullable: true,
    description: "Forward annual dividend / price, percent (the dividend converted into the price's currency)",
  })
  forwardYield: number | null;

  @Field(() => Float, { nullable: true, description: "Latest price of the listing" })
  price: number | null;

  @Field(() => String, { description: "ISO 4217 currency of price" })
  priceCurrency: string;
}

@ArgsType()
export class DividendSecurityArgs {
  @Field(() => String, { nullable: true, description: "Symbol of a stock, ETF or fund" })
  symbol?: string | null;

  @Field(() => String, { nullable: true, description: "ISIN (funds are known by ISIN)" })
  isin?: string | null;

  @Field(() => String, { nullable: true, description: CUSIP_ARG })
  cusip?: string | null;

  @Field(() => String, { nullable: true, description: WKN_ARG })
  wkn?: string | null;
}

@ArgsType()
export class AnnualDividendsArgs extends DividendSecurityArgs {
  @Field(() => String, {
    nullable: true,
    description:
      "ISO 4217 code to convert the amounts and the price into, each at the FX rate of its own day; " +
      "default: the dividends' currency and the listing's",
  })
  currency?: string | null;
}

export enum DividendStatus {
  announced = "announced",
  estimated = "estimated",
}

registerEnumType(DividendStatus, {
  name: "DividendStatus",
  description: "Whether an expected dividend was declared by the issuer or is projected by the service",
  // Lower case, as in REST's `status` (docs/contract.md section 4 style); .graphql-schema-linter.config.js says why.
  valuesConfig: {
    announced: { description: "Declared by the issuer: amount and dates as announced" },
    estimated: {
      description: "Projected from the payment frequency and recent history; declarationDate is null",
    },
  },
});

@ObjectType({ description: "An expected dividend of the next twelve months" })
export class ExpectedDividend {
  @Field(() => String, { description: "(Expected) ex-dividend date, YYYY-MM-DD" })
  date: string;

  @Field(() => String, { nullable: true, description: "(Expected) record date, YYYY-MM-DD; null where unknown" })
  recordDate: string | null;

  @Field(() => String, { nullable: true, description: "(Expected) payment date, YYYY-MM-DD; null where unknown" })
  payDate: string | null;

  @Field(() => String, {
    nullable: true,
    description: "Declaration date, YYYY-MM-DD; null for estimates and where unknown",
  })
  declarationDate: string | null;

  @Field(() => Float, { description: "Per share, in currency: as announced, or the estimate" })
  amount: number;

  @Field(() => Float, { description: "Per share, split-adjusted to today's shares, in currency" })
  adjustedAmount: number;

  @Field(() => String, { description: "ISO 4217 currency of the amounts" })
  currency: string;

  @Field(() => DividendStatus, { description: "Announced by the issuer, or estimated" })
  status: DividendStatus;
}

@ObjectType({ description: "Expected dividends of the next twelve months" })
export class DividendEstimate {
  @Field(() => String, { description: "Symbol of the listing asked for" })
  symbol: string;

  @Field(() => String, { nullable: true, description: "ISIN of the security; null where unknown" })
  isin: string | null;

  @Field(() => String, { description: "ISO 4217 currency of the amounts" })
  currency: string;

  @Field(() => Int, {
    nullable: true,
    description: "Payments per year the estimate assumes; null (none) for a security that has paid and announced none",
  })
  frequency: number | null;

  @Field(() => String, { description: "First ex-date of the window (tomorrow), YYYY-MM-DD" })
  from: string;

  @Field(() => String, { description: "Last ex-date of the window (one year from today), YYYY-MM-DD" })
  to: string;

  @Field(() => Float, { description: "Sum of adjustedAmount over the rows" })
  total: number;

  @Field(() => String, { description: "How the estimated rows were derived, in words" })
  method: string;

  @Field(() => [ExpectedDividend], { description: "Sorted by ex-date; announced rows take precedence over estimates" })
  dividends: ExpectedDividend[];
}
