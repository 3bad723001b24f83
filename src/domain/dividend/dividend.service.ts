import { InvalidArgumentError } from "../../platform/errors";
import type { RequestContext } from "../request.context";
import { requireCapability } from "../ports/source.capabilities";
import { dayOf, fxConverter, normalizeCurrency, roundMoney, unixOfDay } from "../fx/fx.service";
import { namedIdentifiers, resolveInstrument, type SecurityRef } from "../instrument/instrument.service";
import type { DividendRow, InstrumentRow, SecurityType } from "../ports/source.types";
import {
  DividendStatus,
  type AnnualDividends,
  type Dividend,
  type DividendCalendarArgs,
  type DividendCalendarPage,
  type DividendEstimate,
  type DividendYear,
  type ExpectedDividend,
} from "./dividend.types";

/** Days the calendar covers when the client names no `to`. */
export const CALENDAR_DEFAULT_DAYS = 90;
export const CALENDAR_DEFAULT_LIMIT = 100;
/** The types that pay dividends a client may ask about. */
export const DIVIDEND_TYPES: readonly SecurityType[] = ["stock", "etf", "fund"];

const DAY = 86_400;
const round = (x: number, digits = 6) => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

// ---- days -------------------------------------------------------------------------------------

export const todayOf = (ctx: RequestContext) => dayOf(Math.floor(ctx.clock.now().getTime() / 1000));
export const addDays = (day: string, n: number) => dayOf(unixOfDay(day) + n * DAY);

/** The same day of the month `n` months later, clamped to the month's last day (Jan 31 + 1 month = Feb 28). */
export function addMonths(day: string, n: number): string {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  const last = new Date(Date.UTC(y, m - 1 + n + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m - 1 + n, Math.min(d, last))).toISOString().slice(0, 10);
}

/** The day itself on Monday to Friday, else the following Monday (ex-dates are trading days). */
export function onOrAfterWeekday(day: string): string {
  const w = new Date(`${day}T00:00:00Z`).getUTCDay();
  return w === 6 ? addDays(day, 2) : w === 0 ? addDays(day, 1) : day;
}

const daysBetween = (a: string, b: string) => Math.round((unixOfDay(b) - unixOfDay(a)) / DAY);

export function isCalendarDay(text: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}$/.test(text) &&
    !Number.isNaN(Date.parse(`${text}T00:00:00Z`)) &&
    dayOf(unixOfDay(text)) === text
  );
}

function dayArg(field: string, value: string): string {
  const v = value.trim();
  if (!isCalendarDay(v))
    throw new InvalidArgumentError(`${field}: ${JSON.stringify(value)} is not a date YYYY-MM-DD`, [
      { field, issue: "invalid date" },
    ]);
  return v;
}

// ---- rows -------------------------------------------------------------------------------------

export function toDividend(d: DividendRow, symbol: string | null = null): Dividend {
  return {
    symbol,
    date: d.exDate,
    recordDate: d.recordDate,
    payDate: d.payDate,
    declarationDate: d.declarationDate,
    amount: d.amount,
    adjustedAmount: d.adjustedAmount,
    currency: d.currency,
  };
}

/**
 * Whether a stored dividend is known on `today`: it went ex already, or it
 * has been declared. Rows the store holds for later (with an injected clock
 * in the past) are not yet known.
 */
export const isKnownOn = (d: DividendRow, today: string) =>
  d.exDate <= today || d.declarationDate == null || d.declarationDate <= today;

// ---- calendar ---------------------------------------------------------------------------------

/**
 * Announced and upcoming dividends of stocks and ETFs by ex-date, keyset
 * paginated (a `symbol` or `isin` filter may also name a fund). Default
 * window: today (the clock's UTC day) through 90 days after `from`.
 */
