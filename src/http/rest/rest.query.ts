import { z } from "zod";
import { REFERENCE_MAX_AGE_SECONDS } from "./rest.route";

/**
 * `GET /v0|v1/<path>?…` for a read endpoint whose body is flat (every field a scalar, or a list of scalars): the query
 * string becomes the JSON body the POST would carry, and the same schema parses it, so both answer alike. Bodies with
 * nested objects (bulk) stay POST only.
 *
 * A query value is text; a field the body reads as a number gets a number when the text is one (`limit=5`), a field
 * that takes a number or a text (`from=1767225600` or `from=2026-01-01`) a number when the text is a plain number
 * (but 11 to 13 digits, milliseconds, which those fields take only as text, as a POST must send them), a
 * boolean field `true`/`false`, and a list field every value of its repeated key (`types=etf&types=stock`). Anything
 * else stays text, so the schema refuses it with the message a POST of that text would get. Keys the body does not
 * know stay text, and are ignored as unknown body fields are.
 */
export type QueryFieldKind = "text" | "number" | "numberOrText" | "boolean" | "list";

export type QueryShape = ReadonlyMap<string, QueryFieldKind>;

const shapes = new WeakMap<z.ZodType, QueryShape | null>();

/** The query form of a body schema, or null when the body is not flat (then the endpoint is POST only). */
export function queryShapeOf(body: z.ZodType): QueryShape | null {
  let shape = shapes.get(body);
  if (shape === undefined) shapes.set(body, (shape = computeShape(body)));
  return shape;
}

type JsonSchema = { type?: string | string[]; anyOf?: JsonSchema[]; items?: JsonSchema; properties?: object };

function computeShape(body: z.ZodType): QueryShape | null {
  const json = z.toJSONSchema(body, { io: "input", unrepresentable: "any" }) as JsonSchema;
  if (json.type !== "object" || !json.properties) return null;
  const shape = new Map<string, QueryFieldKind>();
  for (const [name, field] of Object.entries(json.properties as Record<string, JsonSchema>)) {
    const kind = kindOf(field);
    if (kind === null) return null;
    shape.set(name, kind);
  }
  return shape;
}

const SCALARS = new Set(["string", "number", "integer", "boolean", "null"]);

function typesOf(field: JsonSchema): string[] | null {
  if (field.anyOf) {
    const all = field.anyOf.map(typesOf);
    return all.some((t) => t === null) ? null : (all.flat() as string[]);
  }
  if (field.type === undefined) return "enum" in field || "const" in field ? ["string"] : null;
  return Array.isArray(field.type) ? field.type : [field.type];
}

function kindOf(field: JsonSchema): QueryFieldKind | null {
  const types = typesOf(field);
  if (types === null) return null;
  if (types.includes("array")) {
    const items = field.items ?? field.anyOf?.find((f) => f.items)?.items;
    const itemTypes = items ? typesOf(items) : null;
    return itemTypes && itemTypes.every((t) => SCALARS.has(t)) && types.every((t) => t === "array") ? "list" : null;
  }
  if (!types.every((t) => SCALARS.has(t))) return null;
  const numeric = types.includes("number") || types.includes("integer");
  if (numeric) return types.includes("string") ? "numberOrText" : "number";
  return types.includes("boolean") && !types.includes("string") ? "boolean" : "text";
}

/** A plain decimal number as JSON writes one: no hex, no exponent games, no white space. */
const NUMBER_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?$/;

/** The body a GET's query string stands for (see the module's comment). */
export function queryToBody(search: string, shape: QueryShape): Record<string, unknown> {
  const params = new URLSearchParams(search);
  const body: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    const kind = shape.get(name) ?? "text";
    if (kind === "list") {
      body[name] = values;
      continue;
    }
    // A scalar named twice stays a list, which the schema refuses: which one the client meant is not ours to guess.
    const read = values.map((v) => scalar(v, kind));
    body[name] = read.length === 1 ? read[0] : read;
  }
  return body;
}

/** Milliseconds as the Dart SDK sends them, in text (rest.body.ts's time fields read that form only as text). */
const MILLISECOND_TEXT = /^\d{11,13}$/;

function scalar(text: string, kind: QueryFieldKind): unknown {
  if (kind === "numberOrText" && MILLISECOND_TEXT.test(text)) return text;
  if ((kind === "number" || kind === "numberOrText") && NUMBER_TEXT.test(text)) return Number(text);
  if (kind === "boolean" && (text === "true" || text === "false")) return text === "true";
  return text;
}

/**
 * How long a browser or an app may keep a GET answer (`Cache-Control: private, max-age=…`): the endpoint's
 * declaration says (`maxAgeSeconds`), reference data's hour when it does not. `private`: an answer is the calling
 * key's (its scopes and quota), so no shared cache may keep it.
 */
export function getMaxAgeSeconds(route: object): number {
  const declared = "maxAgeSeconds" in route ? route.maxAgeSeconds : undefined;
  return typeof declared === "number" ? declared : REFERENCE_MAX_AGE_SECONDS;
}

/** The Cache-Control of a GET answer: kept privately for its endpoint's time when it is a 200, never otherwise. */
export function getCacheControl(route: object, status: number): string {
  return status === 200 ? `private, max-age=${getMaxAgeSeconds(route)}` : "no-store";
}
