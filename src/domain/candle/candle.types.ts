import { CUSIP_ARG, WKN_ARG } from "../instrument/instrument.types";
import { ArgsType, Field, Float, Int, ObjectType, registerEnumType } from "type-graphql";

/**
 * OHLCV bars as parallel arrays (docs/contract.md section 4): bar i is
 * `t[i], o[i], h[i], l[i], c[i], v[i]`. `t` is the Unix second the bar's
 * period starts (see docs/api-stock-dividend.md for the conventions).
 */
@ObjectType({ description: "OHLCV bars as parallel arrays; bar i is t[i], o[i], h[i], l[i], c[i], v[i]" })
export class Candles {
  @Field(() => String, { description: "The listing's symbol (canonical form for crypto pairs)" })
  symbol: string;

  @Field(() => String, {
    description:
      '"ok" with bars; "no_data" with empty arrays when the known security has no bars in the range ' +
      "(an unknown symbol is NOT_FOUND)",
  })
  s: string;

  @Field(() => [Int], { description: "Start of each bar's period, Unix seconds" })
  t: number[];

  @Field(() => [Float], { description: "Open of each bar, in currency" })
  o: number[];

  @Field(() => [Float], { description: "High of each bar, in currency" })
  h: number[];

  @Field(() => [Float], { description: "Low of each bar, in currency" })
  l: number[];

  @Field(() => [Float], { description: "Close of each bar, in currency" })
  c: number[];

  @Field(() => [Float], { description: "Volume (shares, units of the base asset for crypto)" })
  v: number[];

  @Field(() => Int, {
    description: "Start of the range the bars cover (the requested from, moved back to the start of its period)",
  })
  from: number;

  @Field(() => Int, {
    description: "End of the range the bars cover (the requested to, moved forward to the end of its period)",
  })
  to: number;

  @Field(() => String, { description: "1, 5, 15, 30, 60 (minutes), D, W or M" })
  resolution: string;

  @Field(() => String, {
    description: "Names the series: symbol, resolution and currency of the prices, as SYMBOL:RESOLUTION:CURRENCY",
  })
  key: string;

  @Field(() => String, { description: "ISO 4217 currency of the prices" })
  currency: string;
}

/**
 * Which corporate actions the prices of candles are adjusted for (docs/contract.md section 4). The store keeps bars
 * adjusted for splits, so `splits` reads them as they are; the values are REST's `adjustment` strings.
 */
export enum CandleAdjustment {
  ALL = "all",
  NONE = "none",
  SPLITS = "splits",
}

export const CANDLE_ADJUSTMENTS = [CandleAdjustment.SPLITS, CandleAdjustment.ALL, CandleAdjustment.NONE] as const;

registerEnumType(CandleAdjustment, {
  name: "CandleAdjustment",
  description: "The corporate actions candle prices are adjusted for",
  valuesConfig: {
    ALL: {
      description:
        "Splits and dividends, a total-return series: each ex-date multiplies the prices before it by " +
        "1 - dividend / previous close; the latest bar is that of SPLITS",
    },
    NONE: { description: "Prices and volumes as traded, without adjustment" },
    SPLITS: { description: "Splits: earlier prices divided and volumes multiplied by each later split (the default)" },
  },
});

/** The range and resolution of a candle request, without the security (Stock.candles). */
@ArgsType()
export class CandleRangeArgs {
  @Field(() => Int, {
    nullable: true,
    description: "Start, Unix seconds (inclusive); default: `to` less the default span of the resolution",
  })
  from?: number | null;

  @Field(() => Int, { nullable: true, description: "End, Unix seconds (inclusive); default: now" })
  to?: number | null;

  @Field(() => String, { nullable: true, description: "1, 5, 15, 30, 60 (minutes), D, W or M; default D" })
  resolution?: string | null;

  @Field(() => String, {
    nullable: true,
    description: "ISO 4217 code to convert prices into; the listing's own currency by default",
  })
  currency?: string | null;

  @Field(() => CandleAdjustment, {
    nullable: true,
    description: "The corporate actions prices are adjusted for; default SPLITS",
  })
  adjustment?: CandleAdjustment | null;
}

@ArgsType()
export class CandleArgs extends CandleRangeArgs {
  @Field(() => String, { nullable: true, description: "Symbol of a stock, ETF, fund, crypto pair or forex pair" })
  symbol?: string | null;

  @Field(() => String, { nullable: true, description: "ISIN; resolves to the primary listing" })
  isin?: string | null;

  @Field(() => String, { nullable: true, description: CUSIP_ARG })
  cusip?: string | null;

  @Field(() => String, { nullable: true, description: WKN_ARG })
  wkn?: string | null;
}
