import { Field, Float, Int, ObjectType } from "type-graphql";
import type { InstrumentRow } from "../../sources/data-source";

@ObjectType({ description: "Profile of a mutual fund" })
export class FundProfile {
  @Field(() => String)
  name: string;

  @Field(() => String, { nullable: true })
  description: string | null;

  @Field(() => String)
  fundCompany: string;

  @Field(() => String)
  category: string;

  @Field(() => String)
  assetClass: string;

  @Field(() => Float, { description: "Assets under management, in navCurrency" })
  aum: number;

  @Field(() => Float, { description: "Net asset value per unit, in navCurrency" })
  nav: number;

  @Field(() => String, { description: "ISO 4217" })
  navCurrency: string;

  @Field(() => Float, { description: "Ongoing charge, percent per year" })
  ongoingCharge: number;

  @Field(() => Float, { description: "Maximum entry charge, percent" })
  entryCharge: number;

  @Field(() => String, { description: "YYYY-MM-DD" })
  inceptionDate: string;

  @Field(() => String, { description: "ISO 3166 alpha-2 country of domicile" })
  domicile: string;

  @Field(() => String)
  benchmark: string;

  @Field(() => Int, { description: "Summary risk indicator, 1 (lowest) to 7" })
  riskClass: number;

  @Field(() => String, { description: "Distributing or Accumulating" })
  distributionPolicy: string;

  @Field(() => Float, { description: "Minimum first investment, in navCurrency" })
  minInvestment: number;

  @Field(() => Int)
  holdingsCount: number;

  @Field(() => String, { nullable: true })
  website: string | null;
}

@ObjectType({ description: "One position of a fund" })
export class FundHolding {
  @Field(() => String, { nullable: true, description: "Symbol of the held security; null for bonds and cash" })
  symbol: string | null;

  @Field(() => String)
  name: string;

  @Field(() => String, { nullable: true })
  isin: string | null;

  @Field(() => String, { nullable: true, description: "Equity, Bond, Cash or Other" })
  assetClass: string | null;

  @Field(() => String, { nullable: true })
  sector: string | null;

  @Field(() => String, { nullable: true, description: "ISO 3166 alpha-2" })
  country: string | null;

  @Field(() => Float, { description: "Weight in the fund, percent" })
  percent: number;

  @Field(() => Float, { description: "Market value, in the fund's NAV currency" })
  value: number;
}

@ObjectType({ description: "The holdings of a fund at a date" })
export class FundHoldings {
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
  @Field(() => String)
  isin: string;

  @Field(() => String, { description: "Symbol of the fund's primary listing" })
  symbol: string;

  @Field(() => String)
  name: string;

  @Field(() => String, { description: "ISO 4217 currency of the fund's listing" })
  currency: string;

  /** Internal: the resolved listing and security, for field resolvers. */
  row: InstrumentRow;
}
