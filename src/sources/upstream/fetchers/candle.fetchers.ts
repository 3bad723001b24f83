import { CandleAdjustment, type CandleRangeArgs, type Candles } from "../../../domain/candle/candle.types";
import type { SecurityRef } from "../../../domain/instrument/instrument.service";
import { bodyOf, refBody } from "../upstream.calls";
import type { UpstreamFetcher } from "../upstream.fetcher";

export interface CandleQuery {
  ref: SecurityRef;
  range: CandleRangeArgs;
}

/**
 * The contract's candles are ours field for field. `adjustment` is sent only when it is not the default, so a call
 * for split-adjusted bars is the same request (and cache entry) whether it named `splits` or nothing.
 */
export const candleFetcher: UpstreamFetcher<CandleQuery, Candles, Candles> = {
  path: "/v1/candle",
  kind: "bars",
  request: ({ ref, range }) =>
    bodyOf({
      ...refBody(ref),
      from: range.from,
      to: range.to,
      resolution: range.resolution,
      currency: range.currency,
      adjustment: range.adjustment === CandleAdjustment.SPLITS ? null : range.adjustment,
    }),
  transform: (d) => d,
};
