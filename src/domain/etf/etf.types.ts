import { Field, Float, ID, Int, ObjectType } from "type-graphql";
import type { InstrumentRow } from "../ports/source.types";

/** docs/contract.md section 4: the ETF profile existing SDKs parse. */
@ObjectType({ description: "Profile of an ETF" })
export class EtfProfile {
  @Field(() => ID, {
    description: "Stable id for client caches: the ETF's ISIN, or its listing (exchange:symbol) without one",
  })
  id: string;

  @Field(() => String, { description: "Name of the ETF" })
  name: string;

  @Field(() => String, { nullable: true, description: "ISIN of the ETF; null where unknown" })
  isin: string | null;

  @Field(() => String, { nullable: true, description: "CUSIP of the ETF itself" })
  cusip: string | null;

  @Field(() => String, { description: "Equity, Fixed Income, Commodity, Multi-Asset or Real Estate" })
  assetClass: string;

  @Field(() => Float, { description: "Assets under management, in navCurrency" })
  aum: number;

  @Field(() => Float, { nullable: true, description: "Average daily volume of the last 30 trading days" })
  avgVolume: number | null;

  @Field(() => String, {
    nullable: true,
    description: "Investment objective in the issuer's words; null where none is known",
  })
  description: string | null;

  @Field(() => String, { description: "ISO 3166 alpha-2 country of domicile" })
  domicile: string;

  @Field(() => String, { description: "Company that issues the ETF" })
  etfCompany: string;

  @Field(() => Float, { description: "Total expense ratio, percent per year" })
  expenseRatio: number;

  @Field(() => String, { description: "Day the ETF was launched, YYYY-MM-DD" })
  inceptionDate: string;

  @Field(() => Float, { description: "Net asset value per share, in navCurrency" })
  nav: number;

  @Field(() => String, { description: "ISO 4217 currency of nav and aum" })
  navCurrency: string;

  @Field(() => String, { nullable: true, description: "Issuer's page for the ETF (URL); null where none is known" })
  website: string | null;

  @Field(() => Int, { description: "Number of positions in the latest holdings" })
  holdingsCount: number;
}

@ObjectType({ description: "One position of an ETF" })
export class EtfHolding {
  @Field(() => ID, {
    description: "Stable id for client caches: the holdings' id and the held security's ISIN, symbol or name",
  })
  id: string;

  @Field(() => String, { nullable: true, description: "Symbol of the held security; null for bonds and cash" })
  symbol: string | null;

  @Field(() => String, { description: "Name of the held security or position" })
  name: string;

  @Field(() => String, { nullable: true, description: "ISIN of the held security; null for cash and where unknown" })
  isin: string | null;

  @Field(() => String, {
    nullable: true,
    description: "CUSIP of the held security (US and Canadian securities); null where it has none",
    deprecationReason: "Removed from REST v1 on 2024-07-01 (docs/contract.md section 5); use isin",
  })
  cusip: string | null;

  @Field(() => Float, { nullable: true, description: "Number of shares (units) held" })
  share: number | null;

  @Field(() => Float, { description: "Weight in the ETF, percent" })
  percent: number;

  @Field(() => Float, { description: "Market value, in the ETF's NAV currency" })
  value: number;

  @Field(() => String, {
    nullable: true,
    description: "Sector of the held security (GICS-like, e.g. Information Technology); null for bonds and cash",
  })
  sector: string | null;

  @Field(() => String, {
    nullable: true,
    description: "Country of the held security, ISO 3166 alpha-2; null for cash and where unknown",
  })
  country: string | null;
}

@ObjectType({ description: "The holdings of an ETF at a date" })
export class EtfHoldings {
  @Field(() => ID, {
    description: "Stable id of these holdings: the ETF's security id and the day they were reported; for client caches",
  })
  id: string;

  @Field(() => String, {
    nullable: true,
    description: "Day the holdings were reported, YYYY-MM-DD; null when none are reported",
  })
  atDate: string | null;

  @Field(() => String, { description: "ISO 4217 currency of the holdings' values (the NAV currency)" })
  currency: string;

