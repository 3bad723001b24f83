import { InvalidArgumentError } from "../../platform/errors";
import type { RequestContext } from "../request.context";
import { listingId, securityId } from "../instrument/instrument.ids";
import type { SecurityTypeEnum } from "../instrument/instrument.types";
import type { SecurityMatch } from "./search.index";
import type { AggregatedSearchResult, SearchArgs, SearchHit, SearchResult } from "./search.types";

export const MAX_QUERY_LENGTH = 200;
export const MAX_SEARCH_LIMIT = 100;

function matches(ctx: RequestContext, args: SearchArgs): SecurityMatch[] {
  const query = args.query.trim();
  if (query.length === 0)
    throw new InvalidArgumentError("query: expected a non-empty string", [{ field: "query", issue: "empty" }]);
  if (query.length > MAX_QUERY_LENGTH) {
    throw new InvalidArgumentError(`query: at most ${MAX_QUERY_LENGTH} characters`, [
      { field: "query", issue: "too long" },
    ]);
  }
  const limit = args.limit ?? ctx.config.sizes.searchResults;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw new InvalidArgumentError(`limit: expected an integer from 1 to ${MAX_SEARCH_LIMIT}`, [
      { field: "limit", issue: "out of range" },
    ]);
  }
  return ctx.searchIndex.search(query, { limit, types: args.types ?? undefined });
}

/** One row per listing, the matched security's listings in order (primary first). */
export function search(ctx: RequestContext, args: SearchArgs): SearchResult {
  const limit = args.limit ?? ctx.config.sizes.searchResults;
  const results: SearchHit[] = [];
  for (const { security: s } of matches(ctx, args)) {
    for (const l of s.listings) {
      if (results.length >= limit) break;
      results.push({
        id: listingId(l),
        symbol: l.symbol,
        companyName: s.name,
        isin: s.isin,
        type: s.type as SecurityTypeEnum,
        isEtf: s.type === "etf",
        isFund: s.type === "fund",
        isAdr: s.isAdr,
        isActivelyTrading: s.isActive,
        currency: l.currency,
        exchange: l.exchange,
        marketCapitalization: s.marketCap,
      });
    }
  }
  return { statusCode: 200, results };
}

export function searchAggregated(ctx: RequestContext, args: SearchArgs): AggregatedSearchResult {
  return {
    statusCode: 200,
    query: args.query.trim(),
    results: matches(ctx, args).map(({ security: s, match }) => ({
      id: securityId(s, s.listings[0]!),
      name: s.name,
      isin: s.isin,
      type: s.type as SecurityTypeEnum,
      symbol: s.listings[0]!.symbol,
      currency: s.currency,
      marketCapitalization: s.marketCap,
      match,
      listings: s.listings.map((l) => ({ ...l, id: listingId(l) })),
    })),
  };
}
