import type { EtfMetricsArgs } from "../../../domain/etf/etf.args";
import {
  Etf,
  type EtfFundamentals,
  type EtfHoldings,
  type EtfMetrics,
  type EtfProfile,
} from "../../../domain/etf/etf.types";
import type { CountryWeight, SectorWeight } from "../../../domain/exposure/exposure.types";
import { assignHoldingIds, holdingsId } from "../../../domain/instrument/instrument.ids";
import type { SecurityRef } from "../../../domain/instrument/instrument.service";
import { askedOf, partFetcher, rememberAsked } from "../upstream.asked";
import { bodyOf, refBody } from "../upstream.calls";
import type { UpstreamFetcher } from "../upstream.fetcher";

/*
 * An ETF is asked by its fundamentals, which name it; its other fields ask their endpoints with the ETF's symbol.
 * Holdings are asked in v0, which carries `cusip` (our v1 then drops it as usual).
 */

type RestEtfFundamentals = { symbol: string; isin: string | null; name: string; fundamentals: EtfFundamentals | null };
type RestEtfHolding = Omit<EtfHoldings["holdings"][number], "id" | "sector" | "country">;
type RestEtfHoldings = { atDate: string | null; holdings: RestEtfHolding[] };

/** A security's id as instrument.ids.ts makes it, from what the upstream's answer names. */
const ownerId = (isin: string | null, symbol: string) => isin ?? symbol;

export function toEtf(d: RestEtfFundamentals): Etf {
  const etf = Object.assign(new Etf(), { symbol: d.symbol, name: d.name, isin: d.isin });
  return rememberAsked(etf, { body: { symbol: d.symbol }, fundamentals: d.fundamentals });
}

export const etfFetcher: UpstreamFetcher<SecurityRef, RestEtfFundamentals, Etf> = {
  path: "/v1/etf/fundamentals",
  kind: "reference",
  request: refBody,
  transform: toEtf,
};

export const etfProfileFetcher: UpstreamFetcher<Etf, { profile: Omit<EtfProfile, "id"> | null }, EtfProfile | null> = {
  path: "/v1/etf/profile",
  kind: "reference",
  request: (e) => askedOf(e).body,
  transform: (d, e) => d.profile && { ...d.profile, id: ownerId(d.profile.isin, e.symbol) },
};

export const etfHoldingsFetcher: UpstreamFetcher<Etf, RestEtfHoldings, EtfHoldings> = {
  path: "/v0/etf/holdings",
  kind: "reference",
  request: (e) => askedOf(e).body,
  transform(d, e) {
    const id = holdingsId(ownerId(e.isin, e.symbol), d.atDate);
    // The currency of the holdings' values is the NAV's, which the fundamentals carry; the holdings do not.
    const currency = askedOf(e).fundamentals?.navCurrency;
    // The contract's holdings carry no sector or country: null, as for a holding whose sector is unknown.
    const holdings = d.holdings.map((h) => ({ ...h, sector: null, country: null }));
    return { id, atDate: d.atDate, currency: currency!, holdings: assignHoldingIds(id, holdings) };
  },
};

export const etfSectorFetcher = partFetcher<"sectorExposure", SectorWeight[]>("/v1/etf/sector", "sectorExposure");
export const etfCountryFetcher = partFetcher<"countryExposure", CountryWeight[]>("/v1/etf/country", "countryExposure");

export interface EtfMetricsQuery {
  etf: Etf;
  args: EtfMetricsArgs;
}

export const etfMetricsFetcher: UpstreamFetcher<EtfMetricsQuery, EtfMetrics & { symbol: string }, EtfMetrics> = {
  path: "/v1/etf/metrics",
  kind: "reference",
  request: ({ etf, args }) =>
    bodyOf({
      ...askedOf(etf).body,
      from: args.from,
      to: args.to,
      resolution: args.resolution,
      currency: args.currency,
    }),
  transform: ({ symbol: _symbol, ...metrics }) => metrics,
};

/** The fundamentals came with the ETF's identity: no call. */
export const etfFundamentalsOf = (e: Etf): EtfFundamentals | null => askedOf(e).fundamentals ?? null;
