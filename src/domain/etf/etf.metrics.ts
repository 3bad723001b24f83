/**
 * ETF performance metrics as plain functions over plain data: no store, no
 * context, no clock. The one implementation of this maths: the service's
 * in-process path and the ETF metrics worker
 * (src/sources/sqlite/sqlite.etf-metrics.worker.ts) both run it.
 *
 * It works on columns: the closes' times and values as typed arrays, the
 * sampled periods as indexes into them. A daily series of ten years is 2,500
 * closes; as an object each they cost more in garbage collection than in
 * arithmetic. `computeMetrics`, `convertCloses`, `samplePeriods` and
 * `maxDrawdown` take and give rows (points with their days) for callers that
 * hold rows, and compute through the column functions.
 *
 * Conventions (documented in docs/api-etf-fund.md):
 * - Values are daily closes converted into the target currency with the
 *   day's FX rate, or the last known rate on or before the day.
 * - Periods: `D` every close; `W` the last close of each ISO week (Monday to
 *   Sunday, UTC); `M` the last close of each calendar month. The first close
 *   of the range is the starting point, so the first period may be partial.
 * - Period return r = value / previous value - 1 (simple returns).
 * - Annualised volatility = sample standard deviation (n - 1) of the period
 *   returns × sqrt(periods per year: 252 for D, 52 for W, 12 for M).
 * - Annualised return = (end / start)^(365.25 / calendar days) - 1.
 * - Sharpe = (mean(r) × periods per year - risk-free rate) / annualised volatility.
 * - Maximum drawdown is measured on every daily close, whatever the resolution.
 * - Every percentage is a percent number (12.5 means 12.5 %).
 */
import { NotFoundError } from "../../platform/errors";
import { floatColumn } from "../../platform/columns";
import type { FxRow } from "../ports/source.types";

export const METRIC_RESOLUTIONS = ["D", "W", "M"] as const;
export type MetricResolution = (typeof METRIC_RESOLUTIONS)[number];

export const PERIODS_PER_YEAR: Record<MetricResolution, number> = { D: 252, W: 52, M: 12 };

const DAY_SECONDS = 86_400;
const DAYS_PER_YEAR = 365.25;

/** One close, already in the currency the metrics are computed in. */
export interface PricePoint {
  /** Unix seconds of the day's 00:00 UTC. */
  t: number;
  /** `YYYY-MM-DD`. */
  date: string;
  value: number;
}

export interface SeriesPoint extends PricePoint {
  /** Return of the period ending at this point, percent; null for the starting point. */
  periodReturn: number | null;
  /** Return since the starting point, percent. */
  cumulativeReturn: number;
}

export interface PeriodReturn {
  /** Day of the close that ends the period. */
  date: string;
  /** Percent. */
  periodReturn: number;
}

export interface Drawdown {
  /** Largest fall from a running peak, percent, zero or negative (-12.5 means 12.5 % below the peak). */
  value: number;
  /** Day of the peak before the deepest trough; null when the series never fell below a peak. */
  peakDate: string | null;
  troughDate: string | null;
  /** First day after the trough back at or above the peak; null when not recovered within the range. */
  recoveryDate: string | null;
}

export interface MetricsResult {
  startDate: string;
  endDate: string;
  startValue: number;
  endValue: number;
  totalReturn: number;
  annualisedReturn: number | null;
  annualisedVolatility: number | null;
  sharpeRatio: number | null;
  maxDrawdown: Drawdown;
  bestPeriod: PeriodReturn | null;
  worstPeriod: PeriodReturn | null;
  series: SeriesPoint[];
}

/** Every figure but the series. */
export type MetricsScalars = Omit<MetricsResult, "series">;

/** The day `YYYY-MM-DD` (UTC) of an instant, in Unix seconds. */
export function dayOfUnix(t: number): string {
  const day = Math.floor(t / DAY_SECONDS);
  if (day >= 0 && day < DAY_NAMES.length) return (DAY_NAMES[day] ??= isoDay(day * DAY_SECONDS));
  return isoDay(t);
}

function isoDay(t: number): string {
  return new Date(t * 1000).toISOString().slice(0, 10);
}

