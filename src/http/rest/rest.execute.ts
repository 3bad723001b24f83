import { validate, type DocumentNode, type ExecutionResult, type GraphQLSchema } from "graphql";
import type { Context } from "../http.context";
import { StartupError } from "../../platform/errors";
import { checkDocumentBounds, type DocumentBounds } from "../graphql/graphql.document-bounds";
import { compiledOperation, executeCompiled } from "../graphql/graphql.compiled";
import type { ApiVersion, RouteEntry } from "./rest.route";

/**
 * Checks every route's operation against the schema once, at start: a
 * mismatch is a build error, never a request-time surprise. Each is walked
 * within the document bounds first (graphql.document-bounds.ts), as every
 * document is before `validate()`: bounds set below what the service's own
 * operations use stop the start, naming the operation.
 */
export function assertOperationsValid(
  schema: GraphQLSchema,
  routes: readonly RouteEntry[],
  bounds: DocumentBounds,
): void {
  for (const r of routes) {
    try {
      checkDocumentBounds(r.operation as DocumentNode, bounds);
    } catch (e) {
      throw new StartupError(`operation of ${r.path}: ${(e as Error).message} (the MDG_GRAPHQL_MAX_* bounds)`);
    }
    const errors = validate(schema, r.operation as DocumentNode);
    if (errors.length)
      throw new Error(`operation of ${r.path} does not match the schema: ${errors.map((e) => e.message).join("; ")}`);
    compiledOperation(schema, r.operation as DocumentNode);
  }
}

/**
 * Runs a route's operation, compiled once by graphql-jit, against the schema
 * with the request's context (no parsing, printing, hashing or re-validation
 * per call). The first error, if any, is thrown (or the promise rejects with
 * it) for the one error mapping to handle. A promise only when the operation
 * is still running after the call: the door awaits nothing it need not.
 */
export function executeRouteNow(
  schema: GraphQLSchema,
  entry: RouteEntry,
  variables: Record<string, unknown>,
  ctx: Context,
  version: ApiVersion,
): unknown {
  const result = executeCompiled(schema, entry.operation as DocumentNode, ctx, variables);
  if (result instanceof Promise) return result.then((r) => routeData(r, entry, version));
  return routeData(result, entry, version);
}

/** `executeRouteNow` as a promise always, errors included (bulk settles many at once). */
export async function executeRoute(
  schema: GraphQLSchema,
  entry: RouteEntry,
  variables: Record<string, unknown>,
  ctx: Context,
  version: ApiVersion,
): Promise<unknown> {
  return executeRouteNow(schema, entry, variables, ctx, version);
}

function routeData(result: ExecutionResult, entry: RouteEntry, version: ApiVersion): unknown {
  if (result.errors?.length) throw result.errors[0];
  return entry.shape(result.data as never, version);
}
