import Database from "better-sqlite3";
import { move, Piscina } from "piscina";
import { NotFoundError } from "../../platform/errors";
import { dayOfUnix, type MetricResolution, type MetricsResult } from "./etf.metrics";
import type { BarRow } from "../ports/source.types";
import { SampleSeriesBars } from "../../sources/sqlite/sqlite.synthetic";
import { computeTyped, convertTyped, type TypedMetrics, type TypedPerUsd } from "./etf.metrics.typed";

/**
 * ETF metrics in a worker thread (src/platform/workers/worker.pool.ts runs
 * it): the daily closes and FX rates are read here, with this thread's own
 * read-only connection to the SQLite store, and the maths runs here, so
 * neither blocks the event loop that answers every other request.
 *
 * The maths is etf.metrics.ts's on typed arrays (etf.metrics.typed.ts):
 * answers are those of the in-process path to the last bit. What goes back is small: the scalar
 * metrics per item, and every item's series packed in one Float64Array that
 * is transferred, not copied (four numbers a point: t, value, period return,
 * cumulative return); the main thread builds point objects only when a
 * client asks for the series.
 */

/** Days a missing FX day may borrow from (fx.service.ts FX_LOOKBACK_DAYS; kept equal by a test). */
export const WORKER_FX_LOOKBACK_DAYS = 10;

export interface MetricsJobItem {
  listingId: number;
  from: number;
  to: number;
  resolution: MetricResolution;
  /** The listing's currency. */
  listingCurrency: string;
  /** The currency to compute in. */
  currency: string;
  /** For messages. */
  symbol: string;
}

export interface MetricsJob {
  dbPath: string;
  riskFreeRatePercent: number;
  items: MetricsJobItem[];
}

export type MetricsScalars = Omit<MetricsResult, "series">;

export type MetricsJobAnswer =
  | {
      ok: true;
      scalars: MetricsScalars;
      /** Points of the series; they start at `offset` points into `MetricsJobResult.packed`. */
      points: number;
      offset: number;
      bars: number;
      filledDays: number;
      firstFilledDay: string | null;
    }
  | { ok: false; notFound: string; noCloses?: true };

export interface MetricsJobResult {
  answers: MetricsJobAnswer[];
  /** Four numbers a point: t, value, period return (NaN at the start), cumulative return. */
  packed: Float64Array;
  /** Statements run against the store, for the source's query counter. */
  queries: number;
}

const connections = new Map<string, { db: Database.Database; series: SampleSeriesBars }>();
/** Statements the computed paths ran during the current job. */
let seriesQueries = 0;

function connection(path: string): { db: Database.Database; series: SampleSeriesBars } {
  let c = connections.get(path);
  if (!c) {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    // The generated sample's computed paths, as the source serves them (nothing on any other store).
    c = { db, series: new SampleSeriesBars(db, () => seriesQueries++) };
    connections.set(path, c);
  }
  return c;
}

const DAY = 86_400;
const BARS_SQL = `SELECT k.key AS k, b.t, b.c FROM json_each(?) k
  JOIN daily_bars b ON b.listing_id = k.value ->> 0 AND b.t BETWEEN k.value ->> 1 AND k.value ->> 2
  ORDER BY k.key, b.t`;
const FX_SQL = `SELECT k.key AS k, f.day, f.per_usd FROM json_each(?) k
  JOIN fx_daily f ON f.currency = k.value ->> 0 AND f.day BETWEEN k.value ->> 1 AND k.value ->> 2
  ORDER BY k.key, f.day`;

class NoFx extends Error {}

/** Marks an item whose closes came from the store, so the computed paths leave it alone. */
const STORED: BarRow = { t: 0, o: 0, h: 0, l: 0, c: 0, v: 0 };

interface Closes {
  t: Float64Array;
  c: Float64Array;
}

