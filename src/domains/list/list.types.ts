import { ArgsType, Field, Float, ID, Int, ObjectType } from "type-graphql";
import { GroupListing } from "../search/search.types";
import { SecurityTypeEnum } from "../instrument/instrument.types";

@ObjectType({ description: "A security in an asset list, with all its listings" })
export class AssetListItem {
  @Field(() => ID, {
    description:
      "Stable id of the security: its ISIN, or its primary listing (exchange:symbol) without one; for client caches",
  })
  id: string;

  @Field(() => String, { description: "Symbol of the primary listing" })
  symbol: string;

  @Field(() => String)
  name: string;

  @Field(() => String, { nullable: true })
  isin: string | null;

  @Field(() => SecurityTypeEnum)
  type: SecurityTypeEnum;

  @Field(() => String, { description: "Exchange of the primary listing" })
  exchange: string;

  @Field(() => String, { description: "Currency of the primary listing" })
  currency: string;

  @Field(() => String, { nullable: true, description: "ISO 3166 alpha-2 of domicile" })
  country: string | null;

  @Field(() => String, { nullable: true })
  sector: string | null;

  @Field(() => Float, { nullable: true })
  marketCapitalization: number | null;

  @Field(() => [GroupListing])
  listings: GroupListing[];
}

@ObjectType()
export class AssetListPage {
  @Field(() => [AssetListItem])
  results: AssetListItem[];

  @Field(() => String, { nullable: true, description: "Pass as cursor for the next page; null on the last page" })
  nextCursor: string | null;
}

@ArgsType()
export class ListArgs {
  @Field(() => Int, {
    nullable: true,
    description: "Page size (default 100, at most MDG_LIST_MAX_LIMIT, 1000 by default)",
  })
  limit?: number | null;

  @Field(() => String, { nullable: true, description: "nextCursor of the previous page" })
  cursor?: string | null;
}
