import { Args, Authorized, Ctx, FieldResolver, Query, Resolver, Root } from "type-graphql";
import type { Context } from "../context";
import { getQuote, metricsOf } from "./quote.service";
import { Quote, QuoteArgs, QuoteMetrics } from "./quote.types";

@Resolver(() => Quote)
export class QuoteResolver {
  @Authorized()
  @Query(() => Quote, { description: "Latest quote of a stock, ETF, fund, crypto pair or forex pair, by symbol or ISIN" })
  quote(@Args(() => QuoteArgs) args: QuoteArgs, @Ctx() ctx: Context): Promise<Quote> {
    return getQuote(ctx, args);
  }

  @FieldResolver(() => QuoteMetrics, { nullable: true })
  metrics(@Root() quote: Quote, @Ctx() ctx: Context): Promise<QuoteMetrics | null> {
    return metricsOf(ctx, quote);
  }
}
