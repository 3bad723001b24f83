import { InvalidArgumentError } from "../../platform/errors";
import { isValidIsin } from "../instrument/instrument.identifiers";
import type { RequestContext } from "../request.context";
import type { AllocationWeight, CountryWeight, SectorWeight } from "../exposure/exposure.types";
import { namedIdentifiers, resolveInstrument } from "../instrument/instrument.service";
import type { InstrumentRow } from "../ports/source.types";
import type { FundArgs } from "./fund.args";
import { Fund, type FundHoldings, type FundProfile } from "./fund.types";
import { assignHoldingIds, holdingsId, securityId } from "../instrument/instrument.ids";

/** The asset classes of allocation exposure, always all four and in this order. */
export const ALLOCATION_CLASSES = ["Equity", "Bonds", "Cash", "Other"] as const;

export function toFund(row: InstrumentRow): Fund {
  return Object.assign(new Fund(), {
    isin: row.security.isin ?? "",
    symbol: row.listing.symbol,
    name: row.security.name,
    currency: row.listing.currency,
    row,
  });
}

/**
 * The fund a client named, by exactly one of ISIN, symbol, CUSIP or WKN. A malformed code is INVALID_ARGUMENT, an
 * unknown one (or one of a non-fund) NOT_FOUND.
 */
export async function getFund(ctx: RequestContext, args: FundArgs): Promise<Fund> {
  if (namedIdentifiers(args).length === 0) {
    throw new InvalidArgumentError("isin: required (or symbol, cusip or wkn)", [{ field: "isin", issue: "required" }]);
  }
  return toFund(await resolveInstrument(ctx, args, ["fund"]));
}

/** Funds by ISIN in request order, null where an ISIN names no fund; one batched lookup. */
export async function getFunds(ctx: RequestContext, isins: readonly string[]): Promise<(Fund | null)[]> {
  const max = ctx.config.sizes.bulkMaxSymbols;
  if (isins.length > max)
    throw new InvalidArgumentError(`isins: at most ${max} per call`, [{ field: "isins", issue: "too many" }]);
  const normalized = isins.map((i) => i.trim().toUpperCase());
  const bad = normalized.flatMap((isin, i) => (isValidIsin(isin) ? [] : [i]));
  if (bad.length > 0) {
    throw new InvalidArgumentError(
      `isins: not valid ISINs: ${bad.map((i) => JSON.stringify(isins[i])).join(", ")}`,
      bad.map((i) => ({ field: `isins.${i}`, issue: "malformed" })),
    );
  }
  const rows = await ctx.loaders.instrumentByIsin.loadMany(normalized);
  return rows.map((r) => {
    if (r instanceof Error) throw r;
    return r && r.security.type === "fund" ? toFund(r) : null;
  });
}

/** Null for a known fund the store holds no profile of: an empty answer, not an error (docs/contract.md section 4). */
export async function fundProfile(ctx: RequestContext, fund: Fund): Promise<FundProfile | null> {
  const p = await ctx.loaders.fundProfile.load(fund.row.security.id);
  if (!p) return null;
  const s = fund.row.security;
  return {
    id: securityId(s, fund.row.listing),
    name: s.name,
    description: s.description,
    fundCompany: p.fundCompany,
    category: p.category,
    assetClass: p.assetClass,
    aum: p.aum,
    nav: p.nav,
    navCurrency: p.navCurrency,
    ongoingCharge: p.ongoingCharge,
    entryCharge: p.entryCharge,
    inceptionDate: p.inceptionDate,
    domicile: p.domicile,
    benchmark: p.benchmark,
    riskClass: p.riskClass,
    distributionPolicy: p.distributionPolicy,
    minInvestment: p.minInvestment,
    holdingsCount: p.holdingsCount,
    website: s.website,
  };
}

export async function fundHoldings(ctx: RequestContext, fund: Fund): Promise<FundHoldings> {
  const [p, rows] = await Promise.all([
    ctx.loaders.fundProfile.load(fund.row.security.id),
    ctx.loaders.fundHoldings.load(fund.row.security.id),
  ]);
  const id = holdingsId(securityId(fund.row.security, fund.row.listing), p?.holdingsDate ?? null);
  // Without a reported portfolio a known fund answers no holdings (docs/contract.md section 4).
  if (!p || rows.length === 0) return { id, atDate: null, currency: p?.navCurrency ?? fund.currency, holdings: [] };
  return {
    id,
    atDate: p.holdingsDate,
    currency: p.navCurrency,
    holdings: assignHoldingIds(
      id,
      rows.map((h) => ({
        symbol: h.symbol,
        name: h.name,
        isin: h.isin,
        assetClass: h.assetClass,
        sector: h.sector,
        country: h.country,
        percent: h.weight,
        value: h.marketValue,
      })),
    ),
  };
}

export async function fundSectors(ctx: RequestContext, fund: Fund): Promise<SectorWeight[]> {
  const rows = await ctx.loaders.fundSectors.load(fund.row.security.id);
  return rows.map((r) => ({ sector: r.name, weightPercentage: r.weight }));
}

export async function fundCountries(ctx: RequestContext, fund: Fund): Promise<CountryWeight[]> {
  const rows = await ctx.loaders.fundCountries.load(fund.row.security.id);
  return rows.map((r) => ({ country: r.name, exposure: r.weight }));
}

/** Equity, Bonds, Cash, Other in that order, a class the store lacks as 0; summing to 100; empty when none reported. */
export async function fundAllocation(ctx: RequestContext, fund: Fund): Promise<AllocationWeight[]> {
  const rows = await ctx.loaders.fundAllocation.load(fund.row.security.id);
  // No reported allocation: an empty list, as sector and country exposure answer (docs/contract.md section 4).
  if (rows.length === 0) return [];
  const byClass = new Map(rows.map((r) => [r.name, r.weight]));
  const known: readonly string[] = ALLOCATION_CLASSES;
  const out: AllocationWeight[] = ALLOCATION_CLASSES.map((c) => ({
    assetClass: c,
    weightPercentage: byClass.get(c) ?? 0,
  }));
  // Anything stored under another name still counts, so the weights keep summing to 100.
  for (const r of rows) if (!known.includes(r.name)) out[3]!.weightPercentage += r.weight;
  return out;
}
