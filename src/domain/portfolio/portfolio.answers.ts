import type { RequestContext } from "../request.context";
import {
  openPortfolio,
  portfolioAllocation,
  portfolioChart,
  portfolioMetric,
  portfolioPrice,
  portfolioRegions,
  portfolioSectors,
  portfolioStats,
} from "./portfolio.service";
import type {
  Portfolio,
  PortfolioAllocationItem,
  PortfolioArgs,
  PortfolioChart,
  PortfolioMetric,
  PortfolioPrice,
  PortfolioRegionItem,
  PortfolioSectorItem,
  PortfolioStats,
} from "./portfolio.types";

/**
 * Portfolio analytics, as the resolvers ask for them (the answer level: see etf/etf.answers.ts). `open` reads and
 * checks the request (and, over a row store, resolves its symbols); each figure is computed from what it opened.
 */
export interface PortfolioAnswers {
  open(ctx: RequestContext, args: PortfolioArgs): Promise<Portfolio>;
  price(ctx: RequestContext, p: Portfolio): Promise<PortfolioPrice>;
  chart(ctx: RequestContext, p: Portfolio): Promise<PortfolioChart>;
  stats(ctx: RequestContext, p: Portfolio): Promise<PortfolioStats>;
  /** `benchmark`: a symbol to measure beta, alpha and Treynor against; null: none (those are 0). */
  metric(ctx: RequestContext, p: Portfolio, benchmark: string | null): Promise<PortfolioMetric>;
  allocation(ctx: RequestContext, p: Portfolio): Promise<PortfolioAllocationItem[]>;
  sectors(ctx: RequestContext, p: Portfolio): Promise<PortfolioSectorItem[]>;
  regions(ctx: RequestContext, p: Portfolio): Promise<PortfolioRegionItem[]>;
}

/** From the store's quotes, daily bars and FX series, through the request's loaders (portfolio.service.ts). */
export const ROW_STORE_PORTFOLIO_ANSWERS: PortfolioAnswers = Object.freeze({
  open: openPortfolio,
  price: portfolioPrice,
  chart: portfolioChart,
  stats: portfolioStats,
  metric: portfolioMetric,
  allocation: portfolioAllocation,
  sectors: portfolioSectors,
  regions: portfolioRegions,
});
