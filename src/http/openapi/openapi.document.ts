import { isObjectType, type DocumentNode, type GraphQLSchema } from "graphql";
import { notServedMessage, RELAYED_ENDPOINTS, type RelayedEndpoint } from "../../domain/relay/relay.answers";
import { z } from "zod";
import type { Scope } from "../../platform/auth/auth.scopes";
import { getMaxAgeSeconds } from "../rest/rest.query";
import { responseSchemaOf, VERSIONS, type ApiVersion, type ResponseSchema } from "../rest/rest.route";
import { COMPONENT_REF, errorBodySchema, RESPONSE_OF } from "../rest/rest.response";
import { V0_DEPRECATION, V0_SUNSET } from "../rest/rest.versions";
import type { NamedExample, RequestExamples } from "../rest/rest.examples";
import { answerHints, DEFAULT_SAMPLE_SECURITIES, exampleOf, type ExampleSecurities } from "./openapi.examples";

/**
 * The OpenAPI 3.1 document of the REST door, generated from the route table:
 * request bodies from each entry's zod `body` (its input side), 200 bodies
 * from its zod `response`, and property descriptions from the GraphQL types
 * those responses are tagged with. Nothing here is written beside the routes
 * by hand, so the document cannot drift from what the router serves; the test
 * suite validates every REST answer it produces against this document.
 */

/** What the document needs of a route: the route table's entries and handler routes (bulk) both fit. */
export interface DocumentedRoute {
  path: string;
  summary: string;
  versions: readonly ApiVersion[];
  scope: Scope | null;
  body: z.ZodType;
  /**
   * The request body as the document states it, where it is stricter than what `body` accepts (bulk: the endpoint
   * names of the version, `{symbol}` items); `body` by default.
   */
  documentedBody?: (version: ApiVersion) => z.ZodType;
  response?: ResponseSchema;
  singleSecurity?: boolean;
  removedOn?: string;
  replacement?: string;
  /** Replaces the scope's sentence (routes about the service and the key, not a security). */
  description?: string;
  /** POST when absent; a GET beside it is documented alike, without a body. */
  methods?: readonly ("GET" | "POST")[];
  maxAgeSeconds?: number;
  examples?: RequestExamples;
  emptyExample?: NamedExample;
  emptyAnswer?: string;
  gatewayOnly?: boolean;
  answerExample?: NamedExample;
  /** The GraphQL operation it runs, where it runs one (the docs' tables name its root fields). */
  operation?: DocumentNode;
}

export interface OpenApiOptions {
  /** The service's version (package.json). */
  version: string;
  /** Property descriptions come from here (types named by `x-graphql-type`). */
  graphqlSchema: GraphQLSchema;
  /** The securities the examples name (default: the default sample's, as docs/openapi.json names them). */
  examples?: ExampleSecurities;
}

type Json = Record<string, unknown>;
export type OpenApiDocument = Json & { paths: Record<string, Record<string, Json>>; components: Json };

/** Marks a route whose `response` is missing: the document says so, and a test fails naming it. */
export const UNDOCUMENTED = "x-undocumented";

const TAGS: readonly { name: string; description: string; prefixes: readonly string[] }[] = [
  {
    name: "Quotes",
    description: "Latest quotes of stocks, ETFs, funds, crypto pairs and forex pairs",
    prefixes: ["quote"],
  },
  { name: "Candles", description: "OHLCV bars: 1, 5, 15, 30, 60 minutes, D, W, M", prefixes: ["candle"] },
  { name: "Crypto", description: "Crypto pairs (BTC-USD; BTCUSD, BTC/USD and BTC are accepted)", prefixes: ["crypto"] },
  {
    name: "ETFs",
    description: "ETF profile, holdings, exposures, fundamentals and performance metrics",
    prefixes: ["etf"],
  },
  { name: "Funds", description: "Mutual funds, named by ISIN", prefixes: ["fund"] },
  { name: "Stocks", description: "Trailing-twelve-month financials", prefixes: ["stock"] },
  {
    name: "Dividends",
    description: "Dividend calendar, annual dividends and estimates",
    prefixes: ["calendar", "dividends"],
  },
  { name: "Search", description: "Search over every security, plain or grouped by security", prefixes: ["search"] },
  { name: "Lists", description: "Keyset-paginated lists of stocks, ETFs, funds and crypto", prefixes: ["list"] },
  { name: "Bulk", description: "One single-security endpoint for many symbols in one call", prefixes: ["bulk"] },
  {
    name: "Service",
    description: "The service's status and the calling key's limits (GET or POST, no body)",
    prefixes: ["status", "quota"],
  },
  { name: "Indices", description: "Index constituents (removed 2024-05-01)", prefixes: ["index"] },
  {
    name: "Gateway",
    description:
      "Bavest endpoints no store holds the data of (news, ESG, transcripts, estimates, sentiment, calendars): " +
      "answered from the upstream in gateway mode (MDG_DATA_SOURCE=upstream), 404 NOT_AVAILABLE over a store",
    prefixes: [],
  },
];

