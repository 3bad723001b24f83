import { ProviderFormatError, type ProviderFetcher } from "../provider.types";

/** One day of `/tiingo/daily/<ticker>/prices`: as traded (`open` … `volume`), and the split that day. */
export interface TiingoDay {
  day: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  /** New shares per old one on this day (1: none). */
  splitFactor: number;
}

export interface TiingoPricesQuery {
  ticker: string;
  /** First day wanted; unset: Tiingo answers its latest day only. */
  startDate?: string;
  token: string;
}

/**
 * Tiingo's end-of-day prices of a ticker: `[{"date":"2023-01-03T00:00:00.000Z","close":…,"high":…,"low":…,
 * "open":…,"volume":…,"adjClose":…,…,"divCash":…,"splitFactor":…},…]`, oldest first. The key travels in the query
 * string (`token`), as Tiingo documents it; the client hides it from every message.
 */
export const tiingoPricesFetcher: ProviderFetcher<TiingoPricesQuery, TiingoDay[]> = {
  request: (q) => ({
    path: `/tiingo/daily/${encodeURIComponent(q.ticker.toLowerCase())}/prices`,
    query: { ...(q.startDate !== undefined && { startDate: q.startDate }), token: q.token },
  }),
  transform(res) {
    let doc: unknown;
    try {
      doc = JSON.parse(res.body.toString("utf8"));
    } catch {
      throw new ProviderFormatError("not JSON");
    }
    if (!Array.isArray(doc)) {
      const detail = (doc as { detail?: unknown })?.detail;
      throw new ProviderFormatError(
        typeof detail === "string" ? `Tiingo says: ${detail}` : 'expected [{"date":…,"open":…,"close":…},…]',
      );
    }
    return doc.map((d: Record<string, unknown>, i) => {
      const num = (k: string) => {
        const v = d?.[k];
        if (typeof v !== "number" || !Number.isFinite(v)) {
          throw new ProviderFormatError(`[${i}].${k}: expected a number`);
        }
        return v;
      };
      const date = d?.date;
      if (typeof date !== "string" || !/^\d{4}-\d{2}-\d{2}/.test(date)) {
        throw new ProviderFormatError(`[${i}].date: expected a day`);
      }
      return {
        day: date.slice(0, 10),
        open: num("open"),
        high: num("high"),
        low: num("low"),
        close: num("close"),
        volume: num("volume"),
        splitFactor: typeof d.splitFactor === "number" && d.splitFactor > 0 ? d.splitFactor : 1,
      };
    });
  },
};
