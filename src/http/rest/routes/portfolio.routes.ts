import { z } from "zod";
import { flattenStats, SDK_STAT_NAMES, statPath, type SdkStatName } from "../../../domain/portfolio/portfolio.figures";
import { currencyField, sdkTimeField, symbolField } from "../rest.body";
import { example } from "../rest.examples";
import {
  PortfolioAllocationDocument,
  PortfolioChartDocument,
  PortfolioMetricDocument,
  PortfolioPriceDocument,
  PortfolioRegionDocument,
  PortfolioSectorDocument,
  PortfolioStatsDocument,
} from "../rest.operations.generated";
import { DART_PATHS } from "../rest.aliases";
import { route, VERSIONS, type RouteEntry } from "../rest.route";
import { gqlObject, stringOf, unixSeconds } from "../rest.response";
import { resolutionField } from "./candle.routes";

/** The operations the routes run; `npm run generate` types them as Portfolio…Document. */
export const PORTFOLIO_PRICE_OPERATION = /* GraphQL */ `
  query PortfolioPrice($items: [PortfolioItemInput!]!, $currency: String, $from: Int, $to: Int, $resolution: String) {
    portfolio(items: $items, currency: $currency, from: $from, to: $to, resolution: $resolution) {
      price {
        c
        o
        h
        l
        pc
        d
        dp
        t
      }
    }
  }
`;

export const PORTFOLIO_CHART_OPERATION = /* GraphQL */ `
  query PortfolioChart($items: [PortfolioItemInput!]!, $currency: String, $from: Int, $to: Int, $resolution: String) {
    portfolio(items: $items, currency: $currency, from: $from, to: $to, resolution: $resolution) {
      symbols
      amounts
      buyDates
      currency
      from
      to
      resolution
      chart {
        s
        t
        o
        h
        l
        c
        v
      }
    }
  }
`;

export const PORTFOLIO_STATS_OPERATION = /* GraphQL */ `
  query PortfolioStats($items: [PortfolioItemInput!]!, $currency: String, $from: Int, $to: Int, $resolution: String) {
    portfolio(items: $items, currency: $currency, from: $from, to: $to, resolution: $resolution) {
      stats {
        riskReturnRatio
        correlation
        series {
          s
          t
          o
          h
          l
          c
          v
        }
        stats {
          riskFree
          totalReturn
          cagr
          maxDrawdown
          calmar
          inception
          mtd
          threeMonth
          sixMonth
          ytd
          oneYear
          threeYear
          fiveYear
          tenYear
          daily {
            ...PortfolioPeriod
          }
          monthly {
            ...PortfolioPeriod
          }
          yearly {
            ...PortfolioPeriod
          }
          avgDrawdown
          avgDrawdownDays
          avgUpMonth
          avgDownMonth
          winYearPerc
          twelveMonthWinPerc
        }
      }
    }
  }

  fragment PortfolioPeriod on PortfolioPeriodFigures {
    sharpe
    sortino
    mean
    vol
    skew
    kurt
    best
    worst
  }
`;

export const PORTFOLIO_METRIC_OPERATION = /* GraphQL */ `
  query PortfolioMetric(
    $items: [PortfolioItemInput!]!
    $currency: String
    $from: Int
    $to: Int
    $resolution: String
    $benchmark: String
  ) {
    portfolio(items: $items, currency: $currency, from: $from, to: $to, resolution: $resolution) {
      metric(benchmark: $benchmark) {
        beta
        fiveDayPriceReturnDaily
        twentySixWeekPriceReturnDaily
        fiftyTwoWeekPriceReturnDaily
        dividendPerShareAnnual
        treynorQuotient
        sharpeRatio
        alpha
      }
    }
  }
`;

export const PORTFOLIO_ALLOCATION_OPERATION = /* GraphQL */ `
  query PortfolioAllocation(
    $items: [PortfolioItemInput!]!
    $currency: String
    $from: Int
    $to: Int
    $resolution: String
  ) {
    portfolio(items: $items, currency: $currency, from: $from, to: $to, resolution: $resolution) {
      allocation {
        symbol
        percentage
      }
    }
  }
`;