/**
 * Each day's name, by days since 1970-01-01 (to 2149), made once: a ten-year daily series names 2,500 days, and a
 * request of many series names the same days again. Formatting each through a Date cost a third of the main thread's
 * time turning a series into points, and one new string a point.
 */
const DAY_NAMES = new Array<string | undefined>(2 ** 16).fill(undefined);

/** Days since 1970-01-01 of an instant. */
export const dayNumber = (t: number): number => Math.floor(t / DAY_SECONDS);

const digit = (s: string, i: number): number => s.charCodeAt(i) - 48;

/**
 * Days since 1970-01-01 of a day `YYYY-MM-DD`: what Date.parse of its
 * midnight UTC gives, read digit by digit (an FX series converts thousands
 * of days per item, where Date.parse cost more than the metrics).
 */
export function dayNumberOfDate(date: string): number {
  const year = digit(date, 0) * 1000 + digit(date, 1) * 100 + digit(date, 2) * 10 + digit(date, 3);
  const month = digit(date, 5) * 10 + digit(date, 6) - 1;
  return Date.UTC(year, month, digit(date, 8) * 10 + digit(date, 9)) / 1000 / DAY_SECONDS;
}

/** The period a day number belongs to: the day, its ISO week's Monday, or its month (as year × 12 + month). */
function periodOf(day: number, resolution: MetricResolution): number {
  if (resolution === "D") return day;
  if (resolution === "W") return day - ((((day + 4) % 7) + 6) % 7);
  const d = new Date(day * DAY_SECONDS * 1000);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}

/** The key of the period a day belongs to: the day itself, its ISO week's Monday, or its month (`YYYY-MM`). */
export function periodKey(date: string, resolution: MetricResolution): string {
  const period = periodOf(dayNumberOfDate(date), resolution);
  if (resolution === "M") return `${Math.floor(period / 12)}-${String((period % 12) + 1).padStart(2, "0")}`;
  return dayOfUnix(period * DAY_SECONDS);
}

/**
 * Indexes of the closes the periods run between: the first close, then the
 * last close of each period (the first close is not repeated when it also
 * ends its period). `t` are the closes' times, oldest first.
 */
export function samplePeriodIndexes(t: Float64Array, resolution: MetricResolution): Int32Array {
  const n = t.length;
  const idx = new Int32Array(n);
  if (resolution === "D") {
    for (let i = 0; i < n; i++) idx[i] = i;
    return idx;
  }
  if (n === 0) return idx;
  let m = 0;
  idx[m++] = 0;
  let period = periodOf(dayNumber(t[0]!), resolution);
  for (let i = 0; i < n; i++) {
    const next = i + 1 < n ? periodOf(dayNumber(t[i + 1]!), resolution) : Number.NaN;
    if (next !== period && i > 0) idx[m++] = i;
    period = next;
  }
  return idx.slice(0, m);
}

/** The points the periods run between (`samplePeriodIndexes`), as rows. */
export function samplePeriods(points: readonly PricePoint[], resolution: MetricResolution): PricePoint[] {
  return Array.from(samplePeriodIndexes(timesOf(points), resolution), (i) => points[i]!);
}

/** The metrics of one series of closes, its series as columns beside the closes. */
export interface MetricsColumns {
  scalars: MetricsScalars;
  /** Indexes into the closes of the series' points. */
  sampled: Int32Array;
  /** Period return of each series point, percent (NaN at the start). */
  periodReturn: Float64Array;
  cumulativeReturn: Float64Array;
}

/**
 * Every metric of one price series. `t` and `v` are the times and values of
 * the daily closes in the range, oldest first, at least one;
 * `riskFreeRatePercent` is annual.
 */
