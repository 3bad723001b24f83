import { listingId, securityId } from "../../../domain/instrument/instrument.ids";
import type { ListName } from "../../../domain/list/list.answers";
import type { AssetListPage, ListArgs } from "../../../domain/list/list.types";
import { bodyOf } from "../upstream.calls";
import type { UpstreamFetcher } from "../upstream.fetcher";

/** One list's page; the contract's entries carry no ids, so they get ours (instrument.ids.ts). */
function listFetcher(list: ListName): UpstreamFetcher<ListArgs, AssetListPage, AssetListPage> {
  return {
    path: `/v1/list/${list}`,
    kind: "reference",
    request: (args) => bodyOf({ ...args }),
    transform: (d) => ({
      ...d,
      results: d.results.map((s) => ({
        ...s,
        id: securityId(s, s),
        listings: s.listings.map((l) => ({ ...l, id: listingId(l) })),
      })),
    }),
  };
}

/** A fetcher per list, each its own upstream path. */
export const LIST_FETCHERS: Readonly<Record<ListName, UpstreamFetcher<ListArgs, AssetListPage, AssetListPage>>> = {
  stocks: listFetcher("stocks"),
  etfs: listFetcher("etfs"),
  funds: listFetcher("funds"),
  crypto: listFetcher("crypto"),
};
