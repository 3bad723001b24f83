import { HeaderMap, type ApolloServerPlugin, type BaseContext } from "@apollo/server";
import type { DocumentNode, GraphQLSchema } from "graphql";
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
 * graphql-jit forms of the operations clients repeat. Apollo hands every
 * request with the same text the same parsed document, so documents key both
 * the run counts (a WeakMap: they go with Apollo's cache entry) and the
 * compiled forms (at most MAX_COMPILED).
 */
export class CompiledOperations {
  private readonly runs = new WeakMap<DocumentNode, Map<string, number>>();
  private readonly compiled = new Map<DocumentNode, Map<string, Compiled>>();
  /** The document `peek` last moved to the end of `compiled`. */
  private last: DocumentNode | undefined;

  constructor(private readonly schema: GraphQLSchema) {}

  /**
   * The compiled operation, if it was compiled already (null where it could not be), else undefined; unlike `get`,
   * it counts no run, so a caller that then leaves the operation to the plugin does not count it twice.
   */
  peek(document: DocumentNode, operationName: string | null): Compiled | undefined {
    const byName = this.compiled.get(document);
    const known = byName?.get(operationName ?? "");
    if (known === undefined) return undefined;
    // Most recently used goes last, as `get` does (it is last already when the previous look-up was of it).
    if (this.last !== document) {
      this.compiled.delete(document);
      this.compiled.set(document, byName!);
      this.last = document;
    }
    return known;
  }

  /**
   * The compiled operation, once it has run COMPILE_AFTER times; undefined before, null where it cannot be compiled.
   */
  get(document: DocumentNode, operationName: string | null): Compiled | undefined {
    const name = operationName ?? "";
    const byName = this.compiled.get(document);
    const known = byName?.get(name);
    if (known !== undefined) {
      // Most recently used goes last.
      this.compiled.delete(document);
      this.compiled.set(document, byName!);
      this.last = document;
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
      if (this.compiled.size >= MAX_COMPILED) this.compiled.delete(this.compiled.keys().next().value!);
      this.compiled.set(document, new Map([[name, made]]));
      this.last = document;
    }
    return made;
  }
}

/**
 * The compiled operation, or null where graphql-jit cannot compile it (graphql-js then runs it, as it always could).
 */
function compile(schema: GraphQLSchema, document: DocumentNode, operationName: string | null): Compiled {
  try {
    const compiled = compileQuery(schema, document, operationName ?? undefined);
    return isCompiledQuery(compiled) ? compiled : null;
  } catch {
    return null;
  }
}

/**
 * Executes the operations clients repeat with graphql-jit, through Apollo's
 * `responseForOperation` hook (the one a plugin uses to answer an operation
 * itself, as response caches do). Apollo has already parsed, validated and
 * run every `didResolveOperation` (limits, rate and quota) by then, and runs
 * `willSendResponse` after, as for any answer.
 *
 * Only an answer without errors is taken from the compiled form. Otherwise
 * the hook returns null and Apollo executes the operation with graphql-js as
 * it always does, so every error (a resolver's, a variable that does not
 * coerce) is reported, formatted and given its status by Apollo itself. The
 * second run reads what the first loaded from the request's DataLoaders, and
 * resolvers only read, so it repeats no store query and changes nothing.
 */
export function jitExecutionPlugin<TContext extends BaseContext>(
  schema: GraphQLSchema,
  operations: CompiledOperations = new CompiledOperations(schema),
): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async responseForOperation({ document, operationName, request, contextValue }) {
          const compiled = operations.get(document, operationName);
          if (!compiled) return null;
          const result = await compiled.query(undefined, contextValue, request.variables ?? {});
          if (result.errors?.length) return null;
          return { http: { headers: new HeaderMap() }, body: { kind: "single", singleResult: { data: result.data } } };
        },
      };
    },
  };
}