export async function getDividendCalendar(
  ctx: RequestContext,
  args: DividendCalendarArgs,
): Promise<DividendCalendarPage> {
  const from = args.from != null ? dayArg("from", args.from) : todayOf(ctx);
  const to = args.to != null ? dayArg("to", args.to) : addDays(from, CALENDAR_DEFAULT_DAYS);
  if (from > to)
    throw new InvalidArgumentError(`from: ${from} is after to: ${to}`, [{ field: "from", issue: "after to" }]);
  const max = ctx.config.sizes.listMaxLimit;
  const limit = args.limit ?? Math.min(CALENDAR_DEFAULT_LIMIT, max);
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new InvalidArgumentError(`limit: expected an integer from 1 to ${max}`, [
      { field: "limit", issue: "out of range" },
    ]);
  }
  let securityIds: number[] | undefined;
  if (namedIdentifiers(args).length > 0) {
    // Named explicitly, a fund is answered too; the unfiltered calendar is stocks and ETFs (spec section 4, row 11).
    const { symbol, isin, cusip, wkn } = args;
    const row = await resolveInstrument(ctx, { symbol, isin, cusip, wkn }, DIVIDEND_TYPES);
    securityIds = [row.security.id];
  }
  // Keyset pages with the source's own opaque cursors.
  const source = requireCapability(ctx.source, "dividends");
  const cursor = args.cursor || undefined;
  const found = await source.getDividendCalendar({ fromDay: from, toDay: to, securityIds, cursor, limit });
  if (!found) {
    const details = [{ field: "cursor", issue: "invalid" }];
    throw new InvalidArgumentError("cursor: not a cursor of the dividend calendar", details);
  }
  const page = found.rows;
  const ids = [...new Set(page.map((d) => d.securityId))];
  const listings = await ctx.loaders.listings.loadMany(ids);
  const symbolOf = new Map<number, string | null>();
  ids.forEach((id, i) => {
    const ls = listings[i];
    symbolOf.set(id, Array.isArray(ls) && ls[0] ? ls[0].symbol : null);
  });
  return {
    from,
    to,
    dividends: page.map((d) => toDividend(d, symbolOf.get(d.securityId) ?? null)),
    nextCursor: found.nextCursor,
  };
}

// ---- per security -----------------------------------------------------------------------------

/** The dividends of a security known today, oldest first; empty for a security that pays none. */
async function dividendHistory(
  ctx: RequestContext,
  row: InstrumentRow,
): Promise<{ today: string; known: DividendRow[] }> {
  const today = todayOf(ctx);
  const all = await ctx.loaders.dividends.load(row.security.id);
  return { today, known: all.filter((d) => isKnownOn(d, today)) };
}

/** All stored dividends of a security known today (history and announced), optionally within ex-dates [from, to]. */
export async function dividendsOf(
  ctx: RequestContext,
  row: InstrumentRow,
  from?: string | null,
  to?: string | null,
): Promise<Dividend[]> {
  const today = todayOf(ctx);
  const lo = from != null ? dayArg("from", from) : "0000-00-00";
  const hi = to != null ? dayArg("to", to) : "9999-99-99";
  const all = await ctx.loaders.dividends.load(row.security.id);
  return all.filter((d) => isKnownOn(d, today) && d.exDate >= lo && d.exDate <= hi).map((d) => toDividend(d));
}

/**
 * Sums per calendar year of the ex-dates on or before `today`, every year
 * from the first dividend to today's year (years without payments have
 * count 0). Growth compares split-adjusted sums. Amounts in another currency
 * than `currency` must have been converted by the caller.
 */
export function annualTable(past: readonly DividendRow[], today: string): DividendYear[] {
  if (past.length === 0) return [];
  const first = Number(past[0]!.exDate.slice(0, 4));
  const current = Number(today.slice(0, 4));
  const years: DividendYear[] = [];
  for (let y = first; y <= current; y++) {
    const inYear = past.filter((d) => Number(d.exDate.slice(0, 4)) === y);
    const adjusted = round(inYear.reduce((s, d) => s + d.adjustedAmount, 0));
    const prev = years[years.length - 1];
    years.push({
      year: y,
      amount: round(inYear.reduce((s, d) => s + d.amount, 0)),
      adjustedAmount: adjusted,
      count: inYear.length,
      growth: prev && prev.adjustedAmount > 0 ? round((adjusted / prev.adjustedAmount - 1) * 100, 4) : null,
      complete: y < current,
    });
  }
  return years;
}

