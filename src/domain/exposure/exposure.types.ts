import { Field, Float, ObjectType } from "type-graphql";

/**
 * Weights shared by ETFs and funds; field names follow docs/contract.md section 4 (the ETF sector and country shapes).
 */
@ObjectType({ description: "Share of a portfolio in one sector" })
export class SectorWeight {
  @Field(() => String, {
    description: "Sector (GICS-like, e.g. Information Technology); Other for holdings without one (bonds, cash)",
  })
  sector: string;

  @Field(() => Float, { description: "Percent of the portfolio (12.5 means 12.5 %)" })
  weightPercentage: number;
}

@ObjectType({ description: "Share of a portfolio in one country" })
export class CountryWeight {
  @Field(() => String, { description: "Country of the holdings, as stored (ISO 3166 alpha-2)" })
  country: string;

  @Field(() => Float, { description: "Percent of the portfolio (12.5 means 12.5 %)" })
  exposure: number;
}

@ObjectType({ description: "Share of a fund in one asset class" })
export class AllocationWeight {
  @Field(() => String, { description: "Equity, Bonds, Cash or Other" })
  assetClass: string;

  @Field(() => Float, { description: "Percent of the fund (12.5 means 12.5 %)" })
  weightPercentage: number;
}
