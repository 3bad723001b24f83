import { Args, Authorized, Ctx, FieldResolver, ID, Query, Resolver, Root } from "type-graphql";
import type { Context } from "../../http.context";
import { AllocationWeight, CountryWeight, SectorWeight } from "../../../domain/exposure/exposure.types";
import { listingId } from "../../../domain/instrument/instrument.ids";
import { served } from "../../../domain/instrument/instrument.served";
import { FundArgs, FundsArgs } from "../../../domain/fund/fund.args";
import { Fund, FundHoldings, FundProfile } from "../../../domain/fund/fund.types";

/** Thin: every field is an answer of the request's `answers.fund` (fund.answers.ts). */
@Resolver(() => Fund)
export class FundResolver {
  @Authorized("fund")
  @Query(() => Fund, { description: "A mutual fund by ISIN (or symbol)" })
  fund(@Args(() => FundArgs) args: FundArgs, @Ctx() ctx: Context): Promise<Fund> {
    return ctx.answers.fund.get(ctx, args);
  }

  @Authorized("fund")
  @Query(() => [Fund], {
    nullable: "items",
    description: "Funds by ISIN, in request order; null where an ISIN names no fund",
  })
  funds(@Args(() => FundsArgs) args: FundsArgs, @Ctx() ctx: Context): Promise<(Fund | null)[]> {
    return ctx.answers.fund.getMany(ctx, args.isins);
  }

  @FieldResolver(() => ID, {
    description:
      "Stable id of this listing (exchange:symbol), the same across restarts and replicas; for client caches",
  })
  id(@Root() fund: Fund): string {
    // An upstream's fund answers name no exchange, so a fund it answers has no row and no id.
    return listingId(served(fund.row as Fund["row"] | undefined, "Fund.id").listing);
  }

  @FieldResolver(() => FundProfile, { nullable: true, description: "Null when the store holds no profile of the fund" })
  profile(@Root() fund: Fund, @Ctx() ctx: Context): Promise<FundProfile | null> {
    return ctx.answers.fund.profile(ctx, fund);
  }

  @FieldResolver(() => [SectorWeight], { description: "Weights by sector, largest first, summing to 100" })
  sectors(@Root() fund: Fund, @Ctx() ctx: Context): Promise<SectorWeight[]> {
    return ctx.answers.fund.sectors(ctx, fund);
  }

  @FieldResolver(() => [CountryWeight], { description: "Weights by country, largest first, summing to 100" })
  countries(@Root() fund: Fund, @Ctx() ctx: Context): Promise<CountryWeight[]> {
    return ctx.answers.fund.countries(ctx, fund);
  }

  @FieldResolver(() => FundHoldings, { description: "Latest reported holdings, largest weight first" })
  holdings(@Root() fund: Fund, @Ctx() ctx: Context): Promise<FundHoldings> {
    return ctx.answers.fund.holdings(ctx, fund);
  }

  @FieldResolver(() => [AllocationWeight], {
    description: "Equity, Bonds, Cash and Other, in that order, summing to 100",
  })
  allocationExposure(@Root() fund: Fund, @Ctx() ctx: Context): Promise<AllocationWeight[]> {
    return ctx.answers.fund.allocation(ctx, fund);
  }

  // What an upstream's fund answers do not carry (instrument.served.ts); a row store fills both.
  @FieldResolver(() => String, { description: "Name of the fund (share class)" })
  name(@Root() fund: Fund): string {
    return served(fund.name, "Fund.name");
  }

  @FieldResolver(() => String, { description: "ISO 4217 currency of the fund's listing" })
  currency(@Root() fund: Fund): string {
    return served(fund.currency, "Fund.currency");
  }
}
