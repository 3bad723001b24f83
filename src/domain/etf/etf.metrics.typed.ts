/**
 * etf.metrics.ts's maths on typed arrays, for the worker
 * (etf.metrics.worker.ts): the same operations in the same order, so every
 * figure is the same double, without an object per close. A daily series
 * of ten years is 2,500 closes; as objects it cost more in garbage
 * collection than in arithmetic. test/domain/etf/etf.metrics.typed.spec.ts
 * checks both give identical answers.
 */
import { NotFoundError } from "../../platform/errors";
import { dayOfUnix, PERIODS_PER_YEAR } from "./etf.metrics";
import type { Drawdown, MetricResolution, MetricsResult, PeriodReturn } from "./etf.metrics";

const DAY_SECONDS = 86_400;
const DAYS_PER_YEAR = 365.25;

/** A per-USD series as day numbers (days since 1970-01-01) and rates; `"usd"` is the constant 1. */
export type TypedPerUsd = { days: Int32Array; perUsd: Float64Array } | "usd";

export const dayNumber = (t: number): number => Math.floor(t / DAY_SECONDS);

/** The period a day number belongs to: the day, its ISO week's Monday, or its month (as year × 12 + month). */
function periodOf(day: number, resolution: MetricResolution): number {
  if (resolution === "D") return day;
  if (resolution === "W") return day - ((((day + 4) % 7) + 6) % 7);
  const d = new Date(day * DAY_SECONDS * 1000);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}

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

/** convertCloses on typed arrays: values in place of closes; the days whose rate was borrowed. */
export function convertTyped(
  t: Float64Array,
  closes: Float64Array,
  from: TypedPerUsd,
  to: TypedPerUsd,
  names: { from: string; to: string },
): { values: Float64Array; filledDays: number; firstFilled: number | null } {
  const values = new Float64Array(closes.length);
  let filledDays = 0;
  let firstFilled: number | null = null;
  const rate = (series: TypedPerUsd, day: number, tt: number): { perUsd: number; filled: boolean } => {
    if (series === "usd") return { perUsd: 1, filled: false };
    const i = indexOnOrBefore(series.days, day);
    if (i < 0) throw new NotFoundError(`no FX rate from ${names.from} to ${names.to} on or before ${dayOfUnix(tt)}`);
    return { perUsd: series.perUsd[i]!, filled: series.days[i] !== day };
  };
  for (let i = 0; i < closes.length; i++) {
    if (from === to) {
      values[i] = closes[i]!;
      continue;
    }
    const day = dayNumber(t[i]!);
    const a = rate(from, day, t[i]!);
    const z = rate(to, day, t[i]!);
    if (a.filled || z.filled) {
      if (filledDays++ === 0) firstFilled = t[i]!;
    }
    values[i] = (closes[i]! * z.perUsd) / a.perUsd;
  }
  return { values, filledDays, firstFilled };
}

export interface TypedMetrics {
  scalars: Omit<MetricsResult, "series">;
  /** Indexes into the closes of the series' points. */
  sampled: Int32Array;
  /** Period return of each series point, percent (NaN at the start). */
  periodReturn: Float64Array;
  cumulativeReturn: Float64Array;
}

/** computeMetrics on typed arrays: `t` and `v` are the closes' times and values, oldest first, at least one. */
export function computeTyped(
  t: Float64Array,
  v: Float64Array,
  resolution: MetricResolution,
  riskFreeRatePercent: number,
): TypedMetrics {
  const n = v.length;
  if (n === 0) throw new Error("computeTyped: no points");
  const first = v[0]!;
  const last = v[n - 1]!;
  // samplePeriods: the first close, then each period's last close (the first is not repeated).
  const idx = new Int32Array(n);
  let m = 0;
  if (resolution === "D") {
    for (let i = 0; i < n; i++) idx[m++] = i;
  } else {
    idx[m++] = 0;
    for (let i = 0; i < n; i++) {
      const endsPeriod =
        i + 1 >= n || periodOf(dayNumber(t[i + 1]!), resolution) !== periodOf(dayNumber(t[i]!), resolution);
      if (endsPeriod && i > 0) idx[m++] = i;
    }
  }
  const sampled = idx.slice(0, m);
  const periodReturn = new Float64Array(m);
  const cumulativeReturn = new Float64Array(m);
  const returns = new Float64Array(Math.max(0, m - 1));
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

  let best: PeriodReturn | null = null;
  let worst: PeriodReturn | null = null;
  let bestAt = -1;
  let worstAt = -1;
  for (let j = 1; j < m; j++) {
    const r = periodReturn[j]!;
    if (bestAt < 0 || r > periodReturn[bestAt]!) bestAt = j;
    if (worstAt < 0 || r < periodReturn[worstAt]!) worstAt = j;
  }
  if (bestAt > 0) best = { date: dayOfUnix(t[sampled[bestAt]!]!), periodReturn: periodReturn[bestAt]! };
  if (worstAt > 0) worst = { date: dayOfUnix(t[sampled[worstAt]!]!), periodReturn: periodReturn[worstAt]! };

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
      maxDrawdown: maxDrawdownTyped(t, v),
      bestPeriod: best,
      worstPeriod: worst,
    },
    sampled,
    periodReturn,
    cumulativeReturn,
  };
}

function mean(xs: Float64Array): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]!;
  return s / xs.length;
}

function sampleStdev(xs: Float64Array): number | null {
  if (xs.length < 2) return null;
  const m = mean(xs);
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += (xs[i]! - m) ** 2;
  return Math.sqrt(s / (xs.length - 1));
}

function maxDrawdownTyped(t: Float64Array, v: Float64Array): Drawdown {
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
