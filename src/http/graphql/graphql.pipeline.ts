import type { IncomingHttpHeaders } from "node:http";
import { HeaderMap, type ApolloServerPlugin } from "@apollo/server";
import {
  execute,
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  visit,
  BREAK,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ParseOptions,
} from "graphql";
import type { Logger } from "pino";
import type { Context } from "../http.context";
import type { CompiledOperations } from "./graphql.compiled";
import type { DocumentGate } from "./graphql.document-bounds";

/**
 * Characters of query text whose parse and validation verdicts are kept, least recently used dropped first: bounded
 * by the text held, so clients sending ever new documents only push older ones out. A parsed document takes about 50
 * bytes of heap per character of its text (locations included): at most about 26 MB here. All the REST entries'
 * operations together are 10,000 characters.
 */
export const PIPELINE_QUERY_CHARS = 2 ** 19;

/** The answer's `content-type` for a single result, by the request's `accept`, as Apollo Server negotiates it. */
const JSON_TYPE = "application/json; charset=utf-8";
const GRAPHQL_RESPONSE_TYPE = "application/graphql-response+json; charset=utf-8";
/** The `accept` values the pipeline answers; any other `accept` goes to Apollo, which negotiates it. */
const CONTENT_TYPE_BY_ACCEPT = new Map<string | undefined, string>([
  [undefined, JSON_TYPE],
  ["", JSON_TYPE],
  ["*/*", JSON_TYPE],
  ["application/json", JSON_TYPE],
  ["application/json, */*", JSON_TYPE],
  ["application/graphql-response+json", GRAPHQL_RESPONSE_TYPE],
  ["application/graphql-response+json, application/json", GRAPHQL_RESPONSE_TYPE],
  ["application/graphql-response+json, application/json;q=0.9", GRAPHQL_RESPONSE_TYPE],
  ["application/graphql-response+json,application/json;q=0.9", GRAPHQL_RESPONSE_TYPE],
]);

/** Where a stage puts the answer's header fields (lower-cased names; the RateLimit sink of quota.service.ts). */
export interface AnswerHead {
  setHeader(name: string, value: string): void;
  removeHeader(name: string): void;
}

/** An operation about to run: the parsed document, valid against the schema, and its request's variables. */
export interface OperationStart {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables: Record<string, unknown> | undefined;
  context: Context;
}

/** A request's answer, about to be written. */
export interface OperationEnd {
  context: Context;
  /** The operation's name, else the name the request gave, else null or undefined. */
  operationName: string | null | undefined;
  /** `performance.now()` when the request started. */
  started: number;
  /** Whether the answer has errors. */
  failed: boolean;
  /** The single result as it will be written (errors formatted); a stage may add `extensions`. Null: incremental. */
  result: { errors?: readonly GraphQLFormattedError[]; extensions?: Record<string, unknown> } | null;
}

/**
 * One concern of every /graphql request (limits, rate and quota, stale marks, metrics), written once: the pipeline
 * below calls these hooks for the requests it answers, and `apolloStages` makes them the one Apollo plugin for the
 * requests Apollo answers, so both doors do the same work in the same order.
 */
export interface GraphqlStage<S = unknown> {
  /**
   * Before the operation runs, in the stages' order; throws (or rejects with) the refusal of the whole operation,
   * whose `extensions.http` gives the status and headers. What it answers is handed to `didAnswer`. A promise only
   * where the work needs one.
   */
  willExecute?(start: OperationStart, head: AnswerHead): S | Promise<S> | undefined;
  /**
   * Once the answer is known, in the stages' order, for every request (one refused, or that never reached an
   * operation, too): `state` is what `willExecute` answered, undefined where it did not run.
   */
  didAnswer?(state: S | undefined, end: OperationEnd, head: AnswerHead): void | Promise<void>;
}

