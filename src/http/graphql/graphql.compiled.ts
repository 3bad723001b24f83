import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";
import type { DocumentNode, ExecutionResult, GraphQLSchema } from "graphql";

/** Executions of a client's operation with graphql-js before it is compiled. */
const COMPILE_AFTER = 3;
/**
 * Clients' compiled operations kept, least recently used dropped first. A compiled operation is generated JavaScript
 * that grows with its document (one of 128 aliased fields took 36-47 MB of heap): clients sending ever new documents
 * must not fill the heap with them.
 */
const MAX_COMPILED = 256;

/** A compiled operation, or null where graphql-jit refused one (graphql-js runs it then). */
export type Compiled = CompiledQuery | null;

/**
 * The one cache of graphql-jit compiled operations of a schema, keyed by parsed document and operation name. Two
 * kinds of document share it:
 *
 * - the service's own operations (REST entries, bulk), compiled at once by `pin` and kept for the process: a fixed
 *   set, checked at start;
 * - clients' operations on /graphql, counted by `get` and compiled on their COMPILE_AFTER-th run, at most
 *   MAX_COMPILED of them. The pipeline hands every request with the same text the same parsed document, so
 *   documents key both the run counts (a WeakMap: they go with the parsed document) and the compiled forms.
 */
export class CompiledOperations {
  private readonly pinned = new WeakMap<DocumentNode, CompiledQuery>();
  private readonly runs = new WeakMap<DocumentNode, Map<string, number>>();
  private readonly compiled = new Map<DocumentNode, Map<string, Compiled>>();
  /** The document `get` last moved to the end of `compiled`. */
  private last: DocumentNode | undefined;

  constructor(private readonly schema: GraphQLSchema) {}

  /**
   * The service's own operation (a document of one operation, valid against the schema), compiled on first use and
   * kept; throws where graphql-jit cannot compile it, which start-up checks make a build error.
   */
  pin(document: DocumentNode): CompiledQuery {
    let query = this.pinned.get(document);
    if (!query) {
      const result = compileQuery(this.schema, document);
      if (!isCompiledQuery(result)) {
        throw new Error(`cannot compile operation: ${(result.errors ?? []).map((e) => e.message).join("; ")}`);
      }
      query = result;
      this.pinned.set(document, query);
    }
    return query;
  }

  /**
   * A client's operation compiled, once it has run COMPILE_AFTER times (this call counted); undefined before, null
   * where it cannot be compiled (graphql-js runs it then, as it always could).
   */
  get(document: DocumentNode, operationName: string | null): Compiled | undefined {
    const name = operationName ?? "";
    const byName = this.compiled.get(document);
    const known = byName?.get(name);
    if (known !== undefined) {
      // Most recently used goes last (it is last already when the previous look-up was of it).
      if (this.last !== document) {
        this.compiled.delete(document);
        this.compiled.set(document, byName!);
        this.last = document;
      }
      return known;
    }
    let counts = this.runs.get(document);
    if (!counts) this.runs.set(document, (counts = new Map()));
    const n = (counts.get(name) ?? 0) + 1;
    counts.set(name, n);
    if (n < COMPILE_AFTER) return undefined;
    counts.delete(name);
    const made = compile(this.schema, document, operationName);
    if (byName) byName.set(name, made);
    else {
      if (this.compiled.size >= MAX_COMPILED) {
        const oldest = this.compiled.keys().next().value!;
        this.compiled.delete(oldest);
        if (this.last === oldest) this.last = undefined;
      }
      this.compiled.set(document, new Map([[name, made]]));
      this.last = document;
    }
    return made;
  }
}

function compile(schema: GraphQLSchema, document: DocumentNode, operationName: string | null): Compiled {
  try {
    const compiled = compileQuery(schema, document, operationName ?? undefined);
    return isCompiledQuery(compiled) ? compiled : null;
  } catch {
    return null;
  }
}

const bySchema = new WeakMap<GraphQLSchema, CompiledOperations>();

/** The schema's one compiled-operation cache, shared by REST, bulk and /graphql. */
export function compiledOperations(schema: GraphQLSchema): CompiledOperations {
  let operations = bySchema.get(schema);
  if (!operations) bySchema.set(schema, (operations = new CompiledOperations(schema)));
  return operations;
}

/**
 * The service's own operation compiled to a JavaScript function by graphql-jit, once per (schema, document): the
 * fixed operations the REST entries and bulk run on every call skip graphql-js's per-call walk of the document.
 * Documents must already be valid against the schema (the REST table is checked at start). Errors keep their
 * `originalError`, so the one error mapping sees the typed error a resolver threw.
 */
export function compiledOperation(schema: GraphQLSchema, document: DocumentNode): CompiledQuery {
  return compiledOperations(schema).pin(document);
}

/** Runs one of the service's own operations compiled: what `graphql.execute` answers, faster. */
export function executeCompiled(
  schema: GraphQLSchema,
  document: DocumentNode,
  contextValue: unknown,
  variables: Record<string, unknown>,
): ExecutionResult | Promise<ExecutionResult> {
  return compiledOperation(schema, document).query(undefined, contextValue, variables);
}
