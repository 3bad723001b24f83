import { ArgsType, Field, Float, ID, Int, ObjectType } from "type-graphql";
import { SecurityTypeEnum } from "../instrument/instrument.types";

@ObjectType({ description: "One listing that matched a search" })
export class SearchHit {
  @Field(() => ID, {
    description: "Stable id of the listing (exchange:symbol); for client caches",
  })
  id: string;

  @Field(() => String, { description: "Symbol of the listing" })
  symbol: string;

  @Field(() => String, { description: "Name of the security (company, ETF, fund, crypto asset or currency pair)" })
  companyName: string;

  @Field(() => String, {
    nullable: true,
    description: "ISIN of the security; null where it has none (crypto, forex) or it is unknown",
  })
  isin: string | null;

  @Field(() => SecurityTypeEnum, { description: "Kind of security" })
  type: SecurityTypeEnum;

  @Field(() => Boolean, { description: "True when type is etf" })
  isEtf: boolean;

  @Field(() => Boolean, { description: "True when type is fund" })
  isFund: boolean;

  @Field(() => Boolean, { description: "True for an American depositary receipt" })
  isAdr: boolean;

  @Field(() => Boolean, { description: "False when the security no longer trades (e.g. delisted)" })
  isActivelyTrading: boolean;

  @Field(() => String, { description: "ISO 4217 currency of the listing's prices" })
  currency: string;

  @Field(() => String, { description: "MIC-style code of the listing's exchange" })
  exchange: string;

  @Field(() => Float, { nullable: true, description: "In the security's own currency" })
  marketCapitalization: number | null;
}

@ObjectType({ description: "Search results: one row per listing (REST: POST /v1/search)" })
export class SearchResult {
  @Field(() => Int, { description: "Always 200; existing SDKs require it in the body" })
  statusCode: number;

  @Field(() => [SearchHit], {
    description: "One row per listing, best match first; the listings of a security in order, primary first",
  })
  results: SearchHit[];
}

@ObjectType({ description: "A listing of a security in an aggregated search group" })
export class GroupListing {
  @Field(() => ID, {
    description: "Stable id of the listing (exchange:symbol); for client caches",
  })
  id: string;

  @Field(() => String, { description: "Symbol of the listing" })
  symbol: string;

  @Field(() => String, { description: "MIC-style code of the listing's exchange" })
  exchange: string;

  @Field(() => String, { description: "ISO 4217 currency of the listing's prices" })
  currency: string;

  @Field(() => Boolean, { description: "True for the security's primary listing (the first one)" })
  isPrimary: boolean;
}

@ObjectType({ description: "One security with every listing it has" })
export class SearchGroup {
  @Field(() => ID, {
    description:
      "Stable id of the security: its ISIN, or its primary listing (exchange:symbol) without one; for client caches",
  })
  id: string;

  @Field(() => String, { description: "Name of the security" })
  name: string;

  @Field(() => String, {
    nullable: true,
    description: "ISIN of the security; null where it has none (crypto, forex) or it is unknown",
  })
  isin: string | null;

  @Field(() => SecurityTypeEnum, { description: "Kind of security" })
  type: SecurityTypeEnum;

  @Field(() => String, { description: "Symbol of the primary listing" })
  symbol: string;

  @Field(() => String, { description: "ISO 4217 currency of the primary listing" })
  currency: string;

  @Field(() => Float, {
    nullable: true,
    description: "In the security's own (reporting) currency; null where unknown or meaningless (forex)",
  })
  marketCapitalization: number | null;

  @Field(() => String, { description: "How the group matched: exact, prefix or name" })
  match: string;

  @Field(() => [GroupListing], { description: "Every listing of the security, primary first" })
  listings: GroupListing[];
}

@ObjectType({
  description:
    "Search results grouped by security: one row per security with its listings (REST: /v1/search/aggregated)",
})
export class AggregatedSearchResult {
  @Field(() => Int, { description: "Always 200, as in the plain search" })
  statusCode: number;

  @Field(() => String, { description: "The query as it was searched for" })
  query: string;

  @Field(() => [SearchGroup], { description: "One group per matched security, best match first" })
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
