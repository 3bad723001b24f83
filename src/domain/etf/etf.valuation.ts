/**
 * Valuation of an ETF aggregated from its holdings, as plain functions.
 *
 * Conventions (documented in docs/api-etf-fund.md):
 * - A holding counts when it is a security in the store with a positive market cap.
 * - P/E and P/B are weighted harmonic means: the portfolio's earnings (book)
 *   yield Σ w·E/P over the counted holdings, inverted; a non-positive
 *   aggregate yield gives null. E is trailing-twelve-month net income, B the
 *   latest quarter's total equity, P the market cap, all in the reporting currency.
 * - Dividend yield is the weighted mean of each holding's trailing-twelve-month
 *   dividends per share × shares outstanding / market cap.
 * - Market-cap classes in USD: large ≥ 10 bn, mid ≥ 2 bn, small below;
 *   `unclassified` is the weight of everything else (bonds, cash, unknown).
 */
import type { DividendRow, QuarterlyFinancialsRow, SecurityRow } from "../ports/source.types";

export const LARGE_CAP_USD = 10e9;
export const MID_CAP_USD = 2e9;

/** What one holding contributes, each ratio null where it cannot be derived. */
export interface HoldingValuation {
  /** Percent of the ETF. */
  weight: number;
  /** Net income TTM / market cap. */
  earningsYield: number | null;
  /** Total equity / market cap. */
  bookYield: number | null;
  /** Percent. */
  dividendYield: number | null;
  marketCapUsd: number | null;
}

export interface MarketCapBreakdown {
  large: number;
  mid: number;
  small: number;
  unclassified: number;
}

export interface Valuation {
  peRatio: number | null;
  pbRatio: number | null;
  /** Percent. */
  dividendYield: number | null;
  /** Percent of the ETF's weight in holdings that count (stored securities with a market cap). */
  coveredWeight: number;
  marketCapBreakdown: MarketCapBreakdown;
}

/** Sum of the trailing four quarters, or null with fewer than four. */
function ttm(quarters: readonly QuarterlyFinancialsRow[], pick: (q: QuarterlyFinancialsRow) => number): number | null {
  if (quarters.length < 4) return null;
  return quarters.slice(-4).reduce((s, q) => s + pick(q), 0);
}

/**
 * The ratios of one holding from its stored security, quarters (oldest
 * first), dividends and USD rate (units of its currency per USD), as of `asOf`
 * (`YYYY-MM-DD`): dividends with an ex-date in the year up to it count.
 */
export function holdingValuation(
  weight: number,
  security: SecurityRow | null,
  quarters: readonly QuarterlyFinancialsRow[],
  dividends: readonly DividendRow[],
  perUsd: number | null,
  asOf: string,
): HoldingValuation {
  const cap = security?.marketCap ?? null;
  if (!security || cap == null || !(cap > 0))
    return { weight, earningsYield: null, bookYield: null, dividendYield: null, marketCapUsd: null };
  const sameCurrency = quarters.filter((q) => q.currency === security.currency);
  const netIncome = ttm(sameCurrency, (q) => q.netIncome);
  const latest = sameCurrency[sameCurrency.length - 1];
  const yearAgo = shiftYears(asOf, -1);
  let dividendYield: number | null = null;
  if (security.sharesOutstanding != null && security.sharesOutstanding > 0) {
    const paid = dividends.filter((d) => d.exDate > yearAgo && d.exDate <= asOf && d.currency === security.currency);
    const perShare = paid.reduce((s, d) => s + d.adjustedAmount, 0);
    dividendYield = ((perShare * security.sharesOutstanding) / cap) * 100;
  }
  return {
    weight,
    earningsYield: netIncome == null ? null : netIncome / cap,
    bookYield: latest ? latest.totalEquity / cap : null,
    dividendYield,
    marketCapUsd: perUsd != null && perUsd > 0 ? cap / perUsd : null,
  };
}

/** `YYYY-MM-DD` moved by whole years (29 February becomes 1 March in other years). */
export function shiftYears(day: string, years: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().slice(0, 10);
}

function weightedHarmonic(
  items: readonly HoldingValuation[],
  pick: (h: HoldingValuation) => number | null,
): number | null {
  let w = 0;
  let y = 0;
  for (const h of items) {
    const v = pick(h);
    if (v == null) continue;
    w += h.weight;
    y += h.weight * v;
  }
  return w > 0 && y > 0 ? w / y : null;
}

/** Aggregates the holdings' ratios into the ETF's valuation. */
export function aggregateValuation(items: readonly HoldingValuation[]): Valuation {
  let dyWeight = 0;
  let dySum = 0;
  const breakdown: MarketCapBreakdown = { large: 0, mid: 0, small: 0, unclassified: 0 };
  let covered = 0;
  for (const h of items) {
    if (h.dividendYield != null) {
      dyWeight += h.weight;
      dySum += h.weight * h.dividendYield;
    }
    if (h.marketCapUsd == null) breakdown.unclassified += h.weight;
    else if (h.marketCapUsd >= LARGE_CAP_USD) breakdown.large += h.weight;
    else if (h.marketCapUsd >= MID_CAP_USD) breakdown.mid += h.weight;
    else breakdown.small += h.weight;
    if (h.earningsYield != null || h.bookYield != null || h.dividendYield != null || h.marketCapUsd != null)
      covered += h.weight;
  }
  return {
    peRatio: weightedHarmonic(items, (h) => h.earningsYield),
    pbRatio: weightedHarmonic(items, (h) => h.bookYield),
    dividendYield: dyWeight > 0 ? dySum / dyWeight : null,
    coveredWeight: covered,
    marketCapBreakdown: breakdown,
  };
}
