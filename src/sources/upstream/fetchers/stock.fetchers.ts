import type { DividendEstimate } from "../../../domain/dividend/dividend.types";
import type { SecurityRef } from "../../../domain/instrument/instrument.service";
import {
  peersLimit,
  type EarningsDate,
  type IpoCalendarItem,
  type StockDividendHistory,
  type StockPeerWidgetItem,
  type StockProfile,
  type StockSplit,
} from "../../../domain/stock/stock.answers";
import { Stock, type FinancialsTtm } from "../../../domain/stock/stock.types";
import { screenerArgs, type ScreenerHit, type ScreenerRequest } from "../../../domain/screener/screener.service";
import {
  groupedFigures,
  STOCK_METRIC_FIGURES,
  StockMetric,
  type StockMetricFigures,
  type StockMetricAnswer,
  type StockMetricFigure,
} from "../../../domain/stock/stock.metrics";
import {
  FundamentalsYear,
  StockFundamentals,
  type FundamentalsMultiples,
  type FundamentalsRevenue,
  type FundamentalsStability,
} from "../../../domain/stock/stock.fundamentals";
import type { StatementKind } from "../../../domain/stock/statement.service";
import type { FinancialsFreq } from "../../../domain/stock/statement.types";
import { askedOf, rememberAsked } from "../upstream.asked";
import { bodyOf, refBody, withCurrency } from "../upstream.calls";
import type { UpstreamFetcher } from "../upstream.fetcher";

/**
 * No upstream endpoint answers a stock's identity: the stock carries what the client named, the rest is
 * NOT_AVAILABLE (instrument.served.ts), and its data fields ask the upstream with the same identifiers.
 */
export function toStock(ref: SecurityRef): Stock {
  const s = Object.assign(new Stock(), {
    symbol: ref.symbol?.trim().toUpperCase(),
    isin: ref.isin?.trim().toUpperCase(),
  });
  return rememberAsked(s, { body: refBody(ref) });
}

/** What a stock's identity asks the upstream with, as a ref for the shared candle and dividend fetchers. */
export const stockRef = (s: Stock): SecurityRef => askedOf(s).body;

export interface FinancialsTtmQuery {
  stock: Stock;
  currency?: string | null;
}

export const financialsTtmFetcher: UpstreamFetcher<FinancialsTtmQuery, FinancialsTtm, FinancialsTtm> = {
  path: "/v1/stock/financials/ttm",
  kind: "reference",
  request: ({ stock, currency }) => withCurrency(askedOf(stock).body, currency),
  transform: (d) => d,
};

/** The contract's stock/metric answer: the Bavest Python SDK's Metric keys, price returns under theirs. */
export type RestStockMetric = Record<string, unknown> & { symbol: string; date: string | null };

/** The Python SDK's JSON key of each price return, which GraphQL names as the SDK's model names its attribute. */
export const PRICE_RETURN_KEYS = {
  oneDayPriceReturnDaily: "1DayPriceReturnDaily",
  fiveDayPriceReturnDaily: "5DayPriceReturnDaily",
  fourWeekPriceReturnDaily: "4WeekPriceReturnDaily",
  thirteenWeekPriceReturnDaily: "13WeekPriceReturnDaily",
  twentysixWeekPriceReturnDaily: "26WeekPriceReturnDaily",
  yearToDatePriceReturnDaily: "yearToDatePriceReturnDaily",
  oneyearPriceReturnDaily: "1yearPriceReturnDaily",
  threeyearPriceReturnDaily: "3yearPriceReturnDaily",
  fiveyearPriceReturnDaily: "5yearPriceReturnDaily",
  tenyearPriceReturnDaily: "10yearPriceReturnDaily",
  maxPriceReturnDaily: "maxPriceReturnDaily",
} as const satisfies Partial<Record<StockMetricFigure, string>>;

export const stockMetricFetcher: UpstreamFetcher<FinancialsTtmQuery, RestStockMetric, StockMetricAnswer> = {
  path: "/v1/stock/metric",
  kind: "reference",
  request: ({ stock, currency }) => withCurrency(askedOf(stock).body, currency),
  transform: (d) => {
    const figures = Object.fromEntries(
      STOCK_METRIC_FIGURES.map((k) => {
        const key: string = (PRICE_RETURN_KEYS as Partial<Record<StockMetricFigure, string>>)[k] ?? k;
        const v = d[key];
        return [k, typeof v === "number" ? v : null];
      }),
    ) as StockMetricFigures;
    return Object.assign(new StockMetric(), {
      symbol: d.symbol,
      currency: typeof d.currency === "string" ? d.currency : "",
      date: d.date,
      ...groupedFigures(figures),
    });
  },
};

