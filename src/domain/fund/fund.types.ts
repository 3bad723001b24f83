import { Field, Float, ID, Int, ObjectType } from "type-graphql";
import type { InstrumentRow } from "../ports/source.types";

@ObjectType({ description: "Profile of a mutual fund" })
export class FundProfile {
  @Field(() => ID, {
    description: "Stable id of this profile: the fund's ISIN; for client caches",
  })
  id: string;

  @Field(() => String, { description: "Name of the fund (share class)" })
  name: string;

  @Field(() => String, {
    nullable: true,
    description: "Investment objective in the fund company's words; null where none is known",
  })
  description: string | null;

  @Field(() => String, { description: "Company that manages the fund" })
  fundCompany: string;

  @Field(() => String, { description: "Peer-group category, e.g. Global Large-Cap Blend Equity" })
  category: string;

  @Field(() => String, {
    description: "Broad asset class, e.g. Equity, Fixed Income, Allocation, Money Market or Real Estate",
  })
  assetClass: string;

  @Field(() => Float, { description: "Assets under management, in navCurrency" })
  aum: number;

  @Field(() => Float, { description: "Net asset value per unit, in navCurrency" })
  nav: number;

  @Field(() => String, { description: "ISO 4217 currency of nav, aum and minInvestment" })
  navCurrency: string;

  @Field(() => Float, { description: "Ongoing charge, percent per year" })
  ongoingCharge: number;

  @Field(() => Float, { description: "Maximum entry charge, percent" })
  entryCharge: number;

  @Field(() => String, { description: "Day the fund was launched, YYYY-MM-DD" })
  inceptionDate: string;

  @Field(() => String, { description: "ISO 3166 alpha-2 country of domicile" })
  domicile: string;

  @Field(() => String, { description: "Name of the index the fund is measured against" })
  benchmark: string;

  @Field(() => Int, { description: "Summary risk indicator, 1 (lowest) to 7" })
  riskClass: number;

  @Field(() => String, { description: "Distributing or Accumulating" })
  distributionPolicy: string;

  @Field(() => Float, { description: "Minimum first investment, in navCurrency" })
  minInvestment: number;

  @Field(() => Int, { description: "Number of positions in the latest holdings" })
  holdingsCount: number;

  @Field(() => String, {
    nullable: true,
    description: "Fund company's page for the fund (URL); null where none is known",
  })
  website: string | null;
}

@ObjectType({ description: "One position of a fund" })
export class FundHolding {
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

  @Field(() => String, { nullable: true, description: "Equity, Bond, Cash or Other" })
  assetClass: string | null;

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

  @Field(() => Float, { description: "Weight in the fund, percent" })
  percent: number;

  @Field(() => Float, { description: "Market value, in the fund's NAV currency" })
  value: number;
}

@ObjectType({ description: "The holdings of a fund at a date" })
export class FundHoldings {
  @Field(() => ID, {
    description: "Stable id of these holdings: the fund's ISIN and the day they were reported; for client caches",
  })
  id: string;

  @Field(() => String, {
    nullable: true,
    description: "Day the holdings were reported, YYYY-MM-DD; null when none are reported",
  })
  atDate: string | null;

  @Field(() => String, { description: "ISO 4217 currency of the values (the NAV currency)" })
  currency: string;

  @Field(() => [FundHolding], { description: "Largest weight first" })
  holdings: FundHolding[];
}

@ObjectType({ description: "A mutual fund, identified by its ISIN" })
export class Fund {
  @Field(() => String, { description: "ISIN of the fund, its identifier" })
  isin: string;

  @Field(() => String, { description: "Symbol of the fund's primary listing" })
  symbol: string;

  @Field(() => String, { description: "Name of the fund (share class)" })
  name: string;

  @Field(() => String, { description: "ISO 4217 currency of the fund's listing" })
  currency: string;

  /** Internal: the resolved listing and security, for field resolvers. */
  row: InstrumentRow;
}
