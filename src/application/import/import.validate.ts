import * as isoCountries from "i18n-iso-countries";
import { isIsoCurrency } from "../../domain/fx/fx.service";
import { isValidCusip, isValidIsin, isValidWkn } from "../../domain/instrument/instrument.identifiers";
import type { SecurityType } from "../../domain/ports/source.types";

/** Why one row is rejected: the column, the value as read, and the reason. */
export class RowError extends Error {
  override name = "RowError";
  constructor(
    readonly column: string,
    readonly value: unknown,
    reason: string,
  ) {
    super(reason);
  }
}

/** A cell as text: trimmed, with an absent or null value as "". */
export function text(values: Record<string, unknown>, column: string): string {
  const v = values[column];
  if (v === undefined || v === null) return "";
  return (typeof v === "string" ? v : String(v)).trim();
}

/** A required cell's text. */
export function required(values: Record<string, unknown>, column: string): string {
  const v = text(values, column);
  if (v === "") throw new RowError(column, values[column] ?? "", "required");
  return v;
}

/** A cell that must be a finite number (JSON numbers as they are; text as a plain decimal). */
export function finite(values: Record<string, unknown>, column: string): number {
  const raw = values[column];
  if (typeof raw === "number") {
    if (Number.isFinite(raw)) return raw;
    throw new RowError(column, raw, "not a finite number");
  }
  const v = typeof raw === "string" ? raw.trim() : text(values, column);
  // Every bar has five of these. Number() of trimmed text takes a plain decimal (with an exponent or not), and
  // besides only hex, binary and octal (0x…, 0b…, 0o…) and Infinity, which are refused here.
  const n = v === "" ? Number.NaN : Number(v);
  if (Number.isFinite(n) && !(v.length > 2 && v.charCodeAt(0) === 48 && /[xbo]/i.test(v[1]!))) return n;
  throw new RowError(column, raw ?? "", v === "" ? "required" : "not a finite number");
}

/** A cell that must be a finite number of 0 or more. */
export function nonNegative(values: Record<string, unknown>, column: string): number {
  const n = finite(values, column);
  if (n < 0) throw new RowError(column, values[column], "must not be negative");
  return n;
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const UNIX_SECONDS = /^-?\d{1,11}$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The Unix second of an ISO day's 00:00 UTC, or NaN when it is no calendar day. Computed from its digits: parsing a
 * date string and printing it back cost most of a bar's validation.
 */
function isoDayUnix(v: string): number {
  const y = Number(v.slice(0, 4));
  const m = Number(v.slice(5, 7));
  const d = Number(v.slice(8, 10));
  // Date.UTC reads years 0 to 99 as 1900 to 1999: those few go the slow way.
  if (y < 100) {
    const at = new Date(`${v}T00:00:00Z`);
    return !Number.isNaN(at.getTime()) && at.toISOString().startsWith(v) ? at.getTime() / 1000 : Number.NaN;
  }
  return calendarDayUnix(y, m, d);
}

/** The Unix second of the 00:00 UTC of year `y` (100 or later), month `m`, day `d`, or NaN when it is no such day. */
function calendarDayUnix(y: number, m: number, d: number): number {
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  // NaN fails every comparison.
  if (!(m >= 1 && m <= 12 && d >= 1 && d <= (m === 2 && leap ? 29 : DAYS_IN_MONTH[m - 1]!))) return Number.NaN;
  return Date.UTC(y, m - 1, d) / 1000;
}

/** Powers of ten a decimal of at most 15 digits is divided by; each is exact in a double. */
const TENS = Array.from({ length: 16 }, (_, k) => 10 ** k);

/**
 * The number a plain decimal (digits, optionally a point and more digits; 15 digits at most) between `from` and
 * `to` in `s` is, or NaN for any other text. Its digits make a whole number below 2^53 and its power of ten is
 * exact, so the one division rounds as Number() of the text does (Clinger's fast path): the same double.
 */
export function plainDecimal(s: string, from: number, to: number): number {
  let m = 0;
  let digits = 0;
  let point = -1;
  for (let i = from; i < to; i++) {
    const ch = s.charCodeAt(i);
    if (ch >= 48 && ch <= 57) {
      m = m * 10 + (ch - 48);
      digits++;
    } else if (ch === 46 && point < 0 && i > from && i < to - 1) point = i;
    else return Number.NaN;
  }
  if (digits === 0 || digits > 15) return Number.NaN;
  return point < 0 ? m : m / TENS[to - point - 1]!;
}

/** The whole number the ASCII digits between `from` and `to` in `s` write, or NaN when another character is there. */
function plainDigits(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const ch = s.charCodeAt(i);
    if (ch < 48 || ch > 57) return Number.NaN;
    n = n * 10 + (ch - 48);
  }
  return n;
}