export const PORTFOLIO_SECTOR_OPERATION = /* GraphQL */ `
  query PortfolioSector($items: [PortfolioItemInput!]!, $currency: String, $from: Int, $to: Int, $resolution: String) {
    portfolio(items: $items, currency: $currency, from: $from, to: $to, resolution: $resolution) {
      sectors {
        sector
        percentage
      }
    }
  }
`;

export const PORTFOLIO_REGION_OPERATION = /* GraphQL */ `
  query PortfolioRegion($items: [PortfolioItemInput!]!, $currency: String, $from: Int, $to: Int, $resolution: String) {
    portfolio(items: $items, currency: $currency, from: $from, to: $to, resolution: $resolution) {
      regions {
        region
        percentage
      }
    }
  }
`;

/**
 * A buy date in the SDKs' forms (sdkTimeField), and also as a number of milliseconds: the Python SDK's own sample
 * portfolio posts `buy_date: 1665698400000`, which no date before 5138 is in seconds.
 */
const buyDateField = z
  .union([z.number(), z.string(), z.null()])
  .transform((v) => (typeof v === "number" && v >= 1e11 ? String(Math.trunc(v)) : v))
  .pipe(sdkTimeField.nullable())
  .describe(
    "When the position was bought: Unix seconds (integer or fractional), milliseconds (a number of 11 or more " +
      "digits, or a string of 11 to 13 digits) or a day YYYY-MM-DD; null or absent: held all along",
  );

const itemField = z.object({
  symbol: z
    .string({ error: "expected a string" })
    .trim()
    .min(1, { error: "expected a non-empty string" })
    .max(64)
    .describe("Symbol of the listing held"),
  amount: z.number({ error: "expected a number" }).describe("Quantity held (shares, units, coins); positive"),
  buy_date: buyDateField.optional(),
});

const portfolioFields = z.object({
  portfolio_items: z
    .array(itemField, { error: "expected a list of {symbol, amount, buy_date}" })
    .describe("The positions, at most MDG_PORTFOLIO_MAX_ITEMS (100 by default)"),
  currency: currencyField.optional(),
  from: sdkTimeField.optional(),
  to: sdkTimeField.optional(),
  resolution: resolutionField.optional(),
});

const portfolioVariables = (b: z.infer<typeof portfolioFields>) => ({
  items: b.portfolio_items.map((i) => ({ symbol: i.symbol, amount: i.amount, buyDate: i.buy_date ?? null })),
  currency: b.currency ?? null,
  from: b.from ?? null,
  to: b.to ?? null,
  resolution: b.resolution ?? null,
});

/** `{portfolio_items, currency?, from?, to?, resolution?}` as the operations' variables. */
const portfolioBody = portfolioFields.transform(portfolioVariables);

/** portfolio/metric's body: the portfolio, and the symbol of a benchmark (not sent by the SDKs). */
const metricBody = portfolioFields
  .extend({
    benchmark: symbolField
      .optional()
      .describe("Symbol to measure beta, alpha and the Treynor ratio against; without one they are 0"),
  })
  .transform((b) => ({ ...portfolioVariables(b), benchmark: b.benchmark ?? null }));

/** The Bavest Python SDK's `PortfolioPrice`: the value now, as a quote of the whole portfolio. */
const priceResponse = gqlObject("PortfolioPrice", {
  c: z.number(),
  o: z.number(),
  l: z.number(),
  h: z.number(),
  dp: z.number(),
  d: z.number(),
  pc: z.number(),
  t: unixSeconds,
});

/** The Bavest Python SDK's `PortfolioMetric` (Finnhub's names; returns in percent). */
const metricResponse = gqlObject("PortfolioMetric", {
  beta: z.number(),
  "26WeekPriceReturnDaily": z.number().describe("Return over the last 26 weeks, percent"),
  "5DayPriceReturnDaily": z.number().describe("Return over the last 5 trading days, percent"),
  "52WeekPriceReturnDaily": z.number().describe("Return over the last 52 weeks, percent"),
  dividendPerShareAnnual: z.number(),
  treynorQuotient: z.number(),
  sharpeRatio: z.number(),
  alpha: z.number(),
});

const bars = {
  s: stringOf(["ok", "no_data"]),
  t: z.array(unixSeconds),
  o: z.array(z.number()),
  h: z.array(z.number()),
  l: z.array(z.number()),
  c: z.array(z.number()),
  v: z.array(z.number()),
};