export function computeColumns(
  t: Float64Array,
  v: Float64Array,
  resolution: MetricResolution,
  riskFreeRatePercent: number,
): MetricsColumns {
  const n = v.length;
  if (n === 0) throw new Error("computeMetrics: no points");
  const first = v[0]!;
  const last = v[n - 1]!;
  const sampled = samplePeriodIndexes(t, resolution);
  const m = sampled.length;
  const periodReturn = new Float64Array(m);
  const cumulativeReturn = new Float64Array(m);
  const returns = new Float64Array(m - 1);
  periodReturn[0] = Number.NaN;
  for (let j = 0; j < m; j++) {
    const value = v[sampled[j]!]!;
    if (j > 0) {
      const r = value / v[sampled[j - 1]!]! - 1;
      returns[j - 1] = r;
      periodReturn[j] = r * 100;
    }
    cumulativeReturn[j] = (value / first - 1) * 100;
  }

  const perYear = PERIODS_PER_YEAR[resolution];
  const sd = sampleStdev(returns);
  const annualVol = sd == null ? null : sd * Math.sqrt(perYear);
  const sharpe =
    annualVol == null || annualVol === 0 ? null : (mean(returns) * perYear - riskFreeRatePercent / 100) / annualVol;
  const days = (t[n - 1]! - t[0]!) / DAY_SECONDS;
  const annualised = days > 0 ? ((last / first) ** (DAYS_PER_YEAR / days) - 1) * 100 : null;

  // The first of equal returns wins.
  let bestAt = -1;
  let worstAt = -1;
  for (let j = 1; j < m; j++) {
    const r = periodReturn[j]!;
    if (bestAt < 0 || r > periodReturn[bestAt]!) bestAt = j;
    if (worstAt < 0 || r < periodReturn[worstAt]!) worstAt = j;
  }
  const periodAt = (j: number): PeriodReturn | null =>
    j > 0 ? { date: dayOfUnix(t[sampled[j]!]!), periodReturn: periodReturn[j]! } : null;

  return {
    scalars: {
      startDate: dayOfUnix(t[0]!),
      endDate: dayOfUnix(t[n - 1]!),
      startValue: first,
      endValue: last,
      totalReturn: (last / first - 1) * 100,
      annualisedReturn: annualised,
      annualisedVolatility: annualVol == null ? null : annualVol * 100,
      sharpeRatio: sharpe,
      maxDrawdown: maxDrawdownOf(t, v),
      bestPeriod: periodAt(bestAt),
      worstPeriod: periodAt(worstAt),
    },
    sampled,
    periodReturn,
    cumulativeReturn,
  };
}

/** `computeColumns` over rows: the series as points (each sampled row with its returns). */
export function computeMetrics(
  points: readonly PricePoint[],
  resolution: MetricResolution,
  riskFreeRatePercent: number,
): MetricsResult {
  const m = computeColumns(timesOf(points), valuesOf(points), resolution, riskFreeRatePercent);
  const series = new Array<SeriesPoint>(m.sampled.length);
  for (let j = 0; j < series.length; j++) {
    const periodReturn = j === 0 ? null : m.periodReturn[j]!;
    const { t, date, value } = points[m.sampled[j]!]!;
    series[j] = { t, date, value, periodReturn, cumulativeReturn: m.cumulativeReturn[j]! };
  }
  return { ...m.scalars, series };
}

function timesOf(points: readonly PricePoint[]): Float64Array {
  return floatColumn(points, (p) => p.t);
}

function valuesOf(points: readonly PricePoint[]): Float64Array {
  return floatColumn(points, (p) => p.value);
}

function mean(xs: Float64Array): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]!;
  return s / xs.length;
}

/** Sample standard deviation (divides by n - 1); null with fewer than two values. */
function sampleStdev(xs: Float64Array): number | null {
  if (xs.length < 2) return null;
  const m = mean(xs);
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += (xs[i]! - m) ** 2;
  return Math.sqrt(s / (xs.length - 1));
}

/** Deepest fall from a running peak over the closes, with the peak, trough and recovery days. */
export function maxDrawdownOf(t: Float64Array, v: Float64Array): Drawdown {
  let peak = 0;
  let deepest = 0;
  let atPeak = -1;
  let atTrough = -1;
  for (let i = 0; i < v.length; i++) {
    if (v[i]! > v[peak]!) peak = i;
    const dd = v[i]! / v[peak]! - 1;
    if (dd < deepest) {
      deepest = dd;
      atPeak = peak;
      atTrough = i;
    }
  }
  if (atTrough < 0) return { value: 0, peakDate: null, troughDate: null, recoveryDate: null };
  let recovered = -1;
  for (let i = atTrough + 1; i < v.length; i++) {
    if (v[i]! >= v[atPeak]!) {
      recovered = i;
      break;
    }
  }
  return {
    value: deepest * 100,
    peakDate: dayOfUnix(t[atPeak]!),
    troughDate: dayOfUnix(t[atTrough]!),
    recoveryDate: recovered < 0 ? null : dayOfUnix(t[recovered]!),
  };
}

