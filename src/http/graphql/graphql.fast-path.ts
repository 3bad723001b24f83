import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import {
  HeaderMap,
  type ApolloServer,
  type ApolloServerOptions,
  type ApolloServerPlugin,
  type BaseContext,
  type GraphQLRequest,
  type GraphQLRequestContext,
  type GraphQLRequestListener,
  type GraphQLResponse,
  type HTTPGraphQLHead,
  type HTTPGraphQLResponse,
} from "@apollo/server";
import {
  execute,
  getOperationAST,
  GraphQLError,
  Kind,
  parse,
  specifiedRules,
  validate,
  visit,
  BREAK,
  type DocumentNode,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ParseOptions,
} from "graphql";
import type { CompiledQuery } from "graphql-jit";
import type { DocumentGate } from "./graphql.document-bounds";

/**
 * Characters of query text whose parse and validation verdicts are kept, least recently used dropped first: bounded
 * by the text held, so clients sending ever new documents only push older ones out. A parsed document takes about 50
 * bytes of heap per character of its text (locations included): at most about 26 MB here, about what Apollo's own
 * document cache holds. All the REST entries' operations together are 10,000 characters.
 */
export const FAST_PATH_QUERY_CHARS = 2 ** 19;

/** What Apollo answers as `content-type` for a single result, by the request's `accept` (ApolloServer.js). */
const JSON_TYPE = "application/json; charset=utf-8";
const GRAPHQL_RESPONSE_TYPE = "application/graphql-response+json; charset=utf-8";
/**
 * The `accept` values whose negotiation result is known without running it (what Apollo's negotiator picks among
 * JSON, GraphQL response JSON and the callback type); any other `accept` goes to Apollo.
 */
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

/** Apollo options the fast path reproduces; a server configured with anything else is run by Apollo alone. */
const MODELLED_OPTIONS = new Set<string>([
  "schema",
  "formatError",
  "plugins",
  "parseOptions",
  "introspection",
  "hideSchemaDetailsFromClientErrors",
  "allowBatchedHttpRequests",
  "csrfPrevention",
  "persistedQueries",
  "stopOnTerminationSignals",
  "includeStacktraceInErrorResponses",
]);

/** A query text's verdict: a valid document of a single query to run, or null (Apollo answers it). */
type Verdict = { document: DocumentNode } | null;

/**
 * The per-request work of the service's own plugins, each in a direct form that the plugin itself is built on (the
 * same functions), for the direct path of `GraphqlFastPath.answer`. The direct path runs only while `plugins` are
 * all the plugins with a per-request part; with any other plugin, every request goes through `run`.
 */
export interface DirectHooks<TContext extends BaseContext, TCharge = unknown> {
  /** The plugins these hooks stand for. */
  plugins: readonly ApolloServerPlugin<TContext>[];
  /** The jit plugin's compiled operation, if it compiled it already (counting no run), else null or undefined. */
  compiled(document: DocumentNode, operationName: string | null): CompiledQuery | null | undefined;
  /**
   * The limits plugin's check, without side effect: throws its refusal, and answers false for an operation whose
   * plugin hooks do more (a heavy slot held until the answer): `run` answers both.
   */
  admits(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Record<string, unknown> | undefined,
    context: TContext,
  ): boolean;
  /**
   * The rate and quota charge, its headers put on `head`; throws (or rejects with) its refusal; undefined when nothing
   * is charged. A promise only when the count needs one.
   */
  charge(
    context: TContext,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Record<string, unknown> | undefined,
    head: DirectHead,
  ): TCharge | Promise<TCharge> | undefined;
  /** Gives back the units of fields refused for their scope (`errors` as formatted); undefined when none. */
  refund(charge: TCharge, errors: readonly GraphQLFormattedError[], head: DirectHead): Promise<void> | undefined;
  /** The metrics plugin's record of the operation; absent with metrics off. */
  observe?(operationName: string | null | undefined, failed: boolean, seconds: number): void;
  /** The stale plugin's mark of the answer. */
  stale(context: TContext, head: DirectHead, result: { extensions?: Record<string, unknown> }): void;
}

/**
 * The head of a direct answer: header names lower-cased and kept in the order they were first set, as Apollo's
 * HeaderMap does, written as `run`'s answers are. Also the RateLimit sink (`setHeader`, `removeHeader`).
 */