/** The 00:00 UTC of a day written YYYY-MM-DD from `from` in `s`, or NaN when the text is not such a calendar day. */
export function plainDay(s: string, from: number, to: number): number {
  if (to - from !== 10 || s.charCodeAt(from + 4) !== 45 || s.charCodeAt(from + 7) !== 45) return Number.NaN;
  const y = plainDigits(s, from, from + 4);
  const m = plainDigits(s, from + 5, from + 7);
  const d = plainDigits(s, from + 8, from + 10);
  // NaN fails every comparison; years below 100 are left to dayUnix, as Date.UTC reads them as 1900 and on.
  if (!(y >= 100)) return Number.NaN;
  return calendarDayUnix(y, m, d);
}

/**
 * A day: an ISO date (YYYY-MM-DD, a real calendar day) or Unix seconds (the UTC day of that instant). Answers
 * the day as YYYY-MM-DD.
 */
export function day(values: Record<string, unknown>, column: string): string {
  const raw = values[column];
  const v = text(values, column);
  if (v === "") throw new RowError(column, raw ?? "", "required");
  if (ISO_DAY.test(v)) {
    if (!Number.isNaN(isoDayUnix(v))) return v;
    throw new RowError(column, raw, "not a calendar day");
  }
  if (UNIX_SECONDS.test(v)) return new Date(Number(v) * 1000).toISOString().slice(0, 10);
  throw new RowError(column, raw, "expected an ISO date (YYYY-MM-DD) or Unix seconds");
}

/** The same day as `day` checks it, as the Unix second of its 00:00 UTC. */
export function dayUnix(values: Record<string, unknown>, column: string): number {
  const raw = values[column];
  const v = text(values, column);
  if (ISO_DAY.test(v)) {
    const t = isoDayUnix(v);
    if (!Number.isNaN(t)) return t;
    throw new RowError(column, raw, "not a calendar day");
  }
  const d = day(values, column);
  return Date.parse(`${d}T00:00:00Z`) / 1000;
}

const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * An instant: an ISO 8601 date-time with its offset (`Z` or `+01:00`; one without is ambiguous and refused), or Unix
 * seconds. Answers Unix seconds.
 */
export function instant(values: Record<string, unknown>, column: string): number {
  const raw = values[column];
  const v = text(values, column);
  if (v === "") throw new RowError(column, raw ?? "", "required");
  if (UNIX_SECONDS.test(v)) return Number(v);
  const m = DATE_TIME.exec(v);
  const ms = m ? Date.parse(v) : Number.NaN;
  const at = new Date(`${m?.[1] ?? ""}T00:00:00Z`);
  if (!m || Number.isNaN(ms) || Number.isNaN(at.getTime()) || !at.toISOString().startsWith(m[1]!)) {
    throw new RowError(column, raw, "expected an ISO 8601 date-time with an offset (…Z, …+01:00) or Unix seconds");
  }
  return Math.floor(ms / 1000);
}

/** An optional finite number of 0 or more: null when the cell is empty. */
export function optionalNonNegative(values: Record<string, unknown>, column: string): number | null {
  return text(values, column) === "" ? null : nonNegative(values, column);
}

/** Minor units some markets quote in, with their currency and how many make one unit of it. */
export const MINOR_UNITS: Readonly<Record<string, { currency: string; per: number }>> = {
  GBp: { currency: "GBP", per: 100 },
  GBX: { currency: "GBP", per: 100 },
  ZAc: { currency: "ZAR", per: 100 },
};

/** A currency as given and as the store keeps it: an ISO 4217 code, a minor unit turned into its currency. */
export interface CurrencyUnit {
  currency: string;
  /** Prices in the given unit are divided by this to be in `currency`. */
  per: number;
}

/** Parses an ISO 4217 code or a minor unit (GBp, GBX, ZAc); case matters, as GBP and GBp differ a hundredfold. */
export function currencyUnit(code: string): CurrencyUnit | undefined {
  const minor = MINOR_UNITS[code];
  if (minor) return minor;
  return isIsoCurrency(code) ? { currency: code, per: 1 } : undefined;
}