/** A stage timing every operation from its request's start to its answer (the operation metrics). */
export function observingStage(
  observe: (operationName: string | null | undefined, failed: boolean, seconds: number) => void,
): GraphqlStage {
  return {
    didAnswer(_state, end) {
      observe(end.operationName, end.failed, (performance.now() - end.started) / 1000);
    },
  };
}

/**
 * The stages as the one Apollo plugin with a per-request part, for the requests Apollo answers itself (GET,
 * batches, persisted queries, documents the pipeline leaves, the Express door): `willExecute` in
 * `didResolveOperation` (an operation Apollo found, valid), `didAnswer` in `willSendResponse`. It also answers an
 * operation from its graphql-jit compiled form, from the schema's one cache (graphql.compiled.ts), where that answers
 * without errors; otherwise Apollo runs graphql-js and reports every error itself.
 */
export function apolloStages(
  stages: readonly GraphqlStage[],
  operations: CompiledOperations,
): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      const started = performance.now();
      let failed = false;
      const states: unknown[] = [];
      return {
        async didResolveOperation(rc) {
          if (!rc.operation) return; // no such operation: execution answers that, running nothing
          const head = headerMapSink(rc.response.http.headers);
          const start = {
            document: rc.document,
            operation: rc.operation,
            variables: rc.request.variables,
            context: rc.contextValue,
          };
          for (const stage of stages) states.push(stage.willExecute ? await stage.willExecute(start, head) : undefined);
        },
        async responseForOperation({ document, operationName, request, contextValue }) {
          const compiled = operations.get(document, operationName);
          if (!compiled) return null;
          const result = await compiled.query(undefined, contextValue, request.variables ?? {});
          if (result.errors?.length) return null;
          return { http: { headers: new HeaderMap() }, body: { kind: "single", singleResult: { data: result.data } } };
        },
        async didEncounterErrors() {
          failed = true;
        },
        async willSendResponse(rc) {
          const end: OperationEnd = {
            context: rc.contextValue,
            operationName: rc.operationName ?? rc.request.operationName,
            started,
            failed,
            result: rc.response.body.kind === "single" ? rc.response.body.singleResult : null,
          };
          const head = headerMapSink(rc.response.http.headers);
          for (let i = 0; i < stages.length; i++) await stages[i]!.didAnswer?.(states[i], end, head);
        },
      };
    },
  };
}

function headerMapSink(headers: Map<string, string>): AnswerHead {
  return {
    setHeader: (name, value) => headers.set(name.toLowerCase(), value),
    removeHeader: (name) => headers.delete(name.toLowerCase()),
  };
}

/** What the door writes: status (200 when undefined), header fields in the order first set, the body's text. */
export interface GraphqlAnswer {
  status: number | undefined;
  headers: ReadonlyMap<string, string>;
  body: string;
}

/** A request the pipeline takes, once its context is known. */
export interface PreparedRequest {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables: Record<string, unknown> | undefined;
  /** The name the request gave, if any. */
  operationName: string | undefined;
  contentType: string;
}

export interface GraphqlPipelineOptions {
  schema: GraphQLSchema;
  /** The concerns of every request, in order (see GraphqlStage); the same list `apolloStages` gets. */
  stages: readonly GraphqlStage[];
  /** The schema's one compiled-operation cache. */
  operations: CompiledOperations;
  /** The service's error formatting (graphql.errors.ts), the one Apollo gets as `formatError`. */
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  /** Operation types and bounds, checked while parsing; without it, plain `parse` with `parseOptions`. */
  gate?: DocumentGate | null;
  parseOptions?: ParseOptions;
  logger: Logger;
  maxChars?: number;
}

/** A single result being answered. */
interface Single {
  errors?: GraphQLFormattedError[];
  data?: unknown;
  extensions?: Record<string, unknown>;
}

