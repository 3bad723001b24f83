import { Kind, type DocumentNode } from "graphql";
import { getMaxAgeSeconds } from "../rest/rest.query";
import { jsonSchemaOf, tagOf, type DocumentedRoute } from "./openapi.document";

/**
 * The tables of the docs that list endpoints, written from the same declarations the router serves: docs/contract.md
 * section 1 (every path, its body, scope and GET lifetime) and section 4 (what a known security without data
 * answers), and the README's "What it serves" (each area's v1 paths and the GraphQL fields they run). `npm run
 * openapi` writes them between their markers; a test fails when a committed table differs.
 */

type TabledRoute = DocumentedRoute;

const code = (s: string) => `\`${s}\``;

/** `{symbol?, isin?, currency?}`: the body's fields as a client sends them, optional ones marked. */
function bodyFields(route: TabledRoute): string {
  const json = jsonSchemaOf(route.documentedBody?.("v1") ?? route.body, "input");
  const properties = Object.keys((json.properties as object | undefined) ?? {});
  if (properties.length === 0) return "none";
  const required = new Set((json.required as string[] | undefined) ?? []);
  return code(`{${properties.map((p) => (required.has(p) ? p : `${p}?`)).join(", ")}}`);
}

function scopeOf(route: TabledRoute): string {
  if (route.scope) return code(route.scope);
  // A declaration without a scope either leaves it to the resolver (the security's type) or needs only a key.
  return route.operation ? "the security's type (section 8)" : "any valid key";
}

function methodsOf(route: TabledRoute): readonly string[] {
  return route.methods ?? ["POST"];
}

function notesOf(route: TabledRoute): string {
  const notes: string[] = [];
  if (route.gatewayOnly) notes.push("gateway mode only: 404 `NOT_AVAILABLE` over a store (section 9)");
  if (route.singleSecurity) notes.push("bulk may name it");
  if (route.removedOn) {
    notes.push(
      `removed after ${route.removedOn} (section 5)${route.replacement ? `: ${code(route.replacement)}` : ""}`,
    );
  }
  return notes.join("; ");
}

/** docs/contract.md section 1: every endpoint of the route table, bulk, status and quota. */
export function endpointTableMarkdown(routes: readonly TabledRoute[]): string {
  const lines = [
    "| path after `/v0` or `/v1` | answers | versions | methods | body | scope | GET `max-age` (s) | notes |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const r of [...routes].sort((a, b) => a.path.localeCompare(b.path))) {
    const methods = methodsOf(r);
    // Only an entry's GET is kept by a browser (a query-string GET); status and quota answer GET uncached.
    const maxAge = methods.includes("GET") && r.operation ? String(getMaxAgeSeconds(r)) : "";
    const cells = [
      code(r.path),
      r.summary,
      r.versions.join(", "),
      methods.join(", "),
      bodyFields(r),
      scopeOf(r),
      maxAge,
    ];
    lines.push(`| ${[...cells, notesOf(r)].join(" | ")} |`);
  }
  return lines.join("\n") + "\n";
}

/** The root fields an operation selects (`etf`, `quote`). */
function rootFields(operation: DocumentNode | undefined): string[] {
  if (!operation) return [];
  return operation.definitions.flatMap((d) =>
    d.kind === Kind.OPERATION_DEFINITION
      ? d.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : []))
      : [],
  );
}

/** README's "What it serves": by area (the OpenAPI document's tags), the v1 paths and the GraphQL fields they run. */
export function areaTableMarkdown(routes: readonly TabledRoute[]): string {
  const areas = new Map<string, { paths: string[]; fields: Set<string> }>();
  for (const r of routes) {
    if (r.removedOn || !r.versions.includes("v1")) continue;
    const tag = tagOf(r);
    const area = areas.get(tag) ?? { paths: [], fields: new Set<string>() };
    areas.set(tag, area);
    area.paths.push(r.path);
    for (const f of rootFields(r.operation)) area.fields.add(f);
  }
  const lines = ["| area | REST paths (`/v1/…`) | GraphQL fields they run |", "|---|---|---|"];
  for (const [tag, { paths, fields }] of areas) {
    lines.push(`| ${tag} | ${paths.map(code).join(", ")} | ${[...fields].sort().map(code).join(", ")} |`);
  }
  return lines.join("\n") + "\n";
}

/** docs/contract.md section 4: the empty answer of each endpoint that names a security, alike ones on one row. */
export function emptyAnswerTableMarkdown(routes: readonly TabledRoute[]): string {
  const rows = new Map<string, string[]>();
  for (const r of routes) {
    if (r.removedOn || r.emptyAnswer === undefined) continue;
    rows.set(r.emptyAnswer, [...(rows.get(r.emptyAnswer) ?? []), r.path]);
  }
  const lines = ["| endpoint | a known security without the data answers |", "|---|---|"];
  for (const [answer, paths] of rows) lines.push(`| ${paths.map(code).join(", ")} | ${answer} |`);
  return lines.join("\n") + "\n";
}

export const EMPTY_TABLE_MARKERS = [
  "<!-- empty-table:begin (npm run openapi writes this table from the REST declarations) -->",
  "<!-- empty-table:end -->",
] as const;

export const ENDPOINT_TABLE_MARKERS = [
  "<!-- endpoint-table:begin (npm run openapi writes this table from the REST declarations) -->",
  "<!-- endpoint-table:end -->",
] as const;

export const AREA_TABLE_MARKERS = [
  "<!-- area-table:begin (npm run openapi writes this table from the REST declarations) -->",
  "<!-- area-table:end -->",
] as const;

/** The README and docs/contract.md with their tables as the declarations write them. */
export function withEndpointTables(
  docs: { readme: string; contract: string },
  routes: readonly DocumentedRoute[],
): { readme: string; contract: string } {
  return {
    readme: withTable(docs.readme, AREA_TABLE_MARKERS, areaTableMarkdown(routes)),
    contract: withTable(
      withTable(docs.contract, ENDPOINT_TABLE_MARKERS, endpointTableMarkdown(routes)),
      EMPTY_TABLE_MARKERS,
      emptyAnswerTableMarkdown(routes),
    ),
  };
}

/** `markdown` with the text between the markers replaced by `table`; throws when the markers are missing. */
export function withTable(
  markdown: string,
  [beginMarker, endMarker]: readonly [string, string],
  table: string,
): string {
  const begin = markdown.indexOf(beginMarker);
  const end = markdown.indexOf(endMarker);
  if (begin < 0 || end < begin) throw new Error(`the markers ${beginMarker} … ${endMarker} are missing`);
  return markdown.slice(0, begin + beginMarker.length) + "\n\n" + table + "\n" + markdown.slice(end);
}