export class DirectHead {
  readonly headers = new Map<string, string>();
  status: number | undefined = undefined;

  set(name: string, value: string): void {
    this.headers.set(name.toLowerCase(), value);
  }

  setHeader(name: string, value: string): void {
    this.set(name, value);
  }

  removeHeader(name: string): void {
    this.headers.delete(name.toLowerCase());
  }
}

/** What the door writes: status (200 when undefined), headers in order, the body's text. */
export interface FastAnswer {
  status: number | undefined;
  headers: ReadonlyMap<string, string>;
  body: string;
}

/** A request the fast path can take, once its context is known. */
export interface FastRequest {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  request: GraphQLRequest;
  contentType: string;
}

/**
 * Apollo Server's request pipeline for the common case, without its
 * generic machinery: a single POSTed query whose text was already parsed and
 * validated (kept by text, bounded), no persisted-query extension, an
 * `accept` whose answer is known. Everything Apollo does for such a request
 * is done here in the same order and with the same pieces: the same plugin
 * objects' hooks (metrics, limits with the rate and quota charge, refunds,
 * stale extensions, graphql-jit execution), graphql-js execution where no
 * plugin answered, Apollo's error normalisation with the same `formatError`,
 * and the HTTP head and body bytes Apollo's `runHttpQuery` writes. What Apollo
 * skips for a document in its own cache (the parsing and validation hooks) is
 * skipped here too.
 *
 * What it saves is Apollo's per-request set-up around that: the header map of
 * every request header, CSRF and batching checks, the SHA-256 of the query
 * text and the document cache lookup by it, content negotiation, and the
 * request context's cache policy (BENCHMARKS.md "The hot path against the
 * peers").
 *
 * `prepare` decides before any side effect; anything it refuses goes through
 * `apollo.executeHTTPGraphQLRequest` exactly as before. Once `run` starts, the
 * request is answered here, errors included, so the rate limit is charged once.
 */
export class GraphqlFastPath<TContext extends BaseContext> {
  private readonly verdicts: TextCache<{ verdict: Verdict }>;
  /** The plugins with a per-request part (Apollo's list, the ones it adds itself included). */
  private readonly starters: ApolloServerPlugin<TContext>[];
  private readonly schema: GraphQLSchema;
  private readonly formatError: ApolloServerOptions<TContext>["formatError"];
  private readonly parseOptions: ParseOptions;
  private readonly includeStacktrace: boolean;

  /** The plugins' direct forms, when they stand for every plugin with a per-request part; else null. */
  private readonly direct: DirectHooks<TContext> | null;

  /**
   * The fast path for `options` (what `new ApolloServer` got, read after `start`), or null where it would not answer
   * as Apollo does. With `hooks` for all its per-request plugins, operations graphql-jit compiled take the direct form.
   */
  static create<TContext extends BaseContext, TCharge>(
    apollo: ApolloServer<TContext>,
    options: ApolloServerOptions<TContext>,
    hooks: DirectHooks<TContext, TCharge> | null = null,
    gate: DocumentGate | null = null,
    maxChars: number = FAST_PATH_QUERY_CHARS,
  ): GraphqlFastPath<TContext> | null {
    if (!("schema" in options) || !options.schema) return null;
    if (Object.keys(options).some((k) => !MODELLED_OPTIONS.has(k))) return null;
    // Anything but Apollo's defaults or the plain on/off forms of these changes what a request meets.
    if (options.csrfPrevention !== undefined && typeof options.csrfPrevention !== "object") return null;
    return new GraphqlFastPath(
      apollo,
      options as ApolloServerOptions<TContext> & { schema: GraphQLSchema },
      hooks as DirectHooks<TContext> | null,
      gate,
      maxChars,
    );
  }

  private constructor(
    private readonly apollo: ApolloServer<TContext>,
    options: ApolloServerOptions<TContext> & { schema: GraphQLSchema },
    hooks: DirectHooks<TContext> | null,
    private readonly gate: DocumentGate | null,
    maxChars: number,
  ) {
    this.schema = options.schema;
    this.starters = (options.plugins ?? []).filter((p) => p.requestDidStart);
    this.direct =
      hooks && this.starters.every((p) => hooks.plugins.includes(p) || validationOnly(p as InternalPlugin))
        ? hooks
        : null;
    this.formatError = options.formatError;
    this.parseOptions = options.parseOptions ?? {};
    // Apollo's default: stack traces outside production and test.
    const env = process.env.NODE_ENV;
    this.includeStacktrace = options.includeStacktraceInErrorResponses ?? (env !== "production" && env !== "test");
    this.verdicts = new TextCache(maxChars);
  }

