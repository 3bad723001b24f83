import cc from "currency-codes";
import { InvalidArgumentError, NotFoundError } from "../../platform/errors";
import type { RequestContext } from "../request.context";
import type { FxRow } from "../ports/source.types";

/** How far back a missing FX day may borrow the last known rate (weekends, holidays). */
export const FX_LOOKBACK_DAYS = 10;

const DAY = 86_400;

export function dayOf(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 10);
}

export function unixOfDay(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) / 1000;
}

/** Whether `code` is an ISO 4217 code as written (upper case). */
export function isIsoCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && cc.code(code) !== undefined;
}

/** Upper-cases and checks an ISO 4217 code; an unknown code is the client's mistake. */
export function normalizeCurrency(raw: string, field = "currency"): string {
  const code = raw.trim().toUpperCase();
  if (!isIsoCurrency(code)) {
    throw new InvalidArgumentError(`${field}: ${JSON.stringify(raw)} is not an ISO 4217 currency code`, [
      { field, issue: "unknown currency" },
    ]);
  }
  return code;
}

/** ISO 4217 digits by code: currency-codes' `code()` searches its whole table on every call, and quotes round often. */
const MINOR_DIGITS = new Map<string, number>();

function minorDigits(currency: string): number {
  const known = MINOR_DIGITS.get(currency);
  if (known !== undefined) return known;
  const found = cc.code(currency)?.digits;
  // Only ISO codes are kept, so the map stays as small as the table whatever a caller passes.
  if (found !== undefined) MINOR_DIGITS.set(currency, found);
  return found ?? 2;
}

/**
 * A money amount converted into `currency`, on that currency's tick: its minor unit (cents, whole yen), and below
 * one unit four significant digits (a converted penny stock or small dividend keeps its precision).
 */
export function roundMoney(value: number, currency: string): number {
  const digits = minorDigits(currency);
  const a = Math.abs(value);
  const decimals = a >= 1 || a === 0 ? digits : Math.max(digits, Math.min(12, 3 - Math.floor(Math.log10(a))));
  const m = 10 ** decimals;
  return Math.round(value * m) / m;
}

/** The last rate on or before `day` in an ascending series, or null. */
export function rateOnOrBefore(series: readonly FxRow[], day: string): number | null {
  let lo = 0;
  let hi = series.length - 1;
  let found: number | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (series[mid]!.day <= day) {
      found = series[mid]!.perUsd;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Daily per-USD series of `currency` over [fromDay - lookback, toDay]; USD is the constant 1. */
export async function loadFxSeries(
  ctx: RequestContext,
  currency: string,
  fromDay: string,
  toDay: string,
): Promise<FxRow[] | "usd"> {
  if (currency === "USD") return "usd";
  const start = dayOf(unixOfDay(fromDay) - FX_LOOKBACK_DAYS * DAY);
  const rows = await ctx.loaders.fxRates.load({ currency, fromDay: start, toDay });
  if (rows.length === 0) throw new NotFoundError(`no FX rates for ${currency} between ${start} and ${toDay}`);
  return rows;
}

/**
 * A converter from `from` into `to` over a day range: `factor(day)` multiplies
 * an amount in `from` into `to`, using the last known rate on or before that
 * day when the day itself has none.
 */
export async function fxConverter(
  ctx: RequestContext,
  from: string,
  to: string,
  fromDay: string,
  toDay: string,
): Promise<(day: string) => number> {
  if (from === to) return () => 1;
  const [a, b] = await Promise.all([loadFxSeries(ctx, from, fromDay, toDay), loadFxSeries(ctx, to, fromDay, toDay)]);
  return (day: string) => {
    const perUsdFrom = a === "usd" ? 1 : rateOnOrBefore(a, day);
    const perUsdTo = b === "usd" ? 1 : rateOnOrBefore(b, day);
    if (perUsdFrom == null || perUsdTo == null) {
      throw new NotFoundError(`no FX rate from ${from} to ${to} on or before ${day}`);
    }
    return perUsdTo / perUsdFrom;
  };
}
