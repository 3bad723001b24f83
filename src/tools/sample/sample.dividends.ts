import {
  addWeekdays,
  addYears,
  makeDay,
  onOrAfterWeekday,
  onOrBeforeWeekday,
  yearOf,
} from "../../sources/sample/sample.calendar";
import type { SampleContext } from "./sample.context";
import type { DividendRow, Etf, Fund, Security, Split, Stock } from "./sample.model";
import { roundTo } from "../../sources/sample/sample.numbers";
import type { Random } from "../../sources/sample/sample.random";
import { sectorByName } from "./sample.sectors";

/**
 * Corporate actions: splits and dividends (paid and announced).
 *
 * Split convention: daily bars, intraday bars and quotes are split-ADJUSTED
 * (the whole history is expressed in today's shares, as most vendors serve
 * it), so a split leaves no jump in the price series. Dividends keep both
 * views: `amount` as paid per share at the time and `adjusted_amount` in
 * today's shares; quarterly financials report the share count of their time.
 */

/** Days after the anchor for which dividends may already be announced. */
export const ANNOUNCEMENT_HORIZON_DAYS = 90;

export function planSplits(ctx: SampleContext, stocks: readonly Stock[]): Map<number, Split[]> {
  const r = ctx.rng("splits");
  const { stocksWithHistory, stocksWithFinancials, splitStocks } = ctx.counts;
  const eligible = stocks.filter((s) => !s.recentIpo && s.order < stocksWithFinancials);
  const withHistory = eligible.filter((s) => s.order < stocksWithHistory);
  const without = eligible.filter((s) => s.order >= stocksWithHistory);
  const fromHistory = Math.min(withHistory.length, Math.round(splitStocks * 0.6));
  const chosen = [...r.sample(withHistory, fromHistory), ...r.sample(without, splitStocks - fromHistory)];
  chosen.sort((a, b) => a.id - b.id);

  const out = new Map<number, Split[]>();
  const first = ctx.historyStart + 60;
  const last = ctx.anchorDay - 20;
  for (const s of chosen) {
    const splits: Split[] = [];
    const count = r.chance(0.15) ? 2 : 1;
    let day = onOrAfterWeekday(r.intBetween(first, last));
    if (count === 2) {
      const second = onOrAfterWeekday(r.intBetween(first, last));
      if (Math.abs(second - day) >= 365)
        splits.push({ day: Math.min(day, second), numerator: ratio(r), denominator: 1 });
      day = Math.max(day, second);
    }
    splits.push({ day, numerator: ratio(r), denominator: 1 });
    out.set(s.id, splits);
  }
  return out;
}

function ratio(r: Random): number {
  return r.weighted([2, 3, 4], [60, 20, 20]);
}

/** Product of split ratios of splits strictly after `day`: old shares per today's share. */
export function splitFactorAfter(splits: readonly Split[] | undefined, day: number): number {
  let f = 1;
  if (splits) for (const s of splits) if (s.day > day) f *= s.numerator / s.denominator;
  return f;
}

interface Schedule {
  frequency: number;
  firstMonth: number;
  dayOfMonth: number;
  payLag: number;
  declarationLag: number;
}

function schedule(r: Random, frequency: number, annualMonthFrom: number, annualMonthTo: number): Schedule {
  const step = 12 / frequency;
  return {
    frequency,
    firstMonth: frequency === 1 ? r.intBetween(annualMonthFrom, annualMonthTo) : r.intBetween(1, step),
    dayOfMonth: r.intBetween(3, 25),
    payLag: r.intBetween(14, 28),
    declarationLag: r.intBetween(14, 28),
  };
}

/** Ex-dates of a schedule within [from, to]. */
function exDays(r: Random, s: Schedule, from: number, to: number): number[] {
  const out: number[] = [];
  const step = 12 / s.frequency;
  for (let y = yearOf(from); y <= yearOf(to); y++) {
    for (let k = 0; k < s.frequency; k++) {
      const month = s.firstMonth + k * step;
      const day = onOrAfterWeekday(makeDay(y, month, s.dayOfMonth + r.intBetween(-2, 2)));
      if (day >= from && day <= to) out.push(day);
    }
  }
  return out;
}

interface Payer {
  security: Security;
  currency: string;
  schedule: Schedule;
  /** Per-payment amount in today's shares at the anchor. */
  amountNow: (r: Random, exDay: number) => number;
  from: number;
  announces: boolean;
}

function rowsFor(ctx: SampleContext, r: Random, p: Payer, splits: readonly Split[] | undefined): DividendRow[] {
  const rows: DividendRow[] = [];
  let future = 0;
  for (const ex of exDays(r, p.schedule, p.from, ctx.anchorDay + ANNOUNCEMENT_HORIZON_DAYS)) {
    let declaration = onOrBeforeWeekday(ex - p.schedule.declarationLag);
    if (ex > ctx.anchorDay) {
      // Only announced payments are known after the anchor, and an
      // announcement is by definition already declared.
      if (!p.announces || future >= 2) continue;
      future++;
      if (declaration > ctx.anchorDay) declaration = onOrBeforeWeekday(ctx.anchorDay - r.int(8));
    }
    const factor = splitFactorAfter(splits, ex);
    const amount = roundTo(p.amountNow(r, ex) * factor, 4);
    if (!(amount > 0)) continue;
    rows.push({
      exDay: ex,
      recordDay: addWeekdays(ex, 1),
      payDay: onOrAfterWeekday(ex + p.schedule.payLag),
      declarationDay: declaration,
      amount,
      adjustedAmount: amount / factor,
      currency: p.currency,
      frequency: p.schedule.frequency,
    });
  }
  return rows;
}

