import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";
import type { DocumentNode, ExecutionResult, GraphQLSchema } from "graphql";

const compiled = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, CompiledQuery>>();

/**
 * The operation compiled to a JavaScript function by graphql-jit, once per
 * (schema, document): the fixed operations the REST entries and bulk run on
 * every call skip graphql-js's per-call walk of the document. Documents must
 * already be valid against the schema (the REST table is checked at start).
 * Errors keep their `originalError`, so the one error mapping sees the typed
 * error a resolver threw.
 */
export function compiledOperation(schema: GraphQLSchema, document: DocumentNode): CompiledQuery {
  let bySchema = compiled.get(schema);
  if (!bySchema) compiled.set(schema, (bySchema = new WeakMap()));
  let query = bySchema.get(document);
  if (!query) {
    const result = compileQuery(schema, document);
    if (!isCompiledQuery(result)) {
      throw new Error(`cannot compile operation: ${(result.errors ?? []).map((e) => e.message).join("; ")}`);
    }
    query = result;
    bySchema.set(document, query);
  }
  return query;
}

/** Runs a compiled operation: what `graphql.execute` answers, faster. */
export function executeCompiled(
  schema: GraphQLSchema,
  document: DocumentNode,
  contextValue: unknown,
  variables: Record<string, unknown>,
): ExecutionResult | Promise<ExecutionResult> {
  return compiledOperation(schema, document).query(undefined, contextValue, variables);
}