export function currency(values: Record<string, unknown>, column: string): CurrencyUnit {
  const v = required(values, column);
  const unit = currencyUnit(v);
  if (!unit) throw new RowError(column, v, "not an ISO 4217 currency (or GBp, GBX, ZAc)");
  return unit;
}

/** An optional ISO 3166 alpha-2 country, upper-cased. */
export function country(values: Record<string, unknown>, column: string): string | undefined {
  const v = text(values, column).toUpperCase();
  if (v === "") return undefined;
  if (!/^[A-Z]{2}$/.test(v) || !isoCountries.isValid(v)) {
    throw new RowError(column, values[column], "not an ISO 3166 alpha-2 country");
  }
  return v;
}

export function isin(values: Record<string, unknown>, column: string): string | undefined {
  const v = text(values, column).toUpperCase();
  if (v === "") return undefined;
  if (!isValidIsin(v)) throw new RowError(column, values[column], "not an ISIN (shape or check digit)");
  return v;
}

export function cusip(values: Record<string, unknown>, column: string): string | undefined {
  const v = text(values, column).toUpperCase();
  if (v === "") return undefined;
  if (!isValidCusip(v)) throw new RowError(column, values[column], "not a CUSIP (shape or check digit)");
  return v;
}

export function wkn(values: Record<string, unknown>, column: string): string | undefined {
  const v = text(values, column).toUpperCase();
  if (v === "") return undefined;
  if (!isValidWkn(v)) throw new RowError(column, values[column], "not a WKN");
  return v;
}

/** The SEC's Central Index Key: up to ten digits (leading zeros as EDGAR prints it, `0000320193`, or none). */
export function cik(values: Record<string, unknown>, column: string): number | undefined {
  const v = text(values, column);
  if (v === "") return undefined;
  if (!/^\d{1,10}$/.test(v) || Number(v) === 0)
    throw new RowError(column, values[column], "not a CIK (1 to 10 digits)");
  return Number(v);
}

export const SECURITY_TYPES: readonly SecurityType[] = ["stock", "etf", "fund", "crypto", "forex"];

export function securityType(values: Record<string, unknown>, column: string): SecurityType {
  const v = required(values, column).toLowerCase();
  if (!(SECURITY_TYPES as readonly string[]).includes(v)) {
    throw new RowError(column, values[column], `expected one of ${SECURITY_TYPES.join(", ")}`);
  }
  return v as SecurityType;
}

/** A bar's prices: finite, low not negative, high at least open and close, low at most open and close. */
export function bar(
  values: Record<string, unknown>,
  columns: { o: string; h: string; l: string; c: string; v: string },
): { o: number; h: number; l: number; c: number; v: number } {
  const o = finite(values, columns.o);
  const h = finite(values, columns.h);
  const l = finite(values, columns.l);
  const c = finite(values, columns.c);
  const v = nonNegative(values, columns.v);
  if (l < 0) throw new RowError(columns.l, values[columns.l], "low is negative");
  if (h < Math.max(o, c)) throw new RowError(columns.h, values[columns.h], "high is below the open or the close");
  if (Math.min(o, c) < l) throw new RowError(columns.l, values[columns.l], "low is above the open or the close");
  return { o, h, l, c, v };
}

/** A weight in percent: a finite number from 0 to 100. */
export function weight(values: Record<string, unknown>, column: string): number {
  const n = finite(values, column);
  if (n < 0 || n > 100) throw new RowError(column, values[column], "a weight is a percent from 0 to 100");
  return n;
}

/** A whole number from `min` to `max`. */
export function whole(values: Record<string, unknown>, column: string, min: number, max: number): number {
  const n = finite(values, column);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new RowError(column, values[column], `expected a whole number from ${min} to ${max}`);
  }
  return n;
}

/** An optional day: null when the cell is empty. */
export function optionalDay(values: Record<string, unknown>, column: string): string | null {
  return text(values, column) === "" ? null : day(values, column);
}

/** A required ISO 3166 alpha-2 country. */
export function requiredCountry(values: Record<string, unknown>, column: string): string {
  const c = country(values, column);
  if (c === undefined) throw new RowError(column, values[column] ?? "", "required");
  return c;
}

/** An ISO 4217 currency of a major unit (a profile's or a report's amounts are not kept in pence or cents). */
export function majorCurrency(values: Record<string, unknown>, column: string): string {
  const unit = currency(values, column);
  if (unit.per !== 1) throw new RowError(column, values[column], "expected the major unit (GBP, ZAR)");
  return unit.currency;
}