/**
 * The Python SDK's `PortfolioChart` (the request as read: currency, from, to, resolution, portfolio_items) with the
 * Dart client's `Candles` of the value beside it.
 */
const chartResponse = gqlObject("PortfolioChart", {
  currency: z.string(),
  from: unixSeconds,
  to: unixSeconds,
  resolution: stringOf(["D", "W", "M"]),
  portfolio_items: z.array(
    z.object({
      symbol: z.string(),
      amount: z.number(),
      buy_date: unixSeconds.describe("Start of the day the position counts from (the range's start when not given)"),
    }),
  ),
  ...bars,
});

const bySymbol = z.record(z.string(), z.number()).describe("By symbol of a position, and `total` for the portfolio");

/** The Python SDK's `PortfolioStats`. */
const statsResponse = z.object({
  riskReturnRatio: bySymbol.nullable(),
  correlation: z.record(z.string(), bySymbol).nullable(),
  series: gqlObject("PortfolioChart", bars).nullable(),
  stats: z
    .object(
      Object.fromEntries(
        SDK_STAT_NAMES.map((k) => [k, z.number().describe(`GraphQL's PortfolioStatFigures.${statPath(k)}`)]),
      ) as Record<SdkStatName, z.ZodNumber>,
    )
    .nullable()
    .describe("The Python SDK's Stats: 44 figures, fractions (0.05 means 5 %), 0 where the range is too short"),
});

const examples = (s: { stock: string; etf: string }) => ({
  python: example("What the Python SDK posts: two positions with buy dates, in euros", {
    portfolio_items: [
      { symbol: s.stock, amount: 10, buy_date: 1_735_689_600 },
      { symbol: s.etf, amount: 4, buy_date: 1_738_368_000.5 },
    ],
    currency: "EUR",
  }),
});

const rangedExamples = (s: { stock: string; etf: string }) => ({
  python: example("What the Python SDK posts: positions, a range in float seconds, resolution and currency", {
    portfolio_items: [
      { symbol: s.stock, amount: 10, buy_date: 1_735_689_600 },
      { symbol: s.etf, amount: 4, buy_date: 1_738_368_000 },
    ],
    from: 1_735_689_600.0,
    to: 1_767_225_599.0,
    resolution: "D",
    currency: "EUR",
  }),
});

/** A list of shares in percent under one name, as the Python SDK's allocation, sector and region models hold them. */
const weightsOf = (key: string, described: string) =>
  z
    .array(
      z.object({
        [key]: z.string().describe(described),
        percentage: z.number().describe("Percent (12.5 means 12.5 %)"),
      }),
    )
    .describe("Largest first; percentages of the value at the latest quotes, summing to 100 up to rounding");

/** What the Python SDK's sector() and region() post: the positions alone. */
const lookThroughExamples = (s: { stock: string; etf: string }) => ({
  python: example("What the Python SDK posts: a stock and an ETF, looked through to its holdings", {
    portfolio_items: [
      { symbol: s.stock, amount: 10, buy_date: 1_735_689_600 },
      { symbol: s.etf, amount: 4, buy_date: 1_738_368_000.5 },
    ],
  }),
});

const PORTFOLIO_METRIC_ROUTE: RouteEntry = route({
  path: "portfolio/metric",
  summary: "A portfolio's metrics over the last year: returns, Sharpe, dividends, and beta against a benchmark",
  versions: VERSIONS,
  scope: "portfolio",
  body: metricBody,
  operation: PortfolioMetricDocument,
  shape: ({ portfolio: { metric: m } }) => ({
    beta: m.beta,
    "26WeekPriceReturnDaily": m.twentySixWeekPriceReturnDaily,
    "5DayPriceReturnDaily": m.fiveDayPriceReturnDaily,
    "52WeekPriceReturnDaily": m.fiftyTwoWeekPriceReturnDaily,
    dividendPerShareAnnual: m.dividendPerShareAnnual,
    treynorQuotient: m.treynorQuotient,
    sharpeRatio: m.sharpeRatio,
    alpha: m.alpha,
  }),
  response: metricResponse,
  maxAgeSeconds: 300,
  examples: (s) => ({
    ...examples(s),
    benchmark: example("Against a benchmark (not sent by the SDKs)", {
      portfolio_items: [{ symbol: s.stock, amount: 10, buy_date: 1_735_689_600 }],
      currency: "USD",
      benchmark: s.etf,
    }),
  }),
  singleSecurity: false,
});

