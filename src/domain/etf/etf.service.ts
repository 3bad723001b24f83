import { InvalidArgumentError, NotFoundError } from "../../platform/errors";
import type { RequestContext } from "../request.context";
import { dayOf, loadFxSeries, normalizeCurrency, rateOnOrBefore, roundMoney } from "../fx/fx.service";
import type { CountryWeight, SectorWeight } from "../exposure/exposure.types";
import { resolveInstrument, type SecurityRef } from "../instrument/instrument.service";
import type { EtfProfileRow, HoldingRow, InstrumentRow } from "../ports/source.types";
import type { EtfMetricsArgs } from "./etf.args";
import { NoClosesError, nextTurn, helperMetrics, offloadTo, type OffloadedMetrics } from "./etf.metrics.jobs";
import {
  computeMetrics,
  convertCloses,
  METRIC_RESOLUTIONS,
  type Conversion,
  type MetricResolution,
  type SeriesPoint,
} from "./etf.metrics";
import {
  Etf,
  type EtfFundamentals,
  type EtfHoldings,
  type EtfMetrics,
  type EtfProfile,
  type EtfValuation,
} from "./etf.types";
import { assignHoldingIds, holdingsId, securityId } from "../instrument/instrument.ids";
import { aggregateValuation, holdingValuation } from "./etf.valuation";

export function toEtf(row: InstrumentRow): Etf {
  return Object.assign(new Etf(), {
    symbol: row.listing.symbol,
    name: row.security.name,
    isin: row.security.isin,
    currency: row.listing.currency,
    exchange: row.listing.exchange,
    row,
  });
}

/** The ETF a client named by symbol or ISIN; anything else (a stock, a fund) is NOT_FOUND. */
export async function getEtf(ctx: RequestContext, ref: SecurityRef): Promise<Etf> {
  return toEtf(await resolveInstrument(ctx, ref, ["etf"]));
}

/** ETFs by symbol in request order, null where a symbol names no ETF; one batched lookup. */
export async function getEtfs(ctx: RequestContext, symbols: readonly string[]): Promise<(Etf | null)[]> {
  const max = ctx.config.sizes.bulkMaxSymbols;
  if (symbols.length > max) {
    throw new InvalidArgumentError(`symbols: at most ${max} symbols per call`, [
      { field: "symbols", issue: "too many" },
    ]);
  }
  const rows = await ctx.loaders.instrumentBySymbol.loadMany(symbols);
  return rows.map((r) => {
    if (r instanceof Error) throw r;
    return r && r.security.type === "etf" ? toEtf(r) : null;
  });
}

async function profileRow(ctx: RequestContext, etf: Etf): Promise<EtfProfileRow> {
  // Read with the instrument where the source could (InstrumentRow.etfProfile); otherwise one batched lookup.
  const p =
    etf.row.etfProfile !== undefined ? etf.row.etfProfile : await ctx.loaders.etfProfile.load(etf.row.security.id);
  if (!p) throw new NotFoundError(`no ETF profile for ${etf.symbol}`);
  return p;
}

/** A missing profile as null, for answers that are whole without one; anything else is rethrown. */
const noProfile = (e: unknown): null => {
  if (e instanceof NotFoundError) return null;
  throw e;
};

/** Null for a known ETF the store holds no profile of: an empty answer, not an error (docs/contract.md section 4). */
export async function etfProfile(ctx: RequestContext, etf: Etf): Promise<EtfProfile | null> {
  const p = await profileRow(ctx, etf).catch(noProfile);
  if (!p) return null;
  const s = etf.row.security;
  return {
    id: securityId(s, etf.row.listing),
    name: s.name,
    isin: s.isin,
    cusip: s.cusip,
    assetClass: p.assetClass,
    aum: p.aum,
    avgVolume: etf.row.quote?.avgVolume ?? null,
    description: s.description,
    domicile: p.domicile,
    etfCompany: p.issuer,
    expenseRatio: p.expenseRatio,
    inceptionDate: p.inceptionDate,
    nav: p.nav,
    navCurrency: p.navCurrency,
    website: s.website,
    holdingsCount: p.holdingsCount,
  };
}

