import { execute, getVariableValues, type ExecutionResult, type GraphQLError, type GraphQLSchema } from "graphql";
import type { Logger } from "pino";
import { requireScope } from "../auth/auth.scope-of";
import { EndpointRemovedError, InternalError, InvalidArgumentError } from "../common/errors";
import type { Context } from "../context";
import { parseBody } from "../rest/rest.body";
import { mapError, type ErrorBody, type RestStatus } from "../rest/rest.errors";
import type { ApiVersion, RouteEntry } from "../rest/rest.route";
import { isRemoved } from "../rest/rest.versions";
import { BulkDocuments, rootNullableSchema, singleOperation, type BulkDocument } from "./bulk.document";

/** The bulk body after validation (CONTRACT.md section 6). */
export interface BulkRequest {
  endpoint: string;
  /** Each item should be `{symbol}`; an item that is not is answered with its own 404. */
  symbols: unknown[];
  params: Record<string, unknown>;
}

export type BulkItem =
  | { symbol: string | null; statusCode: 200; data: unknown }
  | { symbol: string | null; statusCode: Exclude<RestStatus, 200>; error: ErrorBody };

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

/** An item whose body passed the entry's schema, waiting for the shared operation. */
interface Pending {
  index: number;
  symbol: string | null;
  variables: Record<string, unknown>;
}

const symbolOf = (item: unknown): string | null => {
  const s = item !== null && typeof item === "object" ? (item as { symbol?: unknown }).symbol : undefined;
  return typeof s === "string" ? s : null;
};

/**
 * Answers bulk calls: every item as the named entry would answer
 * `{...params, symbol}` under the call's version, all items in ONE GraphQL
 * operation (see bulk.document.ts) so they share the request's DataLoaders.
 */
export class BulkService {
  private readonly bulkSchema: GraphQLSchema;
  private readonly documents: BulkDocuments;
  private readonly byPath: Map<string, RouteEntry>;

  constructor(
    schema: GraphQLSchema,
    routes: readonly RouteEntry[],
    private readonly logger: Logger,
  ) {
    this.bulkSchema = rootNullableSchema(schema);
    this.documents = new BulkDocuments(this.bulkSchema);
    this.byPath = new Map(routes.filter((r) => r.singleSecurity).map((r) => [r.path, r]));
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
      throw new InvalidArgumentError(`endpoint: ${JSON.stringify(endpoint)} is not a single-security endpoint of /${version}`, [
        { field: "endpoint", issue: "unknown" },
      ]);
    }
    if (isRemoved(entry.removedOn, version, now)) {
      throw new EndpointRemovedError(`/${version}/${path}`, entry.removedOn!, entry.replacement ?? null);
    }
    return entry;
  }

  async run(request: BulkRequest, ctx: Context, version: ApiVersion): Promise<BulkResponse> {
    const entry = this.entryFor(request.endpoint, version, ctx.clock.now());
    if (entry.scope) requireScope(ctx, entry.scope);
    const max = ctx.config.limits.bulkMaxSymbols;
    if (request.symbols.length > max) {
      throw new InvalidArgumentError(`symbols: at most ${max} per call, got ${request.symbols.length}`, [{ field: "symbols", issue: "too many" }]);
    }

    const results: BulkItem[] = new Array(request.symbols.length);
    let pending: Pending[] = [];
    request.symbols.forEach((item, index) => {
      const symbol = symbolOf(item);
      try {
        // Exactly the body a direct call would get; an item that fails it gets its own 404.
        const variables = parseBody(entry.body, { ...request.params, symbol: (item as { symbol?: unknown } | null)?.symbol });
        pending.push({ index, symbol, variables });
      } catch (e) {
        results[index] = this.failed(symbol, e, ctx);
      }
    });
    if (pending.length === 0) return { endpoint: entry.path, results };

    let { doc, result } = await this.execute(entry, pending, ctx);
    if (result.errors?.some((e) => e.path === undefined)) {
      // A variable that does not coerce fails the whole operation before any field runs (the bodies' schemas make
      // that rare): give each item at fault its own error, as its direct call would get, and run the rest again.
      const { operation } = singleOperation(entry.operation);
      pending = pending.filter((p) => {
        const coerced = getVariableValues(this.bulkSchema, operation.variableDefinitions ?? [], p.variables);
        if (coerced.errors) results[p.index] = this.failed(p.symbol, coerced.errors[0], ctx);
        return !coerced.errors;
      });
      if (pending.length === 0) return { endpoint: entry.path, results };
      ({ doc, result } = await this.execute(entry, pending, ctx));
    }

    // Each item's first error, as a direct call throws its operation's first error.
    const firstError = new Map<number, GraphQLError>();
    for (const err of result.errors ?? []) {
      const head = err.path?.[0];
      const k = typeof head === "string" ? doc.itemOfAlias.get(head) : undefined;
      if (k === undefined) {
        // Not any item's field: the shared operation itself failed, so the call does.
        throw err.originalError ? err : new InternalError(`bulk operation of ${entry.path} failed: ${err.message}`);
      }
      if (!firstError.has(k)) firstError.set(k, err);
    }
    const data = (result.data ?? {}) as Record<string, unknown>;
    pending.forEach((p, k) => {
      const err = firstError.get(k);
      if (err) {
        results[p.index] = this.failed(p.symbol, err, ctx);
        return;
      }
      try {
        const itemData: Record<string, unknown> = {};
        doc.rootKeys.forEach((key, r) => (itemData[key] = data[doc.aliases[k]![r]!]));
        results[p.index] = { symbol: p.symbol, statusCode: 200, data: entry.shape(itemData as never, version) };
      } catch (e) {
        results[p.index] = this.failed(p.symbol, e, ctx);
      }
    });
    return { endpoint: entry.path, results };
  }

  /** Runs the items as one operation: the entry's operation aliased once per item, all sharing `ctx`'s loaders. */
  private async execute(entry: RouteEntry, pending: readonly Pending[], ctx: Context): Promise<{ doc: BulkDocument; result: ExecutionResult }> {
    const doc = this.documents.get(entry.path, entry.operation, pending.length);
    const variableValues: Record<string, unknown> = {};
    for (let k = 0; k < doc.size; k++) {
      // Slots beyond the call's items are skipped; they repeat the first item's variables, which coerce.
      const vars = (pending[k] ?? pending[0]!).variables;
      const names = doc.itemVariables[k]!;
      for (let v = 0; v < names.length; v++) variableValues[names[v]!] = vars[doc.variables[v]!];
      variableValues[doc.padVariables[k]!] = k >= pending.length;
    }
    // graphql-js, not graphql-jit: a compiled document of a hundred aliases is megabytes of generated code, for
    // little gain when the time goes to the store and the resolvers.
    const result = await execute({ schema: this.bulkSchema, document: doc.document, contextValue: ctx, variableValues });
    return { doc, result };
  }

  private failed(symbol: string | null, e: unknown, ctx: Context): BulkItem {
    const mapped = mapError(e, ctx.requestId);
    if (mapped.internal) this.logger.error({ err: mapped.internal, requestId: ctx.requestId, symbol }, "bulk item failed");
    return { symbol, statusCode: mapped.status as Exclude<RestStatus, 200>, error: mapped.body };
  }
}
