import type { IngestLoad, IngestRecord } from "../../../domain/ports/source.ingest";
import type { ProviderHttp } from "../provider.http";
import {
  BAR_LOAD_COLUMNS,
  fetchWith,
  keptRecord,
  QUOTE_LOAD_COLUMNS,
  type IngestQuery,
  type IngestStoreView,
  type Provider,
} from "../provider.types";
import { krakenOhlcFetcher } from "./kraken.ohlc";

/**
 * Kraken's public endpoints allow about one call a second (a counter that decays by one a second; its REST API
 * documentation's rate limits): the client keeps to that.
 */
export const KRAKEN_PER_SECOND = 1;

/** Kraken's names of assets that differ from the usual codes. */
const KRAKEN_ASSETS: Readonly<Record<string, string>> = { BTC: "XBT", DOGE: "XDG" };

/** `BTC-USD` as Kraken names the pair (`XBTUSD`); undefined for a symbol that is no `BASE-QUOTE` pair. */
export function krakenPair(symbol: string): string | undefined {
  const m = /^([A-Z0-9]{2,10})-([A-Z]{3,4})$/.exec(symbol.toUpperCase());
  if (!m) return undefined;
  return `${KRAKEN_ASSETS[m[1]!] ?? m[1]}${KRAKEN_ASSETS[m[2]!] ?? m[2]}`;
}

/** What a run keeps: per pair, the start of its last committed daily candle. */
interface KrakenState {
  pairs: Record<string, number>;
}

const dayOf = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);

/**
 * Kraken spot market data (keyless). Dataset `daily`: for each crypto pair the store lists (`BTC-USD`), or those
 * `--symbols` names, one call to `/0/public/OHLC` at the daily interval: the committed days become daily bars, the
 * running day the quote (its last trade as the price, the day before's close as the previous close). Kraken
 * answers the latest 720 candles only, whatever is asked: a `--since` older than that gets what there is. Later
 * runs ask from the last committed day on.
 */
export const krakenProvider: Provider = {
  name: "kraken",
  datasets: ["daily"],
  async fetch(query: IngestQuery, http: ProviderHttp, state: string | undefined, store: IngestStoreView) {
    const kept: KrakenState = { pairs: keptRecord<number>(state, "pairs") };
    const listed = (await store.cryptoListings()).map((l) => l.symbol);
    const wanted = query.symbols ? query.symbols.map((s) => s.toUpperCase()) : listed;
    const notes: string[] = [];
    const calls0 = http.requests;
    const bars: IngestRecord[] = [];
    const quotes: IngestRecord[] = [];
    const next: KrakenState = { pairs: { ...kept.pairs } };
    for (const symbol of wanted) {
      const pair = krakenPair(symbol);
      if (!pair) {
        notes.push(`${symbol}: not a BASE-QUOTE pair, left out`);
        continue;
      }
      const since = query.since !== undefined ? Date.parse(`${query.since}T00:00:00Z`) / 1000 - 1 : kept.pairs[symbol];
      const ohlc = await fetchWith(http, krakenOhlcFetcher, { pair, since });
      const committed = ohlc.candles.filter((c) => c.t <= ohlc.last && (since === undefined || c.t > since));
      for (const c of committed) {
        bars.push({
          row: bars.length + 1,
          values: { symbol, day: dayOf(c.t), o: c.open, h: c.high, l: c.low, c: c.close, v: c.volume },
        });
      }
      const running = ohlc.candles[ohlc.candles.length - 1];
      const before = ohlc.candles.length > 1 ? ohlc.candles[ohlc.candles.length - 2] : undefined;
      if (running) {
        quotes.push({
          row: quotes.length + 1,
          values: {
            symbol,
            t: running.t,
            o: running.open,
            h: running.high,
            l: running.low,
            c: running.close,
            pc: before?.close ?? running.open,
            v: running.volume,
          },
        });
      }
      notes.push(`${symbol} (${pair}): ${committed.length} day${committed.length === 1 ? "" : "s"}`);
      if (committed.length > 0) next.pairs[symbol] = Math.max(kept.pairs[symbol] ?? 0, ohlc.last);
    }
    if (wanted.length === 0) notes.push("no pair to fetch: the store lists no crypto pair");
    const loads: IngestLoad[] = [
      {
        kind: "daily-bars",
        name: "OHLC (daily)",
        columns: BAR_LOAD_COLUMNS,
        records: bars,
        count: bars.length,
      },
      {
        kind: "quotes",
        name: "OHLC (running day)",
        columns: QUOTE_LOAD_COLUMNS,
        records: quotes,
        count: quotes.length,
      },
    ];
    return { dataset: "daily", calls: http.requests - calls0, loads, nextState: JSON.stringify(next), notes };
  },
};
