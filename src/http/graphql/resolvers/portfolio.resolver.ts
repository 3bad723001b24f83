import { Arg, Args, Authorized, Ctx, FieldResolver, Query, Resolver, Root } from "type-graphql";
import type { Context } from "../../http.context";
import {
  Portfolio,
  PortfolioAllocationItem,
  PortfolioArgs,
  PortfolioChart,
  PortfolioMetric,
  PortfolioPrice,
  PortfolioRegionItem,
  PortfolioSectorItem,
  PortfolioStats,
} from "../../../domain/portfolio/portfolio.types";

/** Thin: every field is an answer of the request's `answers.portfolio` (portfolio.answers.ts). */
@Resolver(() => Portfolio)
export class PortfolioResolver {
  /** The `portfolio` scope, and then the scope of each held security's type, as quote and candle require it. */
  @Authorized("portfolio")
  @Query(() => Portfolio, {
    description:
      "Analytics of a portfolio of positions (symbol, amount, buy date): its value now, its value day by day and " +
      "its performance statistics, in one currency",
  })
  portfolio(@Args(() => PortfolioArgs) args: PortfolioArgs, @Ctx() ctx: Context): Promise<Portfolio> {
    return ctx.answers.portfolio.open(ctx, args);
  }

  @FieldResolver(() => PortfolioPrice, { description: "The value now, from each position's latest quote" })
  price(@Root() p: Portfolio, @Ctx() ctx: Context): Promise<PortfolioPrice> {
    return ctx.answers.portfolio.price(ctx, p);
  }

  @FieldResolver(() => PortfolioChart, { description: "The value over from..to, as bars of the resolution" })
  chart(@Root() p: Portfolio, @Ctx() ctx: Context): Promise<PortfolioChart> {
    return ctx.answers.portfolio.chart(ctx, p);
  }

  @FieldResolver(() => PortfolioStats, { description: "Performance statistics over from..to, from daily values" })
  stats(@Root() p: Portfolio, @Ctx() ctx: Context): Promise<PortfolioStats> {
    return ctx.answers.portfolio.stats(ctx, p);
  }

  @FieldResolver(() => PortfolioMetric, {
    description: "Metrics over the year to `to` (returns, Sharpe, dividends), and against a benchmark when named",
  })
  metric(
    @Root() p: Portfolio,
    @Ctx() ctx: Context,
    @Arg("benchmark", () => String, {
      nullable: true,
      description: "Symbol to measure beta, alpha and Treynor against (its type's scope needed); none: those are 0",
    })
    benchmark?: string | null,
  ): Promise<PortfolioMetric> {
    return ctx.answers.portfolio.metric(ctx, p, benchmark ?? null);
  }

  @FieldResolver(() => [PortfolioAllocationItem], {
    description: "Each symbol's share of the value now, largest first",
  })
  allocation(@Root() p: Portfolio, @Ctx() ctx: Context): Promise<PortfolioAllocationItem[]> {
    return ctx.answers.portfolio.allocation(ctx, p);
  }

  @FieldResolver(() => [PortfolioSectorItem], {
    description: "Shares of the value now by sector, through ETFs and funds to their holdings, largest first",
  })
  sectors(@Root() p: Portfolio, @Ctx() ctx: Context): Promise<PortfolioSectorItem[]> {
    return ctx.answers.portfolio.sectors(ctx, p);
  }

  @FieldResolver(() => [PortfolioRegionItem], {
    description: "Shares of the value now by region, through ETFs and funds to their holdings, largest first",
  })
  regions(@Root() p: Portfolio, @Ctx() ctx: Context): Promise<PortfolioRegionItem[]> {
    return ctx.answers.portfolio.regions(ctx, p);
  }
}