export function tagOf(route: DocumentedRoute): string {
  // Dividend endpoints live under etf/ and stock/ too; the scope says where a reader looks for them.
  if (route.scope === "dividend") return "Dividends";
  if (route.gatewayOnly) return "Gateway";
  const first = route.path.split("/")[0]!;
  return TAGS.find((t) => t.prefixes.includes(first))?.name ?? first.charAt(0).toUpperCase() + first.slice(1);
}

/** A path prefix TAGS does not name: a tag of its own, described by what its endpoints answer. */
function untaggedArea(name: string, routes: readonly DocumentedRoute[]): { name: string; description: string } {
  const summaries = routes.filter((r) => !r.removedOn && tagOf(r) === name).map((r) => r.summary);
  return { name, description: summaries.join("; ") };
}

/** `fund/allocation-exposure` → `FundAllocationExposure`. */
export function componentName(path: string): string {
  return path
    .split(/[/_-]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");
}

function operationId(version: ApiVersion, path: string): string {
  return version + componentName(path);
}

/** Where a schema marked with `RESPONSE_OF` or `COMPONENT_REF` points: a `$ref` into the document. */
type RefResolver = (marker: { responseOf?: string; component?: string; schema: Json }) => string;

/**
 * A zod schema as a JSON Schema (2020-12, the dialect of OpenAPI 3.1), tidied
 * for readers: no `$schema` inside the document, no integer bounds that only
 * restate JavaScript's safe range, `type: [T, "null"]` for nullable scalars,
 * and a `$ref` wherever a schema is marked as another route's response or a component (bulk's items).
 */
export function jsonSchemaOf(
  schema: z.ZodType,
  io: "input" | "output",
  graphqlSchema?: GraphQLSchema,
  refs?: RefResolver,
): Json {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Json;
  delete json.$schema;
  const tidy = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(tidy);
    if (node === null || typeof node !== "object") return;
    const n = node as Json;
    if (n.minimum === Number.MIN_SAFE_INTEGER) delete n.minimum;
    if (n.maximum === Number.MAX_SAFE_INTEGER) delete n.maximum;
    Object.values(n).forEach(tidy);
    if (typeof n[RESPONSE_OF] === "string" || typeof n[COMPONENT_REF] === "string") return replaceByRef(n, refs);
    collapseNullable(n);
    if (graphqlSchema) describeFromGraphql(n, graphqlSchema);
  };
  tidy(json);
  return json;
}

/** Turns a marked node into a `$ref` (a description may stay beside it: OpenAPI 3.1 allows that). */
function replaceByRef(n: Json, refs: RefResolver | undefined): void {
  const marker = {
    responseOf: typeof n[RESPONSE_OF] === "string" ? n[RESPONSE_OF] : undefined,
    component: typeof n[COMPONENT_REF] === "string" ? n[COMPONENT_REF] : undefined,
  };
  if (!refs) throw new Error(`OpenAPI: a schema refers to ${JSON.stringify(marker)} where no reference can be made`);
  // A component keeps its own description; a stand-in for a response says, beside the $ref, whose response it is.
  const description = marker.component === undefined ? n.description : undefined;
  const schema: Json = { ...n };
  delete schema[RESPONSE_OF];
  delete schema[COMPONENT_REF];
  for (const k of Object.keys(n)) delete n[k];
  n.$ref = refs({ ...marker, schema });
  if (description !== undefined) n.description = description;
}

