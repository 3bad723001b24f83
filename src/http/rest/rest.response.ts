import { z } from "zod";
import type { ErrorCode } from "../../platform/errors";
import type { ErrorBody } from "./rest.errors";

/**
 * Building blocks of the routes' `response` schemas (see `RouteEntry.response`):
 * the contract's conventions (docs/contract.md section 4) written once, so every
 * response schema says "day", "Unix seconds" or "percent" the same way and the
 * OpenAPI document describes them alike.
 *
 * Objects are tagged with the GraphQL type they come from (`gqlType`): the
 * OpenAPI generator fills in the description of each property from that
 * type's field descriptions, so REST and GraphQL docs read the same.
 */

/** `YYYY-MM-DD` (UTC). */
export const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .meta({ format: "date", examples: ["2026-11-20"] });

/** Unix seconds. */
export const unixSeconds = z
  .int()
  .min(0)
  .meta({ examples: [1763596800] });

/** ISO 4217 code. */
export const currency = z.string().regex(/^[A-Z]{3}$/);

/** Percent as a number: 12.5 means 12.5 %. */
export const percent = z.number();

/**
 * A string the document lists the values of, where GraphQL types it as a
 * plain String (`"ok"`, resolutions, asset classes): the TypeScript type stays
 * `string`, so it still matches the operation's generated type, while the
 * document (and the test suite's validation against it) holds the values.
 */
export function stringOf(values: readonly [string, ...string[]]) {
  return z.string().meta({ enum: [...values] });
}

/** An integer the document lists the values of, where GraphQL types it as Int (search's `statusCode`, always 200). */
export function intOf(values: readonly [number, ...number[]]) {
  return z.int().meta({ enum: [...values] });
}

/** Tags an object schema with the GraphQL type whose fields it mirrors (descriptions come from there). */
export function gqlType<T extends z.ZodType>(schema: T, typeName: string): T {
  return schema.meta({ "x-graphql-type": typeName }) as T;
}

/**
 * Marks where the 200 body of another route goes (bulk's `data`): the OpenAPI document writes a `$ref` to that
 * route's response schema of the same version, so the document states each endpoint's shape once.
 */
export const RESPONSE_OF = "x-response-of";

/**
 * Marks a schema the document holds once, as a named component (`ErrorBody`): it writes a `$ref` to it, adding the
 * component at the first reference.
 */
export const COMPONENT_REF = "x-component-ref";

/** The 200 body of the route at `path` (route-table spelling), by reference in the document. */
export function responseOf(path: string, description: string) {
  return z.unknown().meta({ [RESPONSE_OF]: path, description });
}

/** `schema`, written in the document as a `$ref` to the component `name`. */
export function componentRef<T extends z.ZodType>(schema: T, name: string): T {
  return schema.meta({ [COMPONENT_REF]: name }) as T;
}

/** A `z.object` tagged with its GraphQL type: `gqlObject("EtfProfile", {...})`. */
export function gqlObject<S extends z.ZodRawShape>(typeName: string, shape: S) {
  return gqlType(z.object(shape), typeName);
}

/** Every `code` of the error body, in the order of docs/contract.md section 3. */
export const ERROR_CODES = [
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "QUOTA_EXCEEDED",
  "INVALID_ARGUMENT",
  "NOT_FOUND",
  "NOT_AVAILABLE",
  "ENDPOINT_REMOVED",
  "UPSTREAM_UNAVAILABLE",
  "BUSY",
  "INTERNAL",
] as const satisfies readonly ErrorCode[];

// A code added to ErrorCode but not above fails to compile here.
const everyCodeListed: [Exclude<ErrorCode, (typeof ERROR_CODES)[number]>] extends [never] ? true : false = true;
void everyCodeListed;

/** The contract's error body (docs/contract.md section 3), as `mapError` builds it. */
export const errorBodySchema = z
  .object({
    statusCode: z
      .union([z.literal(401), z.literal(403), z.literal(404), z.literal(500)])
      .describe("The HTTP status, repeated"),
    error: z
      .enum(["Unauthorized", "Forbidden", "Not Found", "Internal Server Error"])
      .describe("The status's reason phrase"),
    code: z.enum(ERROR_CODES).describe("What went wrong; a client branches on this, never on the message"),
    message: z.string().min(1).describe("A sentence for a person: which field, which limit, what to do instead"),
    details: z
      .array(
        z.object({
          field: z.string().describe("The request field (`body` for the body as a whole)"),
          issue: z.string(),
        }),
      )
      .optional()
      .describe("One entry per problem found in the request"),
    requestId: z.string().min(1).describe("Same as the `x-request-id` header: quote it when reporting a problem"),
    removedOn: day.optional().describe("ENDPOINT_REMOVED only: the day the endpoint was removed"),
    replacement: z.string().nullable().optional().describe("ENDPOINT_REMOVED only: the path to call instead, or null"),
  })
  .describe("Every answer other than 200: the contract's error body. A 500 never carries internal detail.");

// The schema and the type mapError builds must agree: every schema body is an ErrorBody, and no field of ErrorBody is
// left out.
const schemaFitsBody: ErrorBody = null as unknown as z.infer<typeof errorBodySchema>;
const noFieldLeftOut: [Exclude<keyof ErrorBody, keyof z.infer<typeof errorBodySchema>>] extends [never] ? true : false =
  true;
void schemaFitsBody;
void noFieldLeftOut;
