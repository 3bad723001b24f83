import type { GraphQLSchema } from "graphql";
import type { Logger } from "pino";
import { SECURITY_IDENTIFIERS } from "../../domain/instrument/instrument.identifiers";
import { requireScope } from "../../domain/instrument/instrument.access";
import { EndpointRemovedError, InvalidArgumentError } from "../../platform/errors";
import type { Context } from "../http.context";
import { RestAdmission } from "../rest/rest.admission";
import { parseBody } from "../rest/rest.body";
import { executeRoute } from "../rest/rest.execute";
import { mapError, type ErrorBody, type RestStatus } from "../rest/rest.errors";
import type { ApiVersion, RouteEntry } from "../rest/rest.route";
import { isRemoved } from "../rest/rest.versions";

/** The bulk body after validation (docs/contract.md section 6). */
export interface BulkRequest {
  endpoint: string;
  /** Each item should be `{symbol}` (or `{isin}`, `{cusip}`, `{wkn}`); one that is not is answered with its own 404. */
  symbols: unknown[];
  params: Record<string, unknown>;
}

/** How an item named its security, echoed in its result: `symbol` always (null when not a string), others as sent. */
export interface ItemEcho {
  symbol: string | null;
  isin?: string;
  cusip?: string;
  wkn?: string;
}

export type BulkItem =
  | (ItemEcho & { statusCode: 200; data: unknown })
  | (ItemEcho & { statusCode: Exclude<RestStatus, 200>; error: ErrorBody });

export interface BulkResponse {
  /** The named endpoint's path as the route table spells it (`etf/profile`). */
  endpoint: string;
  results: BulkItem[];
}

