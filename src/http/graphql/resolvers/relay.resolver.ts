import { GraphQLJSONObject } from "graphql-scalars";
import { Args, ArgsType, Authorized, Ctx, Field, Int, Query, Resolver } from "type-graphql";
import { StockArgs } from "../../../domain/stock/stock.types";
import {
  relayedSecurity,
  type RelayedAnswer,
  type RelayedBody,
  type RelayedEndpoint,
} from "../../../domain/relay/relay.answers";
import type { Context } from "../../http.context";

@ArgsType()
export class RelayRangeArgs {
  @Field(() => Int, { nullable: true, description: "Start, Unix seconds" })
  from?: number | null;

  @Field(() => Int, { nullable: true, description: "End, Unix seconds" })
  to?: number | null;
}

@ArgsType()
export class EconomicCalendarArgs extends RelayRangeArgs {
  @Field(() => String, { nullable: true, description: 'The calendar asked for; the Python SDK sends "economics"' })
  event?: string | null;
}

/** The fields that were given, as the upstream takes them (absent ones left out). */
function given(fields: Record<string, string | number | null | undefined>): RelayedBody {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v != null)) as RelayedBody;
}

const GATEWAY_ONLY =
  "Served in gateway mode only (MDG_DATA_SOURCE=upstream), as the upstream answers it, in the Bavest Python SDK's " +
  "model; over a store, NOT_FOUND with reason NOT_AVAILABLE (docs/contract.md section 9).";

const describe = (what: string) => `${what}. ${GATEWAY_ONLY}`;

/**
 * The endpoints only an upstream serves (domain/relay/relay.answers.ts), one field each, answering the upstream's
 * JSON object as it came: the REST endpoints of the same names run these (their OpenAPI schemas state the shapes).
 * Security and calendar data alike need `stock`, the scope of company and market data (docs/contract.md section 8).
 */
@Resolver()
export class RelayResolver {
  private ask(ctx: Context, endpoint: RelayedEndpoint, body: RelayedBody): Promise<RelayedAnswer> {
    return ctx.answers.relay.answer(ctx, endpoint, body);
  }

  @Authorized("stock")
  @Query(() => GraphQLJSONObject, { description: describe("News about a company (REST stock/news)") })
  stockNews(@Args(() => StockArgs) args: StockArgs, @Ctx() ctx: Context): Promise<RelayedAnswer> {
    return this.ask(ctx, "stock/news", relayedSecurity(args));
  }

  @Authorized("stock")
  @Query(() => GraphQLJSONObject, { description: describe("ESG scores of a company (REST stock/esg)") })
  stockEsg(@Args(() => StockArgs) args: StockArgs, @Ctx() ctx: Context): Promise<RelayedAnswer> {
    return this.ask(ctx, "stock/esg", relayedSecurity(args));
  }

  @Authorized("stock")
  @Query(() => GraphQLJSONObject, {
    description: describe("Earnings call transcripts of a company (REST stock/earning_call_transacript)"),
  })
  earningCallTranscript(@Args(() => StockArgs) args: StockArgs, @Ctx() ctx: Context): Promise<RelayedAnswer> {
    return this.ask(ctx, "stock/earning_call_transacript", relayedSecurity(args));
  }

  @Authorized("stock")
  @Query(() => GraphQLJSONObject, {
    description: describe("Analysts' estimates of a company's figures (REST stock/analyst_estimates)"),
  })
  analystEstimates(@Args(() => StockArgs) args: StockArgs, @Ctx() ctx: Context): Promise<RelayedAnswer> {
    return this.ask(ctx, "stock/analyst_estimates", relayedSecurity(args));
  }

  @Authorized("stock")
  @Query(() => GraphQLJSONObject, { description: describe("News sentiment of a company (REST sentiment)") })
  sentiment(@Args(() => StockArgs) args: StockArgs, @Ctx() ctx: Context): Promise<RelayedAnswer> {
    return this.ask(ctx, "sentiment", relayedSecurity(args));
  }

  @Authorized("stock")
  @Query(() => GraphQLJSONObject, {
    description: describe("Social media sentiment of a company (REST sentiment/social)"),
  })
  socialSentiment(@Args(() => StockArgs) args: StockArgs, @Ctx() ctx: Context): Promise<RelayedAnswer> {
    return this.ask(ctx, "sentiment/social", relayedSecurity(args));
  }

  @Authorized("stock")
  @Query(() => GraphQLJSONObject, {
    description: describe("IPO prospectuses filed between from and to (REST stock/ipo/prospectus)"),
  })
  ipoProspectus(@Args(() => RelayRangeArgs) args: RelayRangeArgs, @Ctx() ctx: Context): Promise<RelayedAnswer> {
    return this.ask(ctx, "stock/ipo/prospectus", given({ from: args.from, to: args.to }));
  }

  @Authorized("stock")
  @Query(() => GraphQLJSONObject, {
    description: describe("Economic events between from and to (REST calender/economics)"),
  })
  economicCalendar(
    @Args(() => EconomicCalendarArgs) args: EconomicCalendarArgs,
    @Ctx() ctx: Context,
  ): Promise<RelayedAnswer> {
    return this.ask(ctx, "calender/economics", given({ event: args.event, from: args.from, to: args.to }));
  }

  @Authorized("stock")
  @Query(() => GraphQLJSONObject, { description: describe("Market news (REST news)") })
  marketNews(@Ctx() ctx: Context): Promise<RelayedAnswer> {
    return this.ask(ctx, "news", {});
  }
}