export default function runMetricsJob(job: MetricsJob): unknown {
  const { db, series: sampleSeries } = connection(job.dbPath);
  seriesQueries = 0;
  let queries = 1;
  const rows = db
    .prepare(BARS_SQL)
    .raw(true)
    .all(JSON.stringify(job.items.map((i) => [i.listingId, i.from, i.to]))) as [number, number, number][];
  const counts = new Int32Array(job.items.length);
  for (const r of rows) counts[r[0]]!++;
  const closes: Closes[] = job.items.map((_, i) => ({
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
    sampleSeries.fill(job.items, computed);
    queries += seriesQueries;
    computed.forEach((bars, i) => {
      if (closes[i]!.t.length > 0 || bars.length === 0) return;
      closes[i] = { t: Float64Array.from(bars, (b) => b.t), c: Float64Array.from(bars, (b) => b.c) };
    });
  }

  // Every FX series the items need, in one statement (as the request's fxRates loader would batch them).
  const fxKeys = new Map<string, number>();
  const fxKey = (currency: string, firstT: number, lastT: number) => {
    const start = dayOfUnix(Math.floor(firstT / DAY) * DAY - WORKER_FX_LOOKBACK_DAYS * DAY);
    return JSON.stringify([currency, start, dayOfUnix(lastT)]);
  };
  job.items.forEach((item, i) => {
    const { t } = closes[i]!;
    if (t.length === 0 || item.currency === item.listingCurrency) return;
    for (const c of [item.listingCurrency, item.currency]) {
      const key = fxKey(c, t[0]!, t[t.length - 1]!);
      if (c !== "USD" && !fxKeys.has(key)) fxKeys.set(key, fxKeys.size);
    }
  });
  const fx: { days: number[]; perUsd: number[] }[] = [...fxKeys.keys()].map(() => ({ days: [], perUsd: [] }));
  if (fxKeys.size > 0) {
    queries++;
    const keys = `[${[...fxKeys.keys()].join(",")}]`;
    for (const [k, day, perUsd] of db.prepare(FX_SQL).raw(true).all(keys) as [number, string, number][]) {
      fx[k]!.days.push(Date.parse(`${day}T00:00:00Z`) / 1000 / DAY);
      fx[k]!.perUsd.push(perUsd);
    }
  }
  const typedFx = new Map<number, TypedPerUsd>();
  const series = (currency: string, firstT: number, lastT: number): TypedPerUsd => {
    if (currency === "USD") return "usd";
    const key = fxKey(currency, firstT, lastT);
    const k = fxKeys.get(key)!;
    const rowsOf = fx[k]!;
    if (rowsOf.days.length === 0) {
      const [, start, toDay] = JSON.parse(key) as string[];
      throw new NoFx(`no FX rates for ${currency} between ${start} and ${toDay}`);
    }
    let typed = typedFx.get(k);
    if (!typed) {
      typed = { days: Int32Array.from(rowsOf.days), perUsd: Float64Array.from(rowsOf.perUsd) };
      typedFx.set(k, typed);
    }
    return typed;
  };

  const computed: TypedMetrics[] = [];
  const times: Float64Array[] = [];
  const values: Float64Array[] = [];
  const answers: MetricsJobAnswer[] = job.items.map((item, i) => {
    const { t, c } = closes[i]!;
    if (t.length === 0) {
      const range = `between ${dayOfUnix(item.from)} and ${dayOfUnix(item.to)}`;
      return { ok: false, notFound: `no daily closes of ${item.symbol} ${range}`, noCloses: true };
    }
    try {
      let v = c;
      let filledDays = 0;
      let firstFilled: number | null = null;
      if (item.currency !== item.listingCurrency) {
        const a = series(item.listingCurrency, t[0]!, t[t.length - 1]!);
        const z = series(item.currency, t[0]!, t[t.length - 1]!);
        const names = { from: item.listingCurrency, to: item.currency };
        ({ values: v, filledDays, firstFilled } = convertTyped(t, c, a, z, names));
      }
      const m = computeTyped(t, v, item.resolution, job.riskFreeRatePercent);
      computed.push(m);
      times.push(t);
      values.push(v);
      const firstFilledDay = firstFilled == null ? null : dayOfUnix(firstFilled);
      const points = m.sampled.length;
      return { ok: true, scalars: m.scalars, points, offset: 0, bars: t.length, filledDays, firstFilledDay };
    } catch (e) {
      // A missing FX series or rate is the item's own NOT_FOUND, as in process.
      if (e instanceof NoFx || e instanceof NotFoundError) return { ok: false, notFound: e.message };
      throw e;
    }
  });

  const total = computed.reduce((n, m) => n + m.sampled.length, 0);
  const packed = new Float64Array(total * 4);
  let at = 0;
  let r = 0;
  for (const a of answers) {
    if (!a.ok) continue;
    a.offset = at;
    const m = computed[r]!;
    const [t, v] = [times[r]!, values[r]!];
    r++;
    for (let j = 0; j < m.sampled.length; j++, at++) {
      const i = m.sampled[j]!;
      packed[at * 4] = t[i]!;
      packed[at * 4 + 1] = v[i]!;
      packed[at * 4 + 2] = m.periodReturn[j]!;
      packed[at * 4 + 3] = m.cumulativeReturn[j]!;
    }
  }
  const result: MetricsJobResult = { answers, packed, queries };
  return withTransfer(result, packed.buffer as ArrayBuffer);
}

/** The result, with its packed buffer moved to the main thread rather than copied (piscina's Transferable). */
function withTransfer(result: MetricsJobResult, buffer: ArrayBuffer): unknown {
  const transferable = { [Piscina.transferableSymbol]: buffer, [Piscina.valueSymbol]: result };
  return move(transferable as unknown as Parameters<typeof move>[0]);
}
