import type { AllocationWeight, CountryWeight, SectorWeight } from "../../../domain/exposure/exposure.types";
import { Fund, type FundHoldings, type FundProfile } from "../../../domain/fund/fund.types";
import { assignHoldingIds, holdingsId } from "../../../domain/instrument/instrument.ids";
import type { SecurityRef } from "../../../domain/instrument/instrument.service";
import { askedOf, partFetcher, rememberAsked } from "../upstream.asked";
import { refBody } from "../upstream.calls";
import type { UpstreamFetcher } from "../upstream.fetcher";

/* A fund is asked by its profile, which names it; its other fields ask their endpoints with the fund's ISIN. */

type RestFundProfile = { isin: string; symbol: string; profile: Omit<FundProfile, "id"> | null };
type RestFundHolding = Omit<FundHoldings["holdings"][number], "id">;
type RestFundHoldings = { atDate: string | null; currency?: string; holdings: RestFundHolding[] };

export function toFund(d: RestFundProfile): Fund {
  // No name without a profile: left undefined, so asking for it is NOT_AVAILABLE (instrument.served.ts).
  const fund = Object.assign(new Fund(), { isin: d.isin, symbol: d.symbol, name: d.profile?.name });
  return rememberAsked(fund, { body: { isin: d.isin }, fundProfile: d.profile });
}

export const fundFetcher: UpstreamFetcher<SecurityRef, RestFundProfile, Fund> = {
  path: "/v1/fund/profile",
  kind: "reference",
  request: refBody,
  transform: toFund,
};

export const fundHoldingsFetcher: UpstreamFetcher<Fund, RestFundHoldings, FundHoldings> = {
  path: "/v1/fund/holding",
  kind: "reference",
  request: (f) => askedOf(f).body,
  transform(d, f) {
    const id = holdingsId(f.isin, d.atDate);
    return { id, atDate: d.atDate, currency: d.currency!, holdings: assignHoldingIds(id, d.holdings) };
  },
};

export const fundSectorFetcher = partFetcher<"sectorExposure", SectorWeight[]>("/v1/fund/sector", "sectorExposure");
export const fundCountryFetcher = partFetcher<"countryExposure", CountryWeight[]>(
  "/v1/fund/country",
  "countryExposure",
);
export const fundAllocationFetcher = partFetcher<"allocationExposure", AllocationWeight[]>(
  "/v1/fund/allocation-exposure",
  "allocationExposure",
);

/** The profile came with the fund's identity: no call. */
export function fundProfileOf(f: Fund): FundProfile | null {
  const p = askedOf(f).fundProfile;
  return p ? { ...p, id: f.isin } : null;
}
