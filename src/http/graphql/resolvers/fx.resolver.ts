import { Args, ArgsType, Authorized, Ctx, Field, Float, ObjectType, Query, Resolver } from "type-graphql";
import type { Context } from "../../http.context";
import type { FxQuote as FxQuoteAnswer } from "../../../domain/fx/fx.answers";

@ObjectType({ description: "The latest exchange rate between two currencies, from the daily FX series" })
export class FxQuote implements FxQuoteAnswer {
  @Field(() => String, { description: "ISO 4217 code of the currency converted from, upper-case" })
  from: string;

  @Field(() => String, { description: "ISO 4217 code of the currency converted to, upper-case" })
  to: string;

  @Field(() => Float, {
    description: "Units of `to` for one unit of `from`, unrounded; a pair without USD is crossed through USD",
  })
  rate: number;

  @Field(() => String, {
    description:
      "Day of the rate, YYYY-MM-DD (UTC): the latest day either currency has a rate for; the other's last known " +
      "rate on or before it is used",
  })
  day: string;
}

@ArgsType()
export class FxQuoteArgs {
  @Field(() => String, { description: "ISO 4217 code to convert from (case-insensitive), e.g. EUR" })
  from: string;

  @Field(() => String, { description: "ISO 4217 code to convert to (case-insensitive), e.g. USD" })
  to: string;
}

@Resolver(() => FxQuote)
export class FxResolver {
  // Exchange rates are plain market data, as a forex pair's quote is: the `stock` scope (auth.scopes.ts).
  @Authorized("stock")
  @Query(() => FxQuote, { description: "The latest exchange rate from one currency to another" })
  fxQuote(@Args(() => FxQuoteArgs) args: FxQuoteArgs, @Ctx() ctx: Context): Promise<FxQuote> {
    return ctx.answers.fx.quote(ctx, args.from, args.to);
  }
}
