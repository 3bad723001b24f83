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

  @Field(() => Float)
  price: number;

  @Field(() => Float, { description: "Change against the previous close (00:00 UTC)" })
  change: number;

  @Field(() => Float, { description: "Change in percent" })
  changePercent: number;

  @Field(() => Float)
  open: number;

  @Field(() => Float)
  high: number;

  @Field(() => Float)
  low: number;

  @Field(() => Float)
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