/**
 * POST /graphql's own pipeline for the common request: a single POSTed query (no persisted query, an `accept` it
 * knows) whose text parses, passes the gate and validates against the schema (the verdict kept by text, bounded).
 * It runs parse, bounds and validation once per text, then for each request the stages' `willExecute`, the
 * operation (compiled by graphql-jit from its third run on, from the schema's one cache, else graphql-js), the
 * error formatting and the stages' `didAnswer`, with public graphql-js and graphql-jit calls only.
 *
 * Its answers are the ones Apollo Server gives the same request with the same stages (the differential test sends
 * both the same requests): what it saves is Apollo's generic per-request set-up (the header map of every request
 * header, CSRF and batching checks, the SHA-256 of the query text and its document cache, content negotiation, the
 * plugin protocol; BENCHMARKS.md "The hot path against the peers"). Anything `prepare` does not take, Apollo
 * answers.
 */
export class GraphqlPipeline {
  private readonly verdicts: TextCache<{ document: DocumentNode | null }>;
  private readonly parseOptions: ParseOptions;

  constructor(private readonly opts: GraphqlPipelineOptions) {
    this.verdicts = new TextCache(opts.maxChars ?? PIPELINE_QUERY_CHARS);
    this.parseOptions = opts.parseOptions ?? {};
  }

  /**
   * The request the pipeline takes, or null for Apollo: a POST body that is a JSON object with a non-empty `query`
   * of a valid single query, `variables` an object (or absent or null), `operationName` a string (or absent or
   * null), no persisted query.
   */
  prepare(body: unknown, headers: IncomingHttpHeaders): PreparedRequest | null {
    const contentType = CONTENT_TYPE_BY_ACCEPT.get(headers.accept);
    if (contentType === undefined) return null;
    if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
    const { query, variables, operationName, extensions } = body as Record<string, unknown>;
    if (typeof query !== "string" || query === "") return null;
    if (variables !== undefined && variables !== null && !isRecord(variables)) return null;
    if (operationName !== undefined && operationName !== null && typeof operationName !== "string") return null;
    if (extensions !== undefined && extensions !== null && (!isRecord(extensions) || "persistedQuery" in extensions))
      return null;
    const document = this.verdict(query);
    if (!document) return null;
    const operation = getOperationAST(document, operationName as string | null | undefined);
    if (!operation || operation.operation !== "query") return null;
    return {
      document,
      operation,
      variables: isRecord(variables) ? variables : undefined,
      operationName: typeof operationName === "string" ? operationName : undefined,
      contentType,
    };
  }

  /** The parsed document, valid, once per text; null for a text refused or left to Apollo. */
  private verdict(query: string): DocumentNode | null {
    const known = this.verdicts.get(query);
    if (known) return known.document;
    let verdict: DocumentNode | null = null;
    try {
      // Parsed by the door's gate, which checks operation types and bounds before anything validates: a text it
      // refuses (or that does not parse) is Apollo's, and the door answers the gate's refusal without Apollo.
      const document = this.opts.gate ? this.opts.gate.inspect(query).document : parse(query, this.parseOptions);
      // Introspection (refused by a rule Apollo adds when it is off) and anything not a single query stay Apollo's.
      if (document && runnable(document) && validate(this.opts.schema, document, specifiedRules).length === 0)
        verdict = document;
    } catch {
      verdict = null;
    }
    this.verdicts.set(query, { document: verdict });
    return verdict;
  }