export async function etfHoldings(ctx: RequestContext, etf: Etf): Promise<EtfHoldings> {
  const [p, rows] = await Promise.all([
    profileRow(ctx, etf).catch(noProfile),
    ctx.loaders.etfHoldings.load(etf.row.security.id),
  ]);
  const id = holdingsId(securityId(etf.row.security, etf.row.listing), p?.holdingsDate ?? null);
  // Without a reported portfolio a known ETF answers no holdings (docs/contract.md section 4).
  if (!p || rows.length === 0) return { id, atDate: null, currency: p?.navCurrency ?? etf.currency, holdings: [] };
  return {
    id,
    atDate: p.holdingsDate,
    currency: p.navCurrency,
    holdings: assignHoldingIds(
      id,
      rows.map((h: HoldingRow) => ({
        symbol: h.symbol,
        name: h.name,
        isin: h.isin,
        cusip: h.cusip,
        share: h.shares,
        percent: h.weight,
        value: h.marketValue,
        sector: h.sector,
        country: h.country,
      })),
    ),
  };
}

export async function etfSectorExposure(ctx: RequestContext, etf: Etf): Promise<SectorWeight[]> {
  const rows = await ctx.loaders.etfSectors.load(etf.row.security.id);
  return rows.map((r) => ({ sector: r.name, weightPercentage: r.weight }));
}

export async function etfCountryExposure(ctx: RequestContext, etf: Etf): Promise<CountryWeight[]> {
  const rows = await ctx.loaders.etfCountries.load(etf.row.security.id);
  return rows.map((r) => ({ country: r.name, exposure: r.weight }));
}

/** Units of `currency` per USD on `day` (last known rate), or null when the store has none. */
async function perUsdOn(ctx: RequestContext, currency: string, day: string): Promise<number | null> {
  try {
    const series = await loadFxSeries(ctx, currency, day, day);
    return series === "usd" ? 1 : rateOnOrBefore(series, day);
  } catch (e) {
    if (e instanceof NotFoundError) return null;
    throw e;
  }
}

/**
 * Valuation from the holdings' stored securities, quarters and dividends.
 * Every lookup goes through the request's loaders, so the holdings of many
 * ETFs cost one batched query per table.
 */
async function etfValuation(ctx: RequestContext, holdings: readonly HoldingRow[]): Promise<EtfValuation> {
  const asOf = dayOf(Math.floor(ctx.clock.now().getTime() / 1000));
  const ids = [...new Set(holdings.flatMap((h) => (h.holdingSecurityId == null ? [] : [h.holdingSecurityId])))];
  const [securities, quarters, dividends] = await Promise.all([
    ctx.loaders.security.loadMany(ids),
    ctx.loaders.financials.loadMany(ids),
    ctx.loaders.dividends.loadMany(ids),
  ]);
  const ok = <T>(x: T | Error): T => {
    if (x instanceof Error) throw x;
    return x;
  };
  const index = new Map(ids.map((id, i) => [id, i]));
  const currencies = [...new Set(securities.flatMap((s) => (s && !(s instanceof Error) ? [s.currency] : [])))];
  const rates = new Map(await Promise.all(currencies.map(async (c) => [c, await perUsdOn(ctx, c, asOf)] as const)));
  const items = holdings.map((h) => {
    const i = h.holdingSecurityId == null ? undefined : index.get(h.holdingSecurityId);
    if (i === undefined) return holdingValuation(h.weight, null, [], [], null, asOf);
    const security = ok(securities[i]!);
    return holdingValuation(
      h.weight,
      security,
      ok(quarters[i]!),
      ok(dividends[i]!),
      security ? (rates.get(security.currency) ?? null) : null,
      asOf,
    );
  });
  const v = aggregateValuation(items);
  // Weights are stored with four decimals; sums of them are shown the same way, ratios likewise.
  const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
  const r4n = (x: number | null) => (x == null ? null : r4(x));
  const b = v.marketCapBreakdown;
  return {
    asOf,
    peRatio: r4n(v.peRatio),
    pbRatio: r4n(v.pbRatio),
    dividendYield: r4n(v.dividendYield),
    coveredWeight: r4(v.coveredWeight),
    marketCapBreakdown: { large: r4(b.large), mid: r4(b.mid), small: r4(b.small), unclassified: r4(b.unclassified) },
  };
}

