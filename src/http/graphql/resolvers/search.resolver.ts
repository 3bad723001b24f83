import { Args, Authorized, Ctx, Query, Resolver } from "type-graphql";
import type { Context } from "../../http.context";
import { AggregatedSearchResult, SearchArgs, SearchResult } from "../../../domain/search/search.types";

@Resolver()
export class SearchResolver {
  @Authorized("search")
  @Query(() => SearchResult, { description: "Search stocks, ETFs, funds, crypto and forex: one row per listing" })
  search(@Args(() => SearchArgs) args: SearchArgs, @Ctx() ctx: Context): SearchResult | Promise<SearchResult> {
    return ctx.answers.search.search(ctx, args);
  }

  @Authorized("search")
  @Query(() => AggregatedSearchResult, {
    description: "Search grouped by security: one group per security with all its listings",
  })
  searchAggregated(
    @Args(() => SearchArgs) args: SearchArgs,
    @Ctx() ctx: Context,
  ): AggregatedSearchResult | Promise<AggregatedSearchResult> {
    return ctx.answers.search.aggregated(ctx, args);
  }
}