/** `maxDrawdownOf` over rows. */
export function maxDrawdown(points: readonly PricePoint[]): Drawdown {
  return maxDrawdownOf(timesOf(points), valuesOf(points));
}

/** A per-USD series of one currency as rows; `"usd"` is the constant 1. */
export type PerUsdSeries = readonly FxRow[] | "usd";

/** A per-USD series as day numbers (days since 1970-01-01) and rates, ascending; `"usd"` is the constant 1. */
export type PerUsdColumns = { days: Int32Array; perUsd: Float64Array } | "usd";

export function perUsdColumns(series: PerUsdSeries): PerUsdColumns {
  if (series === "usd") return "usd";
  return {
    days: Int32Array.from(series, (r) => dayNumberOfDate(r.day)),
    perUsd: floatColumn(series, (r) => r.perUsd),
  };
}

/** Index of the last day on or before `day` in ascending day numbers, or -1. */
function indexOnOrBefore(days: Int32Array, day: number): number {
  let lo = 0;
  let hi = days.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (days[mid]! <= day) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * Converts closes from one currency into another with daily per-USD series:
 * value × perUsd(to, day) / perUsd(from, day), where a day without a stored
 * rate uses the last one before it. No rate at all on or before a day is
 * NOT_FOUND (the range starts before the FX history). `t` and `closes` are
 * the closes' times and values; `filled` the indexes of the closes whose own
 * FX rate was missing (in either currency), so the last known rate was used.
 */
export function convertColumns(
  t: Float64Array,
  closes: Float64Array,
  from: PerUsdColumns,
  to: PerUsdColumns,
  names: { from: string; to: string },
): { values: Float64Array; filled: number[] } {
  const filled: number[] = [];
  if (from === to) return { values: closes, filled };
  const values = new Float64Array(closes.length);
  const rate = (series: PerUsdColumns, day: number, tt: number): { perUsd: number; filled: boolean } => {
    if (series === "usd") return { perUsd: 1, filled: false };
    const i = indexOnOrBefore(series.days, day);
    if (i < 0) throw new NotFoundError(`no FX rate from ${names.from} to ${names.to} on or before ${dayOfUnix(tt)}`);
    return { perUsd: series.perUsd[i]!, filled: series.days[i] !== day };
  };
  for (let i = 0; i < closes.length; i++) {
    const day = dayNumber(t[i]!);
    const a = rate(from, day, t[i]!);
    const z = rate(to, day, t[i]!);
    if (a.filled || z.filled) filled.push(i);
    values[i] = (closes[i]! * z.perUsd) / a.perUsd;
  }
  return { values, filled };
}

export interface Conversion {
  points: PricePoint[];
  /** Days whose own FX rate was missing (in either currency), so the last known rate was used. */
  filledDays: string[];
}

/** `convertColumns` over rows: the converted closes as points. */
export function convertCloses(
  closes: readonly { t: number; c: number }[],
  from: PerUsdSeries,
  to: PerUsdSeries,
  names: { from: string; to: string } = { from: "source", to: "target" },
): Conversion {
  const t = floatColumn(closes, (b) => b.t);
  const a = perUsdColumns(from);
  // The same series both ways converts nothing (and needs no rate).
  const z = from === to ? a : perUsdColumns(to);
  const { values, filled } = convertColumns(
    t,
    Float64Array.from(closes, (b) => b.c),
    a,
    z,
    names,
  );
  const points = closes.map((b, i) => ({ t: b.t, date: dayOfUnix(b.t), value: values[i]! }));
  return { points, filledDays: filled.map((i) => points[i]!.date) };
}
