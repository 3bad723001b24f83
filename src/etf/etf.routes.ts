import { z } from "zod";
import { currencyField, securityRefBody, unixTimeField } from "../rest/rest.body";
import {
  EtfCountryDocument,
  EtfFundamentalsDocument,
  EtfHoldingsDocument,
  EtfMetricsDocument,
  EtfProfileDocument,
  EtfSectorDocument,
  type EtfHoldingsQuery,
} from "../rest/rest.operations.generated";
import { route, VERSIONS, type ApiVersion, type RouteEntry } from "../rest/rest.route";

const refVariables = securityRefBody.transform((b) => ({ symbol: b.symbol ?? null, isin: b.isin ?? null }));

const resolutionField = z.string({ error: "expected a string: D, W or M" }).trim().min(1, { error: "expected D, W or M" }).max(8);

const metricsBody = securityRefBody
  .and(
    z.object({
      from: unixTimeField.optional(),
      to: unixTimeField.optional(),
      resolution: resolutionField.optional(),
      currency: currencyField.optional(),
    }),
  )
  .transform((b) => ({
    symbol: b.symbol ?? null,
    isin: b.isin ?? null,
    from: b.from ?? null,
    to: b.to ?? null,
    resolution: b.resolution ?? null,
    currency: b.currency ?? null,
  }));

/** CONTRACT.md section 4 and 5: the holdings shape, less `cusip` from v1 on. */
export function holdingsShape(data: EtfHoldingsQuery, version: ApiVersion) {
  const { symbol, holdings } = data.etf;
  return {
    symbol,
    atDate: holdings.atDate,
    holdings: holdings.holdings.map(({ cusip, ...h }) =>
      version === "v0" ? { symbol: h.symbol, name: h.name, isin: h.isin, cusip, share: h.share, percent: h.percent, value: h.value } : h,
    ),
  };
}

export const ETF_ROUTES: readonly RouteEntry[] = [
  route({
    path: "etf/metrics",
    summary: "Performance metrics of an ETF over [from, to] in a currency (defaults: last year, D, the listing's currency)",
    versions: VERSIONS,
    scope: "etf",
    body: metricsBody,
    operation: EtfMetricsDocument,
    shape: (d) => ({ symbol: d.etf.symbol, ...d.etf.metrics }),
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
    singleSecurity: true,
  }),
];
