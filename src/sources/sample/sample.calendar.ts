/**
 * Day arithmetic on integer day numbers (days since 1970-01-01, UTC), which is
 * what the bar loops index by; text days only appear at the SQL boundary.
 */
export const SECONDS_PER_DAY = 86400;

const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses `YYYY-MM-DD` strictly (rejects 2026-02-30). */
export function parseDay(text: string): number {
  const m = DAY_RE.exec(text);
  if (!m) throw new Error(`Invalid day "${text}", expected YYYY-MM-DD`);
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const day = ms / 86400000;
  if (formatDayUncached(day) !== text) throw new Error(`Invalid day "${text}"`);
  return day;
}

function formatDayUncached(day: number): string {
  return new Date(day * 86400000).toISOString().slice(0, 10);
}

// Hundreds of thousands of rows carry day text (fx_daily, dividends); caching
// the formatted strings keeps Date out of those loops.
const dayText = new Map<number, string>();

export function formatDay(day: number): string {
  let s = dayText.get(day);
  if (s === undefined) {
    s = formatDayUncached(day);
    dayText.set(day, s);
  }
  return s;
}

/** 0 = Sunday … 6 = Saturday. */
export function weekday(day: number): number {
  // 1970-01-01 was a Thursday.
  return (((day + 4) % 7) + 7) % 7;
}

export function isWeekday(day: number): boolean {
  const w = weekday(day);
  return w !== 0 && w !== 6;
}

/** The same calendar day `years` later (Feb 29 falls back to Feb 28). */
export function addYears(day: number, years: number): number {
  const d = new Date(day * 86400000);
  const y = d.getUTCFullYear() + years;
  const m = d.getUTCMonth();
  let dd = d.getUTCDate();
  const lastOfMonth = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  if (dd > lastOfMonth) dd = lastOfMonth;
  return Date.UTC(y, m, dd) / 86400000;
}

export function makeDay(year: number, month1: number, dayOfMonth: number): number {
  return Date.UTC(year, month1 - 1, dayOfMonth) / 86400000;
}

export function yearOf(day: number): number {
  return new Date(day * 86400000).getUTCFullYear();
}

/** 1..12 */
export function monthOf(day: number): number {
  return new Date(day * 86400000).getUTCMonth() + 1;
}

/** Last day of the month `month1` (1..12, may overflow) of `year`. */
export function endOfMonth(year: number, month1: number): number {
  return Date.UTC(year, month1, 0) / 86400000;
}

/** The day itself when it is a weekday, else the following Monday. */
export function onOrAfterWeekday(day: number): number {
  let d = day;
  while (!isWeekday(d)) d++;
  return d;
}

/** The day itself when it is a weekday, else the preceding Friday. */
export function onOrBeforeWeekday(day: number): number {
  let d = day;
  while (!isWeekday(d)) d--;
  return d;
}

export function addWeekdays(day: number, n: number): number {
  let d = day;
  let left = Math.abs(n);
  const step = n < 0 ? -1 : 1;
  while (left > 0) {
    d += step;
    if (isWeekday(d)) left--;
  }
  return d;
}

/** All weekdays in [from, to], ascending. */
export function weekdaysBetween(from: number, to: number): Int32Array {
  const out: number[] = [];
  for (let d = from; d <= to; d++) if (isWeekday(d)) out.push(d);
  return Int32Array.from(out);
}

/** All days in [from, to], ascending. */
export function daysBetween(from: number, to: number): Int32Array {
  const out = new Int32Array(to - from + 1);
  for (let i = 0; i < out.length; i++) out[i] = from + i;
  return out;
}
