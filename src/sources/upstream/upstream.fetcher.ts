import { NotFoundError } from "../../platform/errors";
import type { UpstreamBody, UpstreamCalls } from "./upstream.calls";
import type { UpstreamDataKind } from "./upstream.types";

/**
 * One upstream endpoint, in three steps (the shape of OpenBB's `Fetcher`): the request it sends for our query, the
 * call (made by `fetchOne`/`fetchMany` through the request's `UpstreamCalls`, so N queries of one request go out as
 * one bulk), and the transform of the upstream's contract JSON into our domain objects. A fetcher holds no state; the
 * answers (upstream.answers.ts) only pick the fetcher and check scopes.
 */
export interface UpstreamFetcher<Q, Doc, Out> {
  /** The upstream's REST path, `/v1/quote`. */
  readonly path: string;
  /** How long the client may keep the answer (quote, bars, reference: upstream.cache.ts). */
  readonly kind: UpstreamDataKind;
  /** Our query as the upstream's request body (undefined and null fields left out: `bodyOf`). */
  request(query: Q): UpstreamBody;
  /** The upstream's 200 body as our domain object. */
  transform(doc: Doc, query: Q): Out;
}

/** The fetcher's answer for one query: its transform of the upstream's body; a 404 as our typed error. */
export async function fetchOne<Q, Doc, Out>(
  calls: UpstreamCalls,
  fetcher: UpstreamFetcher<Q, Doc, Out>,
  query: Q,
): Promise<Out> {
  const doc = await calls.get<Doc>(fetcher.path, fetcher.kind, fetcher.request(query));
  return fetcher.transform(doc, query);
}

/**
 * The fetcher's answers for many queries in order, as one batch: a query the upstream does not know is null, an item
 * that failed alone is its Error (the row stores' convention for `getMany`).
 */
export async function fetchMany<Q, Doc, Out>(
  calls: UpstreamCalls,
  fetcher: UpstreamFetcher<Q, Doc, Out>,
  queries: readonly Q[],
): Promise<(Out | Error | null)[]> {
  const docs = await calls.getMany<Doc>(
    fetcher.path,
    fetcher.kind,
    queries.map((q) => fetcher.request(q)),
  );
  return docs.map((d, i) => {
    if (d instanceof NotFoundError) return null;
    if (d instanceof Error) return d;
    return fetcher.transform(d, queries[i] as Q);
  });
}
