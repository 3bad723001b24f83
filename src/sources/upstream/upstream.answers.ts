import type { Answers } from "../../domain/answers";
import { requireScope } from "../../domain/instrument/instrument.access";
import { readPortfolio } from "../../domain/portfolio/portfolio.service";
import { Quote } from "../../domain/quote/quote.types";
import type { RequestContext } from "../../domain/request.context";
import type { StatementKind } from "../../domain/stock/statement.service";
import type { FinancialsFreq } from "../../domain/stock/statement.types";
import type { Statements } from "../../domain/stock/stock.answers";
import type { Stock } from "../../domain/stock/stock.types";
import { InvalidArgumentError, NotAvailableError } from "../../platform/errors";
import { candleFetcher, type CandleQuery } from "./fetchers/candle.fetchers";
import { cryptoPriceFetcher } from "./fetchers/crypto.fetchers";
import { fxQuoteFetcher } from "./fetchers/fx.fetchers";
import {
  portfolioAllocationFetcher,
  portfolioChartFetcher,
  portfolioMetricFetcher,
  portfolioPriceFetcher,
  portfolioRegionsFetcher,
  portfolioSectorsFetcher,
  portfolioStatsFetcher,
} from "./fetchers/portfolio.fetchers";
import {
  annualDividendsFetcher,
  dividendCalendarFetcher,
  etfDividendEstimateFetcher,
} from "./fetchers/dividend.fetchers";
import {
  etfCountryFetcher,
  etfFetcher,
  etfFundamentalsOf,
  etfHoldingsFetcher,
  etfMetricsFetcher,
  etfProfileFetcher,
  etfSectorFetcher,
} from "./fetchers/etf.fetchers";
import {
  fundAllocationFetcher,
  fundCountryFetcher,
  fundFetcher,
  fundHoldingsFetcher,
  fundProfileOf,
  fundSectorFetcher,
} from "./fetchers/fund.fetchers";
import { LIST_FETCHERS } from "./fetchers/list.fetchers";
import { relayFetcher } from "./fetchers/relay.fetchers";
import { quoteFetcher, quoteMetrics } from "./fetchers/quote.fetchers";
import { aggregatedSearchFetcher, searchFetcher } from "./fetchers/search.fetchers";
import {
  financialsTtmFetcher,
  stockMetricFetcher,
  stockFundamentalsFetcher,
  statementsFetcher,
  screenerFetcher,
  stockDividendEstimateFetcher,
  stockDividendHistoryFetcher,
  earningsCalendarFetcher,
  ipoCalendarFetcher,
  stockPeersFetcher,
  stockPeersWidgetFetcher,
  stockProfileFetcher,
  stockRef,
  stockSplitsFetcher,
  toStock,
} from "./fetchers/stock.fetchers";
import { UpstreamCalls } from "./upstream.calls";
import { fetchMany, fetchOne, type UpstreamFetcher } from "./upstream.fetcher";
import type { UpstreamClient } from "./upstream.types";

/*
 * Gateway mode's answers (docs/contract.md section 9): each GraphQL field asks the upstream's own REST endpoint for
 * it through that endpoint's fetcher (fetchers/<area>.fetchers.ts), which turns the contract's JSON back into our
 * GraphQL types, so that our REST layer, which shapes GraphQL data into the contract, answers what the upstream
 * answered. What stays here is what the row store's answers check too: scopes and per-call limits.
 */

const SECURITY_TYPE_SCOPES = ["stock", "etf", "fund", "crypto"] as const;

/**
 * The scope a quote or candles need is their security's type's (auth.scope-of.ts), which the upstream's quote and
 * candle answers do not state: a quote with company metrics is a stock's; anything else needs a key that may read
 * every type. Stricter than the row store for narrow keys, never looser.
 */
function requireTypeScope(ctx: RequestContext, isStock: boolean): void {
  if (isStock) return requireScope(ctx, "stock");
  for (const scope of SECURITY_TYPE_SCOPES) requireScope(ctx, scope);
}

/** The quote, or the scope error that withholds it. */
function scopedQuote(ctx: RequestContext, q: Quote): Quote | Error {
  try {
    requireTypeScope(ctx, quoteMetrics(q) != null);
  } catch (e) {
    return e as Error;
  }
  return q;
}

