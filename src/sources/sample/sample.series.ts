import { daysBetween, parseDay, weekdaysBetween } from "./sample.calendar";
import {
  BarSimulator,
  CRYPTO_CRASHES,
  type HistorySpec,
  marketFactor,
  type QuoteStats,
  type RowWriter,
  type SqlValue,
  STOCK_CRASHES,
} from "./sample.prices";
import { Random } from "./sample.random";

/**
 * Daily histories of the generated sample that are computed when read
 * instead of stored.
 *
 * Every listing of the sample has a price path: a spec (a row of
 * `sample_series`) plus its random stream, a fork of the seed's "bars"
 * stream. The generator runs each spec once at build time for the quote
 * (the quote is the last bar) and stores the bars of the listings it always
 * stored (the largest, and those with 5-minute bars); the other paths are
 * run again, by the same code from the same spec and stream, when a candle
 * asks for them. So a bar is the same whether it was stored or computed,
 * which a test checks on stored listings.
 *
 * Only a store whose `meta` holds SERIES_META_KEY (written by the generator
 * with the table) ever computes a bar: a user's own store has neither.
 */

/** The meta key the generator writes; its value is the version of the series format. */
export const SERIES_META_KEY = "synthetic_daily_bars";
export const SERIES_FORMAT = "2";

export const STOCK_FACTOR_VOL = 0.16;
export const CRYPTO_FACTOR_VOL = 0.5;

/** Created by the generator (never by a migration): only the generated sample has it. */
export const SERIES_TABLE_SQL = `CREATE TABLE sample_series (
  listing_id      INTEGER PRIMARY KEY REFERENCES listings(id),
  stream          INTEGER NOT NULL,   -- listing whose random stream drives the path (a secondary follows its primary)
  market          TEXT NOT NULL,      -- 'weekday' (exchange days, stock factor) or 'daily' (every day, crypto factor)
  style           TEXT NOT NULL,      -- 'ohlc', 'nav' or 'fx'
  first_day       INTEGER NOT NULL,   -- first day of the path, days since 1970-01-01
  last_day        INTEGER NOT NULL,
  final_price     REAL NOT NULL,      -- last close before rounding
  base_decimals   INTEGER NOT NULL,
  volatility      REAL NOT NULL,
  beta            REAL NOT NULL,
  drift           REAL NOT NULL,
  volume          REAL NOT NULL,
  volume_share    REAL NOT NULL,      -- fraction of the path's volume this listing trades
  mean_reversion  REAL NOT NULL,
  with_factor     INTEGER NOT NULL,
  gaps            INTEGER NOT NULL,
  intraday_bars   INTEGER NOT NULL,   -- 5-minute bars a day on the last days (they shape the path's last days)
  exchange        TEXT NOT NULL,      -- the listing's exchange: its sessions and holidays (sample.sessions.ts)
  stored          INTEGER NOT NULL    -- 1: the bars are rows of daily_bars; 0: computed when read
)`;

export const SERIES_COLUMNS = [
  "listing_id",
  "stream",
  "market",
  "style",
  "first_day",
  "last_day",
  "final_price",
  "base_decimals",
  "volatility",
  "beta",
  "drift",
  "volume",
  "volume_share",
  "mean_reversion",
  "with_factor",
  "gaps",
  "intraday_bars",
  "exchange",
  "stored",
] as const;

export type SeriesMarket = "weekday" | "daily";

/** A `sample_series` row as read back. */
export interface SeriesRow {
  listingId: number;
  stream: number;
  market: SeriesMarket;
  style: HistorySpec["style"];
  firstDay: number;
  lastDay: number;
  finalPrice: number;
  baseDecimals: number;
  volatility: number;
  beta: number;
  drift: number;
  volume: number;
  volumeShare: number;
  meanReversion: number;
  withFactor: boolean;
  gaps: boolean;
  intradayBars: number;
  exchange: string;
  stored: boolean;
}

export function seriesRowValues(spec: HistorySpec, stored: boolean): SqlValue[] {
  const days = spec.days;
  return [
    spec.listingId,
    spec.stream,
    spec.market,
    spec.style,
    days[0] as number,
    days[days.length - 1] as number,
    spec.finalPrice,
    spec.baseDecimals,
    spec.volatility,
    spec.beta,
    spec.drift,
    spec.volume,
    spec.volumeShare ?? 1,
    spec.meanReversion,
    spec.factor === null ? 0 : 1,
    spec.gaps ? 1 : 0,
    spec.intradayBars,
    spec.exchange,
    stored ? 1 : 0,
  ];
}

export function toSeriesRow(r: Record<string, unknown>): SeriesRow {
  return {
    listingId: r.listing_id as number,
    stream: r.stream as number,
    market: r.market as SeriesMarket,
    style: r.style as HistorySpec["style"],
    firstDay: r.first_day as number,
    lastDay: r.last_day as number,
    finalPrice: r.final_price as number,
    baseDecimals: r.base_decimals as number,
    volatility: r.volatility as number,
    beta: r.beta as number,
    drift: r.drift as number,
    volume: r.volume as number,
    volumeShare: r.volume_share as number,
    meanReversion: r.mean_reversion as number,
    withFactor: r.with_factor === 1,
    gaps: r.gaps === 1,
    intradayBars: r.intraday_bars as number,
    exchange: r.exchange as string,
    stored: r.stored === 1,
  };
}

/**
 * The calendars and market factors every path of one sample shares: a pure
 * function of the seed and the history window, so the generator and a reader
 * build the same arrays.
 */
