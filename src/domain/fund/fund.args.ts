import { CUSIP_ARG, WKN_ARG } from "../instrument/instrument.types";
import { ArgsType, Field } from "type-graphql";

@ArgsType()
export class FundArgs {
  @Field(() => String, { nullable: true, description: "ISIN of the fund (12 characters with a correct check digit)" })
  isin?: string | null;

  @Field(() => String, { nullable: true, description: CUSIP_ARG })
  cusip?: string | null;

  @Field(() => String, { nullable: true, description: WKN_ARG })
  wkn?: string | null;

  @Field(() => String, { nullable: true, description: "Symbol of the fund's listing, instead of the ISIN" })
  symbol?: string | null;
}

@ArgsType()
export class FundsArgs {
  @Field(() => [String], { description: "ISINs, at most MDG_BULK_MAX_SYMBOLS (100 by default)" })
  isins: string[];
}
