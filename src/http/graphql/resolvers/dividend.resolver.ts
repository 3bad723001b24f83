import { Args, Authorized, Ctx, Query, Resolver } from "type-graphql";
import type { Context } from "../../http.context";
import {
  AnnualDividends,
  AnnualDividendsArgs,
  DividendCalendarArgs,
  DividendCalendarPage,
  DividendEstimate,
  DividendSecurityArgs,
} from "../../../domain/dividend/dividend.types";

@Resolver()
export class DividendResolver {
  @Authorized("dividend")
  @Query(() => DividendCalendarPage, {
    description:
      "Announced and upcoming dividends of stocks and ETFs by ex-date; default window today to 90 days ahead; " +
      "keyset-paginated",
  })
  dividendCalendar(
    @Args(() => DividendCalendarArgs) args: DividendCalendarArgs,
    @Ctx() ctx: Context,
  ): Promise<DividendCalendarPage> {
    return ctx.answers.dividend.calendar(ctx, args);
  }

  @Authorized("dividend")
  @Query(() => AnnualDividends, {
    description: "Dividends per calendar year of a stock, ETF or fund, with the forward annual dividend and yield",
  })
  annualDividends(
    @Args(() => AnnualDividendsArgs) args: AnnualDividendsArgs,
    @Ctx() ctx: Context,
  ): Promise<AnnualDividends> {
    return ctx.answers.dividend.annual(ctx, args);
  }

  @Authorized("dividend")
  @Query(() => DividendEstimate, {
    description: "Expected dividends of the next twelve months of an ETF, stock or fund: announced, then estimated",
  })
  dividendEstimate(
    @Args(() => DividendSecurityArgs) args: DividendSecurityArgs,
    @Ctx() ctx: Context,
  ): Promise<DividendEstimate> {
    return ctx.answers.dividend.estimate(ctx, args);
  }
}
