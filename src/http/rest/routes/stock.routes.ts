import { z } from "zod";
import { InternalError } from "../../../platform/errors";
import {
  currencyField,
  limitField,
  sdkDayField,
  securityRefBody,
  securityRefWith,
  securityVariables,
} from "../rest.body";
import {
  EARNINGS_DEFAULT_DAYS,
  EARNINGS_MAX_ROWS,
  PEERS_DEFAULT,
  PEERS_MAX,
} from "../../../domain/stock/stock.answers";
import {
  FinancialsTtmDocument,
  StockDividendEstimateDocument,
  StockDividendHistoryDocument,
  EarningsCalendarDocument,
  StockPeersDocument,
  StockPeersWidgetDocument,
  StockProfileDocument,
  StockSplitsDocument,
} from "../rest.operations.generated";
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

/** The operation `stock/profile` runs; `npm run generate` types it as StockProfileDocument. */
export const STOCK_PROFILE_OPERATION = /* GraphQL */ `
  query StockProfile($symbol: String, $isin: String, $cusip: String, $wkn: String) {
    stock(symbol: $symbol, isin: $isin, cusip: $cusip, wkn: $wkn) {
      profile {
        symbol
        companyName
        currency
        isin
        cusip
        exchange
        sector
        industry
        country
        website
        description
        ipo
        isActivelyTrading
        isAdr
        marketCapitalization
        price
        changes
        volAvg
        yearLow
        yearHigh
        lastDiv
      }
    }
  }
`;

/** The operation `stock/dividend` runs; `npm run generate` types it as StockDividendHistoryDocument. */
export const STOCK_DIVIDEND_OPERATION = /* GraphQL */ `
  query StockDividendHistory($symbol: String, $isin: String, $cusip: String, $wkn: String, $currency: String) {
    stock(symbol: $symbol, isin: $isin, cusip: $cusip, wkn: $wkn) {
      dividendHistory(currency: $currency) {
        symbol
        currency
        dividends {
          date
          recordDate
          payDate
          declarationDate
          amount
          adjustedAmount
          currency
        }
      }
    }
  }
`;

/**
 * The Bavest Python SDK's `Dividend` model (`dividends`, each with its keys) of the contract's dividend rows
 * (docs/contract.md section 4, with their currency), and the symbol and currency of the answer.
 */
const stockDividendResponse = gqlObject("StockDividendHistory", {
  symbol: z.string(),
  currency: z.string().nullable(),
  dividends: z.array(
    gqlObject("Dividend", {
      date: day,
      recordDate: day.nullable(),
      payDate: day.nullable(),
      declarationDate: day.nullable(),
      amount: z.number(),
      adjustedAmount: z.number(),
      currency: z.string(),
    }),
  ),
});

/** The operation `stock/split` runs; `npm run generate` types it as StockSplitsDocument. */
export const STOCK_SPLITS_OPERATION = /* GraphQL */ `
  query StockSplits($symbol: String, $isin: String, $cusip: String, $wkn: String, $from: String, $to: String) {
    stock(symbol: $symbol, isin: $isin, cusip: $cusip, wkn: $wkn) {
      splits(from: $from, to: $to) {
        symbol
        date
        fromFactor
        toFactor
      }
    }
  }
`;

/** The Bavest Python SDK's `Split` model (docs/contract.md section 4). */
const stockSplitResponse = z.object({
  event: z.literal("split").describe('Always "split"'),
  splits: z
    .array(
      gqlObject("StockSplit", {
        date: day,
        symbol: z.string(),
        fromFactor: z.int().min(1),
        toFactor: z.int().min(1),
      }),
    )
    .describe("Oldest first; empty for a stock without splits in the range"),
});

/** The operation `stock/peers` runs; `npm run generate` types it as StockPeersDocument. */
export const STOCK_PEERS_OPERATION = /* GraphQL */ `
  query StockPeers($symbol: String, $isin: String, $cusip: String, $wkn: String, $limit: Int) {
    stock(symbol: $symbol, isin: $isin, cusip: $cusip, wkn: $wkn) {
      peers(limit: $limit) {
        symbol
      }
    }
  }
`;

