import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import type { z } from "zod";
import type { Scope } from "../../platform/auth/auth.scopes";
import type { Context } from "../http.context";
import type { LimitDecision } from "../../platform/quotas/quota.types";
import type { NamedExample, RequestExamples } from "./rest.examples";

export type ApiVersion = "v0" | "v1";
export const VERSIONS: readonly ApiVersion[] = ["v0", "v1"];

/**
 * One REST endpoint: which versions have it, the scope it needs, how its body
 * becomes the variables of one GraphQL operation, and how that operation's
 * data becomes the contract's response shape. The router, bulk, removal
 * answers and docs all read this table, so they cannot disagree.
 */
export interface RouteEntry<
  TData = unknown,
  TVars extends Record<string, unknown> = Record<string, unknown>,
  TOut = unknown,
> {
  path: string;
  summary: string;
  versions: readonly ApiVersion[];
  /** Checked before execution; null where the resolver decides (quote: by the security's type). */
  scope: Scope | null;
  /** Validates the parsed JSON body and returns the operation's variables. */
  body: z.ZodType<TVars>;
  operation: TypedDocumentNode<TData, TVars>;
  /** Typed by `response` when it is given: the shape must produce what the document promises. */
  shape: (data: TData, version: ApiVersion) => NoInfer<TOut>;
  /**
   * The 200 body `shape` produces, as a zod schema (a function of the version
   * where versions differ): the OpenAPI document's response schema, and what
   * the test suite validates every answer against. Required of every route
   * (test/http/openapi/openapi.spec.ts fails naming a route without one).
   */
  response?: ResponseSchema<TOut>;
  /** Names one security (`symbol`): may be named by bulk. */
  singleSecurity: boolean;
  /** After this day (`YYYY-MM-DD`, UTC, inclusive of the whole day) the endpoint answers ENDPOINT_REMOVED. */
  removedOn?: string;
  replacement?: string;
  /**
   * How long a browser or an app may keep a GET answer (`Cache-Control: private, max-age=…`): short for prices,
   * longer for what changes daily at most. Reference data (profiles, holdings, exposures, financials, dividends) when
   * absent: REFERENCE_MAX_AGE_SECONDS.
   */
  maxAgeSeconds?: number;
  /** The request bodies the OpenAPI document shows (a test fails naming a route without one). */
  examples?: RequestExamples;
  /** The answer of a known security without data (docs/contract.md section 4), shown beside the typical answer. */
  emptyExample?: NamedExample;
  /**
   * What a known security without this kind of data answers, in a phrase: docs/contract.md section 4's table of empty
   * answers is written from it (`npm run openapi`). Every entry that names one security says it.
   */
  emptyAnswer?: string;
  /**
   * Served only in gateway mode, from the upstream (src/domain/relay/relay.answers.ts): over a store it answers 404
   * NOT_AVAILABLE, which the OpenAPI document states, and its request examples answer that there.
   */
  gatewayOnly?: boolean;
  /** The 200 example where the store cannot show one (a gateway-only endpoint's: its client SDK's fixture). */
  answerExample?: NamedExample;
}

/** An hour: reference data changes daily at most. */
export const REFERENCE_MAX_AGE_SECONDS = 3_600;

/**
 * An endpoint that runs its own code after the router's checks (path, key,
 * removal, scope, body) instead of one fixed operation: bulk, which runs the
 * operation of the entry it names for many symbols at once.
 */
export interface HandlerRoute<TBody = unknown> extends Pick<
  RouteEntry,
  "path" | "summary" | "versions" | "scope" | "removedOn" | "replacement" | "response" | "examples"
> {
  /** Validates the parsed JSON body (a failure is the call's 404). */
  body: z.ZodType<TBody>;
  /** The body as the OpenAPI document states it, where `body` accepts more than a client should send. */
  documentedBody?: (version: ApiVersion) => z.ZodType;
  /** What the OpenAPI document says of its key and cost, in place of the scope's sentence. */
  description?: string;
  /** The methods it answers; POST when absent (status and quota answer GET too). */
  methods?: readonly HttpMethod[];
  /**
   * False: a call costs no unit of the key's rate or quota (quota, which must not spend what it reports); its answer
   * still carries the RateLimit fields as they stand. Counted like any call when absent.
   */
  counted?: boolean;
  /** Answers the 200 body; a thrown typed error is the call's status. */
  run: (body: TBody, ctx: Context, version: ApiVersion, call: CallLimits) => Promise<unknown>;
}

export type HttpMethod = "GET" | "POST";

/** What the router knows of a call's rate and quota when the handler runs. */
export interface CallLimits {
  /**
   * The key's limits after this call was counted (or, for an uncounted route, as they stand): the same decision the
   * RateLimit header fields of the answer are written from. Null when the app has no limiter.
   */
  limits: LimitDecision | null;
}

/** A route's 200 body schema: one for every version, or one per version. */
export type ResponseSchema<T = unknown> = z.ZodType<T> | ((version: ApiVersion) => z.ZodType<T>);

/** The response schema of a route for one version; undefined when the route has none yet. */
export function responseSchemaOf(entry: { response?: ResponseSchema }, version: ApiVersion): z.ZodType | undefined {
  return typeof entry.response === "function" ? entry.response(version) : entry.response;
}

/** Keeps each entry's data, variable and response types tied to its operation while the table holds them all. */
export function route<TData, TVars extends Record<string, unknown>, TOut = unknown>(
  entry: RouteEntry<TData, TVars, TOut>,
): RouteEntry {
  return entry as unknown as RouteEntry;
}

/** `undefined` and `null` both become `null`: GraphQL variables want one spelling of "absent". */
export const optionalNullable = <T extends z.ZodType>(t: T) => t.optional().transform((v) => v ?? null);
