/**
 * ETF performance metrics as plain functions over plain data: no store, no
 * context, no clock. The service loads closes and FX rates and calls these.
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

export function dayOfUnix(t: number): string {
  return new Date(t * 1000).toISOString().slice(0, 10);
}

/** The key of the period a day belongs to: the day itself, its ISO week's Monday, or its month. */
export function periodKey(date: string, resolution: MetricResolution): string {
  if (resolution === "D") return date;
  if (resolution === "M") return date.slice(0, 7);
  const d = new Date(`${date}T00:00:00Z`);
  const sinceMonday = (d.getUTCDay() + 6) % 7;
  return new Date(d.getTime() - sinceMonday * DAY_SECONDS * 1000).toISOString().slice(0, 10);
}

/**
 * The points the periods run between: the first close, then the last close
 * of each period (the first close is not repeated when it also ends its period).
 */
export function samplePeriods(points: readonly PricePoint[], resolution: MetricResolution): PricePoint[] {
  if (points.length === 0) return [];
  if (resolution === "D") return [...points];
  const out: PricePoint[] = [points[0]!];
  for (let i = 0; i < points.length; i++) {
    const p = points[i]!;
    const next = points[i + 1];
    const endsPeriod = !next || periodKey(next.date, resolution) !== periodKey(p.date, resolution);
    if (endsPeriod && i > 0) out.push(p);
  }
  return out;
}

export function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** Sample standard deviation (divides by n - 1); null with fewer than two values. */
export function sampleStdev(xs: readonly number[]): number | null {
  if (xs.length < 2) return null;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
}

/** Deepest fall from a running peak over the points, with the peak, trough and recovery days. */
export function maxDrawdown(points: readonly PricePoint[]): Drawdown {
  let peak = points[0];
  let deepest = 0;
  let at: { peak: PricePoint; trough: PricePoint; index: number } | null = null;
  points.forEach((p, i) => {
    if (!peak || p.value > peak.value) peak = p;
    const dd = p.value / peak.value - 1;
    if (dd < deepest) {
      deepest = dd;
      at = { peak, trough: p, index: i };
    }
  });
  const found = at as { peak: PricePoint; trough: PricePoint; index: number } | null;
  if (!found) return { value: 0, peakDate: null, troughDate: null, recoveryDate: null };
  const recovered = points.slice(found.index + 1).find((p) => p.value >= found.peak.value);
  return {
    value: deepest * 100,
    peakDate: found.peak.date,
    troughDate: found.trough.date,
    recoveryDate: recovered?.date ?? null,
  };
}

/**
 * Every metric of one price series. `points` are the daily closes in the
 * range, oldest first, at least one; `riskFreeRatePercent` is annual.
 */
export function computeMetrics(
  points: readonly PricePoint[],
  resolution: MetricResolution,
  riskFreeRatePercent: number,
): MetricsResult {
  if (points.length === 0) throw new Error("computeMetrics: no points");
  const first = points[0]!;
  const last = points[points.length - 1]!;
  const sampled = samplePeriods(points, resolution);
  const returns: number[] = [];
  const series: SeriesPoint[] = sampled.map((p, i) => {
    const prev = sampled[i - 1];
    const r = prev ? p.value / prev.value - 1 : null;
    if (r != null) returns.push(r);
    return { ...p, periodReturn: r == null ? null : r * 100, cumulativeReturn: (p.value / first.value - 1) * 100 };
  });

  const perYear = PERIODS_PER_YEAR[resolution];
  const sd = sampleStdev(returns);
  const annualVol = sd == null ? null : sd * Math.sqrt(perYear);
  const sharpe =
    annualVol == null || annualVol === 0 ? null : (mean(returns) * perYear - riskFreeRatePercent / 100) / annualVol;
  const days = (last.t - first.t) / DAY_SECONDS;
  const annualised = days > 0 ? ((last.value / first.value) ** (DAYS_PER_YEAR / days) - 1) * 100 : null;

  let best: PeriodReturn | null = null;
  let worst: PeriodReturn | null = null;
  for (const p of series) {
    if (p.periodReturn == null) continue;
    if (!best || p.periodReturn > best.periodReturn) best = { date: p.date, periodReturn: p.periodReturn };
    if (!worst || p.periodReturn < worst.periodReturn) worst = { date: p.date, periodReturn: p.periodReturn };
  }

  return {
    startDate: first.date,
    endDate: last.date,
    startValue: first.value,
    endValue: last.value,
    totalReturn: (last.value / first.value - 1) * 100,
    annualisedReturn: annualised,
    annualisedVolatility: annualVol == null ? null : annualVol * 100,
    sharpeRatio: sharpe,
    maxDrawdown: maxDrawdown(points),
    bestPeriod: best,
    worstPeriod: worst,
    series,
  };
}

/** A per-USD series of one currency; `"usd"` is the constant 1. */
export type PerUsdSeries = readonly FxRow[] | "usd";

/** Index of the last row on or before `day` in an ascending series, or -1. */
function indexOnOrBefore(series: readonly FxRow[], day: string): number {
  let lo = 0;
  let hi = series.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (series[mid]!.day <= day) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export interface Conversion {
  points: PricePoint[];
  /** Days whose own FX rate was missing (in either currency), so the last known rate was used. */
  filledDays: string[];
}

/**
 * Converts closes from one currency into another with daily per-USD series:
 * value × perUsd(to, day) / perUsd(from, day), where a day without a stored
 * rate uses the last one before it. No rate at all on or before a day is
 * NOT_FOUND (the range starts before the FX history).
 */
export function convertCloses(
  closes: readonly { t: number; c: number }[],
  from: PerUsdSeries,
  to: PerUsdSeries,
  names: { from: string; to: string } = { from: "source", to: "target" },
): Conversion {
  const filledDays: string[] = [];
  const rate = (series: PerUsdSeries, day: string): { perUsd: number; filled: boolean } => {
    if (series === "usd") return { perUsd: 1, filled: false };
    const i = indexOnOrBefore(series, day);
    if (i < 0) throw new NotFoundError(`no FX rate from ${names.from} to ${names.to} on or before ${day}`);
    return { perUsd: series[i]!.perUsd, filled: series[i]!.day !== day };
  };
  const points = closes.map((b) => {
    const date = dayOfUnix(b.t);
    if (from === to) return { t: b.t, date, value: b.c };
    const a = rate(from, date);
    const z = rate(to, date);
    if (a.filled || z.filled) filledDays.push(date);
    return { t: b.t, date, value: (b.c * z.perUsd) / a.perUsd };
  });
  return { points, filledDays };
}
