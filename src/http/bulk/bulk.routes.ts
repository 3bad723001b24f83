import type { GraphQLSchema } from "graphql";
import type { Logger } from "pino";
import { z } from "zod";
import { example } from "../rest/rest.examples";
import { componentRef, errorBodySchema, responseOf } from "../rest/rest.response";
import { VERSIONS, type ApiVersion, type HandlerRoute, type RouteEntry } from "../rest/rest.route";
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

/** The endpoints bulk may name under a version, in route-table order. */
export function bulkEndpoints(routes: readonly RouteEntry[], version: ApiVersion): [string, ...string[]] {
  const paths = routes.filter((r) => r.singleSecurity && r.versions.includes(version)).map((r) => r.path);
  if (paths.length === 0) throw new Error("bulk: the route table has no single-security endpoint");
  return paths as [string, ...string[]];
}

/**
 * The body as the OpenAPI document states it: what a client should send. The router takes more (`bulkBody`): the
 * endpoint with a version prefix, slashes or capitals, and items that are not `{symbol}` (each its own 404).
 */
function documentedBulkBody(routes: readonly RouteEntry[], version: ApiVersion) {
  return z.object({
    endpoint: z
      .enum(bulkEndpoints(routes, version))
      .describe(
        `A single-security endpoint of /${version}, as its path after /${version}/ ` +
          `(the server also accepts it with the \`/${version}/\` prefix and surrounding slashes)`,
      ),
    symbols: z
      .array(
        z
          .object({
            symbol: z.string().min(1).optional().describe("A security, passed to the named endpoint as its `symbol`"),
            isin: z.string().min(1).optional().describe("Or its ISIN"),
            cusip: z.string().min(1).optional().describe("Or its CUSIP"),
            wkn: z.string().min(1).optional().describe("Or its WKN"),
          })
          .describe("Exactly one of symbol, isin, cusip or wkn"),
      )
      .min(1)
      .describe("At most MDG_BULK_MAX_SYMBOLS items (100 by default); each is answered in its own result"),
    params: z
      .record(z.string(), z.unknown())
      .nullish()
      .describe(
        "The named endpoint's other request fields (its `…Request` schema), the same for every item; " +
          "each item's `symbol` overrides one given here",
      ),
  });
}

/** How an item named its security, echoed in its result. */
const itemEcho = {
  symbol: z.string().nullable().describe("The item's symbol as sent (null when it was not a string or not sent)"),
  isin: z.string().optional().describe("The item's isin, when it named its security by one"),
  cusip: z.string().optional().describe("The item's cusip, when it named its security by one"),
  wkn: z.string().optional().describe("The item's wkn, when it named its security by one"),
};

/** An item the named endpoint would have answered with an error (the same for every endpoint). */
const failedItem = componentRef(
  z
    .object({
      ...itemEcho,
      statusCode: z.union([z.literal(403), z.literal(404), z.literal(500)]),
      // The error body the named endpoint would answer for this item.
      error: componentRef(errorBodySchema, "ErrorBody"),
    })
    .describe("A bulk item the named endpoint answered with an error; the other items are unaffected"),
  "BulkItemError",
);

/**
 * The 200 body: one result per symbol, in request order, each `data` typed as the named endpoint's own 200 body under
 * the call's version (the document refers to that endpoint's response schema): one variant per endpoint, told apart
 * by `endpoint`.
 */
export function bulkResponse(routes: readonly RouteEntry[]): (version: ApiVersion) => z.ZodType {
  return (version) => {
    const variants = bulkEndpoints(routes, version).map((path) =>
      z.object({
        endpoint: z.literal(path).describe("The named endpoint's path, as the route table spells it"),
        results: z
          .array(
            z.union([
              z.object({
                ...itemEcho,
                statusCode: z.literal(200),
                data: responseOf(path, `What POST /${version}/${path} answers for \`{...params, symbol}\``),
              }),
              failedItem,
            ]),
          )
          .describe("One result per item of `symbols`, in request order"),
      }),
    );
    return z.discriminatedUnion("endpoint", variants as [(typeof variants)[0], ...typeof variants]);
  };
}

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
    documentedBody: (version) => documentedBulkBody(routes, version),
    response: bulkResponse(routes),
    examples: (s) => ({
      quotes: example("Quotes of four securities, one identifier each", {
        endpoint: "quote",
        symbols: [{ symbol: s.stock }, { symbol: s.etf }, { isin: s.fundIsin }, { symbol: s.crypto }],
      }),
      candles: example("Weekly candles of two", {
        endpoint: "candle",
        symbols: [{ symbol: s.stock }, { symbol: s.etf }],
        params: { resolution: "W", from: "2026-01-01" },
      }),
    }),
    run: (body, ctx, version) => (service ??= new BulkService(schema, routes, logger)).run(body, ctx, version),
  };
}