  /**
   * The request the fast path takes, or null for Apollo: a POST body that is a JSON object with a non-empty
   * `query` of a valid single query, `variables` and `operationName` as Apollo reads them, no persisted query.
   */
  prepare(body: unknown, headers: IncomingHttpHeaders): FastRequest | null {
    const contentType = CONTENT_TYPE_BY_ACCEPT.get(headers.accept);
    if (contentType === undefined) return null;
    if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
    const { query, variables, operationName, extensions } = body as Record<string, unknown>;
    if (typeof query !== "string" || query === "") return null;
    if (variables !== undefined && variables !== null && !isRecord(variables)) return null;
    if (operationName !== undefined && operationName !== null && typeof operationName !== "string") return null;
    if (extensions !== undefined && extensions !== null && (!isRecord(extensions) || "persistedQuery" in extensions))
      return null;
    const verdict = this.verdict(query);
    if (!verdict) return null;
    const operation = getOperationAST(verdict.document, operationName as string | null | undefined);
    if (!operation || operation.operation !== "query") return null;
    const request: GraphQLRequest = {
      query,
      operationName: typeof operationName === "string" ? operationName : undefined,
      variables: isRecord(variables) ? variables : undefined,
      extensions: isRecord(extensions) ? extensions : undefined,
    };
    return { document: verdict.document, operation, request, contentType };
  }

  /** Parsed and validated as Apollo would, once per text; null for a text Apollo refuses or that the path leaves. */
  private verdict(query: string): Verdict {
    const known = this.verdicts.get(query);
    if (known) return known.verdict;
    let verdict: Verdict = null;
    try {
      // Parsed by the door's gate, which checks operation types and bounds before anything validates: a text it
      // refuses (or that does not parse) is Apollo's, and the door answers the gate's refusal without Apollo.
      const document = this.gate ? this.gate.inspect(query).document : parse(query, this.parseOptions);
      // Introspection (refused by a rule Apollo adds when it is off) and anything not a single query stay Apollo's.
      if (document && runnable(document) && validate(this.schema, document, specifiedRules).length === 0)
        verdict = { document };
    } catch {
      verdict = null;
    }
    this.verdicts.set(query, { verdict });
    return verdict;
  }

  /** Apollo's answer to `prepared` with this context: the direct form's where it applies, else `run`'s. */
  answer(prepared: FastRequest, context: TContext): Promise<FastAnswer> {
    return this.directAnswer(prepared, context) ?? this.run(prepared, context).then(completeAnswer);
  }

  /**
   * The answer of the plugins' direct forms (DirectHooks), or null, deciding before any side effect, where it does
   * not apply: an operation graphql-jit has not compiled (or cannot), one the limits refuse or that holds a heavy
   * slot. Then Apollo's order, without its protocol: limits, the rate and quota charge, the compiled operation, and
   * for an answer without errors the metrics and stale marks and one JSON.stringify. Errors (a spent key, a resolver's
   * error, a variable that does not coerce) are answered here too, once charged, as `run` answers them.
   *
   * The context is handed on as it is, where Apollo hands the plugins and resolvers a shallow copy: the door builds
   * it for this request alone and reads nothing of it after, so no one can tell the copy from the original.
   */
  directAnswer(prepared: FastRequest, context: TContext): Promise<FastAnswer> | null {
    const hooks = this.direct;
    if (!hooks) return null;
    const started = performance.now();
    const { document, operation, request } = prepared;
    const operationName = operation.name?.value || null;
    const compiled = hooks.compiled(document, operationName);
    if (!compiled) return null;
    try {
      if (!hooks.admits(document, operation, request.variables, context)) return null;
    } catch {
      // `run` answers the refusal, from the same check.
      return null;
    }
    return this.runDirect(hooks, compiled, prepared, context, operationName ?? request.operationName, started);
  }