/** Null for a known ETF the store holds no profile of (docs/contract.md section 4). */
export async function etfFundamentals(ctx: RequestContext, etf: Etf): Promise<EtfFundamentals | null> {
  const [p, holdings] = await Promise.all([
    profileRow(ctx, etf).catch(noProfile),
    ctx.loaders.etfHoldings.load(etf.row.security.id),
  ]);
  if (!p) return null;
  return {
    assetClass: p.assetClass,
    expenseRatio: p.expenseRatio,
    aum: p.aum,
    nav: p.nav,
    navCurrency: p.navCurrency,
    holdingsCount: p.holdingsCount,
    inceptionDate: p.inceptionDate,
    domicile: p.domicile,
    issuer: p.issuer,
    replication: p.replication,
    distributionPolicy: p.distributionPolicy,
    benchmark: p.benchmark,
    valuation: await etfValuation(ctx, holdings),
  };
}

export function parseResolution(raw: string | null | undefined): MetricResolution {
  if (raw == null) return "D";
  const r = raw.trim().toUpperCase();
  if ((METRIC_RESOLUTIONS as readonly string[]).includes(r)) return r as MetricResolution;
  throw new InvalidArgumentError(`resolution: ${JSON.stringify(raw)} is not one of ${METRIC_RESOLUTIONS.join(", ")}`, [
    { field: "resolution", issue: "unknown resolution" },
  ]);
}

/** The same instant one calendar year earlier (29 February falls on 1 March). */
export function oneYearBefore(unixSeconds: number): number {
  const d = new Date(unixSeconds * 1000);
  d.setUTCFullYear(d.getUTCFullYear() - 1);
  return Math.floor(d.getTime() / 1000);
}

/** Resolves the metrics' defaults and checks the arguments; every problem is INVALID_ARGUMENT. */
export function metricsRequest(ctx: RequestContext, etf: Etf, args: EtfMetricsArgs) {
  const resolution = parseResolution(args.resolution);
  const currency = args.currency == null ? etf.currency : normalizeCurrency(args.currency);
  for (const field of ["from", "to"] as const) {
    const v = args[field];
    if (v != null && (!Number.isInteger(v) || v < 0)) {
      throw new InvalidArgumentError(`${field}: expected Unix seconds (a non-negative integer)`, [
        { field, issue: "invalid" },
      ]);
    }
  }
  const to = args.to ?? Math.floor(ctx.clock.now().getTime() / 1000);
  const from = args.from ?? oneYearBefore(to);
  if (from > to) {
    throw new InvalidArgumentError(`from: ${from} is after to: ${to}`, [{ field: "from", issue: "after to" }]);
  }
  return { resolution, currency, from, to };
}

/**
 * Performance of an ETF over [from, to] from its stored daily closes,
 * converted into `currency` with the daily FX series. The maths is in
 * etf.metrics.ts; this loads the data (through the loaders) and explains gaps.
 */
