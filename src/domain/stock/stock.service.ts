import type { RequestContext } from "../request.context";
import { dayOf, fxConverter, normalizeCurrency, roundMoney } from "../fx/fx.service";
import { resolveInstrument, type SecurityRef } from "../instrument/instrument.service";
import { type InstrumentRow, OPTIONAL_FINANCIAL_FIGURES, type QuarterlyFinancialsRow } from "../ports/source.types";
import { Stock, type FinancialsTtm, type TtmBalanceSheet, type TtmFlows, type TtmRatios } from "./stock.types";

/** Quarters a TTM figure needs. */
export const TTM_QUARTERS = 4;

const FLOW_FIELDS = [
  "revenue",
  "costOfRevenue",
  "grossProfit",
  "operatingIncome",
  "netIncome",
  "eps",
  "operatingCashFlow",
  "capex",
  "freeCashFlow",
  "dividendsPaid",
] as const satisfies readonly (keyof TtmFlows & keyof QuarterlyFinancialsRow)[];

const BALANCE_FIELDS = [
  "totalAssets",
  "totalLiabilities",
  "totalEquity",
  "cash",
  "totalDebt",
  "sharesOutstanding",
] as const satisfies readonly (keyof TtmBalanceSheet & keyof QuarterlyFinancialsRow)[];

const round = (x: number, digits: number) => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

/** a / b, or null where the ratio means nothing (b zero or negative). */
const ratio = (a: number, b: number, scale = 1): number | null => (b > 0 ? round((a / b) * scale, 4) : null);

export function stockOf(row: InstrumentRow): Stock {
  const s = row.security;
  return Object.assign(new Stock(), {
    symbol: row.listing.symbol,
    name: s.name,
    isin: s.isin,
    exchange: row.listing.exchange,
    currency: row.listing.currency,
    reportingCurrency: s.currency,
    country: s.country,
    sector: s.sector,
    industry: s.industry,
    marketCapitalization: s.marketCap,
    sharesOutstanding: s.sharesOutstanding,
    nextEarningsDate: s.nextEarningsDate,
    row,
  });
}

export async function getStock(ctx: RequestContext, ref: SecurityRef): Promise<Stock> {
  return stockOf(await resolveInstrument(ctx, ref, ["stock"]));
}

/**
 * Pure TTM arithmetic over the last four quarters (oldest first): flows
 * summed, balance-sheet items from the latest quarter, ratios of both. The
 * price must already be in the reporting currency; without one, the ratios of
 * the price are null.
 */
export function computeTtm(quarters: readonly QuarterlyFinancialsRow[], priceInReportingCurrency: number | null) {
  const used = quarters.slice(-TTM_QUARTERS);
  const latest = used[used.length - 1]!;
  const ttm = {} as TtmFlows;
  for (const f of FLOW_FIELDS)
    ttm[f] = round(
      used.reduce((s, q) => s + q[f], 0),
      f === "eps" ? 6 : 4,
    );
  const balanceSheet = {} as TtmBalanceSheet;
  for (const f of BALANCE_FIELDS) balanceSheet[f] = latest[f];
  const marketCapitalization =
    priceInReportingCurrency == null ? null : round(priceInReportingCurrency * latest.sharesOutstanding, 2);
  const ratios: TtmRatios = {
    grossMargin: ratio(ttm.grossProfit, ttm.revenue, 100),
    operatingMargin: ratio(ttm.operatingIncome, ttm.revenue, 100),
    netMargin: ratio(ttm.netIncome, ttm.revenue, 100),
    returnOnEquity: ratio(ttm.netIncome, latest.totalEquity, 100),
    returnOnAssets: ratio(ttm.netIncome, latest.totalAssets, 100),
    debtToEquity: ratio(latest.totalDebt, latest.totalEquity),
    peRatio: priceInReportingCurrency == null ? null : ratio(priceInReportingCurrency, ttm.eps),
    psRatio: marketCapitalization == null ? null : ratio(marketCapitalization, ttm.revenue),
  };
  return { used, latest, ttm, balanceSheet, ratios, marketCapitalization };
}

/** The money fields of a quarter (every figure but the share count). */
const QUARTER_MONEY = [...FLOW_FIELDS, ...BALANCE_FIELDS.filter((f) => f !== "sharesOutstanding")] as const;

/**
 * Quarters in `target`, each at the FX rate of its own period end, on the target's tick (EPS with two more
 * decimals: it is per share). The figures are summed after conversion, so a TTM total is its quarters' sum.
 */
