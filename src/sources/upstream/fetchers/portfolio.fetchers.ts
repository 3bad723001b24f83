import type {
  Portfolio,
  PortfolioAllocationItem,
  PortfolioChart,
  PortfolioMetric,
  PortfolioPrice,
  PortfolioRegionItem,
  PortfolioSectorItem,
  PortfolioStats,
} from "../../../domain/portfolio/portfolio.types";
import { groupStats, type SdkStats } from "../../../domain/portfolio/portfolio.figures";
import { bodyOf } from "../upstream.calls";
import type { UpstreamFetcher } from "../upstream.fetcher";

/** The request the contract's portfolio/* endpoints take, from a portfolio as read (dates in Unix seconds). */
const portfolioRequest = (p: Portfolio) =>
  bodyOf({
    portfolio_items: p.items.map((i) => ({ symbol: i.symbol, amount: i.amount, buy_date: i.buyDate })),
    currency: p.currency,
    from: p.from,
    to: p.to,
    resolution: p.resolution,
  });

interface RestBars {
  s: string;
  t: number[];
  o: number[];
  h: number[];
  l: number[];
  c: number[];
  v: number[];
}

const barsOf = (d: RestBars): PortfolioChart => ({ s: d.s, t: d.t, o: d.o, h: d.h, l: d.l, c: d.c, v: d.v });

export const portfolioPriceFetcher: UpstreamFetcher<Portfolio, PortfolioPrice, PortfolioPrice> = {
  path: "/v1/portfolio/price",
  kind: "quote",
  request: portfolioRequest,
  transform: (d) => ({ c: d.c, o: d.o, h: d.h, l: d.l, pc: d.pc, d: d.d, dp: d.dp, t: d.t }),
};

export const portfolioChartFetcher: UpstreamFetcher<Portfolio, RestBars, PortfolioChart> = {
  path: "/v1/portfolio/chart",
  kind: "bars",
  request: portfolioRequest,
  transform: barsOf,
};

/** The contract's portfolio/stats: the per-symbol figures as objects keyed by symbol. */
interface RestStats {
  riskReturnRatio: Record<string, number> | null;
  correlation: Record<string, Record<string, number>> | null;
  series: RestBars | null;
  stats: SdkStats | null;
}

export const portfolioStatsFetcher: UpstreamFetcher<Portfolio, RestStats, PortfolioStats> = {
  path: "/v1/portfolio/stats",
  kind: "bars",
  request: portfolioRequest,
  transform: (d) => ({
    riskReturnRatio: d.riskReturnRatio,
    correlation: d.correlation,
    series: d.series ? barsOf(d.series) : null,
    stats: d.stats ? groupStats(d.stats) : null,
  }),
};

/** The contract's portfolio/metric (Finnhub's names). */
interface RestMetric {
  beta: number;
  "26WeekPriceReturnDaily": number;
  "5DayPriceReturnDaily": number;
  "52WeekPriceReturnDaily": number;
  dividendPerShareAnnual: number;
  treynorQuotient: number;
  sharpeRatio: number;
  alpha: number;
}

export const portfolioMetricFetcher: UpstreamFetcher<
  { p: Portfolio; benchmark: string | null },
  RestMetric,
  PortfolioMetric
> = {
  path: "/v1/portfolio/metric",
  kind: "bars",
  request: ({ p, benchmark }) => ({ ...portfolioRequest(p), ...bodyOf({ benchmark }) }),
  transform: (d) => ({
    beta: d.beta,
    fiveDayPriceReturnDaily: d["5DayPriceReturnDaily"],
    twentySixWeekPriceReturnDaily: d["26WeekPriceReturnDaily"],
    fiftyTwoWeekPriceReturnDaily: d["52WeekPriceReturnDaily"],
    dividendPerShareAnnual: d.dividendPerShareAnnual,
    treynorQuotient: d.treynorQuotient,
    sharpeRatio: d.sharpeRatio,
    alpha: d.alpha,
  }),
};

/** The Python SDK's PortfolioAllocation, PortfolioSector and PortfolioRegion (one list each, under its own key). */
export const portfolioAllocationFetcher: UpstreamFetcher<
  Portfolio,
  { portfolio_allocations: PortfolioAllocationItem[] },
  PortfolioAllocationItem[]
> = {
  path: "/v1/portfolio/allocation",
  kind: "quote",
  request: portfolioRequest,
  transform: (d) => d.portfolio_allocations.map((a) => ({ symbol: a.symbol, percentage: a.percentage })),
};

export const portfolioSectorsFetcher: UpstreamFetcher<
  Portfolio,
  { portfolioSectors: PortfolioSectorItem[] },
  PortfolioSectorItem[]
> = {
  path: "/v1/portfolio/sector",
  kind: "quote",
  request: portfolioRequest,
  transform: (d) => d.portfolioSectors.map((a) => ({ sector: a.sector, percentage: a.percentage })),
};

export const portfolioRegionsFetcher: UpstreamFetcher<
  Portfolio,
  { portfolio_regions: PortfolioRegionItem[] },
  PortfolioRegionItem[]
> = {
  path: "/v1/portfolio/region",
  kind: "quote",
  request: portfolioRequest,
  transform: (d) => d.portfolio_regions.map((a) => ({ region: a.region, percentage: a.percentage })),
};
