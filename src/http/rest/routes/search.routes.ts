import { z } from "zod";
import { limitField } from "../rest.body";
import { SearchAggregatedDocument, SearchDocument } from "../rest.operations.generated";
import { example } from "../rest.examples";
import { optionalNullable, route, VERSIONS, type RouteEntry } from "../rest.route";
import { gqlObject, intOf } from "../rest.response";

const securityType = z.enum(["crypto", "etf", "forex", "fund", "stock"]);

const listingResponse = gqlObject("GroupListing", {
  symbol: z.string(),
  exchange: z.string(),
  currency: z.string(),
  isPrimary: z.boolean(),
});

/** docs/contract.md section 4: the SDK's model requires `statusCode` in the body. */
const searchResponse = gqlObject("SearchResult", {
  statusCode: intOf([200]),
  results: z.array(
    gqlObject("SearchHit", {
      symbol: z.string(),
      companyName: z.string(),
      isin: z.string().nullable(),
      type: securityType,
      isEtf: z.boolean(),
      isFund: z.boolean(),
      isAdr: z.boolean(),
      isActivelyTrading: z.boolean(),
      currency: z.string(),
      exchange: z.string(),
      marketCapitalization: z.number().nullable(),
    }),
  ),
});

const searchAggregatedResponse = gqlObject("AggregatedSearchResult", {
  statusCode: intOf([200]),
  query: z.string(),
  results: z.array(
    gqlObject("SearchGroup", {
      name: z.string(),
      isin: z.string().nullable(),
      type: securityType,
      symbol: z.string(),
      currency: z.string(),
      marketCapitalization: z.number().nullable(),
      match: z.string(),
      listings: z.array(listingResponse),
    }),
  ),
});

const searchBody = z.object({
  query: z
    .string({ error: "expected a string" })
    .describe("Search text: a symbol, ISIN, CUSIP or words of a name (typos tolerated)"),
  limit: optionalNullable(limitField),
  types: optionalNullable(
    z
      .array(z.enum(["stock", "etf", "fund", "crypto", "forex"]), {
        error: "expected an array of stock, etf, fund, crypto, forex",
      })
      .describe("Only these kinds of security"),
  ),
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
    response: searchResponse,
    maxAgeSeconds: 300,
    examples: (s) => ({
      symbol: example("A symbol", { query: s.stock, limit: 5 }),
      words: example("Words of a name, ETFs only", { query: "growth", limit: 5, types: ["etf"] }),
    }),
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
    response: searchAggregatedResponse,
    maxAgeSeconds: 300,
    examples: (s) => ({ symbol: example("A symbol", { query: s.stock, limit: 5 }) }),
    singleSecurity: false,
  }),
];
