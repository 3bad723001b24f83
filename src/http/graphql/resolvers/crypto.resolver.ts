import { Args, Authorized, Ctx, FieldResolver, ID, Query, Resolver, Root } from "type-graphql";
import type { Context } from "../../http.context";
import { CryptoPrice, CryptoPriceArgs } from "../../../domain/crypto/crypto.types";

@Resolver(() => CryptoPrice)
export class CryptoResolver {
  @Authorized("crypto")
  @Query(() => CryptoPrice, { description: "Price of a crypto pair" })
  cryptoPrice(@Args(() => CryptoPriceArgs) args: CryptoPriceArgs, @Ctx() ctx: Context): Promise<CryptoPrice> {
    return ctx.answers.crypto.price(ctx, args.symbol);
  }

  @FieldResolver(() => ID, {
    description: "Stable id of this price: the pair and the currency it is quoted in; for client caches",
  })
  id(@Root() price: CryptoPrice): string {
    return `${price.symbol}:${price.currency}`;
  }
}
