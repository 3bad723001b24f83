import type { GatewayExecutor, GatewayInterface } from "@apollo/server-gateway-interface";
import { GraphQLError, execute, type DocumentNode, type ExecutionResult, type GraphQLSchema } from "graphql";
import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";

/** Executions of one operation with graphql-js before it is compiled. */
const COMPILE_AFTER = 3;
/**
 * Compiled operations kept, least recently used dropped first. A compiled
 * operation is generated JavaScript that grows with its document (one of 128
 * aliased fields took 36-47 MB of heap): clients sending ever new documents
 * must not fill the heap with them, and Apollo's document cache is bounded by
 * the documents' size, not by what is compiled from them.
 */
const MAX_COMPILED = 256;

/** A compiled operation, or null where graphql-jit refused one (graphql-js runs it then). */
type Compiled = CompiledQuery | null;

/**
 * Apollo Server's executor swapped for graphql-jit, through the gateway
 * interface Apollo documents for custom executors (the only one it has).
 * Apollo still parses, validates, runs every plugin and formats the answer;
 * only `execute` changes.
 *
 * An operation runs on graphql-js until it has been executed COMPILE_AFTER
 * times, then compiled once: a frontend's few fixed operations get the
 * compiled form, and a one-off query never pays for compiling. Apollo hands
 * every request with the same text the same parsed document, so documents
 * key both the run counts (a WeakMap: they go with Apollo's cache entry) and
 * the compiled forms (at most MAX_COMPILED).
 */
export function jitGateway(schema: GraphQLSchema): GatewayInterface {
  const runs = new WeakMap<DocumentNode, Map<string, number>>();
  const compiled = new Map<DocumentNode, Map<string, Compiled>>();

  function compiledFor(document: DocumentNode, operationName: string | null): Compiled | undefined {
    const name = operationName ?? "";
    const byName = compiled.get(document);
    const known = byName?.get(name);
    if (known !== undefined) {
      // Most recently used goes last.
      compiled.delete(document);
      compiled.set(document, byName!);
      return known;
    }
    let counts = runs.get(document);
    if (!counts) runs.set(document, (counts = new Map()));
    const n = (counts.get(name) ?? 0) + 1;
    counts.set(name, n);
    if (n < COMPILE_AFTER) return undefined;
    counts.delete(name);
    const made = compile(schema, document, operationName) ?? null;
    if (byName) byName.set(name, made);
    else {
      if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
      compiled.set(document, new Map([[name, made]]));
    }
    return made;
  }

  const executor: GatewayExecutor = async ({ document, request, context, operationName }) => {
    const graphqlJs = () => execute({ schema, document, contextValue: context, variableValues: request.variables, operationName });
    const query = compiledFor(document, operationName);
    if (!query) return graphqlJs();
    const result = await query.query(undefined, context, request.variables ?? {});
    // An error without a path failed the operation before any resolver ran: variables that do not coerce. graphql-js
    // words it with the variable's node, from which Apollo answers 400 BAD_USER_INPUT; nothing has run, so run that.
    if (result.errors?.some((e) => !e.path)) return graphqlJs();
    return asGraphqlJsErrors(result);
  };

  return {
    onSchemaLoadOrUpdate(callback) {
      // Apollo only reads apiSchema; the supergraph SDL is for federation, which this service is not.
      callback({ apiSchema: schema, coreSupergraphSdl: "" });
      return () => undefined;
    },
    load: async () => ({ executor }),
    stop: async () => undefined,
  };
}

/** The compiled operation, or undefined where graphql-jit cannot compile it (graphql-js then runs it, as it always could). */
function compile(schema: GraphQLSchema, document: DocumentNode, operationName: string | null): CompiledQuery | undefined {
  try {
    const compiled = compileQuery(schema, document, operationName ?? undefined);
    return isCompiledQuery(compiled) ? compiled : undefined;
  } catch {
    return undefined;
  }
}

/**
 * graphql-jit's errors are its own GraphQLError look-alike, whose
 * `extensions` is undefined when the original error has none; Apollo reads
 * `extensions.code` of every error and answers INTERNAL_SERVER_ERROR when
 * that throws. Rebuilt as graphql-js errors (same message, path, locations
 * and original error) they format exactly as graphql-js's own.
 */
function asGraphqlJsErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors = result.errors.map((e) => {
    const error = new GraphQLError(e.message, { path: e.path, originalError: e.originalError, extensions: e.extensions });
    if (e.locations) (error as { locations?: GraphQLError["locations"] }).locations = e.locations;
    return error;
  });
  return { ...result, errors };
}