/** The contract's stock/fundamentals answer: the Bavest SDKs' Fundamentals, ev's ratios under `ev/…` keys. */
interface RestFundamentals {
  metrics: {
    multiples: Omit<FundamentalsMultiples, "evRevenue" | "evEbit" | "evFcf" | "evEbitda"> & {
      "ev/revenue": number | null;
      "ev/ebit": number | null;
      "ev/fcf": number | null;
      "ev/ebitda": number | null;
    };
    stability: FundamentalsStability;
    revenue: FundamentalsRevenue;
    period: string;
  }[];
  currency: string;
}

export const stockFundamentalsFetcher: UpstreamFetcher<FinancialsTtmQuery, RestFundamentals, StockFundamentals> = {
  path: "/v1/stock/fundamentals",
  kind: "reference",
  request: ({ stock, currency }) => withCurrency(askedOf(stock).body, currency),
  transform: (d) =>
    Object.assign(new StockFundamentals(), {
      currency: d.currency,
      years: d.metrics.map(({ multiples: m, stability, revenue, period }) =>
        Object.assign(new FundamentalsYear(), {
          period,
          multiples: {
            ev: m.ev,
            evRevenue: m["ev/revenue"],
            evEbit: m["ev/ebit"],
            evFcf: m["ev/fcf"],
            evEbitda: m["ev/ebitda"],
            priceEarningsRatio: m.priceEarningsRatio,
            priceBookRatio: m.priceBookRatio,
            priceCashflowRatio: m.priceCashflowRatio,
            priceSalesRatio: m.priceSalesRatio,
            peg: m.peg,
          },
          stability,
          revenue,
        }),
      ),
    }),
};

export interface StatementsQuery {
  stock: Stock;
  statement: StatementKind;
  freq: FinancialsFreq;
  currency?: string | null;
}

/** The upstream's stock/financials, as the Dart SDK posts it (the values `annual`, `ic` …). */
export const statementsFetcher: UpstreamFetcher<StatementsQuery, { financials: unknown[] }, unknown[]> = {
  path: "/v1/stock/financials",
  kind: "reference",
  request: ({ stock, statement, freq, currency }) =>
    withCurrency({ ...askedOf(stock).body, freq: freq.toLowerCase(), statement }, currency),
  transform: (d) => d.financials,
};

export const stockDividendEstimateFetcher: UpstreamFetcher<Stock, DividendEstimate, DividendEstimate> = {
  path: "/v1/stock/dividend-estimate",
  kind: "reference",
  request: (s) => askedOf(s).body,
  transform: (d) => d,
};

/** The contract's stock/profile (the Bavest SDK's Profile model), the keys the store fills. */
type RestStockProfile = Omit<StockProfile, "yearLow" | "yearHigh"> & { range: string | null };

/** `low-high`, each a plain decimal (prices are never negative). */
function rangeOf(range: string | null): { yearLow: number | null; yearHigh: number | null } {
  const m = range == null ? null : /^([^-]+)-([^-]+)$/.exec(range);
  return m ? { yearLow: Number(m[1]), yearHigh: Number(m[2]) } : { yearLow: null, yearHigh: null };
}

export const stockProfileFetcher: UpstreamFetcher<Stock, RestStockProfile, StockProfile> = {
  path: "/v1/stock/profile",
  kind: "reference",
  request: (s) => askedOf(s).body,
  transform: (d) => ({
    symbol: d.symbol,
    companyName: d.companyName,
    currency: d.currency,
    isin: d.isin,
    cusip: d.cusip,
    exchange: d.exchange,
    sector: d.sector,
    industry: d.industry,
    country: d.country,
    website: d.website,
    description: d.description,
    ipo: d.ipo,
    isActivelyTrading: d.isActivelyTrading,
    isAdr: d.isAdr,
    marketCapitalization: d.marketCapitalization,
    price: d.price,
    changes: d.changes,
    volAvg: d.volAvg,
    ...rangeOf(d.range),
    lastDiv: d.lastDiv,
  }),
};

export interface StockSplitsQuery {
  stock: Stock;
  from?: string | null;
  to?: string | null;
}

/** The contract's stock/split (the Bavest SDK's Split model); the upstream takes days for `from` and `to`. */
interface RestStockSplits {
  splits: StockSplit[];
}

export const stockSplitsFetcher: UpstreamFetcher<StockSplitsQuery, RestStockSplits, StockSplit[]> = {
  path: "/v1/stock/split",
  kind: "reference",
  request: ({ stock, from, to }) => bodyOf({ ...askedOf(stock).body, from, to }),
  transform: (d) => d.splits,
};

export interface StockDividendQuery {
  stock: Stock;
  currency?: string | null;
}

