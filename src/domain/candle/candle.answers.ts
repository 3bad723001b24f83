import type { RequestContext } from "../request.context";
import { getCandles } from "./candle.service";
import type { CandleArgs, Candles } from "./candle.types";

/** Candles of any listing, as the resolvers ask for them (the answer level: see etf/etf.answers.ts). */
export interface CandleAnswers {
  get(ctx: RequestContext, args: CandleArgs): Promise<Candles>;
}

/** The answers computed by the domain services from a row store's rows. */
export const ROW_STORE_CANDLE_ANSWERS: CandleAnswers = Object.freeze({ get: getCandles });
