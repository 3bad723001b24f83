import { z } from "zod";
import { aliasValue, RESOLUTION_NAMES } from "../rest.aliases";
import { securityRangeBody, securityRefBody, securityVariables } from "../rest.body";
import {
  EtfCountryDocument,
  EtfFundamentalsDocument,
  EtfHoldingsDocument,
  EtfMetricsDocument,
  EtfProfileDocument,
  EtfSectorDocument,
  type EtfHoldingsQuery,
} from "../rest.operations.generated";
import { example } from "../rest.examples";
import { route, VERSIONS, type ApiVersion, type RouteEntry } from "../rest.route";
import { day, gqlObject, stringOf, unixSeconds } from "../rest.response";

/** docs/api-etf-fund.md; docs/contract.md section 4 fixes profile, holdings, sector and country. */
const profileResponse = z.object({
  symbol: z.string().describe("Symbol of the listing asked for"),
  profile: gqlObject("EtfProfile", {
    name: z.string(),
    isin: z.string().nullable(),
    cusip: z.string().nullable(),
    assetClass: z.string(),
    aum: z.number(),
    avgVolume: z.number().nullable(),
    description: z.string().nullable(),
    domicile: z.string(),
    etfCompany: z.string(),
    expenseRatio: z.number(),
    inceptionDate: day,
    nav: z.number(),
    navCurrency: z.string(),
    website: z.string().nullable(),
    holdingsCount: z.int(),
  })
    .nullable()
    .describe("Null when the store holds no profile of the ETF"),
});

const holding = {
  symbol: z.string().nullable(),
  name: z.string(),
  isin: z.string().nullable(),
  share: z.number().nullable(),
  percent: z.number(),
  value: z.number(),
};

const holdingsResponse = (version: ApiVersion) =>
  z.object({
    symbol: z.string().describe("Symbol of the listing asked for"),
    atDate: day.nullable().describe("Day the holdings were reported; null (with no holdings) when none are"),
    holdings: z
      .array(
        version === "v0"
          ? gqlObject("EtfHolding", {
              ...holding,
              cusip: z.string().nullable().describe("Deprecated: v0 only, removed from v1 (2024-07-01)"),
            })
          : gqlObject("EtfHolding", holding),
      )
      .describe("Positions, largest weight first"),
  });

const sectorResponse = z.object({
  symbol: z.string(),
  sectorExposure: z
    .array(gqlObject("SectorWeight", { sector: z.string(), weightPercentage: z.number() }))
    .describe("Largest weight first; sums to 100"),
});

const countryResponse = z.object({
  symbol: z.string(),
  countryExposure: z
    .array(gqlObject("CountryWeight", { country: z.string(), exposure: z.number() }))
    .describe("Largest exposure first; sums to 100"),
});

const fundamentalsResponse = gqlObject("Etf", {
  symbol: z.string(),
  isin: z.string().nullable(),
  name: z.string(),
  fundamentals: gqlObject("EtfFundamentals", {
    assetClass: z.string(),
    expenseRatio: z.number(),
    aum: z.number(),
    nav: z.number(),
    navCurrency: z.string(),
    holdingsCount: z.int(),
    inceptionDate: day,
    domicile: z.string(),
    issuer: z.string(),
    replication: z.string(),
    distributionPolicy: z.string(),
    benchmark: z.string(),
    valuation: gqlObject("EtfValuation", {
      asOf: day,
      peRatio: z.number().nullable(),
      pbRatio: z.number().nullable(),
      dividendYield: z.number().nullable(),
      coveredWeight: z.number(),
      marketCapBreakdown: gqlObject("MarketCapBreakdown", {
        large: z.number(),
        mid: z.number(),
        small: z.number(),
        unclassified: z.number(),
      }),
    }),
  })
    .nullable()
    .describe("Null when the store holds no profile of the ETF"),
});

const period = gqlObject("MetricsPeriod", { date: day, periodReturn: z.number() });

const metricsResponse = gqlObject("EtfMetrics", {
  symbol: z.string().describe("Symbol of the listing"),
  currency: z.string(),
  resolution: stringOf(["D", "W", "M"]),
  from: unixSeconds,
  to: unixSeconds,
  startDate: day.nullable().describe("Null when the range holds no close (then every figure is null)"),
  endDate: day.nullable(),
  startValue: z.number().nullable(),
  endValue: z.number().nullable(),
  totalReturn: z.number().nullable(),
  annualisedReturn: z.number().nullable(),
  annualisedVolatility: z.number().nullable(),
  sharpeRatio: z.number().nullable(),
  riskFreeRate: z.number(),
  maxDrawdown: gqlObject("MetricsDrawdown", {
    value: z.number(),
    peakDate: day.nullable(),
    troughDate: day.nullable(),
    recoveryDate: day.nullable(),
  }).nullable(),
  bestPeriod: period.nullable(),
  worstPeriod: period.nullable(),
  periods: z.int(),
  series: z.array(
    gqlObject("MetricsPoint", {
      date: day,
      t: unixSeconds,
      value: z.number(),
      periodReturn: z.number().nullable(),
      cumulativeReturn: z.number(),
    }),
  ),
  fxFilledDays: z.int(),
  notes: z.array(z.string()),
});