  private async runDirect(
    hooks: DirectHooks<TContext>,
    compiled: CompiledQuery,
    prepared: FastRequest,
    context: TContext,
    operationName: string | null | undefined,
    started: number,
  ): Promise<FastAnswer> {
    const { document, operation, request } = prepared;
    const head = new DirectHead();
    // The state the error paths need, made only for them.
    const done = (): DirectDone<TContext> => ({ hooks, prepared, context, head, operationName, started });
    try {
      let charge: unknown;
      try {
        charge = hooks.charge(context, document, operation, request.variables, head);
        if (charge instanceof Promise) charge = await charge;
      } catch (e) {
        return await this.directFailure(done(), undefined, ensureGraphQLError(e));
      }
      const result = await compiled.query(undefined, context, request.variables ?? {});
      if (result.errors?.length) return await this.directExecution(done(), charge);
      hooks.observe?.(operationName, false, (performance.now() - started) / 1000);
      const single: { data?: unknown; extensions?: Record<string, unknown> } = { data: result.data };
      hooks.stale(context, head, single);
      return sealed(prepared, head, single);
    } catch (e) {
      return this.unexpected(e, prepared.contentType);
    }
  }

  /**
   * What Apollo does when the jit plugin declines an answer with errors: graphql-js runs the operation (reading what
   * the first run loaded into the request's DataLoaders), its errors are normalised and formatted, and the status is
   * 400 when there is no data.
   */
  private async directExecution(done: DirectDone<TContext>, charge: unknown): Promise<FastAnswer> {
    const { prepared, context, head } = done;
    let result: ExecutionResult;
    try {
      result = await execute({
        schema: this.schema,
        document: prepared.document,
        contextValue: context,
        variableValues: prepared.request.variables,
        operationName: prepared.request.operationName,
      });
    } catch (e) {
      const error = e instanceof Error ? e : new GraphQLError("Unexpected error value: " + String(e));
      return this.directFailure(done, charge, ensureGraphQLError(error));
    }
    const resultErrors = result.errors?.map((e) =>
      isBadUserInputGraphQLError(e) && e.extensions?.code == null ? userInputError(e) : e,
    );
    const { formattedErrors, httpFromErrors } = resultErrors
      ? this.formatErrors(resultErrors)
      : { formattedErrors: undefined, httpFromErrors: newHead() };
    if (resultErrors?.length && result.data === undefined && !httpFromErrors.status) httpFromErrors.status = 400;
    mergeDirect(head, httpFromErrors);
    const single = { errors: formattedErrors, data: result.data, extensions: result.extensions };
    return this.directDone(done, charge, resultErrors !== undefined, single);
  }

  /** Apollo's `sendErrorResponse` in the pipeline: the errors alone, 500 unless they say otherwise. */
  private directFailure(done: DirectDone<TContext>, charge: unknown, error: GraphQLError): Promise<FastAnswer> {
    const { formattedErrors, httpFromErrors } = this.formatErrors([error]);
    mergeDirect(done.head, httpFromErrors);
    if (!done.head.status) done.head.status = 500;
    return this.directDone(done, charge, true, { errors: formattedErrors });
  }

  /**
   * The plugins' `willSendResponse` in Apollo's order: the metrics' record, the stale mark, then the refund (its
   * headers follow the stale ones: the refund plugin sets them after awaiting the counter store).
   */
  private async directDone(
    { hooks, prepared, context, head, operationName, started }: DirectDone<TContext>,
    charge: unknown,
    failed: boolean,
    single: { errors?: GraphQLFormattedError[]; data?: unknown; extensions?: Record<string, unknown> },
  ): Promise<FastAnswer> {
    hooks.observe?.(operationName, failed, (performance.now() - started) / 1000);
    hooks.stale(context, head, single);
    if (charge !== undefined && single.errors) await hooks.refund(charge, single.errors, head);
    return sealed(prepared, head, single);
  }

  /** As `run` answers a pipeline that threw. */
  private unexpected(e: unknown, contentType: string): FastAnswer {
    this.apollo.logger.error(`Unexpected error processing request: ${String(e)}`);
    return completeAnswer(this.errorResponse(new Error("Internal server error"), contentType));
  }

