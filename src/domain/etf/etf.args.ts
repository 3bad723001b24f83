import { CUSIP_ARG, WKN_ARG } from "../instrument/instrument.types";
import { ArgsType, Field, Int } from "type-graphql";

@ArgsType()
export class EtfArgs {
  @Field(() => String, { nullable: true, description: "Symbol of the ETF's listing" })
  symbol?: string | null;

  @Field(() => String, { nullable: true, description: "ISIN; resolves to the primary listing" })
  isin?: string | null;

  @Field(() => String, { nullable: true, description: CUSIP_ARG })
  cusip?: string | null;

  @Field(() => String, { nullable: true, description: WKN_ARG })
  wkn?: string | null;
}

@ArgsType()
export class EtfsArgs {
  @Field(() => [String], { description: "Symbols, at most MDG_BULK_MAX_SYMBOLS (100 by default)" })
  symbols: string[];
}

@ArgsType()
export class EtfMetricsArgs {
  @Field(() => Int, { nullable: true, description: "Start, Unix seconds (inclusive); default: one year before `to`" })
  from?: number | null;

  @Field(() => Int, { nullable: true, description: "End, Unix seconds (inclusive); default: now" })
  to?: number | null;

  @Field(() => String, { nullable: true, description: "D (default), W or M" })
  resolution?: string | null;

  @Field(() => String, { nullable: true, description: "ISO 4217 code to compute in; default: the listing's currency" })
  currency?: string | null;
}
