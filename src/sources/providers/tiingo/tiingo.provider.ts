import { unixOfDay } from "../../../domain/fx/fx.service";
import type { IngestLoad, IngestRecord } from "../../../domain/ports/source.ingest";
import type { ProviderHttp } from "../provider.http";
import {
  BAR_LOAD_COLUMNS,
  fetchWith,
  keptRecord,
  QUOTE_LOAD_COLUMNS,
  type IngestPlan,
  type IngestQuery,
  type Provider,
} from "../provider.types";
import { tiingoPricesFetcher } from "./tiingo.prices";

/**
 * Tiingo's free plan allows 50 requests an hour and 1,000 a day (its pricing page); one a second keeps a burst of a
 * few tickers polite, and the hourly cap is the operator's to keep with the number of tickers and runs.
 */
export const TIINGO_PER_SECOND = 1;

/** What a run keeps: per ticker, its last day written and that day's close (the next quote's previous close). */
interface TiingoState {
  tickers: Record<string, { day: string; close: number }>;
}

const DAY_MS = 86_400_000;
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);

/**
 * Tiingo end-of-day prices (keyed: MDG_PROVIDER_TIINGO_KEY). Dataset `eod`: the daily bars and the latest quote of
 * the stocks and ETFs `--symbols` names (later runs without it: those an earlier run fetched), one call a ticker,
 * from `--since`, or the day after the last one written, or else Tiingo's latest day. Bars are kept as the store
 * keeps them, adjusted for splits: a split Tiingo reports is imported first, and the days before it divided by it.
 */
export const tiingoProvider: Provider = {
  name: "tiingo",
  datasets: ["eod"],
  async fetch(query: IngestQuery, http: ProviderHttp, state: string | undefined): Promise<IngestPlan> {
    const token = http.options.key;
    if (token === undefined) throw new Error("tiingo: set MDG_PROVIDER_TIINGO_KEY (Tiingo answers only with a key)");
    const kept: TiingoState = { tickers: keptRecord<{ day: string; close: number }>(state, "tickers") };
    const tickers = query.symbols?.map((s) => s.toUpperCase()) ?? Object.keys(kept.tickers);
    if (tickers.length === 0) {
      throw new Error("tiingo: name the stocks and ETFs with --symbols (a later run takes those fetched before)");
    }
    const calls0 = http.requests;
    const notes: string[] = [];
    const bars: IngestRecord[] = [];
    const quotes: IngestRecord[] = [];
    const splits: IngestRecord[] = [];
    const next: TiingoState = { tickers: { ...kept.tickers } };
    for (const ticker of tickers) {
      const last = kept.tickers[ticker];
      const startDate = query.since ?? (last ? nextDay(last.day) : undefined);
      const days = (await fetchWith(http, tiingoPricesFetcher, { ticker, startDate, token })).filter(
        (d) => query.since !== undefined || !last || d.day > last.day,
      );
      notes.push(`${ticker}: ${days.length} day${days.length === 1 ? "" : "s"}`);
      if (days.length === 0) continue;
      // Each day's prices divided by the splits after it (all of them are in this answer, which runs to today).
      let factor = days.reduce((f, d) => f * d.splitFactor, 1);
      days.forEach((d, i) => {
        factor /= d.splitFactor;
        if (d.splitFactor !== 1) {
          splits.push({ row: i + 1, values: { symbol: ticker, day: d.day, numerator: d.splitFactor, denominator: 1 } });
        }
        const p = (v: number) => v / factor;
        bars.push({
          row: i + 1,
          values: {
            symbol: ticker,
            day: d.day,
            o: p(d.open),
            h: p(d.high),
            l: p(d.low),
            c: p(d.close),
            v: d.volume * factor,
          },
        });
      });
      const newest = days[days.length - 1]!;
      const before = days.length > 1 ? days[days.length - 2]!.close : last?.close;
      if (!last || newest.day >= last.day) {
        quotes.push({
          row: days.length,
          values: {
            symbol: ticker,
            t: unixOfDay(newest.day),
            o: newest.open,
            h: newest.high,
            l: newest.low,
            c: newest.close,
            pc: before ?? newest.close,
            v: newest.volume,
          },
        });
        next.tickers[ticker] = { day: newest.day, close: newest.close };
      }
    }
    const loads: IngestLoad[] = [
      {
        kind: "splits",
        name: "tiingo prices (splits)",
        columns: ["symbol", "day", "numerator", "denominator"],
        records: splits,
        count: splits.length,
      },
      {
        kind: "daily-bars",
        name: "tiingo prices",
        columns: BAR_LOAD_COLUMNS,
        records: bars,
        count: bars.length,
      },
      {
        kind: "quotes",
        name: "tiingo prices (quotes)",
        columns: QUOTE_LOAD_COLUMNS,
        records: quotes,
        count: quotes.length,
      },
    ];
    return { dataset: "eod", calls: http.requests - calls0, loads, nextState: JSON.stringify(next), notes };
  },
};