  /** Apollo's answer to `prepared` with this context (processGraphQLRequest and runHttpQuery, for this case). */
  async run(prepared: FastRequest, context: TContext): Promise<HTTPGraphQLResponse> {
    const { document, operation, request } = prepared;
    let queryHash: string | undefined;
    const rc = {
      logger: this.apollo.logger,
      cache: this.apollo.cache,
      schema: this.schema,
      request,
      response: { http: { status: undefined, headers: new HeaderMap() } as HTTPGraphQLHead },
      // Apollo hands the plugins and resolvers a shallow copy of the context (internalExecuteOperation).
      contextValue: Object.assign(Object.create(Object.getPrototypeOf(context) as object) as TContext, context),
      metrics: { persistedQueryHit: false, persistedQueryRegister: false },
      overallCachePolicy: undefined as never,
      requestIsBatched: false,
      // Apollo's key of the query text; no plugin of this service reads it, so it is computed only when read.
      get queryHash(): string {
        return (queryHash ??= createHash("sha256").update(request.query!).digest("hex"));
      },
      source: request.query,
      document,
      operation,
      operationName: operation.name?.value || null,
      errors: undefined as readonly GraphQLError[] | undefined,
    } satisfies Record<keyof GraphQLRequestContext<TContext>, unknown> as GraphQLRequestContext<TContext> & {
      response: { http: HTTPGraphQLHead; body?: GraphQLResponse["body"] };
      errors?: readonly GraphQLError[];
    };
    let response: GraphQLResponse;
    try {
      response = await this.pipeline(rc);
    } catch (e) {
      // As Apollo's executeHTTPGraphQLRequest answers a pipeline that threw.
      this.apollo.logger.error(`Unexpected error processing request: ${String(e)}`);
      return this.errorResponse(new Error("Internal server error"), prepared.contentType);
    }
    if (response.body.kind !== "single") throw new Error("the fast path answers single results only");
    if (!response.http.headers.get("content-type")) response.http.headers.set("content-type", prepared.contentType);
    const { errors, data, extensions } = response.body.singleResult;
    return {
      status: response.http.status,
      headers: response.http.headers,
      body: { kind: "complete", string: JSON.stringify({ errors, data, extensions }) + "\n" },
    };
  }

  private async pipeline(rc: GraphQLRequestContext<TContext> & { errors?: readonly GraphQLError[] }) {
    const mutable = rc as { -readonly [K in keyof typeof rc]: (typeof rc)[K] };
    const listeners = (await Promise.all(this.starters.map((p) => p.requestDidStart!(rc)))).filter(
      (l): l is GraphQLRequestListener<TContext> => l !== undefined && l !== null,
    );
    const willSendResponse = async () => {
      await invokeAll(listeners, "willSendResponse", rc);
    };
    const didEncounterErrors = async (errors: readonly GraphQLError[]) => {
      mutable.errors = errors;
      await invokeAll(listeners, "didEncounterErrors", rc);
    };
    const sendErrorResponse = async (errors: readonly GraphQLError[]): Promise<GraphQLResponse> => {
      await didEncounterErrors(errors);
      const { formattedErrors, httpFromErrors } = this.formatErrors(errors);
      mutable.response.body = { kind: "single", singleResult: { errors: formattedErrors } };
      mergeHead(rc.response.http, httpFromErrors);
      if (!rc.response.http.status) rc.response.http.status = 500;
      await willSendResponse();
      return rc.response as GraphQLResponse;
    };

    await invokeAll(listeners, "didResolveSource", rc);
    try {
      await invokeAll(listeners, "didResolveOperation", rc);
    } catch (e) {
      return sendErrorResponse([ensureGraphQLError(e)]);
    }
    let fromPlugin: GraphQLResponse | null = null;
    for (const l of listeners) {
      const answer = await l.responseForOperation?.(rc as never);
      if (answer != null) {
        fromPlugin = answer;
        break;
      }
    }
    if (fromPlugin !== null) {
      mutable.response.body = fromPlugin.body;
      mergeHead(rc.response.http, fromPlugin.http);
    } else {
      const executionListeners = (await Promise.all(listeners.map((l) => l.executionDidStart?.(rc as never)))).filter(
        (l) => l !== undefined && l !== null,
      );
      executionListeners.reverse();
      // Per-field hooks need Apollo's schema instrumentation: no plugin of this service has one.
      if (executionListeners.some((l) => l.willResolveField))
        throw new Error("willResolveField is not supported on the fast path");
      try {
        const result: ExecutionResult = await execute({
          schema: this.schema,
          document: rc.document!,
          contextValue: rc.contextValue,
          variableValues: rc.request.variables,
          operationName: rc.request.operationName,
        });
        const resultErrors = result.errors?.map((e) =>
          isBadUserInputGraphQLError(e) && e.extensions?.code == null ? userInputError(e) : e,
        );
        if (resultErrors) await didEncounterErrors(resultErrors);
        const { formattedErrors, httpFromErrors } = resultErrors
          ? this.formatErrors(resultErrors)
          : { formattedErrors: undefined, httpFromErrors: newHead() };
        if (resultErrors?.length && result.data === undefined && !httpFromErrors.status) httpFromErrors.status = 400;
        mergeHead(rc.response.http, httpFromErrors);
        mutable.response.body = { kind: "single", singleResult: { ...result, errors: formattedErrors } };
      } catch (e) {
        const error = e instanceof Error ? e : new GraphQLError("Unexpected error value: " + String(e));
        await Promise.all(executionListeners.map((l) => l.executionDidEnd?.(error)));
        return sendErrorResponse([ensureGraphQLError(error)]);
      }
      await Promise.all(executionListeners.map((l) => l.executionDidEnd?.()));
    }
    await willSendResponse();
    return rc.response as GraphQLResponse;
  }

