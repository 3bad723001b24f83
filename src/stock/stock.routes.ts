import { InternalError } from "../common/errors";
import { securityRefBody } from "../rest/rest.body";
import { FinancialsTtmDocument, StockDividendEstimateDocument } from "../rest/rest.operations.generated";
import { route, VERSIONS, type RouteEntry } from "../rest/rest.route";

const stockRefBody = securityRefBody.transform((b) => ({ symbol: b.symbol ?? null, isin: b.isin ?? null }));

/** A nullable field of the stock is only null after an error, which execution has already thrown. */
function present<T>(value: T | null, what: string): T {
  if (value == null) throw new InternalError(`${what}: no data and no error`);
  return value;
}

export const STOCK_ROUTES: readonly RouteEntry[] = [
  route({
    path: "stock/financials/ttm",
    summary: "Trailing-twelve-month financials of a stock: flows of the last four quarters, the latest balance sheet, ratios",
    versions: VERSIONS,
    scope: "stock",
    body: stockRefBody,
    operation: FinancialsTtmDocument,
    shape: (d) => present(d.stock.financialsTtm, "financials TTM"),
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
    singleSecurity: true,
  }),
];
