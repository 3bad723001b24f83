import type { CandleRangeArgs, Candles } from "../../../domain/candle/candle.types";
import type { SecurityRef } from "../../../domain/instrument/instrument.service";
import { bodyOf, refBody } from "../upstream.calls";
import type { UpstreamFetcher } from "../upstream.fetcher";

export interface CandleQuery {
  ref: SecurityRef;
  range: CandleRangeArgs;
}

/** The contract's candles are ours field for field. */
export const candleFetcher: UpstreamFetcher<CandleQuery, Candles, Candles> = {
  path: "/v1/candle",
  kind: "bars",
  request: ({ ref, range }) =>
    bodyOf({ ...refBody(ref), from: range.from, to: range.to, resolution: range.resolution, currency: range.currency }),
  transform: (d) => d,
};