  @Field(() => [EtfHolding], { description: "Largest weight first" })
  holdings: EtfHolding[];
}

@ObjectType({
  description: "Share of an ETF in each market-cap class (USD: large ≥ 10 bn, mid ≥ 2 bn, small below), percent",
})
export class MarketCapBreakdown {
  @Field(() => Float, { description: "Percent of the ETF in companies of USD 10 bn market cap or more" })
  large: number;

  @Field(() => Float, { description: "Percent of the ETF in companies of USD 2 bn to 10 bn market cap" })
  mid: number;

  @Field(() => Float, { description: "Percent of the ETF in companies below USD 2 bn market cap" })
  small: number;

  @Field(() => Float, { description: "Holdings without a known market cap (bonds, cash, unknown securities)" })
  unclassified: number;
}

@ObjectType({ description: "Valuation aggregated from an ETF's holdings" })
export class EtfValuation {
  @Field(() => String, { description: "Day the ratios refer to (today), YYYY-MM-DD" })
  asOf: string;

  @Field(() => Float, { nullable: true, description: "Weighted harmonic P/E (market cap / TTM net income)" })
  peRatio: number | null;

  @Field(() => Float, { nullable: true, description: "Weighted harmonic P/B (market cap / latest total equity)" })
  pbRatio: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "Weighted trailing-twelve-month dividend yield of the holdings, percent",
  })
  dividendYield: number | null;

  @Field(() => Float, { description: "Percent of the ETF's weight from which at least one figure was derived" })
  coveredWeight: number;

  @Field(() => MarketCapBreakdown, {
    description: "Weights by the market cap of the holdings, percent; the four shares sum to 100",
  })
  marketCapBreakdown: MarketCapBreakdown;
}

@ObjectType({ description: "Fundamental data of an ETF" })
export class EtfFundamentals {
  @Field(() => String, { description: "Equity, Fixed Income, Commodity, Multi-Asset or Real Estate" })
  assetClass: string;

  @Field(() => Float, { description: "Total expense ratio, percent per year" })
  expenseRatio: number;

  @Field(() => Float, { description: "Assets under management, in navCurrency" })
  aum: number;

  @Field(() => Float, { description: "Net asset value per share, in navCurrency" })
  nav: number;

  @Field(() => String, { description: "ISO 4217 currency of nav and aum" })
  navCurrency: string;

  @Field(() => Int, { description: "Number of positions in the latest holdings" })
  holdingsCount: number;

  @Field(() => String, { description: "Day the ETF was launched, YYYY-MM-DD" })
  inceptionDate: string;

  @Field(() => String, { description: "Country of domicile, ISO 3166 alpha-2" })
  domicile: string;

  @Field(() => String, { description: "Company that issues the ETF" })
  issuer: string;

  @Field(() => String, { description: "Physical (full), Physical (sampling) or Synthetic" })
  replication: string;

  @Field(() => String, { description: "Distributing or Accumulating" })
  distributionPolicy: string;

  @Field(() => String, { description: "Name of the index the ETF tracks" })
  benchmark: string;

  @Field(() => EtfValuation, { description: "Ratios aggregated from the holdings today" })
  valuation: EtfValuation;
}

@ObjectType({ description: "Maximum drawdown over the daily closes of the range" })
export class MetricsDrawdown {
  @Field(() => Float, { description: "Largest fall from a running peak, percent, zero or negative" })
  value: number;

  @Field(() => String, { nullable: true, description: "YYYY-MM-DD of the peak; null when never below a peak" })
  peakDate: string | null;

  @Field(() => String, { nullable: true, description: "YYYY-MM-DD of the trough" })
  troughDate: string | null;

  @Field(() => String, {
    nullable: true,
    description: "First day back at the peak, YYYY-MM-DD; null if not recovered in the range",
  })
  recoveryDate: string | null;
}

@ObjectType({ description: "Return of one period" })
export class MetricsPeriod {
  @Field(() => String, { description: "Day of the close ending the period, YYYY-MM-DD" })
  date: string;

