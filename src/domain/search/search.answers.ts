import type { RequestContext } from "../request.context";
import { search, searchAggregated } from "./search.service";
import type { AggregatedSearchResult, SearchArgs, SearchResult } from "./search.types";

/**
 * Search, as the resolvers ask for it (the answer level: see etf/etf.answers.ts). Over a row store the in-process
 * index answers at once; an upstream answers asynchronously.
 */
export interface SearchAnswers {
  search(ctx: RequestContext, args: SearchArgs): SearchResult | Promise<SearchResult>;
  aggregated(ctx: RequestContext, args: SearchArgs): AggregatedSearchResult | Promise<AggregatedSearchResult>;
}

/** The answers of the in-process search index built from the row store at start. */
export const ROW_STORE_SEARCH_ANSWERS: SearchAnswers = Object.freeze({ search, aggregated: searchAggregated });
