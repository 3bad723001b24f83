import { Args, Authorized, Ctx, FieldResolver, ID, Query, Resolver, Root } from "type-graphql";
import { candlesOf } from "../candle/candle.service";
import { CandleRangeArgs, Candles } from "../candle/candle.types";
import type { Context } from "../../context";
import { annualDividendsOf, dividendEstimateOf, dividendsOf } from "../dividend/dividend.service";
import { AnnualDividends, Dividend, DividendEstimate } from "../dividend/dividend.types";
import { listingId } from "../instrument/instrument.ids";
import { DividendRangeArgs } from "./stock.args";
import { financialsTtmOf, getStock } from "./stock.service";
import { FinancialsTtm, Stock, StockArgs } from "./stock.types";

/**
 * `stock(symbol|isin)` answers the identity of the stock to any valid key
 * (search shows the same); each data field needs its own scope: `stock` for
 * financials and candles, `dividend` for dividends.
 */
@Resolver(() => Stock)
export class StockResolver {
  @Authorized()
  @Query(() => Stock, { description: "A stock by symbol (any of its listings) or ISIN" })
  stock(@Args(() => StockArgs) args: StockArgs, @Ctx() ctx: Context): Promise<Stock> {
    return getStock(ctx, args);
  }

  @FieldResolver(() => ID, {
    description:
      "Stable id of this listing (exchange:symbol), the same across restarts and replicas; for client caches",
  })
  id(@Root() stock: Stock): string {
    return listingId(stock.row.listing);
  }

  @Authorized("stock")
  @FieldResolver(() => FinancialsTtm, {
    nullable: true,
    description:
      "Trailing-twelve-month financials; with fewer than four reported quarters, those quarters and null figures",
  })
  financialsTtm(@Root() stock: Stock, @Ctx() ctx: Context): Promise<FinancialsTtm> {
    return financialsTtmOf(ctx, stock.row);
  }

  @Authorized("stock")
  @FieldResolver(() => Candles, { nullable: true, description: "OHLCV candles of this listing" })
  candles(
    @Root() stock: Stock,
    @Args(() => CandleRangeArgs) args: CandleRangeArgs,
    @Ctx() ctx: Context,
  ): Promise<Candles> {
    return candlesOf(ctx, stock.row, args);
  }

  @Authorized("dividend")
  @FieldResolver(() => [Dividend], {
    nullable: true,
    description: "Every dividend known today, oldest first (history and announced)",
  })
  dividends(
    @Root() stock: Stock,
    @Args(() => DividendRangeArgs) args: DividendRangeArgs,
    @Ctx() ctx: Context,
  ): Promise<Dividend[]> {
    return dividendsOf(ctx, stock.row, args.from, args.to);
  }

  @Authorized("dividend")
  @FieldResolver(() => AnnualDividends, {
    nullable: true,
    description: "Dividends per calendar year with the forward dividend and yield (scope dividend)",
  })
  annualDividends(@Root() stock: Stock, @Ctx() ctx: Context): Promise<AnnualDividends> {
    return annualDividendsOf(ctx, stock.row);
  }

  @Authorized("dividend")
  @FieldResolver(() => DividendEstimate, {
    nullable: true,
    description: "Announced and estimated dividends of the next twelve months (scope dividend)",
  })
  dividendEstimate(@Root() stock: Stock, @Ctx() ctx: Context): Promise<DividendEstimate> {
    return dividendEstimateOf(ctx, stock.row);
  }
}
