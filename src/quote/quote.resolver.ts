import { Args, Authorized, Ctx, FieldResolver, Query, Resolver, Root } from "type-graphql";
import type { Context } from "../context";
import { getQuote, getQuotes, metricsOf } from "./quote.service";
import { Quote, QuoteArgs, QuoteMetrics, QuotesArgs } from "./quote.types";

@Resolver(() => Quote)
export class QuoteResolver {
  @Authorized()
  @Query(() => Quote, { description: "Latest quote of a stock, ETF, fund, crypto pair or forex pair, by symbol or ISIN" })
  quote(@Args(() => QuoteArgs) args: QuoteArgs, @Ctx() ctx: Context): Promise<Quote> {
    return getQuote(ctx, args);
  }

  @Authorized()
  @Query(() => [Quote], {
    nullable: "items",
    description:
      "Latest quotes of several listings in request order (one batched lookup). An item is null where its symbol names nothing; " +
      "an item the key may not read (or cannot convert) is null with an error whose path ends in its index.",
  })
  quotes(@Args(() => QuotesArgs) args: QuotesArgs, @Ctx() ctx: Context): Promise<(Quote | Error | null)[]> {
    return getQuotes(ctx, args.symbols, args.currency);
  }

  @FieldResolver(() => QuoteMetrics, { nullable: true })
  metrics(@Root() quote: Quote): QuoteMetrics | null {
    return metricsOf(quote);
  }
}
