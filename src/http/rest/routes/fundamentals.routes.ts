import { z } from "zod";
import { InternalError } from "../../../platform/errors";
import { securityCurrencyBody } from "../rest.body";
import { FUNDAMENTALS_DESCRIPTIONS, type FundamentalsFigure } from "../../../domain/stock/stock.fundamentals";
import { StockFundamentalsDocument } from "../rest.operations.generated";
import { example } from "../rest.examples";
import { route, VERSIONS, type RouteEntry } from "../rest.route";
import { day } from "../rest.response";

/** The operation `stock/fundamentals` runs; `npm run generate` types it as StockFundamentalsDocument. */
export const STOCK_FUNDAMENTALS_OPERATION = /* GraphQL */ `
  query StockFundamentals($symbol: String, $isin: String, $cusip: String, $wkn: String, $currency: String) {
    stock(symbol: $symbol, isin: $isin, cusip: $cusip, wkn: $wkn) {
      fundamentals(currency: $currency) {
        currency
        years {
          period
          multiples {
            ev
            evRevenue
            evEbit
            evFcf
            evEbitda
            priceEarningsRatio
            priceBookRatio
            priceCashflowRatio
            priceSalesRatio
            peg
          }
          stability {
            equityRatio
            debtRatio
            debtToEquityRatio
            dynamicLeverage
            cataRatio
            currentRatio
            fixedAssetIntensity
            capitalExpenditureRatio
            assetCoverage1
            assetCoverage2
            cashRatio
            quickRatio
          }
          revenue {
            equityReturn
            salesReturn
            ebitMargin
            ebitdaMargin
            capitalTurnover
            assetsReturn
          }
        }
      }
    }
  }
`;

const figure = (f: FundamentalsFigure) => z.number().nullable().describe(FUNDAMENTALS_DESCRIPTIONS[f]);

/**
 * The Bavest Python SDK's stock fundamentals (`Fundamentals`: `metrics` of `MetricsItem`), every key of its models in
 * their order, and the Dart client's extra stability keys; the Python model wins where they differ.
 */
const fundamentalsResponse = z.object({
  metrics: z
    .array(
      z.object({
        multiples: z.object({
          equityReturn: figure("equityReturn"),
          salesReturn: figure("salesReturn"),
          ebitMargin: figure("ebitMargin"),
          capitalTurnover: figure("capitalTurnover"),
          assetsReturn: figure("assetsReturn"),
          ev: figure("ev").describe(`${FUNDAMENTALS_DESCRIPTIONS.ev}, in currency`),
          "ev/revenue": figure("evRevenue"),
          "ev/ebit": figure("evEbit"),
          "ev/fcf": figure("evFcf"),
          "ev/ebitda": figure("evEbitda"),
          priceEarningsRatio: figure("priceEarningsRatio"),
          priceBookRatio: figure("priceBookRatio"),
          priceCashflowRatio: figure("priceCashflowRatio"),
          priceSalesRatio: figure("priceSalesRatio"),
          peg: figure("peg"),
        }),
        stability: z.object({
          equityRatio: figure("equityRatio"),
          debtRatio: figure("debtRatio"),
          debtToEquityRatio: figure("debtToEquityRatio"),
          dynamicLeverage: figure("dynamicLeverage"),
          currentRatio: figure("currentRatio"),
          fixedAssetIntensity: figure("fixedAssetIntensity"),
          capitalExpenditureRatio: figure("capitalExpenditureRatio"),
          assetCoverage1: figure("assetCoverage1"),
          assetCoverage2: figure("assetCoverage2"),
          cataRatio: figure("cataRatio"),
          ppeRatio: z.null().describe(FUNDAMENTALS_DESCRIPTIONS.ppeRatio),
          cashRatio: figure("cashRatio"),
          quickRatio: figure("quickRatio"),
        }),
        revenue: z.object({
          equityReturn: figure("equityReturn"),
          salesReturn: figure("salesReturn"),
          ebitMargin: figure("ebitMargin"),
          ebitdaMargin: figure("ebitdaMargin"),
          capitalTurnover: figure("capitalTurnover"),
          assetsReturn: figure("assetsReturn"),
        }),
        period: day.describe("Last day of the fiscal year (of its fourth quarter)"),
      }),
    )
    .describe("Each fiscal year with its four quarters reported, newest first"),
  currency: z
    .string()
    .describe("ISO 4217 currency of ev: the one asked for, or the reporting currency of the newest fiscal year"),
});

export const FUNDAMENTALS_ROUTES: readonly RouteEntry[] = [
  route({
    path: "stock/fundamentals",
    summary:
      "Fundamentals of a stock by fiscal year in the Bavest SDKs' shape: returns, margins, balance-sheet structure " +
      "and leverage from the annual statements, multiples at each year's closing price",
    versions: VERSIONS,
    scope: "stock",
    body: securityCurrencyBody,
    operation: StockFundamentalsDocument,
    shape: (d) => {
      const f = d.stock.fundamentals;
      // A nullable field of the stock is only null after an error, which execution has already thrown.
      if (f == null) throw new InternalError("stock fundamentals: no data and no error");
      return {
        metrics: f.years.map(({ multiples: m, stability, revenue: r, period }) => ({
          // The SDK's multiples repeat the year's returns and margins; GraphQL holds them once, under revenue.
          multiples: {
            equityReturn: r.equityReturn,
            salesReturn: r.salesReturn,
            ebitMargin: r.ebitMargin,
            capitalTurnover: r.capitalTurnover,
            assetsReturn: r.assetsReturn,
            ev: m.ev,
            "ev/revenue": m.evRevenue,
            "ev/ebit": m.evEbit,
            "ev/fcf": m.evFcf,
            "ev/ebitda": m.evEbitda,
            priceEarningsRatio: m.priceEarningsRatio,
            priceBookRatio: m.priceBookRatio,
            priceCashflowRatio: m.priceCashflowRatio,
            priceSalesRatio: m.priceSalesRatio,
            peg: m.peg,
          },
          stability: {
            equityRatio: stability.equityRatio,
            debtRatio: stability.debtRatio,
            debtToEquityRatio: stability.debtToEquityRatio,
            dynamicLeverage: stability.dynamicLeverage,
            currentRatio: stability.currentRatio,
            fixedAssetIntensity: stability.fixedAssetIntensity,
            capitalExpenditureRatio: stability.capitalExpenditureRatio,
            assetCoverage1: stability.assetCoverage1,
            assetCoverage2: stability.assetCoverage2,
            cataRatio: stability.cataRatio,
            ppeRatio: null,
            cashRatio: stability.cashRatio,
            quickRatio: stability.quickRatio,
          },
          revenue: {
            equityReturn: r.equityReturn,
            salesReturn: r.salesReturn,
            ebitMargin: r.ebitMargin,
            ebitdaMargin: r.ebitdaMargin,
            capitalTurnover: r.capitalTurnover,
            assetsReturn: r.assetsReturn,
          },
          period,
        })),
        currency: f.currency,
      };
    },
    response: fundamentalsResponse,
    examples: (s) => ({
      dart: example("What the Dart client's fundamentals(SecurityIdentifier(symbol: …)) posts", { symbol: s.stock }),
      currency: example("Enterprise values in euros", { symbol: s.stock, currency: "EUR" }),
    }),
    emptyAnswer:
      "`metrics: []` (no fiscal year with its four quarters reported); in a year, the price figures null without " +
      "a daily close in the 14 days to its end",
    singleSecurity: true,
  }),
];