  /**
   * The answer to `prepared` with this context. The context is handed to the stages and resolvers as it is: the
   * door builds it for this request alone and reads nothing of it after.
   */
  async answer(prepared: PreparedRequest, context: Context): Promise<GraphqlAnswer> {
    const started = performance.now();
    const { stages } = this.opts;
    const head = new Head();
    try {
      const states: unknown[] = [];
      let single: Single | undefined;
      try {
        const start: OperationStart = {
          document: prepared.document,
          operation: prepared.operation,
          variables: prepared.variables,
          context,
        };
        for (const stage of stages) {
          let state = stage.willExecute?.(start, head);
          if (state instanceof Promise) state = (await state) as unknown;
          states.push(state);
        }
      } catch (e) {
        single = this.refused(ensureGraphQLError(e), head);
      }
      if (!single) {
        // The compiled form's answer where it has no errors, awaited here: the common answer takes no more turns.
        const compiled = this.opts.operations.get(prepared.document, prepared.operation.name?.value || null);
        if (compiled) {
          const result = await compiled.query(undefined, context, prepared.variables ?? {});
          if (!result.errors?.length) single = { data: result.data };
        }
        single ??= await this.execute(prepared, context, head);
      }
      const end: OperationEnd = {
        context,
        operationName: prepared.operation.name?.value || prepared.operationName,
        started,
        failed: single.errors !== undefined,
        result: single,
      };
      for (let i = 0; i < stages.length; i++) {
        const pending = stages[i]!.didAnswer?.(states[i], end, head);
        if (pending) await pending;
      }
      return sealed(prepared.contentType, head, single);
    } catch (e) {
      this.opts.logger.error({ err: e }, "graphql pipeline failed");
      const answer = new Head();
      const single = this.refused(ensureGraphQLError(new Error("Internal server error")), answer);
      return sealed(prepared.contentType, answer, { errors: single.errors });
    }
  }

  /**
   * The operation's result from graphql-js: before it is compiled, where it cannot be, and where the compiled form
   * answered errors (graphql-js then reads what the compiled run loaded into the request's DataLoaders; resolvers
   * only read). Its errors are formatted, 400 when there is no data.
   */
  private async execute(prepared: PreparedRequest, context: Context, head: Head): Promise<Single> {
    const { document, variables } = prepared;
    let result: ExecutionResult;
    try {
      result = await execute({
        schema: this.opts.schema,
        document,
        contextValue: context,
        variableValues: variables,
        operationName: prepared.operationName,
      });
    } catch (e) {
      return this.refused(ensureGraphQLError(e), head);
    }
    if (!result.errors) return { data: result.data, extensions: result.extensions };
    // graphql-js answers without data only where the variables do not coerce (the document is known valid and its
    // operation found): the client's input, BAD_USER_INPUT, unless the error names its own code.
    const errors = result.data === undefined ? result.errors.map(badUserInput) : result.errors;
    const errorsHead = this.format(errors);
    if (result.data === undefined && !errorsHead.status) errorsHead.status = 400;
    head.merge(errorsHead);
    return { errors: errorsHead.formatted, data: result.data, extensions: result.extensions };
  }

  /** A request refused or failed as a whole: the error alone, its status, else 500. */
  private refused(error: GraphQLError, head: Head): Single {
    const formatted = this.format([error]);
    head.merge(formatted);
    if (!head.status) head.status = 500;
    return { errors: formatted.formatted };
  }

  /**
   * The service's error format on /graphql: each error as graphql-js formats it (`toJSON`), with `extensions.code`
   * INTERNAL_SERVER_ERROR where it has none, and without `extensions.http` (a refusal's status and headers), which
   * goes onto the answer's head; then the service's `formatError`. An error `formatError` itself throws becomes an
   * opaque internal one. This is the format Apollo Server gives an error with stack traces off, so both doors answer
   * alike (pinned by the differential test).
   */
  private format(errors: readonly GraphQLError[]): { formatted: GraphQLFormattedError[]; status?: number } & {
    headers: [string, string][];
  } {
    const out: { formatted: GraphQLFormattedError[]; status?: number; headers: [string, string][] } = {
      formatted: [],
      headers: [],
    };
    for (const error of errors) {
      const extensions: Record<string, unknown> = {
        ...error.extensions,
        code: error.extensions.code ?? "INTERNAL_SERVER_ERROR",
      };
      const http = extensions.http as { status?: unknown; headers?: unknown } | undefined;
      if (http && typeof http === "object") {
        if (typeof http.status === "number" && http.status) out.status = http.status;
        if (http.headers instanceof Map)
          for (const [k, v] of http.headers as Map<string, string>) out.headers.push([k, v]);
        delete extensions.http;
      }
      try {
        out.formatted.push(this.opts.formatError({ ...error.toJSON(), extensions }, error));
      } catch {
        out.formatted.push({ message: "Internal server error", extensions: { code: "INTERNAL_SERVER_ERROR" } });
      }
    }
    return out;
  }
}

