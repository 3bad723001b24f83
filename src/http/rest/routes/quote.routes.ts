import { z } from "zod";
import { securityCurrencyBody } from "../rest.body";
import { QuoteDocument, type QuoteQuery } from "../rest.operations.generated";
import { example } from "../rest.examples";
import { route, VERSIONS, type RouteEntry } from "../rest.route";
import { day, gqlObject, unixSeconds } from "../rest.response";

/** docs/contract.md section 4: the keys existing SDKs parse, some of which GraphQL cannot spell. */
const quoteResponse = gqlObject("Quote", {
  symbol: z.string(),
  c: z.number(),
  d: z.number(),
  dp: z.number(),
  h: z.number(),
  l: z.number(),
  o: z.number(),
  pc: z.number(),
  t: unixSeconds,
  v: z.number(),
  currency: z.string(),
  exchange: z.string(),
  earningsAnnouncement: day.nullable(),
  historical_price: z
    .object({
      day: z.number().nullable().describe("Close of the last trading day"),
      "50days": z.number().nullable().describe("Average close of the last 50 trading days"),
      "200days": z.number().nullable().describe("Average close of the last 200 trading days"),
    })
    .describe("GraphQL: historicalPrice { day fiftyDays twoHundredDays }"),
  metrics: z
    .strictObject({
      marketCapitalization: z.number(),
      avgVolume: z.number(),
      eps: z.number().describe("Trailing twelve months"),
      "pe/ratio": z
        .number()
        .optional()
        .describe("Price over trailing EPS (GraphQL: peRatio); left out when TTM earnings are not positive"),
      sharesOutstanding: z.number(),
    })
    .nullable()
    .describe(
      "Stocks; null where a required figure does not exist for the security (no EPS for ETFs and funds, " +
        "none of them for crypto and forex) or is not known. Never null inside.",
    ),
});

/** The contract's quote shape (docs/contract.md section 4), whose keys GraphQL names cannot spell. */
function quoteShape(data: QuoteQuery) {
  const q = data.quote;
  return {
    symbol: q.symbol,
    c: q.c,
    d: q.d,
    dp: q.dp,
    h: q.h,
    l: q.l,
    o: q.o,
    pc: q.pc,
    t: q.t,
    v: q.v,
    currency: q.currency,
    exchange: q.exchange,
    earningsAnnouncement: q.earningsAnnouncement,
    historical_price: {
      day: q.historicalPrice.day,
      "50days": q.historicalPrice.fiftyDays,
      "200days": q.historicalPrice.twoHundredDays,
    },
    metrics: q.metrics && {
      marketCapitalization: q.metrics.marketCapitalization,
      avgVolume: q.metrics.avgVolume,
      eps: q.metrics.eps,
      // Client models take a missing `pe/ratio` but refuse a null one (docs/contract.md section 4).
      ...(q.metrics.peRatio == null ? {} : { "pe/ratio": q.metrics.peRatio }),
      sharesOutstanding: q.metrics.sharesOutstanding,
    },
  };
}

export const QUOTE_ROUTES: readonly RouteEntry[] = [
  route({
    path: "quote",
    summary: "Latest quote of a stock, ETF, fund, crypto pair or forex pair",
    versions: VERSIONS,
    scope: null,
    body: securityCurrencyBody,
    operation: QuoteDocument,
    shape: quoteShape,
    response: quoteResponse,
    maxAgeSeconds: 5,
    examples: (s) => ({
      stock: example("The first stock, by symbol", { symbol: s.stock }),
      etf: example("The first ETF", { symbol: s.etf }),
      fund: example("The first fund, by ISIN", { isin: s.fundIsin }),
      crypto: example("A crypto pair", { symbol: s.crypto }),
      forex: example("A forex pair", { symbol: s.forex }),
      converted: example("The first stock, prices in another currency", { symbol: s.stock, currency: "JPY" }),
    }),
    emptyAnswer:
      "no empty form (every field is a price the client's model requires): a listing without any price answers " +
      "404 `NOT_FOUND` saying so; every listing of the sample has one",
    singleSecurity: true,
  }),
];
