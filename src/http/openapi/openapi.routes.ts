import { readFileSync } from "node:fs";
import path from "node:path";
import type { GraphQLSchema } from "graphql";
import pino from "pino";
import { SERVICE_ROUTES } from "../../domains/status/status.routes";
import { bulkRoute } from "../bulk/bulk.routes";
import type { RouteEntry } from "../rest/rest.route";
import { ROUTES } from "../rest/rest.routes";
import { buildOpenApiDocument, type DocumentedRoute, type OpenApiDocument } from "./openapi.document";

/** Every REST endpoint the router serves: the route table, then bulk, status and quota (added beside it). */
export function documentedRoutes(schema: GraphQLSchema, routes: readonly RouteEntry[] = ROUTES): DocumentedRoute[] {
  return [...routes, bulkRoute(schema, routes, pino({ level: "silent" })), ...SERVICE_ROUTES];
}

/** The service's version, from package.json (beside both src/ and dist/). */
export function serviceVersion(): string {
  return (
    JSON.parse(readFileSync(path.join(__dirname, "..", "..", "..", "package.json"), "utf8")) as { version: string }
  ).version;
}

const built = new WeakMap<GraphQLSchema, OpenApiDocument>();

/** The document `/openapi.json` serves and `npm run openapi` writes to docs/openapi.json (built once per schema). */
export function createOpenApiDocument(schema: GraphQLSchema, routes?: readonly RouteEntry[]): OpenApiDocument {
  if (routes)
    return buildOpenApiDocument(documentedRoutes(schema, routes), { version: serviceVersion(), graphqlSchema: schema });
  let doc = built.get(schema);
  if (!doc) {
    doc = buildOpenApiDocument(documentedRoutes(schema), { version: serviceVersion(), graphqlSchema: schema });
    built.set(schema, doc);
  }
  return doc;
}

/** The committed file's text: stable key order as built, two-space indent, final newline. */
export function serializeOpenApi(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
