import type { GatewayExecutor, GatewayInterface } from "@apollo/server-gateway-interface";
import { GraphQLError, execute, type DocumentNode, type ExecutionResult, type GraphQLSchema } from "graphql";
import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";

/** Executions of one document (per operation name) with graphql-js before it is compiled. */
const COMPILE_AFTER = 3;

interface Seen {
  count: number;
  compiled?: CompiledQuery;
  /** graphql-jit refused it: graphql-js runs it for good. */
  refused?: true;
}

/**
 * Apollo Server's executor swapped for graphql-jit, through the gateway
 * interface Apollo documents for custom executors (the only one it has).
 * Apollo still parses, validates, runs every plugin and formats the answer;
 * only `execute` changes.
 *
 * A document runs on graphql-js until it has been executed COMPILE_AFTER
 * times, then compiled once: a frontend's few fixed operations get the
 * compiled form, and a one-off query never pays for compiling. Compiled
 * forms hang off Apollo's parsed document (a WeakMap), so they go when
 * Apollo's document cache drops the document.
 */
export function jitGateway(schema: GraphQLSchema): GatewayInterface {
  const byDocument = new WeakMap<DocumentNode, Map<string, Seen>>();

  const executor: GatewayExecutor = async ({ document, request, context, operationName }) => {
    let byName = byDocument.get(document);
    if (!byName) byDocument.set(document, (byName = new Map()));
    const name = operationName ?? "";
    let seen = byName.get(name);
    if (!seen) byName.set(name, (seen = { count: 0 }));
    if (!seen.compiled && !seen.refused && ++seen.count >= COMPILE_AFTER) {
      seen.compiled = compile(schema, document, operationName);
      if (!seen.compiled) seen.refused = true;
    }
    const graphqlJs = () => execute({ schema, document, contextValue: context, variableValues: request.variables, operationName });
    if (!seen.compiled) return graphqlJs();
    const result = await seen.compiled.query(undefined, context, request.variables ?? {});
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
