import type { RequestContext } from "../request.context";
import { candlesOf } from "../candle/candle.service";
import type { CandleRangeArgs, Candles } from "../candle/candle.types";
import {
  addDays,
  annualDividendsOf,
  dividendEstimateOf,
  dividendsOf,
  inCurrency,
  isCalendarDay,
  isKnownOn,
  todayOf,
  toDividend,
} from "../dividend/dividend.service";
import { InvalidArgumentError } from "../../platform/errors";
import { requireCapability } from "../ports/source.capabilities";
import type { IpoStatus } from "../ports/source.types";
import { normalizeCurrency, unixOfDay } from "../fx/fx.service";
import type { AnnualDividends, Dividend, DividendEstimate } from "../dividend/dividend.types";
import type { SecurityRef } from "../instrument/instrument.service";
import { quoteOf } from "../quote/quote.service";
import { financialsTtmOf, getStock, stockOf } from "./stock.service";
import type { FinancialsTtm, Stock } from "./stock.types";
import { stockMetricOf, type StockMetricAnswer } from "./stock.metrics";
import { stockFundamentalsOf, type StockFundamentals } from "./stock.fundamentals";
import { type StatementKind, statementsOf } from "./statement.service";
import type { BalanceSheet, CashFlowStatement, FinancialsFreq, IncomeStatement } from "./statement.types";

/** A statement kind's answer type. */
export interface Statements {
  ic: IncomeStatement;
  bs: BalanceSheet;
  cf: CashFlowStatement;
}
import { screenerOf, type ScreenerHit, type ScreenerRequest } from "../screener/screener.service";

/**
 * The company's profile as the store holds it: identity, classification, the latest quote's price, its change and
 * average volume, the 52-week range of the daily bars, and the latest dividend. Null where the store has no value.
 */
export interface StockProfile {
  symbol: string;
  companyName: string;
  /** The listing's currency: of `price`, `changes` and the range. */
  currency: string;
  isin: string | null;
  cusip: string | null;
  exchange: string;
  sector: string | null;
  industry: string | null;
  country: string | null;
  website: string | null;
  description: string | null;
  /** `YYYY-MM-DD`. */
  ipo: string | null;
  isActivelyTrading: boolean;
  isAdr: boolean;
  /** In the reporting currency. */
  marketCapitalization: number | null;
  price: number | null;
  changes: number | null;
  volAvg: number | null;
  /** Lowest low and highest high of the daily bars of the 365 days to the latest quote; null without bars. */
  yearLow: number | null;
  yearHigh: number | null;
  /** Per share, in the dividend's currency (the reporting currency as a rule); 0 for a stock that has paid none. */
  lastDiv: number;
}

/** A split as the SDKs name it: `fromFactor` shares became `toFactor` (a 4-for-1 is 1 to 4), whole numbers. */
export interface StockSplit {
  /** Of the listing asked for (by ISIN: the primary listing). */
  symbol: string;
  /** `YYYY-MM-DD`, the first day traded on the new shares. */
  date: string;
  fromFactor: number;
  toFactor: number;
}

/** A stock's dividends in one currency or each in its own (`currency` null then), as stock/dividend answers them. */
export interface StockDividendHistory {
  symbol: string;
  /** The currency asked for; null when none was and each dividend keeps its own. */
  currency: string | null;
  dividends: Dividend[];
}

