import { Args, Authorized, Ctx, FieldResolver, Query, Resolver, Root } from "type-graphql";
import type { Context } from "../context";
import { CountryWeight, SectorWeight } from "../exposure/exposure.types";
import { EtfArgs, EtfMetricsArgs, EtfsArgs } from "./etf.args";
import {
  etfCountryExposure,
  etfFundamentals,
  etfHoldings,
  etfMetrics,
  etfProfile,
  etfSectorExposure,
  getEtf,
  getEtfs,
} from "./etf.service";
import { Etf, EtfFundamentals, EtfHoldings, EtfMetrics, EtfProfile } from "./etf.types";

/** Thin: every field goes through the service, which goes through the request's loaders. */
@Resolver(() => Etf)
export class EtfResolver {
  @Authorized("etf")
  @Query(() => Etf, { description: "An ETF by symbol or ISIN" })
  etf(@Args(() => EtfArgs) args: EtfArgs, @Ctx() ctx: Context): Promise<Etf> {
    return getEtf(ctx, args);
  }

  @Authorized("etf")
  @Query(() => [Etf], { nullable: "items", description: "ETFs by symbol, in request order; null where a symbol names no ETF" })
  etfs(@Args(() => EtfsArgs) args: EtfsArgs, @Ctx() ctx: Context): Promise<(Etf | null)[]> {
    return getEtfs(ctx, args.symbols);
  }

  @FieldResolver(() => EtfProfile)
  profile(@Root() etf: Etf, @Ctx() ctx: Context): Promise<EtfProfile> {
    return etfProfile(ctx, etf);
  }

  @FieldResolver(() => EtfHoldings)
  holdings(@Root() etf: Etf, @Ctx() ctx: Context): Promise<EtfHoldings> {
    return etfHoldings(ctx, etf);
  }

  @FieldResolver(() => [SectorWeight], { description: "Weights by sector, largest first, summing to 100" })
  sectorExposure(@Root() etf: Etf, @Ctx() ctx: Context): Promise<SectorWeight[]> {
    return etfSectorExposure(ctx, etf);
  }

  @FieldResolver(() => [CountryWeight], { description: "Weights by country, largest first, summing to 100" })
  countryExposure(@Root() etf: Etf, @Ctx() ctx: Context): Promise<CountryWeight[]> {
    return etfCountryExposure(ctx, etf);
  }

  @FieldResolver(() => EtfFundamentals)
  fundamentals(@Root() etf: Etf, @Ctx() ctx: Context): Promise<EtfFundamentals> {
    return etfFundamentals(ctx, etf);
  }

  @FieldResolver(() => EtfMetrics, { description: "Performance over [from, to] from the daily closes, in one currency" })
  metrics(@Root() etf: Etf, @Args(() => EtfMetricsArgs) args: EtfMetricsArgs, @Ctx() ctx: Context): Promise<EtfMetrics> {
    return etfMetrics(ctx, etf, args);
  }
}