  /** Apollo's `normalizeAndFormatErrors` (errorNormalize.js) with this server's formatError. */
  private formatErrors(errors: readonly GraphQLError[]): {
    formattedErrors: GraphQLFormattedError[];
    httpFromErrors: HTTPGraphQLHead;
  } {
    const httpFromErrors = newHead();
    const formatError = this.formatError ?? ((formatted: GraphQLFormattedError) => formatted);
    const enrich = (maybeError: unknown): GraphQLFormattedError => {
      const error = ensureGraphQLError(maybeError);
      const extensions: Record<string, unknown> = {
        ...error.extensions,
        code: error.extensions.code ?? "INTERNAL_SERVER_ERROR",
      };
      if (isPartialHead(extensions.http)) {
        mergeHead(httpFromErrors, { headers: new HeaderMap(), ...(extensions.http as Partial<HTTPGraphQLHead>) });
        delete extensions.http;
      }
      if (this.includeStacktrace) extensions.stacktrace = error.stack?.split("\n");
      return { ...error.toJSON(), extensions };
    };
    const formattedErrors = errors.map((error) => {
      try {
        return formatError(enrich(error), error);
      } catch (formattingError) {
        if (this.includeStacktrace) return enrich(formattingError);
        return { message: "Internal server error", extensions: { code: "INTERNAL_SERVER_ERROR" } };
      }
    });
    return { formattedErrors, httpFromErrors };
  }

  /** Apollo's `errorResponse`: the answer to a request its pipeline could not process. */
  private errorResponse(error: Error, contentType: string): HTTPGraphQLResponse {
    const { formattedErrors, httpFromErrors } = this.formatErrors([ensureGraphQLError(error)]);
    const result: FormattedExecutionResult = { errors: formattedErrors };
    return {
      status: httpFromErrors.status ?? 500,
      headers: new HeaderMap([...httpFromErrors.headers, ["content-type", contentType]]),
      body: { kind: "complete", string: JSON.stringify(result) + "\n" },
    };
  }
}

/**
 * Apollo's own plugins whose per-request part is only `validationDidStart` (DisableSuggestions, added under
 * `hideSchemaDetailsFromClientErrors`): the fast path takes only texts validated before and validates nothing, so
 * they have nothing to do on it, in the replay as in the direct form. The differential test checks that the plugin
 * still has no other hook.
 */
export const VALIDATION_ONLY_PLUGINS: ReadonlySet<string> = new Set(["DisableSuggestions"]);

type InternalPlugin = { __internal_plugin_id__?: unknown };

