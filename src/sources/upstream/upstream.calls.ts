import DataLoader from "dataloader";
import type { SecurityRef } from "../../domain/instrument/instrument.service";
import type { RequestContext } from "../../domain/request.context";
import {
  InvalidArgumentError,
  NotAvailableError,
  NotFoundError,
  UpstreamUnavailableError,
  type ErrorDetail,
} from "../../platform/errors";
import type { UpstreamClient, UpstreamDataKind, UpstreamRequest, UpstreamResult } from "./upstream.types";

/** A request body as the upstream's REST endpoints take it: what the client named, less the absent fields. */
export type UpstreamBody = Record<string, unknown>;

/** The body without null or undefined fields: the upstream's contract takes absent fields, never nulls. */
export function bodyOf(fields: Record<string, unknown>): UpstreamBody {
  const out: UpstreamBody = {};
  for (const [k, v] of Object.entries(fields)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

/** The identifiers a client named, as the upstream's body names a security. */
export function refBody(ref: SecurityRef): UpstreamBody {
  return bodyOf({ symbol: ref.symbol, isin: ref.isin, cusip: ref.cusip, wkn: ref.wkn });
}

/** A body with the asked `currency`, when one was asked. */
export function withCurrency(body: UpstreamBody, currency: string | null | undefined): UpstreamBody {
  return currency == null ? body : { ...body, currency };
}

/** The contract's error body (docs/contract.md section 3), as the upstream sends it with a 404. */
interface UpstreamErrorBody {
  code?: unknown;
  message?: unknown;
  details?: unknown;
}

/**
 * The upstream's 404 as our own error: its code and message pass through (the upstream is a service of this
 * contract, and its message names what the client sent, never our key or host), so a client sees through the
 * gateway what it would see from the upstream. An endpoint the upstream removed is one it does not serve.
 */
export function upstreamNotFound(path: string, body: unknown): Error {
  const b = (body && typeof body === "object" ? body : {}) as UpstreamErrorBody;
  const message = typeof b.message === "string" ? b.message : `not found upstream: ${path}`;
  const details = Array.isArray(b.details) ? (b.details as ErrorDetail[]) : undefined;
  switch (b.code) {
    case "INVALID_ARGUMENT":
      return new InvalidArgumentError(message, details);
    case "NOT_AVAILABLE":
    case "ENDPOINT_REMOVED":
      return new NotAvailableError(`${path} is not served by the upstream`, path);
    default:
      return new NotFoundError(message, details);
  }
}

/** An upstream 200 whose body is not the JSON object the contract promises: the upstream is broken, not the client. */
export function malformed(path: string): UpstreamUnavailableError {
  return new UpstreamUnavailableError(`the upstream answered ${path} with a body that is not the contract's shape`);
}

/**
 * One request's calls to the upstream: a DataLoader per path, made per request, so that the N symbols of one field
 * or endpoint (GraphQL `quotes`, `etfs`, a REST bulk) go to the client as one `requestMany`, which the client sends
 * as `POST /v0/bulk` in chunks. Each answer that came stale is noted on the request's freshness, which both doors
 * turn into their stale marks.
 */
export class UpstreamCalls {
  private readonly loaders = new Map<string, DataLoader<UpstreamBody, UpstreamResult, string>>();

  constructor(
    private readonly client: UpstreamClient,
    private readonly ctx: RequestContext,
  ) {}

  /** The upstream's 200 body for `path` and `body`; its 404 as our error; anything else as the client threw it. */
  async get<T>(path: string, kind: UpstreamDataKind, body: UpstreamBody): Promise<T> {
    const result = await this.loader(path, kind).load(body);
    if (result.status === 404) throw upstreamNotFound(path, result.body);
    if (!result.body || typeof result.body !== "object") throw malformed(path);
    return result.body as T;
  }

  /** Like `get`, for many bodies in order: each slot its body or its error, one batch. */
  async getMany<T>(path: string, kind: UpstreamDataKind, bodies: readonly UpstreamBody[]): Promise<(T | Error)[]> {
    const results = await this.loader(path, kind).loadMany(bodies);
    return results.map((r) => {
      if (r instanceof Error) return r;
      if (r.status === 404) return upstreamNotFound(path, r.body);
      if (!r.body || typeof r.body !== "object") return malformed(path);
      return r.body as T;
    });
  }

  private loader(path: string, kind: UpstreamDataKind): DataLoader<UpstreamBody, UpstreamResult, string> {
    let l = this.loaders.get(path);
    if (!l) {
      l = new DataLoader<UpstreamBody, UpstreamResult, string>(
        async (bodies) => {
          const reqs: UpstreamRequest[] = bodies.map((body) => ({ path, body, kind }));
          const results = await this.client.requestMany(reqs);
          for (const r of results) if (!(r instanceof Error) && r.stale) this.ctx.freshness.noteStale(r.ageSeconds);
          return results;
        },
        // Bodies are built field by field in one order, so their JSON is a stable key.
        { cacheKeyFn: (b) => JSON.stringify(b) },
      );
      this.loaders.set(path, l);
    }
    return l;
  }
}