function collapseNullable(n: Json): void {
  const any = n.anyOf as Json[] | undefined;
  if (!any || any.length !== 2) return;
  const nullIndex = any.findIndex((s) => s.type === "null" && Object.keys(s).length === 1);
  if (nullIndex < 0) return;
  const other = any[1 - nullIndex]!;
  // Objects stay `anyOf` (renderers show them best that way); enums and consts would need null listed too.
  if (typeof other.type !== "string" || other.type === "object" || "enum" in other || "const" in other) return;
  delete n.anyOf;
  for (const [k, v] of Object.entries(other)) if (!(k in n)) n[k] = v;
  n.type = [other.type, "null"];
}

/**
 * Fills in each property's description from the GraphQL type the object is tagged with, where the zod schema gave none.
 */
function describeFromGraphql(n: Json, schema: GraphQLSchema): void {
  const typeName = n["x-graphql-type"];
  if (typeof typeName !== "string") return;
  const type = schema.getType(typeName);
  if (!isObjectType(type))
    throw new Error(`OpenAPI: x-graphql-type ${typeName} is not an object type of the GraphQL schema`);
  if (!n.description && type.description) n.description = type.description;
  const fields = type.getFields();
  for (const [name, prop] of Object.entries((n.properties ?? {}) as Record<string, Json>)) {
    const description = fields[name]?.description;
    if (description && !prop.description) prop.description = description;
  }
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function scopeText(route: DocumentedRoute): string {
  if (route.description) return route.description;
  if (route.scope === null) {
    return "Needs the scope of the security's type: `stock` (stocks and forex), `etf`, `fund` or `crypto` (or `*`).";
  }
  return `Needs a key with the scope \`${route.scope}\` (or \`*\`).`;
}

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Headers of every answer of a version: the request id, and /v0's deprecation headers. */
function versionHeaders(version: ApiVersion): Record<string, Json> {
  if (version !== "v0") return { "x-request-id": headerRef("X-Request-Id") };
  return {
    "x-request-id": headerRef("X-Request-Id"),
    deprecation: headerRef("Deprecation"),
    sunset: headerRef("Sunset"),
    link: headerRef("Link"),
  };
}

const ERROR_RESPONSE_NAME = {
  "401": "Unauthorized",
  "403": "Forbidden",
  "404": "NotFound",
  "500": "InternalError",
} as const;

const errorResponseRef = (status: ErrorStatus, version: ApiVersion) => ({
  $ref: `#/components/responses/${ERROR_RESPONSE_NAME[status]}${version.toUpperCase()}`,
});

/** The statuses other than 200 an answer can have. */
type ErrorStatus = keyof typeof ERROR_RESPONSE_NAME;

const ERROR_TEXT: Record<ErrorStatus, string> = {
  "401": "`x-api-key` missing, empty, unknown, revoked or expired (`UNAUTHENTICATED`). Checked before anything else.",
  "403":
    "The key lacks the scope (`FORBIDDEN`), or its rate limit or daily quota is spent " +
    "(`QUOTA_EXCEEDED`, with `Retry-After`).",
  "404":
    "Unknown symbol or ISIN (`NOT_FOUND`; a known security without data answers 200 with an empty answer); " +
    "a missing, ill-typed or malformed field, unparseable JSON " +
    "or a body over the size limit (`INVALID_ARGUMENT`, `details` names the field); " +
    "data the configured source does not serve at all (`NOT_AVAILABLE`).",
  "500":
    "A fault of the service (`INTERNAL`), never caused by the request; the body holds no internal detail. " +
    "Or the service's capacity for heavy operations stayed spent while this one waited in line, or the screener's " +
    "index was still being built after 5 s (`BUSY`, with `Retry-After`).",
};

/** Answers after the key was accepted carry the key's rate-limit state. */
const RATE_LIMIT_HEADERS = { "ratelimit-policy": headerRef("RateLimit-Policy"), ratelimit: headerRef("RateLimit") };

const REQUEST_ID_EXAMPLE = "b7f0c6de-3f0d-44d0-a5bb-7e3e6a7d36d7";

/** What each error status looks like, as the service words it (shown by the docs page). */
const ERROR_EXAMPLES: Record<ErrorStatus, Record<string, Json>> = {
  "401": {
    UNAUTHENTICATED: {
      statusCode: 401,
      error: "Unauthorized",
      code: "UNAUTHENTICATED",
      message: "a valid x-api-key header is required",
      requestId: REQUEST_ID_EXAMPLE,
    },
  },
  "403": {
    FORBIDDEN: {
      statusCode: 403,
      error: "Forbidden",
      code: "FORBIDDEN",
      message: 'this API key lacks the "etf" scope',
      details: [{ field: "x-api-key", issue: "missing scope etf" }],
      requestId: REQUEST_ID_EXAMPLE,
    },
    QUOTA_EXCEEDED: {
      statusCode: 403,
      error: "Forbidden",
      code: "QUOTA_EXCEEDED",
      message: "the key's rate limit of 600 per minute is spent; retry in 42 s",
      requestId: REQUEST_ID_EXAMPLE,
    },
  },
  "404": {
    INVALID_ARGUMENT: {
      statusCode: 404,
      error: "Not Found",
      code: "INVALID_ARGUMENT",
      message: "symbol: expected a non-empty string (or isin)",
      details: [{ field: "symbol", issue: "expected a non-empty string (or isin)" }],
      requestId: REQUEST_ID_EXAMPLE,
    },
    NOT_FOUND: {
      statusCode: 404,
      error: "Not Found",
      code: "NOT_FOUND",
      message: 'no security found for "NOPE123"',
      requestId: REQUEST_ID_EXAMPLE,
    },
    NOT_AVAILABLE: {
      statusCode: 404,
      error: "Not Found",
      code: "NOT_AVAILABLE",
      message:
        "this service's data source (upstream) does not serve fund reference data (profiles, holdings, exposures)",
      requestId: REQUEST_ID_EXAMPLE,
    },
  },
  "500": {
    INTERNAL: {
      statusCode: 500,
      error: "Internal Server Error",
      code: "INTERNAL",
      message: "internal error",
      requestId: REQUEST_ID_EXAMPLE,
    },
    BUSY: {
      statusCode: 500,
      error: "Internal Server Error",
      code: "BUSY",
      message:
        "the service is running as many heavy operations as it can (MDG_HEAVY_CAPACITY=1) and this one waited " +
        "1000 ms (MDG_HEAVY_QUEUE_MS); retry later",
      requestId: REQUEST_ID_EXAMPLE,
    },
  },
};

function removedExample(path: string, removedOn: string, replacement: string | undefined): Json {
  return {
    statusCode: 404,
    error: "Not Found",
    code: "ENDPOINT_REMOVED",
    message: `${path} was removed on ${removedOn}${replacement ? `; use ${replacement}` : ""}`,
    requestId: REQUEST_ID_EXAMPLE,
    removedOn,
    replacement: replacement ?? null,
  };
}

/** What a gateway-only endpoint answers over a store (src/domain/relay/relay.answers.ts says it). */
function gatewayOnlyExample(path: string): Json {
  return {
    statusCode: 404,
    error: "Not Found",
    code: "NOT_AVAILABLE",
    message:
      path in RELAYED_ENDPOINTS
        ? notServedMessage("sqlite", path as RelayedEndpoint)
        : `${path} is served in gateway mode only (MDG_DATA_SOURCE=upstream)`,
    requestId: REQUEST_ID_EXAMPLE,
  };
}

function errorResponse(status: ErrorStatus, version: ApiVersion, extra = "", first: Record<string, Json> = {}): Json {
  const headers = versionHeaders(version);
  const h =
    status === "401"
      ? headers
      : status === "403" || status === "500"
        ? { ...headers, ...RATE_LIMIT_HEADERS, "retry-after": headerRef("Retry-After") }
        : { ...headers, ...RATE_LIMIT_HEADERS };
  const examples: Record<string, Json> = { ...first };
  for (const [name, value] of Object.entries(ERROR_EXAMPLES[status])) examples[name] ??= value;
  return {
    description: ERROR_TEXT[status] + extra,
    headers: h,
    content: {
      "application/json": {
        schema: ref("ErrorBody"),
        examples: Object.fromEntries(Object.entries(examples).map(([k, value]) => [k, { value }])),
      },
    },
  };
}

/**
 * A single-security body that takes `symbol` or `isin`: one of the two is required, which JSON Schema of the zod
 * refinement cannot say.
 */
function namesSecurity(route: DocumentedRoute, requestJson: Json): boolean {
  const props = Object.keys((requestJson.properties ?? {}) as Json);
  return route.singleSecurity === true && props.includes("symbol") && props.includes("isin");
}

function bodyRequired(route: DocumentedRoute, requestJson: Json): boolean {
  return namesSecurity(route, requestJson) || (Array.isArray(requestJson.required) && requestJson.required.length > 0);
}

function bodyDescription(route: DocumentedRoute, requestJson: Json): string {
  const parts = ["Read as JSON whatever the `Content-Type`; fields beyond those listed are ignored."];
  if (namesSecurity(route, requestJson))
    parts.unshift(
      "Name the security by exactly one of `symbol`, `isin`, `cusip` or `wkn` (one is required; two at once are " +
        "refused with 404 `INVALID_ARGUMENT`).",
    );
  if (!bodyRequired(route, requestJson)) parts.push("May be empty or absent.");
  return parts.join(" ");
}

const GET_TEXT =
  "**GET** takes the same fields as query parameters (a list as a repeated key: `types=etf&types=stock`) and " +
  "answers as the POST does, with `Cache-Control: private, max-age=…` on a 200 (`no-store` otherwise).";

/** The POST body's fields as query parameters of the GET beside it (src/http/rest/rest.query.ts reads them). */
function queryParameters(request: Json): Json[] {
  const properties = (request.properties ?? {}) as Record<string, Json>;
  const required = new Set((request.required ?? []) as string[]);
  return Object.entries(properties).map(([name, schema]) => {
    const { description, ...rest } = schema;
    const list = rest.type === "array";
    return {
      name,
      in: "query",
      ...(required.has(name) ? { required: true } : {}),
      ...(typeof description === "string" ? { description } : {}),
      ...(list ? { style: "form", explode: true } : {}),
      schema: rest,
    };
  });
}

/** The POST's responses with the GET's Cache-Control on each. */
function getResponses(responses: Json, route: DocumentedRoute): Json {
  const out: Json = {};
  for (const [status, response] of Object.entries(responses)) {
    const cacheControl = {
      description:
        status === "200"
          ? `\`private, max-age=${getMaxAgeSeconds(route)}\`: the calling key's answer, kept by no shared cache`
          : "`no-store`",
      schema: { type: "string" },
    };
    const r = response as Json;
    // A shared error response is a $ref: the GET's needs its own header beside it.
    out[status] =
      "$ref" in r
        ? { $ref: r.$ref }
        : { ...r, headers: { ...((r.headers as Json | undefined) ?? {}), "Cache-Control": cacheControl } };
  }
  return out;
}

/**
 * A GET beside a POST takes the POST's fields as query parameters: each parameter the POST's first example sets shows
 * that value, so "Try it out" sends the same request either way.
 */
function withParameterExamples(get: Json, request: Json | undefined): Json {
  if (!Array.isArray(get.parameters) || !request) return get;
  const parameters = (get.parameters as Json[]).map((p) =>
    p.in === "query" && typeof p.name === "string" && request[p.name] !== undefined
      ? { ...p, example: request[p.name] }
      : p,
  );
  return { ...get, parameters };
}

/**
 * Builds the whole document. Deterministic: the same routes give the same bytes (docs/openapi.json is compared in a
 * test).
 */
export function buildOpenApiDocument(routes: readonly DocumentedRoute[], opts: OpenApiOptions): OpenApiDocument {
  const schemas: Record<string, Json> = { ErrorBody: jsonSchemaOf(errorBodySchema, "output") };
  const paths: Record<string, Record<string, Json>> = {};
  const byPath = new Map(routes.map((r) => [r.path, r]));
  const securities = opts.examples ?? DEFAULT_SAMPLE_SECURITIES;
  const resolveSchema = (pointer: string): Json => {
    const schema = schemas[pointer.replace("#/components/schemas/", "")];
    if (!schema) throw new Error(`OpenAPI: an example refers to ${pointer}, which is not in the document`);
    return schema;
  };

  /** `$ref`s of one version: another route's response (bulk's items) or a component. */
  const refsOf =
    (version: ApiVersion): RefResolver =>
    ({ responseOf, component, schema }) => {
      if (component !== undefined) {
        // The first reference adds the component; a second schema under the same name is a mistake.
        schemas[component] ??= schema;
        if (JSON.stringify(schemas[component]) !== JSON.stringify(schema))
          throw new Error(`OpenAPI: two different schemas are named ${component}`);
        return `#/components/schemas/${component}`;
      }
      const target = byPath.get(responseOf!);
      const name = target && target.versions.includes(version) ? responseNameOf(target, version) : undefined;
      if (!name) throw new Error(`OpenAPI: /${version}/${responseOf} has no documented response to refer to`);
      return `#/components/schemas/${name}`;
    };

  /** One schema per version only where the versions differ (`EtfHoldingsResponseV0`, `…V1`). */
  const versionedName = (
    route: DocumentedRoute,
    version: ApiVersion,
    base: string,
    jsonOf: (v: ApiVersion) => Json | undefined,
  ): { name: string; json: Json } | undefined => {
    const json = jsonOf(version);
    if (!json) return undefined;
    const other = VERSIONS.find((v) => v !== version && route.versions.includes(v));
    const otherJson = other ? jsonOf(other) : undefined;
    const differs = otherJson !== undefined && JSON.stringify(otherJson) !== JSON.stringify(json);
    const name = differs ? `${base}${version.toUpperCase()}` : base;
    schemas[name] ??= json;
    return { name, json };
  };

  const responseNames = new Map<string, string | undefined>();
  function responseNameOf(route: DocumentedRoute, version: ApiVersion): string | undefined {
    const key = `${version} ${route.path}`;
    if (!responseNames.has(key)) {
      const jsonOf = (v: ApiVersion) => {
        const schema = responseSchemaOf(route, v);
        return schema && jsonSchemaOf(schema, "output", opts.graphqlSchema, refsOf(v));
      };
      responseNames.set(key, versionedName(route, version, `${componentName(route.path)}Response`, jsonOf)?.name);
    }
    return responseNames.get(key);
  }

  for (const version of [...VERSIONS].reverse()) {
    for (const route of routes) {
      // A version that never had an endpoint leaves it out (it answers ENDPOINT_REMOVED there, as infoDescription
      // says): an operation without a 200 would only list errors.
      if (!route.versions.includes(version)) continue;
      const name = componentName(route.path);
      const path = `/${version}/${route.path}`;
      const successor = route.replacement ?? `/v1/${route.path}`;
      const headers = versionHeaders(version);
      const removedText = route.removedOn
        ? ` This endpoint was removed on ${route.removedOn}: ` +
          "from the next day on it answers `ENDPOINT_REMOVED` with `removedOn` and `replacement`."
        : "";

      const requestOf = (v: ApiVersion) => jsonSchemaOf(route.documentedBody?.(v) ?? route.body, "input");
      const { name: requestName, json: request } = versionedName(route, version, `${name}Request`, requestOf)!;
      const responseName = responseNameOf(route, version);
      const response = responseName !== undefined;
      const examples = route.examples?.(securities);
      const firstRequest = examples && Object.values(examples)[0]?.value;
      const answerExample =
        responseName &&
        (route.answerExample ?? {
          summary: "The shape of an answer (values illustrative, not the store's)",
          value: exampleOf(ref(responseName), resolveSchema, answerHints(firstRequest, securities)),
        });

      const description = [
        scopeText(route),
        version === "v0"
          ? `**Deprecated**: /v0 is maintained until ${V0_SUNSET} (the \`Sunset\` header); call \`${successor}\`. ` +
            "Every /v0 answer carries `Deprecation`, `Sunset` and `Link`."
          : "",
        removedText.trim(),
        response ? "" : "**The 200 body of this endpoint is not documented yet.**",
      ]
        .filter(Boolean)
        .join("\n\n");

      paths[path] = {
        post: {
          operationId: operationId(version, route.path),
          tags: [tagOf(route)],
          summary: route.summary,
          description,
          ...(version === "v0" || route.removedOn ? { deprecated: true } : {}),
          ...(route.scope ? { "x-scope": route.scope } : {}),
          ...(route.gatewayOnly ? { "x-gateway-only": true } : {}),
          ...(route.removedOn
            ? { "x-removed-on": route.removedOn, ...(route.replacement ? { "x-replacement": route.replacement } : {}) }
            : {}),
          ...(response ? {} : { [UNDOCUMENTED]: true }),
          requestBody: {
            required: bodyRequired(route, request),
            description: bodyDescription(route, request),
            content: { "application/json": { schema: ref(requestName), ...(examples ? { examples } : {}) } },
          },
          responses: {
            "200": {
              description: "OK",
              headers: { ...headers, ...RATE_LIMIT_HEADERS },
              content: {
                "application/json": {
                  schema: responseName ? ref(responseName) : { description: "Not documented yet" },
                  ...(answerExample
                    ? {
                        examples: {
                          answer: answerExample,
                          ...(route.emptyExample ? { empty: route.emptyExample } : {}),
                        },
                      }
                    : {}),
                },
              },
            },
            "401": errorResponseRef("401", version),
            "403": errorResponseRef("403", version),
            "404": route.removedOn
              ? errorResponse(
                  "404",
                  version,
                  ` After ${route.removedOn}: \`ENDPOINT_REMOVED\`, with \`removedOn\` and \`replacement\`.`,
                  { ENDPOINT_REMOVED: removedExample(path, route.removedOn, route.replacement) },
                )
              : route.gatewayOnly
                ? errorResponse(
                    "404",
                    version,
                    " Over a store (MDG_DATA_SOURCE sqlite or postgres): always `NOT_AVAILABLE`, naming gateway mode " +
                      "(MDG_DATA_SOURCE=upstream) as the way to serve it.",
                    { NOT_AVAILABLE: gatewayOnlyExample(route.path) },
                  )
                : errorResponseRef("404", version),
            "500": errorResponseRef("500", version),
          },
        },
      };
      if (route.methods?.includes("GET")) {
        const { requestBody: _body, ...post } = paths[path].post!;
        const parameters = queryParameters(request);
        const get: Json = {
          ...post,
          operationId: `${operationId(version, route.path)}Get`,
          ...(parameters.length > 0
            ? {
                description: `${post.description as string}\n\n${GET_TEXT}`,
                parameters,
                responses: getResponses(post.responses as Json, route),
              }
            : {}),
        };
        paths[path].get = withParameterExamples(get, firstRequest);
      }
    }
  }

  const usedTags = new Set(Object.values(paths).map((p) => (p.post!.tags as string[])[0]!));
  return {
    openapi: "3.1.0",
    info: {
      title: "market-data-gateway REST API",
      version: opts.version,
      summary:
        "Quotes, candles, ETFs, funds, stock financials, dividends, search and lists over REST " +
        "(and GraphQL at /graphql)",
      description: infoDescription(routes),
      contact: CONTACT,
      license: { name: "MIT", identifier: "MIT" },
    },
    // Relative: the paths are under whatever host (and mount path) served this document, which a self-hosted
    // service cannot know when the document is generated.
    servers: [{ url: "/", description: "This service: the host that served this document" }],
    tags: [
      ...TAGS.filter((t) => usedTags.has(t.name)).map(({ name, description }) => ({ name, description })),
      ...[...usedTags].filter((t) => !TAGS.some((k) => k.name === t)).map((name) => untaggedArea(name, routes)),
    ],
    security: [{ ApiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        ApiKey: {
          type: "apiKey",
          in: "header",
          name: "x-api-key",
          description:
            "**The local key is in `data/dev-key`**: a first start with no key writes one with every scope there, " +
            "beside the sample store `data/market.db` (the start-up log names the file). " +
            "Paste its contents here: `cat data/dev-key`. " +
            "Other keys: `npm run keys -- create --name NAME --scopes etf,stock`, " +
            "or `MDG_BOOTSTRAP_API_KEY` for a local trial.",
        },
      },
      responses: Object.fromEntries(
        VERSIONS.flatMap((v) =>
          (Object.keys(ERROR_RESPONSE_NAME) as ErrorStatus[]).map((s) => [
            `${ERROR_RESPONSE_NAME[s]}${v.toUpperCase()}`,
            errorResponse(s, v),
          ]),
        ),
      ),
      headers: {
        "X-Request-Id": {
          description: "Id of this request (an incoming sane `x-request-id` is kept); also in every error body",
          required: true,
          schema: { type: "string", minLength: 1 },
        },
        Deprecation: {
          description: "RFC 9745: /v0 is deprecated",
          required: true,
          schema: { type: "string", const: V0_DEPRECATION },
        },
        Sunset: {
          description: "RFC 8594: /v0 is maintained until then",
          required: true,
          schema: { type: "string", const: V0_SUNSET },
        },
        Link: {
          description:
            'RFC 8288: the successor of the endpoint in /v1, `</v1/PATH>; rel="successor-version"` ' +
            "(a removed endpoint: its replacement)",
          required: true,
          schema: { type: "string", pattern: '^</v1/[^>]+>; rel="successor-version"$' },
        },
        "RateLimit-Policy": {
          description:
            'The key\'s limits (draft-ietf-httpapi-ratelimit-headers): `"minute";q=600;w=60, "day";q=100000;w=86400`',
          required: false,
          schema: { type: "string" },
        },
        RateLimit: {
          description:
            'What is left of each limit and the seconds until it resets: `"minute";r=598;t=42, "day";r=99998;t=32400`',
          required: false,
          schema: { type: "string" },
        },
        "Retry-After": {
          description: "QUOTA_EXCEEDED and BUSY only: seconds until the key may call again",
          required: false,
          schema: { type: "string", pattern: "^[0-9]+$" },
        },
      },
      schemas,
    },
  };
}

/**
 * Who answers for the API. The project publishes no address of its own yet; an operator who exposes the service to
 * others replaces this in their copy.
 */
const CONTACT = {
  name: "market-data-gateway maintainers (see the project's README.md)",
};

/** The document's introduction (Markdown), one paragraph an entry. */
function infoDescription(routes: readonly DocumentedRoute[]): string {
  const removed = routes.filter((r) => r.removedOn);
  const paragraphs = [...INFO_PARAGRAPHS];
  if (removed.length > 0) {
    const list = removed.map((r) => `\`/${r.versions.join("|")}/${r.path}\` (removed on ${r.removedOn})`).join(", ");
    paragraphs.splice(
      paragraphs.length - 1,
      0,
      `**Removed endpoints.** ${list}: listed only under the versions that had them, marked deprecated with ` +
        "`x-removed-on`. After the removal day, and under a version that never had the endpoint, the path answers a " +
        "valid key 404 `ENDPOINT_REMOVED` with `removedOn` and `replacement` (the path to call instead, or null).",
    );
  }
  return paragraphs.join("\n\n");
}

const INFO_PARAGRAPHS = [
  "Every endpoint answers `POST` with a JSON body, under `/v1/` (current) and `/v0/` (deprecated).",
  "**Keys.** Every call carries `x-api-key`. A key has scopes (`crypto`, `etf`, `fund`, `stock`, `dividend`, " +
    "`search`, `bulk`, or `*`), a rate limit and a daily quota.",
  "**Statuses.** Only 200, 401, 403, 404 and 500, on every path and for every input; " +
    "anything but 200 carries the error body (`ErrorBody`) with a `code` to branch on. " +
    "Malformed requests are 404 `INVALID_ARGUMENT`, never 400.",
  "**Conventions.** camelCase keys (the contract's short quote and candle keys excepted); days `YYYY-MM-DD` (UTC); " +
    "instants Unix seconds; money as a number beside an ISO 4217 currency; " +
    "percentages as percent numbers (12.5 means 12.5 %).",
  "**Versions.** `/v1` is `/v0` less the holdings' `cusip`, the stock candle endpoint (use `/v1/candle`) and " +
    "the indices constituents endpoint. Every `/v0` answer carries `Deprecation`, `Sunset` and `Link` headers.",
  "The same data is in GraphQL at [/graphql](/graphql) (GraphiQL in a browser). " +
    "This document: [/openapi.json](/openapi.json).",
];