/** Every answer about a stock, as the resolvers ask for them (the answer level: see etf/etf.answers.ts). */
export interface StockAnswers {
  get(ctx: RequestContext, ref: SecurityRef): Promise<Stock>;
  /** In the reporting currency, or converted into `currency`. */
  financialsTtm(ctx: RequestContext, stock: Stock, currency?: string | null): Promise<FinancialsTtm>;
  /** Newest first, each quarter or fiscal year, in the reporting currency or converted into `currency`. */
  statements<K extends StatementKind>(
    ctx: RequestContext,
    stock: Stock,
    statement: K,
    freq: FinancialsFreq,
    currency?: string | null,
  ): Promise<Statements[K][]>;
  candles(ctx: RequestContext, stock: Stock, args: CandleRangeArgs): Promise<Candles>;
  /** Money figures in the reporting currency, or converted into `currency` (stock.metrics.ts). */
  metric(ctx: RequestContext, stock: Stock, currency?: string | null): Promise<StockMetricAnswer>;
  /** By fiscal year, newest first; ev in the reporting currency or in `currency` (stock.fundamentals.ts). */
  fundamentals(ctx: RequestContext, stock: Stock, currency?: string | null): Promise<StockFundamentals>;
  /** Known today, oldest first, optionally within ex-dates [from, to]. */
  dividends(ctx: RequestContext, stock: Stock, from?: string | null, to?: string | null): Promise<Dividend[]>;
  /** In the dividends' currency, or converted into `currency`. */
  annualDividends(ctx: RequestContext, stock: Stock, currency?: string | null): Promise<AnnualDividends>;
  dividendEstimate(ctx: RequestContext, stock: Stock): Promise<DividendEstimate>;
  profile(ctx: RequestContext, stock: Stock): Promise<StockProfile>;
  /** Every dividend known today, oldest first, each in its own currency or converted into `currency`. */
  dividendHistory(ctx: RequestContext, stock: Stock, currency?: string | null): Promise<StockDividendHistory>;
  /** Oldest first, within [from, to] (days `YYYY-MM-DD`); `to` defaults to today, `from` to the first stored. */
  splits(ctx: RequestContext, stock: Stock, from?: string | null, to?: string | null): Promise<StockSplit[]>;
  /**
   * At most `limit` (default PEERS_DEFAULT, at most PEERS_MAX) other stocks, nearest first: those of its industry,
   * then the rest of its sector, each by nearness of market capitalisation (the row stores' getStockPeers).
   */
  peers(ctx: RequestContext, stock: Stock, limit?: number | null): Promise<Stock[]>;
  /**
   * The same peers with their latest prices, in `currency` or each in its listing's own; peers without one left
   * out.
   */
  peersWidget(
    ctx: RequestContext,
    stock: Stock,
    currency?: string | null,
    limit?: number | null,
  ): Promise<StockPeerWidgetItem[]>;
  /**
   * Earnings dates of every stock within days [from, to] (default: today, and 30 days on), earliest first, at most
   * EARNINGS_MAX_ROWS; a window of at most EARNINGS_MAX_DAYS.
   */
  earningsCalendar(ctx: RequestContext, from?: string | null, to?: string | null): Promise<EarningsDate[]>;
  /**
   * Initial public offerings within days [from, to] (default: today, and 30 days on), earliest first (by day, then
   * symbol), at most IPO_MAX_ROWS; a window of at most IPO_MAX_DAYS, as the earnings calendar's.
   */
  ipoCalendar(ctx: RequestContext, from?: string | null, to?: string | null): Promise<IpoCalendarItem[]>;
  /** Stocks meeting every condition, over an index of every stock's metrics (screener/screener.service.ts). */
  screener(ctx: RequestContext, request: ScreenerRequest): Promise<ScreenerHit[]>;
}

/** A stock's earnings date as the Bavest SDK's earnings calendar names it, with what the store holds of it. */
export interface EarningsDate {
  /** `YYYY-MM-DD`. */
  date: string;
  /** Of the stock's primary listing. */
  symbol: string;
  exchange: string;
  /** `<company> Q<n> <fiscal year> earnings` for a reported quarter, `<company> earnings` for the next date. */
  title: string;
  /** The day the quarter was reported; null for a date still ahead. */
  publicationDate: string | null;
}

/**
 * An initial public offering as the Bavest Python SDK's `IpoCalendarItem` names it, from the store's `ipos` table.
 * The figures are null where the store holds none (an offering not yet priced, or withdrawn).
 */
export interface IpoCalendarItem {
  /** `YYYY-MM-DD`: the listing day, expected or actual. */
  date: string;
  /** Of the stock's primary listing. */
  symbol: string;
  name: string;
  /** Where the shares are offered. */
  exchange: string;
  numberOfShares: number | null;
  /** The offer price in `currency` (the expected price while the offering is expected). */
  price: number | null;
  currency: string;
  /** numberOfShares × price. */
  totalSharesValue: number | null;
  status: IpoStatus;
}

