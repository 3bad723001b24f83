import { z } from "zod";
import { InternalError } from "../../../platform/errors";
import { currencyField, securityRefBody, securityRefWith, securityVariables } from "../rest.body";
import { FinancialsTtmDocument, StockDividendEstimateDocument } from "../rest.operations.generated";
import { example } from "../rest.examples";
import { route, VERSIONS, type RouteEntry } from "../rest.route";
import { day, gqlObject, unixSeconds } from "../rest.response";
import { dividendEstimateResponse } from "./dividend.routes";

const flows = {
  revenue: z.number(),
  costOfRevenue: z.number(),
  grossProfit: z.number(),
  operatingIncome: z.number(),
  netIncome: z.number(),
  eps: z.number(),
  operatingCashFlow: z.number(),
  capex: z.number(),
  freeCashFlow: z.number(),
  dividendsPaid: z.number(),
};

const balanceSheet = {
  totalAssets: z.number(),
  totalLiabilities: z.number(),
  totalEquity: z.number(),
  cash: z.number(),
  totalDebt: z.number(),
  sharesOutstanding: z.number(),
};

/**
 * docs/api-stock-dividend.md: the last four quarters reported on or before today; with fewer, the quarters there are
 * and null figures (docs/contract.md section 4).
 */
const financialsTtmResponse = gqlObject("FinancialsTtm", {
  symbol: z.string(),
  currency: z.string(),
  asOf: day.nullable().describe("Null when no quarter is reported"),
  quarters: z.array(
    gqlObject("FinancialQuarter", {
      periodEnd: day,
      fiscalYear: z.int(),
      fiscalQuarter: z.int().min(1).max(4),
      reportedDate: day,
      ...flows,
      ...balanceSheet,
    }),
  ),
  ttm: gqlObject("TtmFlows", flows).nullable().describe("Null with fewer than four reported quarters"),
  balanceSheet: gqlObject("TtmBalanceSheet", balanceSheet)
    .nullable()
    .describe("Null with fewer than four reported quarters"),
  ratios: gqlObject("TtmRatios", {
    grossMargin: z.number().nullable(),
    operatingMargin: z.number().nullable(),
    netMargin: z.number().nullable(),
    returnOnEquity: z.number().nullable(),
    returnOnAssets: z.number().nullable(),
    debtToEquity: z.number().nullable(),
    peRatio: z.number().nullable(),
    psRatio: z.number().nullable(),
  })
    .nullable()
    .describe("Null with fewer than four reported quarters"),
  price: gqlObject("TtmPrice", {
    c: z.number(),
    currency: z.string(),
    t: unixSeconds,
    fxRate: z.number(),
    inReportingCurrency: z.number(),
    marketCapitalization: z.number(),
  })
    .nullable()
    .describe("Null with fewer than four reported quarters, or when the listing has no price"),
});

const stockRefBody = securityRefBody.transform(securityVariables);

/** A nullable field of the stock is only null after an error, which execution has already thrown. */
function present<T>(value: T | null, what: string): T {
  if (value == null) throw new InternalError(`${what}: no data and no error`);
  return value;
}

export const STOCK_ROUTES: readonly RouteEntry[] = [
  route({
    path: "stock/financials/ttm",
    summary:
      "Trailing-twelve-month financials of a stock: flows of the last four quarters, the latest balance sheet, ratios",
    versions: VERSIONS,
    scope: "stock",
    body: securityRefWith({ currency: currencyField.optional() }).transform((b) => ({
      ...securityVariables(b),
      currency: b.currency ?? null,
    })),
    operation: FinancialsTtmDocument,
    shape: (d) => present(d.stock.financialsTtm, "financials TTM"),
    response: financialsTtmResponse,
    examples: (s) => ({ stock: example("The first stock", { symbol: s.stock }) }),
    emptyExample: {
      summary: "A known stock with fewer than four reported quarters (here none)",
      value: {
        symbol: "NEWCO",
        currency: "USD",
        asOf: null,
        quarters: [],
        ttm: null,
        balanceSheet: null,
        ratios: null,
        price: null,
      },
    },
    emptyAnswer:
      "the reported quarters there are (fewer than four), `asOf` of the latest or null, `ttm`, `balanceSheet`, " +
      "`ratios`, `price` null; with four quarters but no price, `price` and the price ratios null",
    singleSecurity: true,
  }),
  route({
    path: "stock/dividend-estimate",
    summary: "Expected dividends of a stock over the next twelve months (announced, then estimated)",
    versions: VERSIONS,
    scope: "dividend",
    body: stockRefBody,
    operation: StockDividendEstimateDocument,
    shape: (d) => present(d.stock.dividendEstimate, "dividend estimate"),
    response: dividendEstimateResponse,
    examples: (s) => ({ stock: example("The first stock", { symbol: s.stock }) }),
    emptyAnswer:
      "`dividends: []`, `total: 0`, `frequency: null` (none), the window, a `method` saying nothing is estimated",
    singleSecurity: true,
  }),
];
