import { z } from "zod";
import { securityRefWith, securityVariables } from "../rest.body";
import {
  FundAllocationExposureDocument,
  FundCountryDocument,
  FundHoldingDocument,
  FundProfileDocument,
  FundSectorDocument,
} from "../rest.operations.generated";
import { example } from "../rest.examples";
import { route, VERSIONS, type RouteEntry } from "../rest.route";
import { day, gqlObject } from "../rest.response";

/** docs/api-etf-fund.md: every fund answer echoes the ISIN and the listing's symbol. */
const fundRef = { isin: z.string().describe("ISIN of the fund"), symbol: z.string().describe("Symbol of its listing") };

const profileResponse = gqlObject("Fund", {
  ...fundRef,
  profile: gqlObject("FundProfile", {
    name: z.string(),
    description: z.string().nullable(),
    fundCompany: z.string(),
    category: z.string(),
    assetClass: z.string(),
    aum: z.number(),
    nav: z.number(),
    navCurrency: z.string(),
    ongoingCharge: z.number(),
    entryCharge: z.number(),
    inceptionDate: day,
    domicile: z.string(),
    benchmark: z.string(),
    riskClass: z.int().min(1).max(7),
    distributionPolicy: z.string(),
    minInvestment: z.number(),
    holdingsCount: z.int(),
    website: z.string().nullable(),
  })
    .nullable()
    .describe("Null when the store holds no profile of the fund"),
});

const sectorResponse = z.object({
  ...fundRef,
  sectorExposure: z
    .array(gqlObject("SectorWeight", { sector: z.string(), weightPercentage: z.number() }))
    .describe("Largest weight first; sums to 100"),
});

const countryResponse = z.object({
  ...fundRef,
  countryExposure: z
    .array(gqlObject("CountryWeight", { country: z.string(), exposure: z.number() }))
    .describe("Largest exposure first; sums to 100"),
});

const holdingResponse = gqlObject("FundHoldings", {
  ...fundRef,
  atDate: day.nullable().describe("Day the holdings were reported; null (with no holdings) when none are"),
  currency: z.string(),
  holdings: z.array(
    gqlObject("FundHolding", {
      symbol: z.string().nullable(),
      name: z.string(),
      isin: z.string().nullable(),
      assetClass: z.string().nullable(),
      sector: z.string().nullable(),
      country: z.string().nullable(),
      percent: z.number(),
      value: z.number(),
    }),
  ),
});

const allocationResponse = gqlObject("Fund", {
  ...fundRef,
  allocationExposure: z
    .array(gqlObject("AllocationWeight", { assetClass: z.string(), weightPercentage: z.number() }))
    .describe("Equity, Bonds, Cash and Other, in this order, summing to 100; empty when the fund reports none"),
});

/** `{isin}` (the spec's body); `{symbol}`, `{cusip}` or `{wkn}` instead, as wherever one security is meant. */
const fundBody = securityRefWith({}, { field: "isin", message: "required" }).transform(securityVariables);

export const FUND_ROUTES: readonly RouteEntry[] = [
  route({
    path: "fund/profile",
    summary: "Profile of a mutual fund",
    versions: VERSIONS,
    scope: "fund",
    body: fundBody,
    operation: FundProfileDocument,
    shape: (d) => d.fund,
    response: profileResponse,
    examples: (s) => ({ fund: example("The first fund, by ISIN", { isin: s.fundIsin }) }),
    emptyAnswer: "`profile: null` (`fundamentals: null`): the Bavest SDK's ETF profile model takes a null profile",
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
    response: sectorResponse,
    examples: (s) => ({ fund: example("The first fund, by ISIN", { isin: s.fundIsin }) }),
    emptyAnswer: "an empty list",
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
    response: countryResponse,
    examples: (s) => ({ fund: example("The first fund, by ISIN", { isin: s.fundIsin }) }),
    emptyAnswer: "an empty list",
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
    response: holdingResponse,
    examples: (s) => ({ fund: example("The first fund, by ISIN", { isin: s.fundIsin }) }),
    emptyAnswer: "`atDate: null`, `holdings: []`",
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
    response: allocationResponse,
    examples: (s) => ({ fund: example("The first fund, by ISIN", { isin: s.fundIsin }) }),
    emptyAnswer: "an empty list",
    singleSecurity: true,
  }),
];
