import { ProviderFormatError, type ProviderFetcher } from "../provider.types";

/** One candle of Kraken's `/0/public/OHLC`: its start (Unix seconds) and prices as traded. */
export interface KrakenCandle {
  t: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** A pair's candles, oldest first; `last` is the start of the last committed one (the next is still running). */
export interface KrakenOhlc {
  candles: KrakenCandle[];
  last: number;
}

export interface KrakenOhlcQuery {
  /** Kraken's name of the pair (`XBTUSD`). */
  pair: string;
  /** Candles starting after this Unix second; unset: the latest 720. */
  since?: number;
}

/** A day, in minutes: the daily interval. */
const DAILY = "1440";

/**
 * `/0/public/OHLC?pair=XBTUSD&interval=1440`: `{"error":[],"result":{"XXBTZUSD":[[time,"open","high","low","close",
 * "vwap","volume",count],…],"last":…}}`, keyed by Kraken's own name of the pair. Kraken reports its errors
 * (`EQuery:Unknown asset pair`, `EGeneral:Too many requests`) with a 200 and a non-empty `error`.
 */
export const krakenOhlcFetcher: ProviderFetcher<KrakenOhlcQuery, KrakenOhlc> = {
  request: (q) => ({
    path: "/0/public/OHLC",
    query: { pair: q.pair, interval: DAILY, ...(q.since !== undefined && { since: String(q.since) }) },
  }),
  transform(res) {
    let doc: { error?: unknown; result?: Record<string, unknown> };
    try {
      doc = JSON.parse(res.body.toString("utf8")) as typeof doc;
    } catch {
      throw new ProviderFormatError("not JSON");
    }
    if (Array.isArray(doc?.error) && doc.error.length > 0) {
      throw new ProviderFormatError(`Kraken says: ${doc.error.map(String).join("; ")}`);
    }
    const result = doc?.result;
    const series = result && Object.entries(result).filter(([k, v]) => k !== "last" && Array.isArray(v));
    if (!result || !series || series.length !== 1 || typeof result.last !== "number") {
      throw new ProviderFormatError(
        'expected {"error":[],"result":{"<pair>":[[time,open,high,low,close,…],…],"last":…}}',
      );
    }
    const candles = (series[0]![1] as unknown[]).map((row, i) => {
      const r = Array.isArray(row) ? (row as unknown[]) : [];
      const n = (j: number) => {
        const v = typeof r[j] === "string" ? Number(r[j]) : Number.NaN;
        if (!Number.isFinite(v)) throw new ProviderFormatError(`[${i}][${j}]: expected a decimal in a string`);
        return v;
      };
      if (typeof r[0] !== "number") throw new ProviderFormatError(`[${i}][0]: expected Unix seconds`);
      return { t: r[0], open: n(1), high: n(2), low: n(3), close: n(4), volume: n(6) };
    });
    return { candles, last: result.last };
  },
};