/** `etf/profile`, `/v0/etf/profile/`, `v1/quote`: the route-table path, whatever the prefix and slashes. */
export function normalizeEndpoint(raw: string): string {
  return raw
    .trim()
    .toLowerCase()
    .replace(/\/{2,}/g, "/")
    .replace(/^\/+|\/+$/g, "")
    .replace(/^v[01]\//, "");
}

/** An item whose body passed the entry's schema, waiting for its execution. */
interface Pending {
  index: number;
  echo: ItemEcho;
  variables: Record<string, unknown>;
}

/** The identifiers an item names its security by (`{symbol}`, `{isin}`, `{cusip}` or `{wkn}`), as sent. */
function identifiersOf(item: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { symbol: undefined };
  if (item === null || typeof item !== "object") return out;
  for (const k of SECURITY_IDENTIFIERS) {
    const v = (item as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function echoOf(item: unknown): ItemEcho {
  const ids = identifiersOf(item);
  const echo: ItemEcho = { symbol: typeof ids.symbol === "string" ? ids.symbol : null };
  for (const k of ["isin", "cusip", "wkn"] as const) if (typeof ids[k] === "string") echo[k] = ids[k];
  return echo;
}

/**
 * Answers bulk calls: every item as the named entry would answer
 * `{...params, symbol}` under the call's version. Each item runs the entry's
 * own operation, compiled once by graphql-jit as its REST route runs it, and
 * all of them run together under the call's one request context, so they
 * share its DataLoaders: N items cost the store queries of one.
 *
 * Why not one aliased document of N root fields (the first design): a call of
 * 100 items cost 7-8 ms of CPU against 3 ms now, a third of it graphql-js
 * walking the aliases (argument and variable coercion, field collection per
 * alias), and compiling that document with graphql-jit costs 36-47 MB of heap.
 * The entry's compiled operation already exists for REST, costs nothing more,
 * and answers each item exactly as the direct call does, including its first
 * error.
 */
export class BulkService {
  private readonly byPath: Map<string, RouteEntry>;
  private readonly admission: RestAdmission;

  constructor(
    private readonly schema: GraphQLSchema,
    routes: readonly RouteEntry[],
    private readonly logger: Logger,
  ) {
    this.byPath = new Map(routes.filter((r) => r.singleSecurity).map((r) => [r.path, r]));
    this.admission = new RestAdmission(schema);
  }

  /** Paths bulk may name, for messages and docs. */
  get endpoints(): string[] {
    return [...this.byPath.keys()];
  }

  /**
   * The entry `endpoint` names for a call under `version`. Unknown, not
   * single-security or absent from the version: INVALID_ARGUMENT; removed:
   * ENDPOINT_REMOVED, as a direct call would answer.
   */
  entryFor(endpoint: string, version: ApiVersion, now: Date): RouteEntry {
    const path = normalizeEndpoint(endpoint);
    const entry = this.byPath.get(path);
    if (!entry || (!entry.versions.includes(version) && !entry.removedOn)) {
      throw new InvalidArgumentError(
        `endpoint: ${JSON.stringify(endpoint)} is not a single-security endpoint of /${version}`,
        [{ field: "endpoint", issue: "unknown" }],
      );
    }
    if (isRemoved(entry.removedOn, version, now)) {
      // Named as the client wrote it: "/v1/stock/candle" would name a path the client never sent.
      const named = `endpoint ${JSON.stringify(endpoint.trim())}`;
      throw new EndpointRemovedError(named, entry.removedOn!, entry.replacement ?? null);
    }
    return entry;
  }

  async run(request: BulkRequest, ctx: Context, version: ApiVersion): Promise<BulkResponse> {
    const entry = this.entryFor(request.endpoint, version, ctx.clock.now());
    if (entry.scope) requireScope(ctx, entry.scope);
    const max = ctx.config.sizes.bulkMaxSymbols;
    if (request.symbols.length > max) {
      throw new InvalidArgumentError(`symbols: at most ${max} per call, got ${request.symbols.length}`, [
        { field: "symbols", issue: "too many" },
      ]);
    }

    const results: BulkItem[] = new Array(request.symbols.length);
    const pending: Pending[] = [];
    request.symbols.forEach((item, index) => {
      const echo = echoOf(item);
      try {
        // Exactly the body a direct call would get, the item naming the security by its symbol, isin, cusip or wkn;
        // an item that fails it gets its own 404.
        const variables = parseBody(entry.body, { ...request.params, ...identifiersOf(item) });
        pending.push({ index, echo, variables });
      } catch (e) {
        results[index] = this.failed(echo, e, ctx);
      }
    });

    // Priced as one operation plus N items (they differ only by symbol); nothing runs when every item failed its body.
    const first = pending[0]?.variables;
    let release = first && this.admission.admitBulk(entry, request.symbols.length, first, ctx);
    if (release instanceof Promise) release = await release;
    try {
      await this.execute(entry, pending, results, ctx, version);
    } finally {
      release?.();
    }
    return { endpoint: entry.path, results };
  }

  private async execute(
    entry: RouteEntry,
    pending: Pending[],
    results: BulkItem[],
    ctx: Context,
    version: ApiVersion,
  ): Promise<void> {
    // Every item's execution starts in this one synchronous loop (an async function runs up to its first await),
    // under the call's one context: their first loads, and once those resolve together their next ones, land in the
    // same DataLoader batches, so the store sees one query per loader round whatever the count (test/bulk counts
    // them). Each item runs exactly what its direct call runs.
    const answers = await Promise.allSettled(
      pending.map((p) => executeRoute(this.schema, entry, p.variables, ctx, version)),
    );
    answers.forEach((answer, k) => {
      const p = pending[k]!;
      results[p.index] =
        answer.status === "fulfilled"
          ? { ...p.echo, statusCode: 200, data: answer.value }
          : this.failed(p.echo, answer.reason, ctx);
    });
  }

  private failed(echo: ItemEcho, e: unknown, ctx: Context): BulkItem {
    const mapped = mapError(e, ctx.requestId);
    if (mapped.internal)
      this.logger.error({ err: mapped.internal, requestId: ctx.requestId, ...echo }, "bulk item failed");
    return { ...echo, statusCode: mapped.status as Exclude<RestStatus, 200>, error: mapped.body };
  }
}