export const PORTFOLIO_ROUTES: readonly RouteEntry[] = [
  route({
    path: "portfolio/price",
    summary: "A portfolio's value now, summed from its positions' latest quotes in one currency",
    versions: VERSIONS,
    scope: "portfolio",
    body: portfolioBody,
    operation: PortfolioPriceDocument,
    shape: (d) => d.portfolio.price,
    response: priceResponse,
    maxAgeSeconds: 60,
    examples,
    singleSecurity: false,
  }),
  route({
    path: "portfolio/chart",
    summary: "A portfolio's value over a range as D, W or M bars, each position counted from its buy date",
    versions: VERSIONS,
    scope: "portfolio",
    body: portfolioBody,
    operation: PortfolioChartDocument,
    shape: ({ portfolio: p }) => ({
      currency: p.currency,
      from: p.from,
      to: p.to,
      resolution: p.resolution,
      portfolio_items: p.symbols.map((symbol, i) => ({
        symbol,
        amount: p.amounts[i]!,
        buy_date: p.buyDates[i] ?? p.from,
      })),
      ...p.chart,
    }),
    response: chartResponse,
    maxAgeSeconds: 300,
    examples: rangedExamples,
    singleSecurity: false,
  }),
  route({
    path: "portfolio/stats",
    summary: "A portfolio's performance statistics, its positions' risk-return ratios and correlations over a range",
    versions: VERSIONS,
    scope: "portfolio",
    body: portfolioBody,
    operation: PortfolioStatsDocument,
    shape: ({ portfolio: { stats: s } }) => ({
      riskReturnRatio: s.riskReturnRatio as Record<string, number> | null,
      correlation: s.correlation as Record<string, Record<string, number>> | null,
      series: s.series,
      stats: s.stats ? flattenStats(s.stats) : null,
    }),
    response: statsResponse,
    maxAgeSeconds: 300,
    examples: rangedExamples,
    singleSecurity: false,
  }),
  PORTFOLIO_METRIC_ROUTE,
  route({
    path: "portfolio/allocation",
    summary: "Each symbol's share of a portfolio's value at the latest quotes",
    versions: VERSIONS,
    scope: "portfolio",
    body: portfolioBody,
    operation: PortfolioAllocationDocument,
    shape: (d) => ({ portfolio_allocations: d.portfolio.allocation }),
    response: z.object({ portfolio_allocations: weightsOf("symbol", "Symbol of the positions") }),
    maxAgeSeconds: 60,
    examples,
    singleSecurity: false,
  }),
  route({
    path: "portfolio/sector",
    summary: "A portfolio's sectors, through its ETFs and funds to their holdings, with what cannot be placed",
    versions: VERSIONS,
    scope: "portfolio",
    body: portfolioBody,
    operation: PortfolioSectorDocument,
    shape: (d) => ({ portfolioSectors: d.portfolio.sectors }),
    response: z.object({
      portfolioSectors: weightsOf("sector", "Sector; Other: none (bonds, cash, crypto); Unknown: not placed"),
    }),
    maxAgeSeconds: 60,
    examples: lookThroughExamples,
    singleSecurity: false,
  }),
  route({
    path: "portfolio/region",
    summary: "A portfolio's regions (continents), through its ETFs and funds to their holdings",
    versions: VERSIONS,
    scope: "portfolio",
    body: portfolioBody,
    operation: PortfolioRegionDocument,
    shape: (d) => ({ portfolio_regions: d.portfolio.regions }),
    response: z.object({
      portfolio_regions: weightsOf("region", "Continent; Other: none (cash, crypto); Unknown: not placed"),
    }),
    maxAgeSeconds: 60,
    examples: lookThroughExamples,
    singleSecurity: false,
  }),
  // The Dart client's spelling (rest.aliases.ts), answered alike.
  ...Object.entries(DART_PATHS)
    .filter(([, target]) => target === PORTFOLIO_METRIC_ROUTE.path)
    .map(([path]) => ({
      ...PORTFOLIO_METRIC_ROUTE,
      path,
      summary: `${PORTFOLIO_METRIC_ROUTE.summary} (Dart's spelling)`,
    })),
];
