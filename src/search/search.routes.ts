import { z } from "zod";
import { limitField } from "../rest/rest.body";
import { SearchAggregatedDocument, SearchDocument } from "../rest/rest.operations.generated";
import { optionalNullable, route, VERSIONS, type RouteEntry } from "../rest/rest.route";

const searchBody = z.object({
  query: z.string({ error: "expected a string" }),
  limit: optionalNullable(limitField),
  types: optionalNullable(z.array(z.enum(["stock", "etf", "fund", "crypto", "forex"]), { error: "expected an array of stock, etf, fund, crypto, forex" })),
});

export const SEARCH_ROUTES: readonly RouteEntry[] = [
  route({
    path: "search",
    summary: "Search stocks, ETFs, funds, crypto and forex; one row per listing",
    versions: VERSIONS,
    scope: "search",
    body: searchBody,
    operation: SearchDocument,
    shape: (d) => d.search,
    singleSecurity: false,
  }),
  route({
    path: "search/aggregated",
    summary: "Search grouped by security, each group with all its listings",
    versions: VERSIONS,
    scope: "search",
    body: searchBody,
    operation: SearchAggregatedDocument,
    shape: (d) => d.searchAggregated,
    singleSecurity: false,
  }),
];
