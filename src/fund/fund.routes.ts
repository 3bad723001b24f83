import { z } from "zod";
import { isinField, symbolField } from "../rest/rest.body";
import {
  FundAllocationExposureDocument,
  FundCountryDocument,
  FundHoldingDocument,
  FundProfileDocument,
  FundSectorDocument,
} from "../rest/rest.operations.generated";
import { route, VERSIONS, type RouteEntry } from "../rest/rest.route";

/** `{isin}` (the spec's body); `{symbol}` is accepted too, as wherever one security is meant. */
const fundBody = z
  .object({ isin: isinField.optional(), symbol: symbolField.optional() })
  .refine((b) => b.isin !== undefined || b.symbol !== undefined, { error: "required", path: ["isin"] })
  .transform((b) => ({ isin: b.isin ?? null, symbol: b.symbol ?? null }));

export const FUND_ROUTES: readonly RouteEntry[] = [
  route({
    path: "fund/profile",
    summary: "Profile of a mutual fund",
    versions: VERSIONS,
    scope: "fund",
    body: fundBody,
    operation: FundProfileDocument,
    shape: (d) => d.fund,
    singleSecurity: true,
  }),
  route({
    path: "fund/sector",
    summary: "Sector list of a mutual fund",
    versions: VERSIONS,
    scope: "fund",
    body: fundBody,
    operation: FundSectorDocument,
    shape: (d) => ({ isin: d.fund.isin, symbol: d.fund.symbol, sectorExposure: d.fund.sectors }),
    singleSecurity: true,
  }),
  route({
    path: "fund/country",
    summary: "Country list of a mutual fund",
    versions: VERSIONS,
    scope: "fund",
    body: fundBody,
    operation: FundCountryDocument,
    shape: (d) => ({ isin: d.fund.isin, symbol: d.fund.symbol, countryExposure: d.fund.countries }),
    singleSecurity: true,
  }),
  route({
    path: "fund/holding",
    summary: "Holdings list of a mutual fund",
    versions: VERSIONS,
    scope: "fund",
    body: fundBody,
    operation: FundHoldingDocument,
    shape: (d) => ({ isin: d.fund.isin, symbol: d.fund.symbol, ...d.fund.holdings }),
    singleSecurity: true,
  }),
  route({
    path: "fund/allocation-exposure",
    summary: "Allocation exposure of a mutual fund: Equity, Bonds, Cash, Other summing to 100",
    versions: VERSIONS,
    scope: "fund",
    body: fundBody,
    operation: FundAllocationExposureDocument,
    shape: (d) => d.fund,
    singleSecurity: true,
  }),
];