  @Field(() => Float, { description: "Return of the period, percent" })
  periodReturn: number;
}

@ObjectType({ description: "One point of the cumulative return series" })
export class MetricsPoint {
  @Field(() => String, { description: "Day of the close, YYYY-MM-DD" })
  date: string;

  @Field(() => Int, { description: "Unix seconds of the day's 00:00 UTC" })
  t: number;

  @Field(() => Float, { description: "Close in the metrics' currency" })
  value: number;

  @Field(() => Float, { nullable: true, description: "Return of the period ending here, percent; null at the start" })
  periodReturn: number | null;

  @Field(() => Float, { description: "Return since the start, percent" })
  cumulativeReturn: number;
}

@ObjectType({
  description:
    "Performance of an ETF over a range, in one currency; a range without closes answers null figures and an " +
    "empty series",
})
export class EtfMetrics {
  @Field(() => String, { description: "ISO 4217 currency of every value" })
  currency: string;

  @Field(() => String, { description: "D, W or M" })
  resolution: string;

  @Field(() => Int, { description: "Start of the requested range, Unix seconds" })
  from: number;

  @Field(() => Int, { description: "End of the requested range, Unix seconds" })
  to: number;

  @Field(() => String, {
    nullable: true,
    description: "Day of the first close in the range; null when the range holds none",
  })
  startDate: string | null;

  @Field(() => String, {
    nullable: true,
    description: "Day of the last close in the range; null when the range holds none",
  })
  endDate: string | null;

  @Field(() => Float, {
    nullable: true,
    description: "Close on startDate, in currency; null when the range holds no close",
  })
  startValue: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "Close on endDate, in currency; null when the range holds no close",
  })
  endValue: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "Return over the range: endValue / startValue - 1, percent; null when the range holds no close",
  })
  totalReturn: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "(endValue / startValue)^(365.25 / calendar days) - 1, percent; null for a single day",
  })
  annualisedReturn: number | null;

  @Field(() => Float, {
    nullable: true,
    description:
      "Sample stdev of simple period returns × sqrt(252 D, 52 W, 12 M), percent; null with fewer than two periods",
  })
  annualisedVolatility: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "(mean period return × periods per year - riskFreeRate) / annualised volatility",
  })
  sharpeRatio: number | null;

  @Field(() => Float, { description: "Annual risk-free rate used by sharpeRatio, percent (MDG_RISK_FREE_RATE)" })
  riskFreeRate: number;

  @Field(() => MetricsDrawdown, {
    nullable: true,
    description: "Largest fall from a running peak within the range; null when the range holds no close",
  })
  maxDrawdown: MetricsDrawdown | null;

  @Field(() => MetricsPeriod, {
    nullable: true,
    description: "Period with the highest return (its end and return); null with a single close in the range",
  })
  bestPeriod: MetricsPeriod | null;

  @Field(() => MetricsPeriod, {
    nullable: true,
    description: "Period with the lowest return (its end and return); null with a single close in the range",
  })
  worstPeriod: MetricsPeriod | null;

  @Field(() => Int, { description: "Number of periods (returns) in the series" })
  periods: number;

  @Field(() => [MetricsPoint], { description: "The starting close, then the last close of each period" })
  series: MetricsPoint[];

  @Field(() => Int, { description: "Days converted with the last known FX rate because their own was missing" })
  fxFilledDays: number;

  @Field(() => [String], { description: "Caveats about the data, e.g. FX days filled" })
  notes: string[];
}

@ObjectType({ description: "An exchange-traded fund, by its listing" })
export class Etf {
  @Field(() => String, { description: "Symbol of the listing" })
  symbol: string;

  @Field(() => String, { description: "Name of the ETF" })
  name: string;

  @Field(() => String, { nullable: true, description: "ISIN of the ETF; null where unknown" })
  isin: string | null;

  @Field(() => String, { description: "ISO 4217 currency of the listing" })
  currency: string;

  @Field(() => String, { description: "MIC-style code of the listing's exchange" })
  exchange: string;

  /** Internal: the resolved listing and security, for field resolvers. */
  row: InstrumentRow;
}
