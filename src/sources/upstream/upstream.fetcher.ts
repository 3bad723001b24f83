import { NotFoundError } from "../../platform/errors";
import type { UpstreamBody, UpstreamCalls } from "./upstream.calls";
import type { UpstreamDataKind } from "./upstream.types";

/**
 * One upstream endpoint, in three steps (the shape of OpenBB's `Fetcher`): the request it sends for our query, the
 * call (made by `fetchOne`/`fetchMany` through the request's `UpstreamCalls`, so N queries of one request go out as
 * one bulk), and the transform of the upstream's contract JSON into our domain objects. A fetcher holds no state; the
 * answers (upstream.answers.ts) only pick the fetcher and check scopes.
 *
 * To answer a field from a new upstream endpoint:
 *  1. In `fetchers/<area>.fetchers.ts` (a new file for a new area), write one const, typed
 *     `UpstreamFetcher<Query, ContractJson, DomainObject>`: its `path` and `kind`, `request` building the body from
 *     the query (`bodyOf`, `refBody`, `withCurrency` in upstream.calls.ts; `askedOf(obj).body` for a field of an
 *     ETF, fund or stock the upstream made), and `transform` turning the contract's JSON into the domain object.
 *  2. In upstream.answers.ts, one line for the answers method: `(ctx, q) => one(ctx, theFetcher, q)`, or `many` for
 *     a list of queries, plus the scope check or `tooMany` limit the row store's answer applies too.
 * The JSON stays in the fetcher: the answers never read a field of the upstream's body.
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