/** The contract's stock/dividend is the domain's answer as it is. */
export const stockDividendHistoryFetcher: UpstreamFetcher<
  StockDividendQuery,
  StockDividendHistory,
  StockDividendHistory
> = {
  path: "/v1/stock/dividend",
  kind: "reference",
  request: ({ stock, currency }) => withCurrency(askedOf(stock).body, currency),
  transform: (d) => ({ ...d, dividends: d.dividends.map((x) => ({ ...x, symbol: null })) }),
};

export interface StockPeersQuery {
  stock: Stock;
  limit?: number | null;
}

/** The contract's stock/peers (the Bavest SDK's Peers model): symbols, nearest first. */
interface RestStockPeers {
  peers: string[];
}

/** Each peer is a stock named by its symbol, asked of the upstream by it like any other (toStock). */
export const stockPeersFetcher: UpstreamFetcher<StockPeersQuery, RestStockPeers, Stock[]> = {
  path: "/v1/stock/peers",
  kind: "reference",
  request: ({ stock, limit }) => bodyOf({ ...askedOf(stock).body, limit: peersLimit(limit) }),
  transform: (d) => d.peers.map((symbol) => toStock({ symbol })),
};

export interface StockPeersWidgetQuery extends StockPeersQuery {
  currency?: string | null;
}

/** The contract's widgets/stock/peers (the Bavest Python SDK's StockPeers model). */
interface RestStockPeersWidget {
  stock_peers: StockPeerWidgetItem[];
}

export const stockPeersWidgetFetcher: UpstreamFetcher<
  StockPeersWidgetQuery,
  RestStockPeersWidget,
  StockPeerWidgetItem[]
> = {
  path: "/v1/widgets/stock/peers",
  kind: "reference",
  request: ({ stock, currency, limit }) =>
    withCurrency(bodyOf({ ...askedOf(stock).body, limit: peersLimit(limit) }), currency),
  transform: (d) => d.stock_peers,
};

export interface EarningsCalendarQuery {
  from?: string | null;
  to?: string | null;
}

/** The contract's calender/earnings (the Bavest Python SDK's EarningsConfirmed model); days for `from` and `to`. */
interface RestEarningsCalendar {
  earningsConfirmed: (EarningsDate & { time: null; when: null; url: null })[];
}

export const earningsCalendarFetcher: UpstreamFetcher<EarningsCalendarQuery, RestEarningsCalendar, EarningsDate[]> = {
  path: "/v1/calender/earnings",
  kind: "reference",
  request: ({ from, to }) => bodyOf({ from, to }),
  transform: (d) =>
    d.earningsConfirmed.map((e) => ({
      date: e.date,
      symbol: e.symbol,
      exchange: e.exchange,
      title: e.title,
      publicationDate: e.publicationDate,
    })),
};

/** The contract's screener: each stock's symbol, name and ISIN, and the value of each metric named under its name. */
interface RestScreener {
  statusCode: number;
  results: (Record<string, unknown> & { symbol: string; name: string; isin: string | null })[];
}

const SCREENED_IDENTITY = new Set(["symbol", "name", "isin"]);

export const screenerFetcher: UpstreamFetcher<ScreenerRequest, RestScreener, ScreenerHit[]> = {
  path: "/v1/screener",
  kind: "reference",
  // Checked here as over a store, so a bad query is refused before it costs an upstream call.
  request: (r) => {
    const a = screenerArgs(r);
    return bodyOf({ query: a.conditions, sort: a.sort, offset: a.offset, limit: a.limit });
  },
  transform: (d) =>
    d.results.map((r) => ({
      symbol: r.symbol,
      name: r.name,
      isin: r.isin,
      values: Object.entries(r)
        .filter(([k, v]) => !SCREENED_IDENTITY.has(k) && typeof v === "number")
        .map(([metric, value]) => ({
          metric: metric as ScreenerHit["values"][number]["metric"],
          value: value as number,
        })),
    })),
};

/** The contract's calender/ipo (the Bavest Python SDK's IpoCalendar model, with the price's currency). */
interface RestIpoCalendar {
  ipoCalendar: IpoCalendarItem[];
}

export const ipoCalendarFetcher: UpstreamFetcher<EarningsCalendarQuery, RestIpoCalendar, IpoCalendarItem[]> = {
  path: "/v1/calender/ipo",
  kind: "reference",
  request: ({ from, to }) => bodyOf({ from, to }),
  transform: (d) =>
    d.ipoCalendar.map((e) => ({
      date: e.date,
      symbol: e.symbol,
      name: e.name,
      exchange: e.exchange,
      numberOfShares: e.numberOfShares,
      price: e.price,
      currency: e.currency,
      totalSharesValue: e.totalSharesValue,
      status: e.status,
    })),
};
