import { ArgsType, Field } from "type-graphql";

@ArgsType()
export class DividendRangeArgs {
  @Field(() => String, { nullable: true, description: "First ex-date, YYYY-MM-DD" })
  from?: string | null;

  @Field(() => String, { nullable: true, description: "Last ex-date, YYYY-MM-DD" })
  to?: string | null;
}
