import { z } from "zod";
import { InternalError } from "../../../platform/errors";
import { CANDLE_ADJUSTMENTS } from "../../../domain/candle/candle.types";
import { aliasValue, RESOLUTION_NAMES } from "../rest.aliases";
import { currencyField, securityRefWith, securityVariables, unixTimeField } from "../rest.body";
import { CandleDocument, StockCandleDocument } from "../rest.operations.generated";
import { example } from "../rest.examples";
import { route, VERSIONS, type RouteEntry } from "../rest.route";
import { gqlObject, stringOf, unixSeconds } from "../rest.response";

/** docs/contract.md section 4: parallel arrays, the series' key, plus the currency of the prices. */
const candlesResponse = gqlObject("Candles", {
  symbol: z.string(),
  s: stringOf(["ok", "no_data"]).describe('"no_data" (with empty arrays) when the security has no bars in the range'),
  t: z.array(unixSeconds),
  o: z.array(z.number()),
  h: z.array(z.number()),
  l: z.array(z.number()),
  c: z.array(z.number()),
  v: z.array(z.number()),
  from: unixSeconds,
  to: unixSeconds,
  resolution: stringOf(["1", "5", "15", "30", "60", "D", "W", "M"]),
  key: z.string().describe("Names the series: SYMBOL:RESOLUTION:CURRENCY"),
  currency: z.string(),
});

/**
 * Resolutions arrive as strings ("D", "15"), from some clients as numbers (15), or as the Python SDK's enum names
 * ("DAILY", "SIXTY": rest.aliases.ts).
 */
export const resolutionField = z
  .union([z.string(), z.number()], { error: "expected one of 1, 5, 15, 30, 60, D, W, M" })
  .transform((v) => String(aliasValue(RESOLUTION_NAMES, v)))
  .describe(
    "Bar size: 1, 5, 15, 30, 60 (minutes), D, W or M (case-insensitive), or the Python SDK's names (ONE, FIVE, " +
      "SIXTY, DAILY, WEEKLY, MONTHLY); default D",
  );

const ADJUSTMENT_TEXT = `expected one of ${CANDLE_ADJUSTMENTS.join(", ")}`;

/** REST's lower-case values (any case accepted), as the GraphQL enum's names the operation passes on. */
const adjustmentField = z
  .string({ error: ADJUSTMENT_TEXT })
  .meta({ enum: [...CANDLE_ADJUSTMENTS] })
  .transform((v, ctx) => {
    const a = CANDLE_ADJUSTMENTS.find((x) => x === v.trim().toLowerCase());
    if (!a) {
      ctx.addIssue({ code: "custom", message: ADJUSTMENT_TEXT });
      return z.NEVER;
    }
    return a.toUpperCase() as Uppercase<typeof a>;
  })
  .describe(
    "The corporate actions prices are adjusted for (case-insensitive): splits (the default), all (splits and " +
      "dividends, a total-return series) or none (as traded)",
  );

/** `{symbol | isin | cusip | wkn, from?, to?, resolution?, currency?, adjustment?}` as the operations' variables. */
export const candleBody = securityRefWith({
  from: unixTimeField.optional(),
  to: unixTimeField.optional(),
  resolution: resolutionField.optional(),
  currency: currencyField.optional(),
  adjustment: adjustmentField.optional(),
}).transform((b) => ({
  ...securityVariables(b),
  from: b.from ?? null,
  to: b.to ?? null,
  resolution: b.resolution ?? null,
  currency: b.currency ?? null,
  adjustment: b.adjustment ?? null,
}));

export const CANDLE_ROUTES: readonly RouteEntry[] = [
  route({
    path: "candle",
    summary: "OHLCV candles of a stock, ETF, fund, crypto pair or forex pair (1, 5, 15, 30, 60, D, W, M)",
    versions: VERSIONS,
    // The resolver requires the scope of the security's type, as quote does.
    scope: null,
    body: candleBody,
    operation: CandleDocument,
    shape: (d) => d.candle,
    response: candlesResponse,
    maxAgeSeconds: 60,
    examples: (s) => ({
      daily: example("The first stock's daily bars (the default range)", { symbol: s.stock, resolution: "D" }),
      weekly: example("Weekly bars of 2026", { symbol: s.etf, resolution: "W", from: "2026-01-01" }),
      crypto: example("A crypto pair's daily bars in euros", { symbol: s.crypto, resolution: "D", currency: "EUR" }),
      totalReturn: example("The first stock's daily bars adjusted for splits and dividends (a total-return series)", {
        symbol: s.stock,
        resolution: "D",
        adjustment: "all",
      }),
    }),
    emptyExample: {
      summary: "A known security without bars in the range (docs/contract.md section 4)",
      value: {
        symbol: "AAPL",
        s: "no_data",
        ...{ t: [], o: [], h: [], l: [], c: [], v: [] },
        from: 31_536_000,
        to: 36_719_999,
        resolution: "D",
        key: "AAPL:D:USD",
        currency: "USD",
      },
    },
    emptyAnswer: '`s: "no_data"`, empty arrays, `from`, `to`, `resolution`, `key`, `currency`',
    singleSecurity: true,
  }),
  route({
    path: "stock/candle",
    summary: "Candles of a stock (removed 2024-12-31; use /v1/candle)",
    versions: ["v0"],
    scope: "stock",
    body: candleBody,
    operation: StockCandleDocument,
    shape: (d) => {
      if (!d.stock.candles) throw new InternalError("stock candle: no candles and no error");
      return d.stock.candles;
    },
    response: candlesResponse,
    maxAgeSeconds: 60,
    examples: (s) => ({ daily: example("The first stock's daily bars", { symbol: s.stock, resolution: "D" }) }),
    emptyExample: {
      summary: "A known security without bars in the range (docs/contract.md section 4)",
      value: {
        symbol: "AAPL",
        s: "no_data",
        ...{ t: [], o: [], h: [], l: [], c: [], v: [] },
        from: 31_536_000,
        to: 36_719_999,
        resolution: "D",
        key: "AAPL:D:USD",
        currency: "USD",
      },
    },
    emptyAnswer: '`s: "no_data"`, empty arrays, `from`, `to`, `resolution`, `key`, `currency`',
    singleSecurity: true,
    removedOn: "2024-12-31",
    replacement: "/v1/candle",
  }),
];
