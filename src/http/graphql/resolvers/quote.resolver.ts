import { Args, Authorized, Ctx, FieldResolver, ID, Query, Resolver, Root } from "type-graphql";
import type { Context } from "../../http.context";
import { BY_SECURITY_TYPE } from "../../../domain/instrument/instrument.access";
import { quoteId } from "../../../domain/instrument/instrument.ids";
import { SecurityTypeEnum } from "../../../domain/instrument/instrument.types";
import { served } from "../../../domain/instrument/instrument.served";
import { Quote, QuoteArgs, QuoteMetrics, QuotesArgs } from "../../../domain/quote/quote.types";

/** Thin: quotes are answers of the request's `answers.quote` (quote.answers.ts); metrics derive from them. */
@Resolver(() => Quote)
export class QuoteResolver {
  // Any valid key gets in; the service then requires the scope of each quote's security type.
  @Authorized(BY_SECURITY_TYPE)
  @Query(() => Quote, {
    description: "Latest quote of a stock, ETF, fund, crypto pair or forex pair, by symbol or ISIN",
  })
  quote(@Args(() => QuoteArgs) args: QuoteArgs, @Ctx() ctx: Context): Promise<Quote> {
    return ctx.answers.quote.get(ctx, args);
  }

  @Authorized(BY_SECURITY_TYPE)
  @Query(() => [Quote], {
    nullable: "items",
    description:
      "Latest quotes of several listings in request order (one batched lookup). " +
      "An item is null where its symbol names nothing; " +
      "an item the key may not read (or cannot convert) is null with an error whose path ends in its index.",
  })
  quotes(@Args(() => QuotesArgs) args: QuotesArgs, @Ctx() ctx: Context): Promise<(Quote | Error | null)[]> {
    return ctx.answers.quote.getMany(ctx, args.symbols, args.currency);
  }

  @FieldResolver(() => ID, {
    description:
      "Stable id of this quote: the listing (exchange:symbol) and the currency of its prices, so a quote converted " +
      "to another currency is another object in a client cache",
  })
  id(@Root() quote: Quote): string {
    return quoteId(quote);
  }

  @FieldResolver(() => QuoteMetrics, {
    nullable: true,
    description: "Company metrics; null for crypto and forex pairs, where they mean nothing",
  })
  metrics(@Root() quote: Quote, @Ctx() ctx: Context): QuoteMetrics | null {
    return ctx.answers.quote.metrics(quote);
  }

  // Identity an upstream's quote does not carry (served.ts); REST never asks for these, so its path has no resolver.
  @FieldResolver(() => String, { description: "Name of the security" })
  name(@Root() quote: Quote): string {
    return served(quote.name, "Quote.name");
  }

  @FieldResolver(() => SecurityTypeEnum, { description: "Kind of security the listing belongs to" })
  type(@Root() quote: Quote): SecurityTypeEnum {
    return served(quote.type, "Quote.type");
  }

  @FieldResolver(() => String, {
    nullable: true,
    description: "ISIN of the security; null where it has none (crypto and forex pairs)",
  })
  isin(@Root() quote: Quote): string | null {
    return served(quote.isin, "Quote.isin");
  }
}