function validationOnly(plugin: InternalPlugin): boolean {
  const id = plugin.__internal_plugin_id__;
  return typeof id === "string" && VALIDATION_ONLY_PLUGINS.has(id);
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

/** One direct request's state, for its ending. */
interface DirectDone<TContext extends BaseContext> {
  hooks: DirectHooks<TContext>;
  prepared: FastRequest;
  context: TContext;
  head: DirectHead;
  operationName: string | null | undefined;
  started: number;
}

/** A direct answer as written: the negotiated content type unless a plugin set one, and the body's text. */
function sealed(
  prepared: FastRequest,
  head: DirectHead,
  single: { errors?: GraphQLFormattedError[]; data?: unknown; extensions?: Record<string, unknown> },
): FastAnswer {
  if (!head.headers.has("content-type")) head.headers.set("content-type", prepared.contentType);
  return { status: head.status, headers: head.headers, body: encode(single.errors, single.data, single.extensions) };
}

/** `run`'s body text: JSON.stringify of the result's three keys, in this order, then a newline. */
function encode(errors: unknown, data: unknown, extensions: unknown): string {
  // The envelope by hand when only `data` is there: the same bytes without the object.
  if (errors === undefined && extensions === undefined && data !== undefined)
    return `{"data":${JSON.stringify(data)}}\n`;
  return JSON.stringify({ errors, data, extensions }) + "\n";
}

function completeAnswer(response: HTTPGraphQLResponse): FastAnswer {
  if (response.body.kind !== "complete") throw new Error("the fast path answers complete bodies only");
  return { status: response.status, headers: response.headers, body: response.body.string };
}

function mergeDirect(target: DirectHead, source: HTTPGraphQLHead): void {
  if (source.status) target.status = source.status;
  for (const [name, value] of source.headers) target.set(name, value);
}

type RequestHook = "willSendResponse" | "didEncounterErrors" | "didResolveSource" | "didResolveOperation";

/**
 * One hook of every listener that has it, all started before any is awaited, as Apollo's `Promise.all` over them;
 * without the array and the `Promise.all` when one listener or none has the hook (the common case).
 */
async function invokeAll<TContext extends BaseContext>(
  listeners: readonly GraphQLRequestListener<TContext>[],
  hook: RequestHook,
  rc: unknown,
): Promise<void> {
  let first: Promise<void> | undefined;
  let all: Promise<void>[] | undefined;
  for (const l of listeners) {
    const fn = l[hook] as ((this: typeof l, rc: unknown) => Promise<void>) | undefined;
    if (!fn) continue;
    const pending = fn.call(l, rc);
    if (first === undefined) first = pending;
    else (all ??= [first]).push(pending);
  }
  if (all) await Promise.all(all);
  else if (first) await first;
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

function newHead(status?: number): HTTPGraphQLHead {
  return { status, headers: new HeaderMap() };
}

function mergeHead(target: HTTPGraphQLHead, source: Partial<HTTPGraphQLHead>): void {
  if (source.status) target.status = source.status;
  if (source.headers) for (const [name, value] of source.headers) target.headers.set(name, value);
}

function isPartialHead(x: unknown): boolean {
  return (
    !!x &&
    typeof x === "object" &&
    (!("status" in x) || typeof (x as { status: unknown }).status === "number") &&
    (!("headers" in x) || (x as { headers: unknown }).headers instanceof Map)
  );
}

function ensureGraphQLError(maybeError: unknown): GraphQLError {
  const error =
    maybeError instanceof Error ? maybeError : new GraphQLError("Unexpected error value: " + String(maybeError));
  return error instanceof GraphQLError ? error : new GraphQLError(error.message, { originalError: error });
}

/** Apollo's test for a variable that does not coerce (requestPipeline.js), answered as BAD_USER_INPUT. */
function isBadUserInputGraphQLError(error: GraphQLError): boolean {
  const node = error.nodes?.length === 1 ? error.nodes[0] : undefined;
  if (node?.kind !== Kind.VARIABLE_DEFINITION) return false;
  const name = node.variable.name.value;
  return (
    error.message.startsWith(`Variable "$${name}" has invalid value`) ||
    error.message.startsWith(`Variable "$${name}" got invalid value `) ||
    error.message.startsWith(`Variable "$${name}" of required type `) ||
    error.message.startsWith(`Variable "$${name}" of non-null type `)
  );
}

/** Apollo's internal UserInputError (internalErrorClasses.js): the same message, nodes and extensions. */
function userInputError(error: GraphQLError): GraphQLError {
  const wrapped = new GraphQLError(error.message, {
    nodes: error.nodes,
    originalError: error.originalError ?? error,
    extensions: { ...error.extensions, code: "BAD_USER_INPUT" },
  });
  wrapped.name = "UserInputError";
  return wrapped;
}
