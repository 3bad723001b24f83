import { ArgsType, Field, Float, ObjectType } from "type-graphql";

@ObjectType({ description: "One member of an index" })
export class IndexConstituent {
  @Field(() => String, { description: "Symbol of the member's primary listing" })
  symbol: string;

  @Field(() => String, { description: "Name of the member" })
  name: string;

  @Field(() => String, { nullable: true, description: "ISIN of the member; null where unknown" })
  isin: string | null;

  @Field(() => Float, { description: "Weight in the index, percent" })
  weight: number;
}

@ObjectType({ description: "The members of an index, by weight" })
export class IndexConstituents {
  @Field(() => String, { description: "Symbol of the index" })
  symbol: string;

  @Field(() => String, { description: "Name of the index" })
  name: string;

  @Field(() => [IndexConstituent], { description: "Heaviest first" })
  constituents: IndexConstituent[];
}

@ArgsType()
export class IndexConstituentsArgs {
  @Field(() => String, { description: "Symbol of the index" })
  symbol: string;
}