/**
 * An answer's head: header names lower-cased and kept in the order they were first set; the stages' AnswerHead.
 */
class Head implements AnswerHead {
  readonly headers = new Map<string, string>();
  status: number | undefined = undefined;

  setHeader(name: string, value: string): void {
    this.headers.set(name.toLowerCase(), value);
  }

  removeHeader(name: string): void {
    this.headers.delete(name.toLowerCase());
  }

  merge(from: { status?: number; headers: [string, string][] }): void {
    if (from.status) this.status = from.status;
    for (const [name, value] of from.headers) this.setHeader(name, value);
  }
}

/** The answer as written: the negotiated content type unless a stage set one, and the body's text. */
function sealed(contentType: string, head: Head, single: Single): GraphqlAnswer {
  if (!head.headers.has("content-type")) head.headers.set("content-type", contentType);
  return { status: head.status, headers: head.headers, body: encode(single) };
}

/** The body: the result's three keys, in this order, then a newline. */
function encode({ errors, data, extensions }: Single): string {
  // The envelope by hand when only `data` is there: the same bytes without the object.
  if (errors === undefined && extensions === undefined && data !== undefined)
    return `{"data":${JSON.stringify(data)}}\n`;
  return JSON.stringify({ errors, data, extensions }) + "\n";
}

/** A variable's coercion error as the client's fault (BAD_USER_INPUT), unless it carries a code of its own. */
function badUserInput(error: GraphQLError): GraphQLError {
  if (error.extensions?.code != null) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    originalError: error.originalError ?? error,
    extensions: { ...error.extensions, code: "BAD_USER_INPUT" },
  });
}

function ensureGraphQLError(maybeError: unknown): GraphQLError {
  const error =
    maybeError instanceof Error ? maybeError : new GraphQLError("Unexpected error value: " + String(maybeError));
  return error instanceof GraphQLError ? error : new GraphQLError(error.message, { originalError: error });
}

/**
 * Values by text, bounded by the characters of the texts held, in two generations: texts are added to the young one;
 * once it holds half the budget the old one is dropped whole and the young one becomes old; a text found in the old
 * one moves to the young one. A hit costs one Map look-up (a least-recently-used list costs several, and its
 * bookkeeping showed as 1.5-1.9 % of /graphql's CPU); what is dropped is at most half the budget's least recently
 * used texts at once. A text over half the budget is not kept.
 */
class TextCache<V> {
  private young = new Map<string, V>();
  private old = new Map<string, V>();
  private youngChars = 0;
  private readonly half: number;

  constructor(maxChars: number) {
    this.half = Math.max(1, Math.floor(maxChars / 2));
  }

  get(text: string): V | undefined {
    const found = this.young.get(text);
    if (found !== undefined) return found;
    const aged = this.old.get(text);
    if (aged === undefined) return undefined;
    this.old.delete(text);
    this.set(text, aged);
    return aged;
  }

  set(text: string, value: V): void {
    const size = Math.max(1, text.length);
    if (size > this.half) return;
    if (this.youngChars + size > this.half) {
      this.old = this.young;
      this.young = new Map();
      this.youngChars = 0;
    }
    this.young.set(text, value);
    this.youngChars += size;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

/** No introspection root field (`__schema`, `__type`) anywhere, and only query operations. */
function runnable(document: DocumentNode): boolean {
  let ok = true;
  visit(document, {
    OperationDefinition(node) {
      if (node.operation !== "query") {
        ok = false;
        return BREAK;
      }
      return undefined;
    },
    Field(node) {
      if (node.name.value === "__schema" || node.name.value === "__type") {
        ok = false;
        return BREAK;
      }
      return undefined;
    },
  });
  return ok;
}
