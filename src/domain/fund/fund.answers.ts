import type { RequestContext } from "../request.context";
import type { AllocationWeight, CountryWeight, SectorWeight } from "../exposure/exposure.types";
import type { FundArgs } from "./fund.args";
import {
  fundAllocation,
  fundCountries,
  fundHoldings,
  fundProfile,
  fundSectors,
  getFund,
  getFunds,
} from "./fund.service";
import type { Fund, FundHoldings, FundProfile } from "./fund.types";

/** Every answer about mutual funds, as the resolvers ask for them (the answer level: see etf.answers.ts). */
export interface FundAnswers {
  get(ctx: RequestContext, args: FundArgs): Promise<Fund>;
  /** In request order, null where an ISIN names no fund. */
  getMany(ctx: RequestContext, isins: readonly string[]): Promise<(Fund | null)[]>;
  /** Null when the source holds no profile of the fund. */
  profile(ctx: RequestContext, fund: Fund): Promise<FundProfile | null>;
  sectors(ctx: RequestContext, fund: Fund): Promise<SectorWeight[]>;
  countries(ctx: RequestContext, fund: Fund): Promise<CountryWeight[]>;
  holdings(ctx: RequestContext, fund: Fund): Promise<FundHoldings>;
  allocation(ctx: RequestContext, fund: Fund): Promise<AllocationWeight[]>;
}

/** The answers computed by the domain services from a row store's rows. */
export const ROW_STORE_FUND_ANSWERS: FundAnswers = Object.freeze({
  get: getFund,
  getMany: getFunds,
  profile: fundProfile,
  sectors: fundSectors,
  countries: fundCountries,
  holdings: fundHoldings,
  allocation: fundAllocation,
});
