import { ArgsType, Field, Float, ID, Int, ObjectType } from "type-graphql";
import { SecurityTypeEnum } from "../instrument/instrument.types";

@ObjectType({ description: "One listing that matched a search" })
export class SearchHit {
  @Field(() => ID, {
    description: "Stable id of the listing (exchange:symbol); for client caches",
  })
  id: string;

  @Field(() => String)
  symbol: string;

  @Field(() => String)
  companyName: string;

  @Field(() => String, { nullable: true })
  isin: string | null;

  @Field(() => SecurityTypeEnum)
  type: SecurityTypeEnum;

  @Field(() => Boolean)
  isEtf: boolean;

  @Field(() => Boolean)
  isFund: boolean;

  @Field(() => Boolean)
  isAdr: boolean;

  @Field(() => Boolean)
  isActivelyTrading: boolean;

  @Field(() => String)
  currency: string;

  @Field(() => String)
  exchange: string;

  @Field(() => Float, { nullable: true, description: "In the security's own currency" })
  marketCapitalization: number | null;
}

@ObjectType()
export class SearchResult {
  @Field(() => Int, { description: "Always 200; existing SDKs require it in the body" })
  statusCode: number;

  @Field(() => [SearchHit])
  results: SearchHit[];
}

@ObjectType({ description: "A listing of a security in an aggregated search group" })
export class GroupListing {
  @Field(() => ID, {
    description: "Stable id of the listing (exchange:symbol); for client caches",
  })
  id: string;

  @Field(() => String)
  symbol: string;

  @Field(() => String)
  exchange: string;

  @Field(() => String)
  currency: string;

  @Field(() => Boolean)
  isPrimary: boolean;
}

@ObjectType({ description: "One security with every listing it has" })
export class SearchGroup {
  @Field(() => ID, {
    description:
      "Stable id of the security: its ISIN, or its primary listing (exchange:symbol) without one; for client caches",
  })
  id: string;

  @Field(() => String)
  name: string;

  @Field(() => String, { nullable: true })
  isin: string | null;

  @Field(() => SecurityTypeEnum)
  type: SecurityTypeEnum;

  @Field(() => String, { description: "Symbol of the primary listing" })
  symbol: string;

  @Field(() => String)
  currency: string;

  @Field(() => Float, { nullable: true })
  marketCapitalization: number | null;

  @Field(() => String, { description: "How the group matched: exact, prefix or name" })
  match: string;

  @Field(() => [GroupListing])
  listings: GroupListing[];
}

@ObjectType()
export class AggregatedSearchResult {
  @Field(() => Int, { description: "Always 200, as in the plain search" })
  statusCode: number;

  @Field(() => String)
  query: string;

  @Field(() => [SearchGroup])
  results: SearchGroup[];
}

@ArgsType()
export class SearchArgs {
  @Field(() => String, { description: "Symbol, ISIN, CUSIP or words of the name; small typos are tolerated" })
  query: string;

  @Field(() => Int, { nullable: true, description: "Most results to return (default 20, at most 100)" })
  limit?: number | null;

  @Field(() => [SecurityTypeEnum], { nullable: true, description: "Only these kinds of security" })
  types?: SecurityTypeEnum[] | null;
}
