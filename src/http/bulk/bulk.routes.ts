import type { GraphQLSchema } from "graphql";
import type { Logger } from "pino";
import { z } from "zod";
import { errorBodySchema } from "../rest/rest.response";
import { VERSIONS, type HandlerRoute, type RouteEntry } from "../rest/rest.route";
import { BulkService, type BulkRequest } from "./bulk.service";

/**
 * The bulk envelope (docs/contract.md section 6). Items are checked one by one
 * against the named entry's own body, so a malformed item is that item's 404,
 * never the call's; the symbol limit is configuration, checked in the service.
 */
export const bulkBody: z.ZodType<BulkRequest> = z.object({
  endpoint: z
    .string({ error: "expected a string naming a single-security endpoint, e.g. etf/profile" })
    .trim()
    .min(1, { error: "expected a non-empty string naming a single-security endpoint, e.g. etf/profile" }),
  symbols: z
    .array(z.unknown(), { error: "expected an array of {symbol} (or {isin}, {cusip}, {wkn})" })
    .min(1, { error: "expected at least one {symbol}" })
    .describe("One item per security, each named by exactly one of symbol, isin, cusip or wkn"),
  params: z
    .record(z.string(), z.unknown(), { error: "expected an object of the named endpoint's fields" })
    .nullish()
    .transform((p) => p ?? {}),
});

/** How an item named its security, echoed in its result. */
const itemEcho = {
  symbol: z.string().nullable().describe("The item's symbol as sent (null when it was not a string or not sent)"),
  isin: z.string().optional().describe("The item's isin, when it named its security by one"),
  cusip: z.string().optional().describe("The item's cusip, when it named its security by one"),
  wkn: z.string().optional().describe("The item's wkn, when it named its security by one"),
};

/** The 200 body: one result per symbol, in request order. */
export const bulkResponse = z.object({
  endpoint: z.string().describe("The named endpoint's path, as the route table spells it (`etf/profile`)"),
  results: z.array(
    z.union([
      z.object({
        ...itemEcho,
        statusCode: z.literal(200),
        data: z.unknown().describe("What the named endpoint answers for `{...params, symbol}` under this version"),
      }),
      z.object({
        ...itemEcho,
        statusCode: z.union([z.literal(403), z.literal(404), z.literal(500)]),
        error: errorBodySchema.describe("The error body the named endpoint would answer for this item"),
      }),
    ]),
  ),
});

/**
 * `POST /v0/bulk` and `/v1/bulk`: the router's checks (key, `bulk` scope, body), then every item under the call's one
 * context (bulk.service.ts).
 */
export function bulkRoute(
  schema: GraphQLSchema,
  routes: readonly RouteEntry[],
  logger: Logger,
): HandlerRoute<BulkRequest> {
  // Made on the first call: the OpenAPI document reads this entry too, and never runs it.
  let service: BulkService | undefined;
  return {
    path: "bulk",
    summary:
      "The same single-security endpoint for up to MDG_BULK_MAX_SYMBOLS symbols in one call, with a status per item",
    versions: VERSIONS,
    scope: "bulk",
    body: bulkBody,
    response: bulkResponse,
    run: (body, ctx, version) => (service ??= new BulkService(schema, routes, logger)).run(body, ctx, version),
  };
}
