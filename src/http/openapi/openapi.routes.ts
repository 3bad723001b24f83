import { readFileSync } from "node:fs";
import path from "node:path";
import type { GraphQLSchema } from "graphql";
import pino from "pino";
import { SERVICE_ROUTES } from "../rest/routes/status.routes";
import { bulkRoute } from "../bulk/bulk.routes";
import type { RouteEntry } from "../rest/rest.route";
import { queryShapeOf } from "../rest/rest.query";
import { ROUTES } from "../rest/rest.routes";
import { buildOpenApiDocument, type DocumentedRoute, type OpenApiDocument } from "./openapi.document";
import { DEFAULT_SAMPLE_SECURITIES, type ExampleSecurities } from "./openapi.examples";

/** Every REST endpoint the router serves: the route table, then bulk, status and quota (added beside it). */
export function documentedRoutes(schema: GraphQLSchema, routes: readonly RouteEntry[] = ROUTES): DocumentedRoute[] {
  // A flat body also answers GET, as the router decides (rest.query.ts).
  const withGet = routes.map((r) => (queryShapeOf(r.body) ? { ...r, methods: GET_OR_POST } : r));
  return [...withGet, bulkRoute(schema, routes, pino({ level: "silent" })), ...SERVICE_ROUTES];
}

const GET_OR_POST = ["GET", "POST"] as const;

/** The service's version, from package.json (beside both src/ and dist/). */
export function serviceVersion(): string {
  return (
    JSON.parse(readFileSync(path.join(__dirname, "..", "..", "..", "package.json"), "utf8")) as { version: string }
  ).version;
}

/** Built documents by schema, then by the securities their examples name (a process serves one store). */
const built = new WeakMap<GraphQLSchema, Map<string, OpenApiDocument>>();

/**
 * The document `/openapi.json` serves and `npm run openapi` writes to docs/openapi.json (built once per schema and
 * examples). `examples`: the securities the examples name; the running service passes its store's
 * (`exampleSecurities`), docs/openapi.json names the default sample's.
 */
export function createOpenApiDocument(
  schema: GraphQLSchema,
  routes?: readonly RouteEntry[],
  examples: ExampleSecurities = DEFAULT_SAMPLE_SECURITIES,
): OpenApiDocument {
  const options = { version: serviceVersion(), graphqlSchema: schema, examples };
  if (routes) return buildOpenApiDocument(documentedRoutes(schema, routes), options);
  let bySecurities = built.get(schema);
  if (!bySecurities) built.set(schema, (bySecurities = new Map()));
  const key = JSON.stringify(examples);
  let doc = bySecurities.get(key);
  if (!doc) {
    doc = buildOpenApiDocument(documentedRoutes(schema), options);
    bySecurities.set(key, doc);
  }
  return doc;
}

/** The committed file's text: stable key order as built, two-space indent, final newline. */
export function serializeOpenApi(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
