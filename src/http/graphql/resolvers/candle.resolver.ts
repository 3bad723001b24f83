import { Args, Authorized, Ctx, Query, Resolver } from "type-graphql";
import type { Context } from "../../http.context";
import { BY_SECURITY_TYPE } from "../../../domain/instrument/instrument.access";
import { CandleArgs, Candles } from "../../../domain/candle/candle.types";

@Resolver(() => Candles)
export class CandleResolver {
  /** Any valid key gets in; the service then requires the scope of the security's type, as quote does. */
  @Authorized(BY_SECURITY_TYPE)
  @Query(() => Candles, {
    description: "OHLCV candles of a stock, ETF, fund, crypto pair or forex pair, by symbol or ISIN",
  })
  candle(@Args(() => CandleArgs) args: CandleArgs, @Ctx() ctx: Context): Promise<Candles> {
    return ctx.answers.candle.get(ctx, args);
  }
}