function stockFrequency(r: Random, s: Stock): number {
  switch (s.country) {
    case "US":
    case "CA":
      return s.sector === "Real Estate" && r.chance(0.35) ? 12 : 4;
    case "GB":
      return r.chance(0.25) ? 4 : 2;
    case "JP":
    case "AU":
      return 2;
    case "HK":
    case "CN":
      return r.chance(0.3) ? 1 : 2;
    case "FR":
    case "NL":
      return r.chance(0.25) ? 2 : 1;
    case "DE":
    case "CH":
    case "ES":
    case "IT":
    case "SE":
    case "DK":
    case "NO":
    case "FI":
    case "IE":
      return 1;
    default:
      return r.chance(0.5) ? 4 : 2;
  }
}

/**
 * Dividend histories of ten years for paying stocks, distributing ETFs and
 * distributing funds, plus the next one or two announced payments.
 */
export function planDividends(
  ctx: SampleContext,
  stocks: readonly Stock[],
  etfs: readonly Etf[],
  funds: readonly Fund[],
  splits: ReadonlyMap<number, Split[]>,
): DividendPlan {
  const r = ctx.rng("dividends");
  const payers: Payer[] = [];
  const yearsBefore = (ex: number) => Math.max(0, Math.floor((ctx.anchorDay - ex) / 365.25));

  // The larger companies pay over the whole window, the others over the two years of their price history.
  const recentFrom = addYears(ctx.anchorDay, -2);
  for (const s of stocks) {
    if (s.recentIpo || s.upcomingIpo) continue;
    const large = s.order < ctx.counts.stocksWithFinancials;
    const pr = r.fork(`stock-${s.id}`);
    const sector = sectorByName(s.sector ?? "");
    // ~40 % of the large companies pay, more in utilities than in tech.
    if (!pr.chance(sector.dividendPropensity * 0.75)) continue;
    const frequency = stockFrequency(pr, s);
    const highYield = s.sector === "Utilities" || s.sector === "Real Estate" || s.sector === "Energy";
    const yieldPct = Math.min(9, pr.logNormal(Math.log(highYield ? 3.8 : 2.2), 0.4));
    const growth = pr.range(0, 0.1);
    const perPayment = (s.price * yieldPct) / 100 / frequency;
    payers.push({
      security: s,
      currency: s.currency,
      schedule: schedule(pr, frequency, 4, 6),
      amountNow: (_r, ex) => perPayment / (1 + growth) ** yearsBefore(ex),
      from: Math.max(large ? ctx.historyStart : recentFrom, s.ipoDay + 365),
      announces: pr.chance(0.8),
    });
  }

  const distributor = (sec: Etf | Fund, frequency: number, yieldPct: number, inceptionDay: number): void => {
    const pr = r.fork(`dist-${sec.id}`);
    const perPayment = (sec.price * yieldPct) / 100 / frequency;
    payers.push({
      security: sec,
      currency: sec.currency,
      schedule: schedule(pr, frequency, 1, 12),
      // Fund distributions follow income, so they vary payment to payment.
      amountNow: (ar, ex) => (perPayment * (1 + 0.12 * ar.normal())) / 1.03 ** yearsBefore(ex),
      from: Math.max(ctx.historyStart, inceptionDay + 90),
      announces: pr.chance(0.75),
    });
  };
  for (const e of etfs) {
    if (e.profile.distributionPolicy === "Distributing")
      distributor(e, e.profile.frequency, e.profile.yieldPct, ctx.historyStart);
  }
  for (const f of funds) {
    if (f.profile.distributionPolicy === "Distributing") {
      const inception = Math.round(Date.parse(f.profile.inceptionDate) / 86400000);
      distributor(f, f.profile.frequency, f.profile.yieldPct, inception);
    }
  }

  return new DividendPlan(ctx, r, payers, splits);
}

/**
 * The dividends of every payer, computed again whenever asked: a payer's rows are a pure function of its plan, its
 * splits and its own random stream, so keeping ~1.5 million rows in memory for the whole build bought nothing.
 */
export class DividendPlan {
  private readonly payers = new Map<number, Payer>();
  /** Rows per payer that pays at all, by security id in ascending order. */
  private readonly counts = new Map<number, number>();

  constructor(
    private readonly ctx: SampleContext,
    private readonly r: Random,
    payers: readonly Payer[],
    private readonly splits: ReadonlyMap<number, Split[]>,
  ) {
    const paying: [number, number][] = [];
    for (const p of payers) {
      const n = this.rowsOf(p).length;
      if (n === 0) continue;
      this.payers.set(p.security.id, p);
      paying.push([p.security.id, n]);
    }
    for (const [id, n] of paying.sort((a, b) => a[0] - b[0])) this.counts.set(id, n);
  }

  private rowsOf(p: Payer): DividendRow[] {
    return rowsFor(this.ctx, this.r.fork(`rows-${p.security.id}`), p, this.splits.get(p.security.id));
  }

  /** A security's dividends, or undefined when it pays none. */
  get(id: number): DividendRow[] | undefined {
    const p = this.payers.get(id);
    return p ? this.rowsOf(p) : undefined;
  }

  /** Securities that pay, in id order. */
  ids(): IterableIterator<number> {
    return this.counts.keys();
  }

  /** Forgets every payer (once the dividends are written). */
  clear(): void {
    this.payers.clear();
    this.counts.clear();
  }

  /** Rows of every payer. */
  get rowCount(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }
}
