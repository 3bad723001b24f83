import { ArgsType, Field, Float, Int, ObjectType } from "type-graphql";

@ObjectType({ description: "Price of a crypto pair" })
export class CryptoPrice {
  @Field(() => String, { description: "Canonical pair, e.g. BTC-USD" })
  symbol: string;

  @Field(() => String, { description: "Base asset, e.g. BTC" })
  base: string;

  @Field(() => String, { description: "Name of the base asset" })
  name: string;

  @Field(() => String, { description: "ISO 4217 currency the pair is quoted in" })
  currency: string;

  @Field(() => Float, { description: "Latest price, in currency" })
  price: number;

  @Field(() => Float, { description: "Change against the previous close (00:00 UTC)" })
  change: number;

  @Field(() => Float, { description: "Change in percent" })
  changePercent: number;

  @Field(() => Float, { description: "Open of the UTC day, in currency" })
  open: number;

  @Field(() => Float, { description: "High of the UTC day so far, in currency" })
  high: number;

  @Field(() => Float, { description: "Low of the UTC day so far, in currency" })
  low: number;

  @Field(() => Float, { description: "Close of the previous UTC day (at 00:00 UTC), in currency" })
  previousClose: number;

  @Field(() => Float, { description: "Volume of the day in units of the base asset" })
  volume: number;

  @Field(() => Float, { nullable: true, description: "Market capitalisation in USD" })
  marketCapitalization: number | null;

  @Field(() => Int, { description: "Time of the price, Unix seconds" })
  t: number;
}

@ArgsType()
export class CryptoPriceArgs {
  @Field(() => String, { description: "BTC-USD; BTCUSD, BTC/USD and BTC (in USD) are accepted too" })
  symbol: string;
}
