import Database from "better-sqlite3";
import { floatColumn } from "../../platform/columns";
import { dayNumberOfDate } from "../../domain/etf/etf.metrics";
import type { BarRow } from "../../domain/ports/source.types";
import { SampleSeriesBars } from "./sqlite.synthetic";

/** The daily closes of one listing within a range, oldest first, as columns. */
export interface CloseColumns {
  t: Float64Array;
  c: Float64Array;
}

/** The per-USD rates of one currency within a range, oldest first: day numbers (days since 1970-01-01) and rates. */
export interface FxColumns {
  days: number[];
  perUsd: number[];
}

const BARS_SQL = `SELECT k.key AS k, b.t, b.c FROM json_each(?) k
  JOIN daily_bars b ON b.listing_id = k.value ->> 0 AND b.t BETWEEN k.value ->> 1 AND k.value ->> 2
  ORDER BY k.key, b.t`;
const FX_SQL = `SELECT k.key AS k, f.day, f.per_usd FROM json_each(?) k
  JOIN fx_daily f ON f.currency = k.value ->> 0 AND f.day BETWEEN k.value ->> 1 AND k.value ->> 2
  ORDER BY k.key, f.day`;

/** Marks an item whose closes came from the store, so the computed paths leave it alone. */
const STORED: BarRow = { t: 0, o: 0, h: 0, l: 0, c: 0, v: 0 };

/**
 * What the ETF metrics worker (sqlite.etf-metrics.worker.ts) reads of the
 * SQLite store, with a connection of its own, read-only: the closes of many
 * ranges in one statement, and the FX rates of many currency ranges in
 * another, straight into columns, as the SQLite source's batched reads
 * would answer them as rows. `queries` counts the statements run, for the
 * source's query counter.
 */
export class EtfClosesReader {
  private readonly db: Database.Database;
  /** The generated sample's computed paths, as the source serves them (nothing on any other store). */
  private readonly sampleSeries: SampleSeriesBars;
  queries = 0;

  constructor(path: string) {
    this.db = new Database(path, { readonly: true, fileMustExist: true });
    this.sampleSeries = new SampleSeriesBars(this.db, () => this.queries++);
  }

  /** The daily closes of each range (listing, from, to): one statement for all. */
  closes(ranges: readonly { listingId: number; from: number; to: number }[]): CloseColumns[] {
    this.queries++;
    const rows = this.db
      .prepare(BARS_SQL)
      .raw(true)
      .all(JSON.stringify(ranges.map((r) => [r.listingId, r.from, r.to]))) as [number, number, number][];
    const counts = new Int32Array(ranges.length);
    for (const r of rows) counts[r[0]]!++;
    const closes: CloseColumns[] = ranges.map((_, i) => ({
      t: new Float64Array(counts[i]!),
      c: new Float64Array(counts[i]!),
    }));
    counts.fill(0);
    for (const [k, t, c] of rows) {
      const at = counts[k]!++;
      closes[k]!.t[at] = t;
      closes[k]!.c[at] = c;
    }
    if (closes.some((c) => c.t.length === 0)) {
      const computed: BarRow[][] = closes.map((c) => (c.t.length === 0 ? [] : [STORED]));
      this.sampleSeries.fill(ranges, computed);
      computed.forEach((bars, i) => {
        if (closes[i]!.t.length > 0 || bars.length === 0) return;
        closes[i] = { t: floatColumn(bars, (b) => b.t), c: floatColumn(bars, (b) => b.c) };
      });
    }
    return closes;
  }

  /** The rates of each range (currency, first day, last day; days `YYYY-MM-DD`): one statement for all. */
  fxRates(ranges: readonly (readonly [currency: string, fromDay: string, toDay: string])[]): FxColumns[] {
    const fx: FxColumns[] = ranges.map(() => ({ days: [], perUsd: [] }));
    if (ranges.length === 0) return fx;
    this.queries++;
    for (const [k, day, perUsd] of this.db.prepare(FX_SQL).raw(true).all(JSON.stringify(ranges)) as [
      number,
      string,
      number,
    ][]) {
      fx[k]!.days.push(dayNumberOfDate(day));
      fx[k]!.perUsd.push(perUsd);
    }
    return fx;
  }
}