/** Rows converted into `currency` at each ex-date's FX rate (a no-op when they are all in it already). */
export async function inCurrency(ctx: RequestContext, rows: DividendRow[], currency: string): Promise<DividendRow[]> {
  const others = [...new Set(rows.filter((d) => d.currency !== currency).map((d) => d.currency))];
  if (others.length === 0) return rows;
  const converters = new Map<string, (day: string) => number>();
  await Promise.all(
    others.map(async (c) => {
      const days = rows.filter((d) => d.currency === c).map((d) => d.exDate);
      converters.set(c, await fxConverter(ctx, c, currency, days[0]!, days[days.length - 1]!));
    }),
  );
  return rows.map((d) => {
    const f = converters.get(d.currency)?.(d.exDate);
    return f == null
      ? d
      : {
          ...d,
          amount: roundMoney(d.amount * f, currency),
          adjustedAmount: roundMoney(d.adjustedAmount * f, currency),
          currency,
        };
  });
}

/** Months between two payments of a dividend paid `frequency` times a year. */
export const periodMonths = (frequency: number) => Math.max(1, Math.round(12 / (frequency > 0 ? frequency : 1)));

/**
 * Whether a security stopped paying: its latest dividend went ex more than
 * max(12 months, two payment periods) ago and nothing is announced since.
 */
export function hasStopped(latest: DividendRow, today: string): boolean {
  return latest.exDate <= today && addMonths(latest.exDate, Math.max(12, 2 * periodMonths(latest.frequency))) < today;
}

/**
 * Latest split-adjusted dividend × its frequency: the forward annual dividend; 0 for a security that stopped paying.
 */
export function forwardAnnual(latest: DividendRow, today: string): number {
  return hasStopped(latest, today) ? 0 : round(latest.adjustedAmount * latest.frequency);
}

/**
 * Dividends per calendar year, in the latest dividend's currency or, with `currency`, converted into it: each
 * dividend at its ex-date's rate, the forward dividend at the latest one's, the price at its day's. The yield is a
 * ratio and the same in any currency.
 */
export async function annualDividendsOf(
  ctx: RequestContext,
  row: InstrumentRow,
  currency?: string | null,
): Promise<AnnualDividends> {
  const target = currency ? normalizeCurrency(currency) : null;
  const { today, known } = await dividendHistory(ctx, row);
  const q = row.quote;
  const priceCurrency = target ?? row.listing.currency;
  let price: number | null = q ? q.c : null;
  if (q && target && target !== row.listing.currency) {
    const day = dayOf(q.t);
    price = roundMoney(q.c * (await fxConverter(ctx, row.listing.currency, target, day, day))(day), target);
  }
  const latest = known[known.length - 1];
  if (!latest) {
    // A security that pays no dividends answers an empty table with zero totals (docs/contract.md section 4).
    return {
      symbol: row.listing.symbol,
      isin: row.security.isin,
      currency: priceCurrency,
      frequency: null,
      years: [],
      latestDividend: null,
      forwardAnnualDividend: 0,
      forwardYield: q && q.c > 0 ? 0 : null,
      price,
      priceCurrency,
    };
  }
  const own = latest.currency;
  const answerCurrency = target ?? own;
  const past = await inCurrency(
    ctx,
    known.filter((d) => d.exDate <= today),
    answerCurrency,
  );
  const forward = forwardAnnual(latest, today);
  let forwardYield: number | null = null;
  if (q && q.c > 0) {
    const day = dayOf(q.t);
    const f = own === row.listing.currency ? 1 : (await fxConverter(ctx, own, row.listing.currency, day, day))(day);
    forwardYield = round(((forward * f) / q.c) * 100, 4);
  }
  const [latestShown] = answerCurrency === own ? [latest] : await inCurrency(ctx, [latest], answerCurrency);
  return {
    symbol: row.listing.symbol,
    isin: row.security.isin,
    currency: answerCurrency,
    frequency: latest.frequency,
    years: annualTable(past, today),
    latestDividend: toDividend(latestShown!),
    forwardAnnualDividend: answerCurrency === own ? forward : forwardAnnual(latestShown!, today),
    forwardYield,
    price,
    priceCurrency,
  };
}

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
}

/** How many recent dividends the pay and record lags are taken from. */
export const LAG_SAMPLE = 4;

