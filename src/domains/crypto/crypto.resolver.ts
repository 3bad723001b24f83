import { Args, Authorized, Ctx, Query, Resolver } from "type-graphql";
import type { Context } from "../../context";
import { getCryptoPrice } from "./crypto.service";
import { CryptoPrice, CryptoPriceArgs } from "./crypto.types";

@Resolver(() => CryptoPrice)
export class CryptoResolver {
  @Authorized("crypto")
  @Query(() => CryptoPrice, { description: "Price of a crypto pair" })
  cryptoPrice(@Args(() => CryptoPriceArgs) args: CryptoPriceArgs, @Ctx() ctx: Context): Promise<CryptoPrice> {
    return getCryptoPrice(ctx, args.symbol);
  }
}
