import { ArgsType, Field } from "type-graphql";

@ArgsType()
export class DividendRangeArgs {
  @Field(() => String, { nullable: true, description: "First ex-date, YYYY-MM-DD" })
  from?: string | null;

  @Field(() => String, { nullable: true, description: "Last ex-date, YYYY-MM-DD" })
  to?: string | null;
}

@ArgsType()
export class MoneyCurrencyArgs {
  @Field(() => String, {
    nullable: true,
    description:
      "ISO 4217 code to convert the money figures into, each at the FX rate of its own day; default: as reported",
  })
  currency?: string | null;
}