/** A batch item's answer; its own error fails the whole call (the row store's `getMany` for ETFs and funds). */
function orThrow<T>(x: T | Error): T {
  if (x instanceof Error) throw x;
  return x;
}

function tooMany(field: string, n: number, max: number, what = "symbols"): void {
  if (n > max)
    throw new InvalidArgumentError(`${field}: at most ${max} ${what} per call`, [{ field, issue: "too many" }]);
}

/** Gateway mode's answers over `client`: one `UpstreamCalls` per request. */
export function createUpstreamAnswers(client: UpstreamClient): Answers {
  const perRequest = new WeakMap<RequestContext, UpstreamCalls>();
  const calls = (ctx: RequestContext): UpstreamCalls => {
    let c = perRequest.get(ctx);
    if (!c) perRequest.set(ctx, (c = new UpstreamCalls(client, ctx)));
    return c;
  };
  const one = <Q, D, O>(ctx: RequestContext, f: UpstreamFetcher<Q, D, O>, q: Q) => fetchOne(calls(ctx), f, q);
  const many = <Q, D, O>(ctx: RequestContext, f: UpstreamFetcher<Q, D, O>, qs: readonly Q[]) =>
    fetchMany(calls(ctx), f, qs);
  const candles = async (ctx: RequestContext, q: CandleQuery) => {
    const c = await one(ctx, candleFetcher, q);
    requireTypeScope(ctx, false);
    return c;
  };

  return {
    quote: {
      async get(ctx, ref) {
        const q = await one(ctx, quoteFetcher, ref);
        requireTypeScope(ctx, quoteMetrics(q) != null);
        return q;
      },
      async getMany(ctx, symbols, currency) {
        tooMany("symbols", symbols.length, ctx.config.sizes.bulkMaxSymbols);
        const quotes = await many(
          ctx,
          quoteFetcher,
          symbols.map((symbol) => ({ symbol, currency })),
        );
        // As the row store: null where a symbol names nothing, an Error where the item fails alone.
        return quotes.map((q) => (q instanceof Quote ? scopedQuote(ctx, q) : q));
      },
      metrics: quoteMetrics,
    },
    etf: {
      get: (ctx, ref) => one(ctx, etfFetcher, ref),
      async getMany(ctx, symbols) {
        tooMany("symbols", symbols.length, ctx.config.sizes.bulkMaxSymbols);
        const etfs = await many(
          ctx,
          etfFetcher,
          symbols.map((symbol) => ({ symbol })),
        );
        return etfs.map(orThrow);
      },
      profile: (ctx, e) => one(ctx, etfProfileFetcher, e),
      holdings: (ctx, e) => one(ctx, etfHoldingsFetcher, e),
      sectorExposure: (ctx, e) => one(ctx, etfSectorFetcher, e),
      countryExposure: (ctx, e) => one(ctx, etfCountryFetcher, e),
      fundamentals: async (_ctx, e) => etfFundamentalsOf(e),
      metrics: (ctx, etf, args) => one(ctx, etfMetricsFetcher, { etf, args }),
    },
    fund: {
      get: (ctx, args) => one(ctx, fundFetcher, args),
      async getMany(ctx, isins) {
        tooMany("isins", isins.length, ctx.config.sizes.bulkMaxSymbols, "ISINs");
        const funds = await many(
          ctx,
          fundFetcher,
          isins.map((isin) => ({ isin: isin.trim().toUpperCase() })),
        );
        // A malformed ISIN in a list names no fund, as an unknown one.
        return funds.map((f) => (f instanceof InvalidArgumentError ? null : orThrow(f)));
      },
      profile: async (_ctx, f) => fundProfileOf(f),
      sectors: (ctx, f) => one(ctx, fundSectorFetcher, f),
      countries: (ctx, f) => one(ctx, fundCountryFetcher, f),
      allocation: (ctx, f) => one(ctx, fundAllocationFetcher, f),
      holdings: (ctx, f) => one(ctx, fundHoldingsFetcher, f),
    },
    stock: {
      get: async (_ctx, ref) => toStock(ref),
      financialsTtm: (ctx, stock, currency) => one(ctx, financialsTtmFetcher, { stock, currency }),
      metric: (ctx, stock, currency) => one(ctx, stockMetricFetcher, { stock, currency }),
      fundamentals: (ctx, stock, currency) => one(ctx, stockFundamentalsFetcher, { stock, currency }),
      statements: <K extends StatementKind>(
        ctx: RequestContext,
        stock: Stock,
        statement: K,
        freq: FinancialsFreq,
        currency?: string | null,
      ) => one(ctx, statementsFetcher, { stock, statement, freq, currency }) as Promise<Statements[K][]>,
      candles: (ctx, s, args) => candles(ctx, { ref: stockRef(s), range: args }),
      async dividends() {
        throw new NotAvailableError(
          "Stock.dividends is not served by the upstream (no endpoint lists them)",
          "dividends",
        );
      },
      annualDividends: (ctx, s, currency) => one(ctx, annualDividendsFetcher, { ref: stockRef(s), currency }),
      dividendEstimate: (ctx, s) => one(ctx, stockDividendEstimateFetcher, s),
      profile: (ctx, s) => one(ctx, stockProfileFetcher, s),
      dividendHistory: (ctx, stock, currency) => one(ctx, stockDividendHistoryFetcher, { stock, currency }),
      splits: (ctx, stock, from, to) => one(ctx, stockSplitsFetcher, { stock, from, to }),
      peers: (ctx, stock, limit) => one(ctx, stockPeersFetcher, { stock, limit }),
      peersWidget: (ctx, stock, currency, limit) => one(ctx, stockPeersWidgetFetcher, { stock, currency, limit }),
      earningsCalendar: (ctx, from, to) => one(ctx, earningsCalendarFetcher, { from, to }),
      ipoCalendar: (ctx, from, to) => one(ctx, ipoCalendarFetcher, { from, to }),
      screener: (ctx, request) => one(ctx, screenerFetcher, request),
    },
    candle: { get: (ctx, args) => candles(ctx, { ref: args, range: args }) },
    crypto: { price: (ctx, symbol) => one(ctx, cryptoPriceFetcher, symbol) },
    fx: { quote: (ctx, from, to) => one(ctx, fxQuoteFetcher, { from, to }) },
    portfolio: {
      // Checked here as the row store checks it; the held securities' types are the upstream's to know, so every
      // type's scope is needed, as for candles.
      async open(ctx, args) {
        const p = readPortfolio(ctx, args);
        requireTypeScope(ctx, false);
        return p;
      },
      price: (ctx, p) => one(ctx, portfolioPriceFetcher, p),
      chart: (ctx, p) => one(ctx, portfolioChartFetcher, p),
      stats: (ctx, p) => one(ctx, portfolioStatsFetcher, p),
      metric: (ctx, p, benchmark) => one(ctx, portfolioMetricFetcher, { p, benchmark }),
      allocation: (ctx, p) => one(ctx, portfolioAllocationFetcher, p),
      sectors: (ctx, p) => one(ctx, portfolioSectorsFetcher, p),
      regions: (ctx, p) => one(ctx, portfolioRegionsFetcher, p),
    },
    dividend: {
      calendar: (ctx, args) => one(ctx, dividendCalendarFetcher, args),
      annual: (ctx, ref) => one(ctx, annualDividendsFetcher, { ref, currency: ref.currency }),
      estimate: (ctx, ref) => one(ctx, etfDividendEstimateFetcher, ref),
    },
    search: {
      search: (ctx, args) => one(ctx, searchFetcher, args),
      aggregated: (ctx, args) => one(ctx, aggregatedSearchFetcher, args),
    },
    list: { page: (ctx, list, args) => one(ctx, LIST_FETCHERS[list], args) },
    relay: { answer: (ctx, endpoint, body) => one(ctx, relayFetcher(endpoint), body) },
    indices: {
      async constituents() {
        // The upstream's REST removed /v0/index/constituents (2024-05-01); GraphQL keeps it over a row store only.
        throw new NotAvailableError("index constituents are not served by the upstream", "indices");
      },
    },
  };
}