export async function quartersIn(
  ctx: RequestContext,
  quarters: readonly QuarterlyFinancialsRow[],
  target: string,
): Promise<QuarterlyFinancialsRow[]> {
  const out: QuarterlyFinancialsRow[] = [];
  const byCurrency = new Map<string, (day: string) => number>();
  for (const q of quarters) {
    if (q.currency === target) {
      out.push({ ...q });
      continue;
    }
    let f = byCurrency.get(q.currency);
    if (!f) {
      const days = quarters.filter((x) => x.currency === q.currency).map((x) => x.periodEnd);
      f = await fxConverter(ctx, q.currency, target, days[0]!, days[days.length - 1]!);
      byCurrency.set(q.currency, f);
    }
    const rate = f(q.periodEnd);
    const c = { ...q, currency: target };
    for (const k of QUARTER_MONEY) c[k] = k === "eps" ? round(q[k] * rate, 6) : roundMoney(q[k] * rate, target);
    // Every optional figure is money; a row stored before them has them undefined, kept as null.
    for (const k of OPTIONAL_FINANCIAL_FIGURES) c[k] = q[k] == null ? null : roundMoney(q[k] * rate, target);
    out.push(c);
  }
  return out;
}

/**
 * TTM financials of a stock as of the clock's day: the last four quarters
 * reported on or before today, in the reporting currency or, with
 * `currency`, converted into it (each quarter at its period end's rate; the
 * ratios are the same in any currency and are computed before). The price is
 * the listing's latest, converted into the answer's currency at the FX rate
 * of the price's day. A known stock with fewer than four reported quarters
 * answers the quarters it has and null figures; one without a price, null
 * price and price ratios (docs/contract.md section 4).
 */
export async function financialsTtmOf(
  ctx: RequestContext,
  row: InstrumentRow,
  currency?: string | null,
): Promise<FinancialsTtm> {
  const today = dayOf(Math.floor(ctx.clock.now().getTime() / 1000));
  const all = await ctx.loaders.financials.load(row.security.id);
  const reported = all.filter((q) => q.reportedDate <= today);
  const latest = reported[reported.length - 1];
  const reporting = latest?.currency ?? row.security.currency;
  const target = currency ? normalizeCurrency(currency) : reporting;
  const shown = (qs: readonly QuarterlyFinancialsRow[]) =>
    target === reporting ? Promise.resolve(qs.map((x) => ({ ...x }))) : quartersIn(ctx, qs, target);
  if (reported.length < TTM_QUARTERS) {
    return {
      symbol: row.listing.symbol,
      currency: target,
      asOf: latest?.periodEnd ?? null,
      quarters: await shown(reported),
      ttm: null,
      balanceSheet: null,
      ratios: null,
      price: null,
    };
  }
  const q = row.quote;
  let price: { fxRate: number; inReporting: number } | null = null;
  if (q) {
    const priceDay = dayOf(q.t);
    const fxRate =
      reporting === row.listing.currency
        ? 1
        : (await fxConverter(ctx, row.listing.currency, reporting, priceDay, priceDay))(priceDay);
    price = { fxRate, inReporting: round(q.c * fxRate, 6) };
  }
  const r = computeTtm(reported, price?.inReporting ?? null);
  if (target === reporting) {
    return {
      symbol: row.listing.symbol,
      currency: reporting,
      asOf: r.latest.periodEnd,
      quarters: r.used.map((x) => ({ ...x })),
      ttm: r.ttm,
      balanceSheet: r.balanceSheet,
      ratios: r.ratios,
      price:
        q && price && r.marketCapitalization != null
          ? {
              c: q.c,
              currency: row.listing.currency,
              t: q.t,
              fxRate: round(price.fxRate, 8),
              inReportingCurrency: price.inReporting,
              marketCapitalization: r.marketCapitalization,
            }
          : null,
    };
  }
  // The figures in the asked currency: the same arithmetic over the converted quarters, the ratios as reported.
  const used = await quartersIn(ctx, r.used, target);
  let converted: { fxRate: number; price: number; marketCapitalization: number } | null = null;
  if (q && price && r.marketCapitalization != null) {
    const priceDay = dayOf(q.t);
    const fxRate =
      target === row.listing.currency
        ? 1
        : (await fxConverter(ctx, row.listing.currency, target, priceDay, priceDay))(priceDay);
    const inTarget = roundMoney(q.c * fxRate, target);
    converted = { fxRate, price: inTarget, marketCapitalization: round(inTarget * r.latest.sharesOutstanding, 2) };
  }
  const t = computeTtm(used, converted?.price ?? null);
  return {
    symbol: row.listing.symbol,
    currency: target,
    asOf: r.latest.periodEnd,
    quarters: used,
    ttm: t.ttm,
    balanceSheet: t.balanceSheet,
    ratios: r.ratios,
    price:
      q && converted
        ? {
            c: q.c,
            currency: row.listing.currency,
            t: q.t,
            fxRate: round(converted.fxRate, 8),
            inReportingCurrency: converted.price,
            marketCapitalization: converted.marketCapitalization,
          }
        : null,
  };
}