const refVariables = securityRefBody.transform(securityVariables);

const resolutionField = z
  .string({ error: "expected a string: D, W or M" })
  .trim()
  .min(1, { error: "expected D, W or M" })
  .max(8)
  .transform((v) => aliasValue(RESOLUTION_NAMES, v))
  .describe("Period of the returns: D (daily, default), W (ISO weeks) or M (months), or DAILY, WEEKLY, MONTHLY");

const metricsBody = securityRangeBody(resolutionField);

/** docs/contract.md section 4 and 5: the holdings shape, less `cusip` from v1 on. */
export function holdingsShape(data: EtfHoldingsQuery, version: ApiVersion) {
  const { symbol, holdings } = data.etf;
  return {
    symbol,
    atDate: holdings.atDate,
    holdings: holdings.holdings.map(({ cusip, ...h }) =>
      version === "v0"
        ? { symbol: h.symbol, name: h.name, isin: h.isin, cusip, share: h.share, percent: h.percent, value: h.value }
        : h,
    ),
  };
}

export const ETF_ROUTES: readonly RouteEntry[] = [
  route({
    path: "etf/metrics",
    summary:
      "Performance metrics of an ETF over [from, to] in a currency (defaults: last year, D, the listing's currency)",
    versions: VERSIONS,
    scope: "etf",
    body: metricsBody,
    operation: EtfMetricsDocument,
    shape: (d) => ({ symbol: d.etf.symbol, ...d.etf.metrics }),
    response: metricsResponse,
    maxAgeSeconds: 300,
    examples: (s) => ({
      monthly: example("The first ETF's monthly returns", { symbol: s.etf, resolution: "M" }),
      daily: example("Daily returns of 2026 so far", { symbol: s.etf, from: "2026-01-01" }),
    }),
    emptyAnswer:
      "`startDate`, `endDate`, `startValue`, `endValue`, `totalReturn`, the annualised figures, `maxDrawdown`, " +
      "`bestPeriod`, `worstPeriod` null; `periods: 0`, `series: []`, a note saying the range holds no close",
    singleSecurity: true,
  }),
  route({
    path: "etf/fundamentals",
    summary: "Fundamental data of an ETF with valuation aggregated from its holdings",
    versions: VERSIONS,
    scope: "etf",
    body: refVariables,
    operation: EtfFundamentalsDocument,
    shape: (d) => d.etf,
    response: fundamentalsResponse,
    examples: (s) => ({ etf: example("The first ETF", { symbol: s.etf }) }),
    emptyAnswer: "`profile: null` (`fundamentals: null`): the Bavest SDK's ETF profile model takes a null profile",
    singleSecurity: true,
  }),
  route({
    path: "etf/profile",
    summary: "Profile of an ETF",
    versions: VERSIONS,
    scope: "etf",
    body: refVariables,
    operation: EtfProfileDocument,
    shape: (d) => ({ symbol: d.etf.symbol, profile: d.etf.profile }),
    response: profileResponse,
    examples: (s) => ({ etf: example("The first ETF", { symbol: s.etf }) }),
    emptyExample: { summary: "A known ETF the store holds no profile of", value: { symbol: "XYZ", profile: null } },
    emptyAnswer: "`profile: null` (`fundamentals: null`): the Bavest SDK's ETF profile model takes a null profile",
    singleSecurity: true,
  }),
  route({
    path: "etf/holdings",
    summary: "Holdings of an ETF (v0 also carries the deprecated cusip)",
    versions: VERSIONS,
    scope: "etf",
    body: refVariables,
    operation: EtfHoldingsDocument,
    shape: holdingsShape,
    response: holdingsResponse,
    examples: (s) => ({ etf: example("The first ETF", { symbol: s.etf }) }),
    emptyExample: {
      summary: "A known ETF that reports no holdings",
      value: { symbol: "XYZ", atDate: null, holdings: [] },
    },
    emptyAnswer: "`atDate: null`, `holdings: []`",
    singleSecurity: true,
  }),
  route({
    path: "etf/sector",
    summary: "Sector exposure of an ETF",
    versions: VERSIONS,
    scope: "etf",
    body: refVariables,
    operation: EtfSectorDocument,
    shape: (d) => ({ symbol: d.etf.symbol, sectorExposure: d.etf.sectorExposure }),
    response: sectorResponse,
    examples: (s) => ({ etf: example("The first ETF", { symbol: s.etf }) }),
    emptyAnswer: "an empty list",
    singleSecurity: true,
  }),
  route({
    path: "etf/country",
    summary: "Country exposure of an ETF",
    versions: VERSIONS,
    scope: "etf",
    body: refVariables,
    operation: EtfCountryDocument,
    shape: (d) => ({ symbol: d.etf.symbol, countryExposure: d.etf.countryExposure }),
    response: countryResponse,
    examples: (s) => ({ etf: example("The first ETF", { symbol: s.etf }) }),
    emptyAnswer: "an empty list",
    singleSecurity: true,
  }),
];