/** The Bavest Python SDK's `Peers` model (docs/contract.md section 4). */
const stockPeersResponse = z.object({
  peers: z
    .array(z.string())
    .describe(
      "Symbols of the primary listings of other stocks: the same industry first, then the same sector, each " +
        "nearest in market capitalisation first; empty for a stock without a sector or without other stocks in it",
    ),
});

/** The operation `widgets/stock/peers` runs; `npm run generate` types it as StockPeersWidgetDocument. */
export const STOCK_PEERS_WIDGET_OPERATION = /* GraphQL */ `
  query StockPeersWidget($symbol: String, $isin: String, $cusip: String, $wkn: String, $currency: String, $limit: Int) {
    stock(symbol: $symbol, isin: $isin, cusip: $cusip, wkn: $wkn) {
      peersWidget(currency: $currency, limit: $limit) {
        symbol
        name
        category
        close
        priceChange
      }
    }
  }
`;

/** The Bavest Python SDK's `StockPeers` model (docs/contract.md section 4). */
const stockPeersWidgetResponse = z.object({
  stock_peers: z
    .array(
      z.object({
        symbol: z.string().describe("Symbol of the peer's primary listing"),
        name: z.string(),
        category: z.string().describe("The peer's industry (its sector where it has none)"),
        close: z.number().describe("Latest price, in `currency` or the listing's own"),
        priceChange: z.number().describe("Change of the latest price to the previous close, in the same currency"),
      }),
    )
    .describe("stock/peers' peers in its order, each with its latest price; a peer without a price is left out"),
});

/** The operation `calender/earnings` runs; `npm run generate` types it as EarningsCalendarDocument. */
export const EARNINGS_CALENDAR_OPERATION = /* GraphQL */ `
  query EarningsCalendar($from: String, $to: String) {
    earningsCalendar(from: $from, to: $to) {
      date
      symbol
      exchange
      title
      publicationDate
    }
  }
`;

const notHeldText = (what: string) => z.null().describe(`Always null: the store holds no ${what}`);

/** The Bavest Python SDK's `EarningsConfirmed` model (docs/contract.md section 4), every key of it. */
const earningsCalendarResponse = z.object({
  event: z.literal("earnings").describe('Always "earnings"'),
  earningsConfirmed: z
    .array(
      z.object({
        date: day,
        symbol: z.string().describe("Symbol of the stock's primary listing"),
        exchange: z.string(),
        time: notHeldText("time of day of a report"),
        title: z.string().describe("`<company> Q<n> <fiscal year> earnings`, or `<company> earnings` for a date ahead"),
        when: notHeldText("session (before or after the market) of a report"),
        publicationDate: day.nullable().describe("The day the quarter was reported; null for a date ahead"),
        url: notHeldText("link to a report"),
      }),
    )
    .describe(`Earliest first (by day, then security), at most ${EARNINGS_MAX_ROWS}`),
});

const notHeld = (what: string) => z.null().describe(`Always null: the store holds no ${what}`);

/**
 * The Bavest Python SDK's stock `Profile` model, every key of it (docs/contract.md section 4). Keys of figures the
 * store does not hold are null rather than invented.
 */
const stockProfileResponse = gqlObject("StockProfile", {
  symbol: z.string(),
  beta: notHeld("beta"),
  price: z.number().nullable(),
  volAvg: z.number().nullable(),
  lastDiv: z.number(),
  range: z
    .string()
    .nullable()
    .describe("The 52-week range, `low-high` in the listing's currency (from the daily bars); null without bars"),
  changes: z.number().nullable(),
  companyName: z.string(),
  currency: z.string(),
  cik: notHeld("SEC CIK"),
  isin: z.string().nullable(),
  cusip: z.string().nullable(),
  exchange: z.string(),
  exchangeShortName: z.string().describe("MIC-style code of the listing's exchange, as `exchange`"),
  industry: z.string().nullable(),
  website: z.string().nullable(),
  description: z.string().nullable(),
  ceo: notHeld("chief executive"),
  sector: z.string().nullable(),
  country: z.string().nullable(),
  phone: notHeld("phone number"),
  address: notHeld("address"),
  city: notHeld("address"),
  state: notHeld("address"),
  zip: notHeld("address"),
  dcfDiff: notHeld("discounted-cash-flow valuation"),
  dcf: notHeld("discounted-cash-flow valuation"),
  isEtf: z.literal(false).describe("Always false: the endpoint answers stocks"),
  isActivelyTrading: z.boolean(),
  isAdr: z.boolean(),
  isFund: z.literal(false).describe("Always false: the endpoint answers stocks"),
  marketCapitalization: z.number().nullable(),
  employeeTotal: notHeld("head count"),
  ipo: day.nullable(),
});