/**
 * The estimate method (docs/api-stock-dividend.md): announced dividends in
 * the window as declared; then, from the latest known dividend (announced
 * or paid), one payment every 12 / frequency months on the same day of the
 * month (moved to the next weekday), each of that dividend's split-adjusted
 * amount, with pay and record dates at the median lag of the last four
 * dividends. Slots on or before today that were never announced are not
 * counted; a security that stopped paying (hasStopped) gets no estimated rows.
 */
export function estimateDividends(known: readonly DividendRow[], today: string) {
  const from = addDays(today, 1);
  const to = addMonths(today, 12);
  const latest = known[known.length - 1]!;
  const frequency = latest.frequency > 0 ? latest.frequency : 1;
  const stepMonths = periodMonths(frequency);
  const recent = known.slice(-LAG_SAMPLE);
  const payLag = median(recent.filter((d) => d.payDate).map((d) => daysBetween(d.exDate, d.payDate!)));
  const recordLag = median(recent.filter((d) => d.recordDate).map((d) => daysBetween(d.exDate, d.recordDate!)));

  const rows: ExpectedDividend[] = known
    .filter((d) => d.exDate >= from && d.exDate <= to)
    .map((d) => ({ ...toDividend(d), status: DividendStatus.announced }));
  const stopped = hasStopped(latest, today);
  if (!stopped) {
    for (let k = 1; ; k++) {
      const ex = onOrAfterWeekday(addMonths(latest.exDate, k * stepMonths));
      if (ex > to) break;
      if (ex < from) continue;
      rows.push({
        date: ex,
        recordDate: recordLag == null ? null : addDays(ex, recordLag),
        payDate: payLag == null ? null : addDays(ex, payLag),
        declarationDate: null,
        amount: latest.adjustedAmount,
        adjustedAmount: latest.adjustedAmount,
        currency: latest.currency,
        status: DividendStatus.estimated,
      });
    }
  }
  const method =
    `announced dividends as declared; then every ${stepMonths} month${stepMonths === 1 ? "" : "s"} ` +
    `(frequency ${frequency} a year) after the latest known ex-date ` +
    `${latest.exDate}, moved to the next weekday, ` +
    `each of its split-adjusted amount ${latest.adjustedAmount} ${latest.currency}; ` +
    `pay date ${payLag == null ? "unknown" : `ex-date + ${payLag} days`}, ` +
    `record date ${recordLag == null ? "unknown" : `ex-date + ${recordLag} days`} ` +
    `(median lags of the last ${recent.length} dividends)` +
    (stopped
      ? "; no estimates: the latest dividend went ex more than max(12 months, two periods) ago and nothing is announced"
      : "");
  return { from, to, frequency, rows, method, latest };
}

export async function dividendEstimateOf(ctx: RequestContext, row: InstrumentRow): Promise<DividendEstimate> {
  const { today, known } = await dividendHistory(ctx, row);
  if (known.length === 0) {
    // Nothing paid and nothing announced: nothing to estimate, an empty answer (docs/contract.md section 4).
    return {
      symbol: row.listing.symbol,
      isin: row.security.isin,
      currency: row.listing.currency,
      frequency: null,
      from: addDays(today, 1),
      to: addMonths(today, 12),
      total: 0,
      method: "no dividend known: the security has paid and announced none, so nothing is estimated",
      dividends: [],
    };
  }
  const e = estimateDividends(known, today);
  return {
    symbol: row.listing.symbol,
    isin: row.security.isin,
    currency: e.latest.currency,
    frequency: e.frequency,
    from: e.from,
    to: e.to,
    total: round(e.rows.reduce((s, d) => s + d.adjustedAmount, 0)),
    method: e.method,
    dividends: e.rows,
  };
}

export async function getAnnualDividends(
  ctx: RequestContext,
  ref: SecurityRef & { currency?: string | null },
): Promise<AnnualDividends> {
  return annualDividendsOf(ctx, await resolveInstrument(ctx, ref, DIVIDEND_TYPES), ref.currency);
}

export async function getDividendEstimate(ctx: RequestContext, ref: SecurityRef): Promise<DividendEstimate> {
  return dividendEstimateOf(ctx, await resolveInstrument(ctx, ref, DIVIDEND_TYPES));
}