export async function etfMetrics(ctx: RequestContext, etf: Etf, args: EtfMetricsArgs): Promise<EtfMetrics> {
  const { resolution, currency, from, to } = metricsRequest(ctx, etf, args);
  const worker = offloadTo(ctx);
  if (worker) {
    // Off the event loop: a worker reads the closes and does the same maths (etf.metrics.jobs.ts).
    const listingId = etf.row.listing.id;
    const item = { listingId, from, to, resolution, listingCurrency: etf.currency, currency, symbol: etf.symbol };
    const m = await helperMetrics(ctx, worker, item).catch((e: unknown) => {
      if (e instanceof NoClosesError) return null;
      throw e;
    });
    if (!m) return noMetrics(ctx, etf, { resolution, currency, from, to });
    await nextTurn(ctx);
    const notes: string[] = [];
    if (m.filledDays > 0) notes.push(fxNote(etf.currency, currency, m.filledDays, m.bars, m.firstFilledDay!));
    const riskFreeRate = ctx.config.riskFreeRatePercent;
    const periods = m.points - 1;
    const out = { currency, resolution, from, to, riskFreeRate, periods, fxFilledDays: m.filledDays, notes };
    // `m.series` is a getter (the points are made only when read): copied as one, never read here.
    const { series, ...figures } = Object.getOwnPropertyDescriptors(m);
    for (const k of ["bars", "points", "filledDays", "firstFilledDay"] as const) delete figures[k];
    type Figures = Omit<OffloadedMetrics, "bars" | "points" | "filledDays" | "firstFilledDay">;
    let shown = series;
    if (currency !== etf.currency) {
      for (const k of ["startValue", "endValue"] as const) {
        const d = figures[k];
        if (d && typeof d.value === "number") d.value = roundMoney(d.value, currency);
      }
      let points: SeriesPoint[] | undefined;
      shown = { enumerable: true, get: () => (points ??= onTick(m.series, currency)) };
    }
    return Object.defineProperties(Object.defineProperties(out, figures), { series: shown }) as typeof out & Figures;
  }
  const bars = await ctx.loaders.dailyBars.load({ listingId: etf.row.listing.id, from, to });
  if (bars.length === 0) return noMetrics(ctx, etf, { resolution, currency, from, to });
  let conversion: Conversion;
  if (currency === etf.currency) {
    conversion = { points: bars.map((b) => ({ t: b.t, date: dayOf(b.t), value: b.c })), filledDays: [] };
  } else {
    const firstDay = dayOf(bars[0]!.t);
    const lastDay = dayOf(bars[bars.length - 1]!.t);
    const [a, b] = await Promise.all([
      loadFxSeries(ctx, etf.currency, firstDay, lastDay),
      loadFxSeries(ctx, currency, firstDay, lastDay),
    ]);
    conversion = convertCloses(bars, a, b, { from: etf.currency, to: currency });
  }
  const riskFreeRate = ctx.config.riskFreeRatePercent;
  const computed = computeMetrics(conversion.points, resolution, riskFreeRate);
  const m =
    currency === etf.currency
      ? computed
      : {
          ...computed,
          startValue: roundMoney(computed.startValue, currency),
          endValue: roundMoney(computed.endValue, currency),
          series: onTick(computed.series, currency),
        };
  const notes: string[] = [];
  if (conversion.filledDays.length > 0) {
    notes.push(fxNote(etf.currency, currency, conversion.filledDays.length, bars.length, conversion.filledDays[0]!));
  }
  return {
    currency,
    resolution,
    from,
    to,
    ...m,
    riskFreeRate,
    periods: m.series.length - 1,
    fxFilledDays: conversion.filledDays.length,
    notes,
  };
}

/**
 * A converted series' closes on the target currency's tick, as a converted candle's are. The returns are computed
 * before, from the unrounded conversion: rounding a close to whole yen would move them.
 */
function onTick(series: readonly SeriesPoint[], currency: string): SeriesPoint[] {
  return series.map((p) => ({ ...p, value: roundMoney(p.value, currency) }));
}

/** A known ETF without closes in the range: null figures and an empty series (docs/contract.md section 4). */
function noMetrics(
  ctx: RequestContext,
  etf: Etf,
  range: { resolution: MetricResolution; currency: string; from: number; to: number },
): EtfMetrics {
  return {
    ...range,
    startDate: null,
    endDate: null,
    startValue: null,
    endValue: null,
    totalReturn: null,
    annualisedReturn: null,
    annualisedVolatility: null,
    sharpeRatio: null,
    riskFreeRate: ctx.config.riskFreeRatePercent,
    maxDrawdown: null,
    bestPeriod: null,
    worstPeriod: null,
    periods: 0,
    series: [],
    fxFilledDays: 0,
    notes: [`no daily closes of ${etf.symbol} between ${dayOf(range.from)} and ${dayOf(range.to)}`],
  };
}

function fxNote(from: string, to: string, filled: number, bars: number, first: string): string {
  return (
    `FX ${from}->${to}: ${filled} of ${bars} days had no stored rate (first ${first}); ` +
    "the last known rate on or before each day was used"
  );
}