/** A nullable field of the stock is only null after an error, which execution has already thrown. */
function present<T>(value: T | null, what: string): T {
  if (value == null) throw new InternalError(`${what}: no data and no error`);
  return value;
}

export const STOCK_ROUTES: readonly RouteEntry[] = [
  route({
    path: "stock/profile",
    summary:
      "Profile of a stock in the Bavest SDK's shape: identity, classification, latest price, 52-week range, " +
      "latest dividend",
    versions: VERSIONS,
    scope: "stock",
    body: stockRefBody,
    operation: StockProfileDocument,
    shape: (d) => {
      const p = present(d.stock.profile, "stock profile");
      return {
        symbol: p.symbol,
        beta: null,
        price: p.price,
        volAvg: p.volAvg,
        lastDiv: p.lastDiv,
        range: p.yearLow == null || p.yearHigh == null ? null : `${p.yearLow}-${p.yearHigh}`,
        changes: p.changes,
        companyName: p.companyName,
        currency: p.currency,
        cik: null,
        isin: p.isin,
        cusip: p.cusip,
        exchange: p.exchange,
        exchangeShortName: p.exchange,
        industry: p.industry,
        website: p.website,
        description: p.description,
        ceo: null,
        sector: p.sector,
        country: p.country,
        phone: null,
        address: null,
        city: null,
        state: null,
        zip: null,
        dcfDiff: null,
        dcf: null,
        isEtf: false as const,
        isActivelyTrading: p.isActivelyTrading,
        isAdr: p.isAdr,
        isFund: false as const,
        marketCapitalization: p.marketCapitalization,
        employeeTotal: null,
        ipo: p.ipo,
      };
    },
    response: stockProfileResponse,
    maxAgeSeconds: 300,
    examples: (s) => ({ stock: example("The first stock", { symbol: s.stock }) }),
    emptyAnswer:
      "the profile with what the store knows of the stock: `price`, `changes` and `volAvg` null without a quote, " +
      "`range` null without daily bars, `lastDiv: 0` without dividends",
    singleSecurity: true,
  }),
  route({
    path: "stock/dividend",
    summary: "Dividends of a stock in the Bavest SDK's shape, each in its own currency or converted into currency",
    versions: VERSIONS,
    scope: "stock",
    body: securityRefWith({ currency: currencyField.optional() }).transform((b) => ({
      ...securityVariables(b),
      currency: b.currency ?? null,
    })),
    operation: StockDividendHistoryDocument,
    shape: (d) => present(d.stock.dividendHistory, "stock dividends"),
    response: stockDividendResponse,
    examples: (s) => ({
      stock: example("The first stock's dividends in euros (the SDKs' default currency)", {
        symbol: s.stock,
        currency: "EUR",
      }),
      own: example("In each dividend's own currency", { symbol: s.stock }),
    }),
    emptyAnswer: "`dividends: []`",
    singleSecurity: true,
  }),
  route({
    path: "stock/split",
    summary: "Splits of a stock in the Bavest SDK's shape, within days from and to (SDK time forms accepted)",
    versions: VERSIONS,
    scope: "stock",
    body: securityRefWith({ from: sdkDayField.optional(), to: sdkDayField.optional() }).transform((b) => ({
      ...securityVariables(b),
      from: b.from ?? null,
      to: b.to ?? null,
    })),
    operation: StockSplitsDocument,
    shape: (d) => {
      const splits = present(d.stock.splits, "stock splits");
      return { event: "split" as const, splits };
    },
    response: stockSplitResponse,
    examples: (s) => ({
      stock: example("The first stock's splits since 2000 (Python sends float seconds)", {
        symbol: s.stock,
        from: 946_684_800.25,
        to: 1_763_596_800.5,
      }),
      dart: example("The Dart client's form: milliseconds in strings", {
        symbol: s.stock,
        from: "946684800000",
        to: "1763596800000",
      }),
    }),
    emptyAnswer: '`event: "split"`, `splits: []`',
    singleSecurity: true,
  }),
  route({
    path: "stock/peers",
    summary:
      "Peers of a stock in the Bavest SDK's shape: the same industry, then the same sector, nearest market " +
      "capitalisation first",
    versions: VERSIONS,
    scope: "stock",
    body: securityRefWith({
      limit: limitField
        .min(1, { error: "expected an integer from 1" })
        .max(PEERS_MAX, { error: `at most ${PEERS_MAX}` })
        .optional()
        .describe(`How many peers at most; default ${PEERS_DEFAULT}`),
    }).transform((b) => ({ ...securityVariables(b), limit: b.limit ?? null })),
    operation: StockPeersDocument,
    shape: (d) => ({ peers: present(d.stock.peers, "stock peers").map((p) => p.symbol) }),
    response: stockPeersResponse,
    examples: (s) => ({
      stock: example("The first stock's peers (what client.stock.peers(symbol) posts)", { symbol: s.stock }),
      three: example("Its three nearest peers", { symbol: s.stock, limit: 3 }),
    }),
    emptyAnswer: "`peers: []` (a stock without a sector, or alone in it)",
    singleSecurity: true,
  }),
  route({
    path: "widgets/stock/peers",
    summary: "Peers of a stock with their latest prices, in the Bavest SDK's peers widget shape",
    versions: VERSIONS,
    scope: "stock",
    body: securityRefWith({
      currency: currencyField.optional(),
      limit: limitField
        .min(1, { error: "expected an integer from 1" })
        .max(PEERS_MAX, { error: `at most ${PEERS_MAX}` })
        .optional()
        .describe(`How many peers at most; default ${PEERS_DEFAULT}`),
    }).transform((b) => ({ ...securityVariables(b), currency: b.currency ?? null, limit: b.limit ?? null })),
    operation: StockPeersWidgetDocument,
    shape: (d) => ({ stock_peers: present(d.stock.peersWidget, "stock peers widget") }),
    response: stockPeersWidgetResponse,
    maxAgeSeconds: 5,
    examples: (s) => ({
      stock: example("The first stock's peers in euros (what client.widget.peers(symbol) posts)", {
        symbol: s.stock,
        currency: "EUR",
      }),
      dart: example("The Dart client's form: its SecurityIdentifier alone, prices in each listing's currency", {
        symbol: s.stock,
      }),
    }),
    emptyAnswer: "`stock_peers: []` (a stock without a sector, or alone in it)",
    singleSecurity: true,
  }),
  route({
    path: "calender/earnings",
    summary:
      "Earnings dates of every stock within days from and to, in the Bavest SDK's shape (SDK time forms accepted; " +
      `no body: today and ${EARNINGS_DEFAULT_DAYS} days on)`,
    versions: VERSIONS,
    scope: "stock",
    body: z
      .object({
        event: z.string().max(32).optional().describe('What the Python SDK sends, "earnings"; ignored'),
        from: sdkDayField.optional(),
        to: sdkDayField.optional(),
      })
      .transform((b) => ({ from: b.from ?? null, to: b.to ?? null })),
    operation: EarningsCalendarDocument,
    shape: (d) => ({
      event: "earnings" as const,
      earningsConfirmed: d.earningsCalendar.map((e) => ({
        date: e.date,
        symbol: e.symbol,
        exchange: e.exchange,
        time: null,
        title: e.title,
        when: null,
        publicationDate: e.publicationDate ?? null,
        url: null,
      })),
    }),
    response: earningsCalendarResponse,
    maxAgeSeconds: 3_600,
    examples: () => ({
      python: example("What client.stock.earnings(frm, to) posts: float seconds", {
        event: "earnings",
        from: 1_761_955_200.25,
        to: 1_763_596_800.5,
      }),
      dart: example("Milliseconds in strings", { from: "1761955200000", to: "1763596800000" }),
    }),
    emptyAnswer: '`event: "earnings"`, `earningsConfirmed: []`',
    singleSecurity: false,
  }),
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