export const IPO_DEFAULT_DAYS = 30;
export const IPO_MAX_DAYS = 92;
export const IPO_MAX_ROWS = 5_000;

export const EARNINGS_DEFAULT_DAYS = 30;
export const EARNINGS_MAX_DAYS = 92;
export const EARNINGS_MAX_ROWS = 5_000;

/** A peer as the Bavest SDKs' peers widget shows it (the Python `StockPeersItem`, the Dart `PeersWidget`). */
export interface StockPeerWidgetItem {
  /** Of the peer's primary listing. */
  symbol: string;
  name: string;
  /** The peer's industry (its sector where it has none). */
  category: string;
  /** The latest quote's price, and its change to the previous close: in the currency asked, or the listing's. */
  close: number;
  priceChange: number;
}

/** How many peers a stock is answered with when the caller names no number, and the most it may name. */
export const PEERS_DEFAULT = 10;
export const PEERS_MAX = 50;

/** The number of peers asked for, checked: a whole number from 1 to PEERS_MAX. */
export function peersLimit(limit?: number | null): number {
  if (limit == null) return PEERS_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > PEERS_MAX)
    throw new InvalidArgumentError(`limit: expected a whole number from 1 to ${PEERS_MAX}`, [
      { field: "limit", issue: "out of range" },
    ]);
  return limit;
}

async function peersOf(ctx: RequestContext, stock: Stock, limit?: number | null): Promise<Stock[]> {
  const rows = await ctx.loaders.stockPeers.load({ securityId: stock.row.security.id, limit: peersLimit(limit) });
  return rows.map(stockOf);
}