export class SeriesCalendar {
  readonly weekdays: Int32Array;
  readonly allDays: Int32Array;
  readonly stockFactor: Float64Array;
  readonly cryptoFactor: Float64Array;

  constructor(
    readonly seed: number,
    readonly historyStart: number,
    readonly anchorDay: number,
  ) {
    // Paths end the day before the anchor: the anchor day's sessions close after the sample's clock (00:00 UTC).
    this.weekdays = weekdaysBetween(historyStart, anchorDay - 1);
    this.allDays = daysBetween(historyStart, anchorDay - 1);
    const rng = (label: string) => Random.fromSeed(seed, label);
    this.stockFactor = marketFactor(rng("market"), this.weekdays, STOCK_FACTOR_VOL, 0.08, 252, STOCK_CRASHES);
    this.cryptoFactor = marketFactor(rng("crypto-market"), this.allDays, CRYPTO_FACTOR_VOL, 0.55, 365, CRYPTO_CRASHES);
  }

  /** Days and factor of a market from `firstDay` on (aligned views, no copy). */
  window(market: SeriesMarket, firstDay: number): { days: Int32Array; factor: Float64Array } {
    const days = market === "weekday" ? this.weekdays : this.allDays;
    const factor = market === "weekday" ? this.stockFactor : this.cryptoFactor;
    let lo = 0;
    let hi = days.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((days[mid] as number) < firstDay) lo = mid + 1;
      else hi = mid;
    }
    return { days: days.subarray(lo), factor: factor.subarray(lo) };
  }

  /** The spec a row describes (fx paths need the FX history and are always stored). */
  spec(row: SeriesRow): HistorySpec {
    const { days, factor } = this.window(row.market, row.firstDay);
    const weekday = row.market === "weekday";
    return {
      listingId: row.listingId,
      stream: row.stream,
      market: row.market,
      style: row.style,
      days,
      factor: row.withFactor ? factor : null,
      factorDailyVol: weekday ? STOCK_FACTOR_VOL / Math.sqrt(252) : CRYPTO_FACTOR_VOL / Math.sqrt(365),
      stepsPerYear: weekday ? 252 : 365,
      finalPrice: row.finalPrice,
      baseDecimals: row.baseDecimals,
      volatility: row.volatility,
      beta: row.beta,
      drift: row.drift,
      volume: row.volume,
      volumeShare: row.volumeShare,
      meanReversion: row.meanReversion,
      gaps: row.gaps,
      intradayBars: row.intradayBars,
      exchange: row.exchange,
    };
  }
}

/** The daily bars of one path, columns as typed arrays (t in Unix seconds). */
export interface DailySeries {
  t: Float64Array;
  o: Float64Array;
  h: Float64Array;
  l: Float64Array;
  c: Float64Array;
  v: Float64Array;
}

class ColumnWriter implements RowWriter {
  readonly out: DailySeries;
  private at = 0;

  constructor(n: number) {
    this.out = {
      t: new Float64Array(n),
      o: new Float64Array(n),
      h: new Float64Array(n),
      l: new Float64Array(n),
      c: new Float64Array(n),
      v: new Float64Array(n),
    };
  }

  write(values: readonly SqlValue[]): void {
    const i = this.at++;
    const o = this.out;
    o.t[i] = values[1] as number;
    o.o[i] = values[2] as number;
    o.h[i] = values[3] as number;
    o.l[i] = values[4] as number;
    o.c[i] = values[5] as number;
    o.v[i] = values[6] as number;
  }

  /** The rows written: fewer than the path's days when its exchange has holidays among them. */
  written(): DailySeries {
    const n = this.at;
    const o = this.out;
    return {
      t: o.t.subarray(0, n),
      o: o.o.subarray(0, n),
      h: o.h.subarray(0, n),
      l: o.l.subarray(0, n),
      c: o.c.subarray(0, n),
      v: o.v.subarray(0, n),
    };
  }
}

export const DISCARD: RowWriter = { write: () => undefined };

/** Runs paths as the generator does, for a reader: same simulator, same streams. */
export class SeriesSynthesizer {
  private readonly sim: BarSimulator;
  private readonly bars: Random;

  constructor(readonly calendar: SeriesCalendar) {
    this.sim = new BarSimulator(calendar.allDays.length, null);
    this.bars = Random.fromSeed(calendar.seed, "bars");
  }

  /** The path's daily bars and the quote they end in. */
  run(row: SeriesRow): { series: DailySeries; quote: QuoteStats } {
    if (row.style === "fx") throw new Error(`Listing ${row.listingId}: fx paths are always stored`);
    const spec = this.calendar.spec(row);
    const w = new ColumnWriter(spec.days.length);
    const quote = this.sim.run(spec, this.bars.fork(spec.stream), w, DISCARD);
    return { series: w.written(), quote };
  }
}

/**
 * A reader's synthesizer for a store's `meta` (seed, history_start,
 * anchor_date): runs a raw `sample_series` row (src/sources/sqlite/sqlite.synthetic.ts).
 */
export function seriesSynthesizer(meta: ReadonlyMap<string, string>): {
  run(row: Record<string, unknown>): DailySeries;
} {
  const synth = new SeriesSynthesizer(
    new SeriesCalendar(
      Number(meta.get("seed")),
      parseDay(meta.get("history_start") as string),
      parseDay(meta.get("anchor_date") as string),
    ),
  );
  return { run: (row) => synth.run(toSeriesRow(row)).series };
}
