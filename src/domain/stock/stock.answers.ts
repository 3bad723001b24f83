import type { RequestContext } from "../request.context";
import { candlesOf } from "../candle/candle.service";
import type { CandleRangeArgs, Candles } from "../candle/candle.types";
import { annualDividendsOf, dividendEstimateOf, dividendsOf } from "../dividend/dividend.service";
import type { AnnualDividends, Dividend, DividendEstimate } from "../dividend/dividend.types";
import type { SecurityRef } from "../instrument/instrument.service";
import { financialsTtmOf, getStock } from "./stock.service";
import type { FinancialsTtm, Stock } from "./stock.types";

/** Every answer about a stock, as the resolvers ask for them (the answer level: see etf/etf.answers.ts). */
export interface StockAnswers {
  get(ctx: RequestContext, ref: SecurityRef): Promise<Stock>;
  /** In the reporting currency, or converted into `currency`. */
  financialsTtm(ctx: RequestContext, stock: Stock, currency?: string | null): Promise<FinancialsTtm>;
  candles(ctx: RequestContext, stock: Stock, args: CandleRangeArgs): Promise<Candles>;
  /** Known today, oldest first, optionally within ex-dates [from, to]. */
  dividends(ctx: RequestContext, stock: Stock, from?: string | null, to?: string | null): Promise<Dividend[]>;
  /** In the dividends' currency, or converted into `currency`. */
  annualDividends(ctx: RequestContext, stock: Stock, currency?: string | null): Promise<AnnualDividends>;
  dividendEstimate(ctx: RequestContext, stock: Stock): Promise<DividendEstimate>;
}

/** The answers computed by the domain services from a row store's rows. */
export const ROW_STORE_STOCK_ANSWERS: StockAnswers = Object.freeze({
  get: getStock,
  financialsTtm: (ctx: RequestContext, stock: Stock, currency?: string | null) =>
    financialsTtmOf(ctx, stock.row, currency),
  candles: (ctx: RequestContext, stock: Stock, args: CandleRangeArgs) => candlesOf(ctx, stock.row, args),
  dividends: (ctx: RequestContext, stock: Stock, from?: string | null, to?: string | null) =>
    dividendsOf(ctx, stock.row, from, to),
  annualDividends: (ctx: RequestContext, stock: Stock, currency?: string | null) =>
    annualDividendsOf(ctx, stock.row, currency),
  dividendEstimate: (ctx: RequestContext, stock: Stock) => dividendEstimateOf(ctx, stock.row),
});
