import { listingId, securityId } from "../../../domain/instrument/instrument.ids";
import type { AggregatedSearchResult, SearchArgs, SearchResult } from "../../../domain/search/search.types";
import { bodyOf } from "../upstream.calls";
import type { UpstreamFetcher } from "../upstream.fetcher";

/* The contract's hits carry no ids: they get ours, as instrument.ids.ts makes them from what the hits name. */

export const searchFetcher: UpstreamFetcher<SearchArgs, SearchResult, SearchResult> = {
  path: "/v1/search",
  kind: "reference",
  request: (args) => bodyOf({ ...args }),
  transform: (d) => ({ ...d, results: d.results.map((h) => ({ ...h, id: listingId(h) })) }),
};

export const aggregatedSearchFetcher: UpstreamFetcher<SearchArgs, AggregatedSearchResult, AggregatedSearchResult> = {
  path: "/v1/search/aggregated",
  kind: "reference",
  request: (args) => bodyOf({ ...args }),
  transform: (d) => ({
    ...d,
    results: d.results.map((g) => ({
      ...g,
      id: securityId(g, g.listings[0] ?? g),
      listings: g.listings.map((l) => ({ ...l, id: listingId(l) })),
    })),
  }),
};