/** Each dividend at its own ex-date's rate, as dividends/annual converts them. */
async function dividendHistoryOf(
  ctx: RequestContext,
  stock: Stock,
  currency?: string | null,
): Promise<StockDividendHistory> {
  const target = currency ? normalizeCurrency(currency) : null;
  const today = todayOf(ctx);
  const known = (await ctx.loaders.dividends.load(stock.row.security.id)).filter((d) => isKnownOn(d, today));
  const rows = target ? await inCurrency(ctx, known, target) : known;
  return { symbol: stock.row.listing.symbol, currency: target, dividends: rows.map((d) => toDividend(d)) };
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** The smallest whole numbers in the ratio of two stored factors (a 1.5-for-1 is 2 to 3). */
function wholeFactors(before: number, after: number): { fromFactor: number; toFactor: number } {
  let scale = 1;
  while (scale < 1e6 && (!Number.isInteger(before * scale) || !Number.isInteger(after * scale))) scale *= 10;
  const [a, b] = [Math.round(before * scale), Math.round(after * scale)];
  const d = gcd(a, b) || 1;
  return { fromFactor: a / d, toFactor: b / d };
}

function dayOrThrow(field: string, value: string): string {
  const v = value.trim();
  if (!isCalendarDay(v))
    throw new InvalidArgumentError(`${field}: ${JSON.stringify(value)} is not a date YYYY-MM-DD`, [
      { field, issue: "invalid date" },
    ]);
  return v;
}

async function splitsOf(
  ctx: RequestContext,
  stock: Stock,
  from?: string | null,
  to?: string | null,
): Promise<StockSplit[]> {
  const lo = from != null ? dayOrThrow("from", from) : "0000-00-00";
  const hi = to != null ? dayOrThrow("to", to) : todayOf(ctx);
  if (lo > hi) throw new InvalidArgumentError(`from: ${lo} is after to: ${hi}`, [{ field: "from", issue: "after to" }]);
  const all = await ctx.loaders.splits.load(stock.row.security.id);
  return all
    .filter((s) => s.day >= lo && s.day <= hi)
    .map((s) => ({ symbol: stock.row.listing.symbol, date: s.day, ...wholeFactors(s.denominator, s.numerator) }));
}

const YEAR_SECONDS = 365 * 86_400;

/** One query for the year's bars, one for the dividends (both batched with their kind across the request). */
async function profileOf(ctx: RequestContext, stock: Stock): Promise<StockProfile> {
  const { listing, security: s, quote } = stock.row;
  const to = quote ? quote.t : unixOfDay(todayOf(ctx));
  const [bars, dividends] = await Promise.all([
    ctx.loaders.dailyBars.load({ listingId: listing.id, from: to - YEAR_SECONDS, to }),
    ctx.loaders.dividends.load(s.id),
  ]);
  const today = todayOf(ctx);
  const paid = dividends.filter((d) => d.exDate <= today && isKnownOn(d, today));
  const last = paid[paid.length - 1];
  return {
    symbol: listing.symbol,
    companyName: s.name,
    currency: listing.currency,
    isin: s.isin,
    cusip: s.cusip,
    exchange: listing.exchange,
    sector: s.sector,
    industry: s.industry,
    country: s.country,
    website: s.website,
    description: s.description,
    ipo: s.ipoDate,
    isActivelyTrading: s.isActive,
    isAdr: s.isAdr,
    marketCapitalization: s.marketCap,
    price: quote ? quote.c : null,
    // As the quote's `d`: the difference of two stored prices, rid of binary noise.
    changes: quote ? Math.round((quote.c - quote.pc) * 1e10) / 1e10 : null,
    volAvg: quote ? quote.avgVolume : null,
    yearLow: bars.length ? Math.min(...bars.map((b) => b.l)) : null,
    yearHigh: bars.length ? Math.max(...bars.map((b) => b.h)) : null,
    lastDiv: last ? last.amount : 0,
  };
}

async function peersWidgetOf(
  ctx: RequestContext,
  stock: Stock,
  currency?: string | null,
  limit?: number | null,
): Promise<StockPeerWidgetItem[]> {
  const target = currency == null ? null : normalizeCurrency(currency);
  const rows = await ctx.loaders.stockPeers.load({ securityId: stock.row.security.id, limit: peersLimit(limit) });
  // A widget's item needs a price (the SDKs' models require it): a peer without a quote is left out, not nulled.
  const quoted = rows.filter((r) => r.quote != null);
  const quotes = await Promise.all(quoted.map((r) => quoteOf(ctx, r, target)));
  return quoted.map((r, i) => ({
    symbol: r.listing.symbol,
    name: r.security.name,
    category: r.security.industry ?? r.security.sector ?? "",
    close: quotes[i]!.c,
    priceChange: quotes[i]!.d,
  }));
}

/** A calendar's window of days: from (default today) to `to` (default `defaultDays` on), at most `maxDays`. */
function calendarWindow(
  ctx: RequestContext,
  from: string | null | undefined,
  to: string | null | undefined,
  defaultDays: number,
  maxDays: number,
): { lo: string; hi: string } {
  const lo = from != null ? dayOrThrow("from", from) : todayOf(ctx);
  const hi = to != null ? dayOrThrow("to", to) : addDays(lo, defaultDays);
  if (lo > hi) throw new InvalidArgumentError(`from: ${lo} is after to: ${hi}`, [{ field: "from", issue: "after to" }]);
  if (addDays(lo, maxDays - 1) < hi)
    throw new InvalidArgumentError(`to: a window of at most ${maxDays} days`, [
      { field: "to", issue: "window too long" },
    ]);
  return { lo, hi };
}

/** Name, symbol and exchange of each security's primary listing; a security without one is left out. */
async function primaryListingsOf(
  ctx: RequestContext,
  ids: readonly number[],
): Promise<Map<number, { name: string; symbol: string; exchange: string }>> {
  const [securities, listings] = await Promise.all([
    ctx.loaders.security.loadMany(ids),
    ctx.loaders.listings.loadMany(ids),
  ]);
  const byId = new Map<number, { name: string; symbol: string; exchange: string }>();
  ids.forEach((id, i) => {
    const s = securities[i];
    const l = listings[i];
    if (s instanceof Error) throw s;
    if (l instanceof Error) throw l;
    const primary = l?.[0];
    if (s && primary) byId.set(id, { name: s.name, symbol: primary.symbol, exchange: primary.exchange });
  });
  return byId;
}

async function earningsCalendarOf(
  ctx: RequestContext,
  from?: string | null,
  to?: string | null,
): Promise<EarningsDate[]> {
  const { lo, hi } = calendarWindow(ctx, from, to, EARNINGS_DEFAULT_DAYS, EARNINGS_MAX_DAYS);
  const source = requireCapability(ctx.source, "fundamentals");
  const rows = await source.getEarningsCalendar({ fromDay: lo, toDay: hi, limit: EARNINGS_MAX_ROWS });
  const byId = await primaryListingsOf(ctx, [...new Set(rows.map((r) => r.securityId))]);
  return rows.flatMap((r) => {
    const s = byId.get(r.securityId);
    if (!s) return [];
    const reported = r.fiscalYear != null && r.fiscalQuarter != null;
    return [
      {
        date: r.day,
        symbol: s.symbol,
        exchange: s.exchange,
        title: reported ? `${s.name} Q${r.fiscalQuarter} ${r.fiscalYear} earnings` : `${s.name} earnings`,
        publicationDate: reported ? r.day : null,
      },
    ];
  });
}

async function ipoCalendarOf(
  ctx: RequestContext,
  from?: string | null,
  to?: string | null,
): Promise<IpoCalendarItem[]> {
  const { lo, hi } = calendarWindow(ctx, from, to, IPO_DEFAULT_DAYS, IPO_MAX_DAYS);
  const source = requireCapability(ctx.source, "dividends");
  const rows = await source.getIpoCalendar({ fromDay: lo, toDay: hi, limit: IPO_MAX_ROWS });
  const byId = await primaryListingsOf(ctx, [...new Set(rows.map((r) => r.securityId))]);
  const items = rows.flatMap((r): IpoCalendarItem[] => {
    const s = byId.get(r.securityId);
    if (!s) return [];
    // In cents: the product of a price in cents and whole shares, without the float's trailing digits.
    const value =
      r.sharesOffered != null && r.offerPrice != null ? Math.round(r.sharesOffered * r.offerPrice * 100) / 100 : null;
    return [
      {
        date: r.day,
        symbol: s.symbol,
        name: s.name,
        exchange: r.exchange,
        numberOfShares: r.sharesOffered,
        price: r.offerPrice,
        currency: r.currency,
        totalSharesValue: value,
        status: r.status,
      },
    ];
  });
  // The store orders by (day, security); the SDK's calendar reads by day, then symbol.
  const key = (e: IpoCalendarItem) => `${e.date} ${e.symbol}`;
  return items.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** The answers computed by the domain services from a row store's rows. */
export const ROW_STORE_STOCK_ANSWERS: StockAnswers = Object.freeze({
  get: getStock,
  financialsTtm: (ctx: RequestContext, stock: Stock, currency?: string | null) =>
    financialsTtmOf(ctx, stock.row, currency),
  statements: <K extends StatementKind>(
    ctx: RequestContext,
    stock: Stock,
    statement: K,
    freq: FinancialsFreq,
    currency?: string | null,
  ) => statementsOf(ctx, stock.row, statement, freq, currency) as Promise<Statements[K][]>,
  candles: (ctx: RequestContext, stock: Stock, args: CandleRangeArgs) => candlesOf(ctx, stock.row, args),
  metric: stockMetricOf,
  fundamentals: stockFundamentalsOf,
  dividends: (ctx: RequestContext, stock: Stock, from?: string | null, to?: string | null) =>
    dividendsOf(ctx, stock.row, from, to),
  annualDividends: (ctx: RequestContext, stock: Stock, currency?: string | null) =>
    annualDividendsOf(ctx, stock.row, currency),
  dividendEstimate: (ctx: RequestContext, stock: Stock) => dividendEstimateOf(ctx, stock.row),
  profile: profileOf,
  dividendHistory: dividendHistoryOf,
  splits: splitsOf,
  peers: peersOf,
  peersWidget: peersWidgetOf,
  earningsCalendar: earningsCalendarOf,
  ipoCalendar: ipoCalendarOf,
  screener: screenerOf,
});
