import type { RequestContext } from "../request.context";
import type { SecurityRef } from "../instrument/instrument.service";
import { getQuote, getQuotes, metricsOf } from "./quote.service";
import type { Quote, QuoteMetrics } from "./quote.types";

/** Latest quotes, as the resolvers ask for them (the answer level: see etf/etf.answers.ts). */
export interface QuoteAnswers {
  get(ctx: RequestContext, ref: SecurityRef & { currency?: string | null }): Promise<Quote>;
  /** In request order: null where a symbol names nothing, an Error where the item fails alone. */
  getMany(ctx: RequestContext, symbols: readonly string[], currency?: string | null): Promise<(Quote | Error | null)[]>;
  /** The company metrics of a quote this answers made (docs/contract.md section 4); synchronous, on the hot path. */
  metrics(quote: Quote): QuoteMetrics | null;
}

/** The answers computed by the domain services from a row store's rows. */
export const ROW_STORE_QUOTE_ANSWERS: QuoteAnswers = Object.freeze({
  get: getQuote,
  getMany: getQuotes,
  metrics: metricsOf,
});
