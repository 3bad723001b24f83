import { z } from "zod";
import {
  SCREENER_DEFAULT_LIMIT,
  SCREENER_MAX_CONDITIONS,
  SCREENER_MAX_LIMIT,
} from "../../../domain/screener/screener.service";
import { SCREENER_METRICS, SCREENER_OPERATORS } from "../../../domain/screener/screener.index";
import { ScreenerDocument } from "../rest.operations.generated";
import { example } from "../rest.examples";
import { route, VERSIONS, type RouteEntry } from "../rest.route";

/** The operation `screener` runs; `npm run generate` types it as ScreenerDocument. */
export const SCREENER_OPERATION = /* GraphQL */ `
  query Screener($query: [ScreenerCondition!]!, $sort: [ScreenerSort!], $offset: Int, $limit: Int) {
    screener(query: $query, sort: $sort, offset: $offset, limit: $limit) {
      symbol
      name
      isin
      values {
        metric
        value
      }
    }
  }
`;

/**
 * What client.stock.screener(query_items, offset, limit) posts: the SDK's QueryItem dicts under `query`; the metric
 * and operator names are checked by the service, which names the allowed ones in its message.
 */
const screenerBody = z
  .object({
    query: z
      .array(
        z.object({
          metric: z
            .string()
            .max(64)
            .describe(`One of ${SCREENER_METRICS.join(", ")}`),
          operator: z
            .string()
            .max(8)
            .describe(`One of ${SCREENER_OPERATORS.join(", ")}`),
          value: z.number().describe("The number the metric's value is compared with"),
        }),
      )
      .max(SCREENER_MAX_CONDITIONS)
      .describe("Every condition must hold (at least one)"),
    sort: z
      .array(
        z.object({
          metric: z.string().max(64),
          order: z.string().max(8).optional().describe("asc (default) or desc"),
        }),
      )
      .max(SCREENER_MAX_CONDITIONS)
      .optional()
      .describe("Sort keys, as the SDK's SortItem; default: the narrowest condition's metric, ascending"),
    offset: z.number().optional().describe("Stocks to skip; default 0"),
    limit: z
      .number()
      .optional()
      .describe(`Stocks to answer at most; default ${SCREENER_DEFAULT_LIMIT}, at most ${SCREENER_MAX_LIMIT}`),
  })
  .transform((b) => ({
    query: b.query,
    sort: b.sort?.map((s) => ({ metric: s.metric, order: s.order ?? null })) ?? null,
    offset: b.offset ?? null,
    limit: b.limit ?? null,
  }));

/** The Bavest Python SDK's `Screener` model: `statusCode` and `results`, each a stock with its metrics' values. */
const screenerResponse = z.object({
  statusCode: z.literal(200).describe("Always 200"),
  results: z
    .array(
      z
        .object({
          symbol: z.string().describe("Symbol of the stock's primary listing"),
          name: z.string(),
          isin: z.string().nullable(),
        })
        .catchall(z.number().describe("The value of a metric the query or sort names, under the metric's name")),
    )
    .describe("At most `limit` stocks from `offset`, in the sort's order"),
});

type ScreenerResults = z.infer<typeof screenerResponse>["results"];

export const SCREENER_ROUTES: readonly RouteEntry[] = [
  route({
    path: "screener",
    summary:
      "Stocks whose metrics (ratios of the trailing twelve months and the latest price) meet every condition, in " +
      "the Bavest SDK's shape",
    versions: VERSIONS,
    scope: "stock",
    body: screenerBody,
    operation: ScreenerDocument,
    shape: (d) => ({
      statusCode: 200 as const,
      // The metrics' keys beside the identity: the type of a catch-all cannot say the three named keys differ.
      results: d.screener.map((h) => ({
        ...Object.fromEntries(h.values.map((v) => [v.metric, v.value])),
        symbol: h.symbol,
        name: h.name,
        isin: h.isin ?? null,
      })) as ScreenerResults,
    }),
    response: screenerResponse,
    maxAgeSeconds: 300,
    examples: () => ({
      python: example("What client.stock.screener(query_items) posts", {
        query: [
          { metric: "priceEarningsRatio", operator: "lt", value: 15 },
          { metric: "returnOnEquity", operator: "gt", value: 0.1 },
        ],
        offset: 0,
        limit: 100,
      }),
      sorted: example("Sorted by a metric, largest first", {
        query: [{ metric: "ebitMargin", operator: "gte", value: 0.2 }],
        sort: [{ metric: "ev", order: "desc" }],
        limit: 10,
      }),
    }),
    emptyAnswer: "`statusCode: 200`, `results: []`",
    singleSecurity: false,
  }),
];
