import type { RequestContext } from "../request.context";
import type { CountryWeight, SectorWeight } from "../exposure/exposure.types";
import type { SecurityRef } from "../instrument/instrument.service";
import type { EtfMetricsArgs } from "./etf.args";
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
import type { Etf, EtfFundamentals, EtfHoldings, EtfMetrics, EtfProfile } from "./etf.types";

/**
 * Every answer about ETFs, as the resolvers ask for them: the seam between
 * the API and wherever the answers come from. Over a row store (SQLite,
 * PostgreSQL) the domain services compute them from rows; an upstream that
 * already answers documents shaped like these (`{symbol, atDate, holdings}`)
 * supplies its own implementation and skips the rows altogether.
 */
export interface EtfAnswers {
  get(ctx: RequestContext, ref: SecurityRef): Promise<Etf>;
  /** In request order, null where a symbol names no ETF. */
  getMany(ctx: RequestContext, symbols: readonly string[]): Promise<(Etf | null)[]>;
  /** Null when the source holds no profile of the ETF. */
  profile(ctx: RequestContext, etf: Etf): Promise<EtfProfile | null>;
  holdings(ctx: RequestContext, etf: Etf): Promise<EtfHoldings>;
  sectorExposure(ctx: RequestContext, etf: Etf): Promise<SectorWeight[]>;
  countryExposure(ctx: RequestContext, etf: Etf): Promise<CountryWeight[]>;
  /** Null when the source holds no profile of the ETF. */
  fundamentals(ctx: RequestContext, etf: Etf): Promise<EtfFundamentals | null>;
  metrics(ctx: RequestContext, etf: Etf, args: EtfMetricsArgs): Promise<EtfMetrics>;
}

/** The answers computed by the domain services from a row store's rows, through the request's loaders. */
export const ROW_STORE_ETF_ANSWERS: EtfAnswers = Object.freeze({
  get: getEtf,
  getMany: getEtfs,
  profile: etfProfile,
  holdings: etfHoldings,
  sectorExposure: etfSectorExposure,
  countryExposure: etfCountryExposure,
  fundamentals: etfFundamentals,
  metrics: etfMetrics,
});
