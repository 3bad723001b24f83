import type { IngestCompany, IngestListingRef, IngestLoad } from "../../domain/ports/source.ingest";
import type { ProviderHttp, ProviderResponse } from "./provider.http";

/**
 * One dataset of a provider, in the three steps of the house's fetchers (OpenBB's `Fetcher`, as
 * src/sources/upstream/upstream.fetcher.ts): the request it sends for a query, the call (made by `fetchWith`
 * through the provider's one `ProviderHttp`, which owns timeouts, retries and the rate limit), and the transform of
 * the answer into what the dataset holds. A fetcher holds no state and never touches the store.
 */
export interface ProviderFetcher<Q, Out> {
  /** The provider's path, `/stats/eurofxref/eurofxref-daily.xml`. */
  request(query: Q): { path: string; query?: Record<string, string>; host?: string };
  /**
   * The provider's 2xx answer as our rows; throws ProviderFormatError for a body it cannot read. A large body is
   * read in pieces, each on a turn of the event loop, since a service ingesting on a schedule answers meanwhile.
   */
  transform(res: ProviderResponse, query: Q): Out | Promise<Out>;
}

/** A body the fetcher cannot read as the dataset it asked for. */
export class ProviderFormatError extends Error {
  override name = "ProviderFormatError";
}

export async function fetchWith<Q, Out>(http: ProviderHttp, fetcher: ProviderFetcher<Q, Out>, query: Q): Promise<Out> {
  const req = fetcher.request(query);
  const res = await http.get(req.path, req.query, req.host);
  try {
    return await fetcher.transform(res, query);
  } catch (e) {
    if (e instanceof ProviderFormatError) {
      throw new ProviderFormatError(`${http.options.provider}: ${req.path}: ${e.message}`);
    }
    throw e;
  }
}

/** What `npm run ingest -- <provider> [dataset] [--since] [--symbols]` asks. */
export interface IngestQuery {
  /** Unset: the provider picks (a full history the first time, then only what is new). */
  dataset?: string;
  /** Only rows on or after this day (YYYY-MM-DD). */
  since?: string;
  /** Only these symbols, as the provider reads them. */
  symbols?: readonly string[];
}

/** What one run fetched: the imports to run, in order, and what to keep for the next run once they went in. */
export interface IngestPlan {
  dataset: string;
  /** Provider calls this run made. */
  calls: number;
  loads: IngestLoad[];
  /** Kept after a run whose every import went in (or had only rejected rows), under the provider's key. */
  nextState?: string;
  /** Lines for the operator (what was fetched, what was left out). */
  notes: string[];
}

/** What a provider may read of the store before it calls (a store that does not exist yet answers nothing). */
export interface IngestStoreView {
  /** The companies the store lists with the SEC's CIK, by their primary listings. */
  companies(): Promise<IngestCompany[]>;
  /** The crypto pairs the store lists (`BTC-USD`). */
  cryptoListings(): Promise<IngestListingRef[]>;
  /** True when the store lists `symbol`, on any exchange. */
  isListed(symbol: string): Promise<boolean>;
}

/** A provider: its datasets, and one run of a query against what the last run kept. */
export interface Provider {
  readonly name: string;
  readonly datasets: readonly string[];
  /** Provider calls made through `http`; `state` is what the last successful run kept (undefined: none). */
  fetch(query: IngestQuery, http: ProviderHttp, state: string | undefined, store: IngestStoreView): Promise<IngestPlan>;
}

/** The columns of the daily bars and quotes a provider hands the import (its `daily-bars` and `quotes` kinds). */
export const BAR_LOAD_COLUMNS = ["symbol", "day", "o", "h", "l", "c", "v"] as const;
export const QUOTE_LOAD_COLUMNS = ["symbol", "t", "o", "h", "l", "c", "pc", "v"] as const;

/**
 * One field of what a provider's last run kept, a record by key (`{"pairs": {"BTC-USD": …}}`): a copy, or an empty
 * record when there was no run, or the state is not one this code wrote.
 */
export function keptRecord<T>(state: string | undefined, field: string): Record<string, T> {
  try {
    const value = (JSON.parse(state ?? "") as Record<string, unknown> | null)?.[field];
    if (value && typeof value === "object") return { ...(value as Record<string, T>) };
  } catch {
    // None, or a state this code did not write: as if none.
  }
  return {};
}
