import { Args, Authorized, Ctx, FieldResolver, ID, Query, Resolver, Root } from "type-graphql";
import type { Context } from "../../http.context";
import { CountryWeight, SectorWeight } from "../../../domain/exposure/exposure.types";
import { listingId } from "../../../domain/instrument/instrument.ids";
import { served } from "../../../domain/instrument/instrument.served";
import { EtfArgs, EtfMetricsArgs, EtfsArgs } from "../../../domain/etf/etf.args";
import { Etf, EtfFundamentals, EtfHoldings, EtfMetrics, EtfProfile } from "../../../domain/etf/etf.types";

/** Thin: every field is an answer of the request's `answers.etf` (etf.answers.ts), over the loaders or an upstream. */
@Resolver(() => Etf)
export class EtfResolver {
  @Authorized("etf")
  @Query(() => Etf, { description: "An ETF by symbol or ISIN" })
  etf(@Args(() => EtfArgs) args: EtfArgs, @Ctx() ctx: Context): Promise<Etf> {
    return ctx.answers.etf.get(ctx, args);
  }

  @Authorized("etf")
  @Query(() => [Etf], {
    nullable: "items",
    description: "ETFs by symbol, in request order; null where a symbol names no ETF",
  })
  etfs(@Args(() => EtfsArgs) args: EtfsArgs, @Ctx() ctx: Context): Promise<(Etf | null)[]> {
    return ctx.answers.etf.getMany(ctx, args.symbols);
  }

  @FieldResolver(() => ID, {
    description:
      "Stable id of this listing (exchange:symbol), the same across restarts and replicas; for client caches",
  })
  id(@Root() etf: Etf): string {
    return listingId({ exchange: served(etf.exchange, "Etf.id"), symbol: etf.symbol });
  }

  @FieldResolver(() => EtfProfile, { nullable: true, description: "Null when the store holds no profile of the ETF" })
  profile(@Root() etf: Etf, @Ctx() ctx: Context): Promise<EtfProfile | null> {
    return ctx.answers.etf.profile(ctx, etf);
  }

  @FieldResolver(() => EtfHoldings, { description: "Latest reported holdings, largest weight first" })
  holdings(@Root() etf: Etf, @Ctx() ctx: Context): Promise<EtfHoldings> {
    return ctx.answers.etf.holdings(ctx, etf);
  }

  @FieldResolver(() => [SectorWeight], { description: "Weights by sector, largest first, summing to 100" })
  sectorExposure(@Root() etf: Etf, @Ctx() ctx: Context): Promise<SectorWeight[]> {
    return ctx.answers.etf.sectorExposure(ctx, etf);
  }

  @FieldResolver(() => [CountryWeight], { description: "Weights by country, largest first, summing to 100" })
  countryExposure(@Root() etf: Etf, @Ctx() ctx: Context): Promise<CountryWeight[]> {
    return ctx.answers.etf.countryExposure(ctx, etf);
  }

  @FieldResolver(() => EtfFundamentals, {
    nullable: true,
    description: "Null when the store holds no profile of the ETF",
  })
  fundamentals(@Root() etf: Etf, @Ctx() ctx: Context): Promise<EtfFundamentals | null> {
    return ctx.answers.etf.fundamentals(ctx, etf);
  }

  @FieldResolver(() => EtfMetrics, {
    description: "Performance over [from, to] from the daily closes, in one currency",
  })
  metrics(
    @Root() etf: Etf,
    @Args(() => EtfMetricsArgs) args: EtfMetricsArgs,
    @Ctx() ctx: Context,
  ): Promise<EtfMetrics> {
    return ctx.answers.etf.metrics(ctx, etf, args);
  }

  // What an upstream's ETF answers do not carry (instrument.served.ts); a row store fills both.
  @FieldResolver(() => String, { description: "ISO 4217 currency of the listing" })
  currency(@Root() etf: Etf): string {
    return served(etf.currency, "Etf.currency");
  }

  @FieldResolver(() => String, { description: "MIC-style code of the listing's exchange" })
  exchange(@Root() etf: Etf): string {
    return served(etf.exchange, "Etf.exchange");
  }
}
