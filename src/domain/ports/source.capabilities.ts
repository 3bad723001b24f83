import { NotAvailableError } from "../../platform/errors";
import type {
  BarCoverageRow,
  LatestBarRow,
  BarRangeKey,
  BarRow,
  DividendCalendarParams,
  DividendRow,
  EarningsCalendarParams,
  EarningsDateRow,
  EtfProfileRow,
  ExposureRow,
  FundProfileRow,
  IpoCalendarParams,
  IpoRow,
  FxRangeKey,
  FxRow,
  HoldingRow,
  IndexConstituentRow,
  InstrumentRow,
  ListSecuritiesParams,
  ListingRow,
  PeersKey,
  QuarterlyFinancialsRow,
  QuoteRow,
  SearchDocument,
  SecurityRow,
  SplitRow,
} from "./source.types";

/**
 * What a market-data source can answer, one capability per kind of data.
 * A source declares the capabilities it has (`MarketDataSource.capabilities`)
 * and has the methods of each one it declares; the services reach a method
 * only through `requireCapability`, so a source without one answers 404
 * NOT_AVAILABLE instead of failing.
 *
 * Batch methods take arrays of keys and answer arrays of the same length and
 * order, with `null` (or an empty list) for a key the source does not know,
 * so each plugs straight into a DataLoader made per request
 * (src/domain/ports/source.loaders.ts). Keys are what clients send (symbols,
 * ISINs) or ids the store keeps (row stores persist them: the same id means
 * the same security after a restart and on every replica). Cursors are
 * opaque strings the source makes and reads back.
 *
 * Rows use the store's conventions: days `YYYY-MM-DD`, instants Unix
 * seconds, percentages as percent numbers, money beside an ISO 4217 currency.
 */

/** Securities, their listings and latest quotes: what every other answer starts from. */
export interface InstrumentsCapability {
  /** Listings by exact symbol (case as stored: upper case). */
  getInstrumentsBySymbols(symbols: readonly string[]): Promise<(InstrumentRow | null)[]>;
  /** The primary listing of the security with each ISIN. */
  getInstrumentsByIsins(isins: readonly string[]): Promise<(InstrumentRow | null)[]>;
  /** The primary listing of the security with each CUSIP (upper case, check digit valid). */
  getInstrumentsByCusips(cusips: readonly string[]): Promise<(InstrumentRow | null)[]>;
  /** The primary listing of the security with each WKN (German securities: `DE` ISINs carry it, isin.slice(5, 11)). */
  getInstrumentsByWkns(wkns: readonly string[]): Promise<(InstrumentRow | null)[]>;
  getSecuritiesByIds(ids: readonly number[]): Promise<(SecurityRow | null)[]>;
  /** Every listing of each security, primary first. */
  getListingsBySecurityIds(securityIds: readonly number[]): Promise<ListingRow[][]>;
  getQuotes(listingIds: readonly number[]): Promise<(QuoteRow | null)[]>;
  /**
   * The peers of each stock, nearest first, at most `limit`: active stocks of its sector, those of its industry
   * first, then by nearness of market capitalisation in US dollars (|log(cap / cap0)|, each capitalisation at
   * its currency's latest stored rate), then by id; the stock itself never, nor a stock without a capitalisation.
   * Without a capitalisation of its own, the largest first. Empty for a non-stock, a stock without a sector and
   * an unknown id. One bounded statement per batch (an index by sector), never a read of every security.
   */
  getStockPeers(keys: readonly PeersKey[]): Promise<InstrumentRow[][]>;
}

/** Daily and intraday OHLCV bars. */
export interface BarsCapability {
  /** Bars within [from, to], oldest first. */
  getDailyBars(keys: readonly BarRangeKey[]): Promise<BarRow[][]>;
  getIntradayBars(keys: readonly BarRangeKey[]): Promise<BarRow[][]>;
  /** First and last stored bar of each listing, daily and intraday: tells "no bars here" from "no bars at all". */
  getBarCoverage(listingIds: readonly number[]): Promise<BarCoverageRow[]>;
  /** The latest bar of each kind of security that has listings (`GET /v1/status`): a whole-store read, cached. */
  getLatestBars(): Promise<LatestBarRow[]>;
}

/** Daily exchange rates against the US dollar. */
export interface FxCapability {
  /** Rates within [fromDay, toDay], oldest first. */
  getFxRates(keys: readonly FxRangeKey[]): Promise<FxRow[][]>;
}

/** ETF profiles, holdings and exposures. A source with it may also fill `InstrumentRow.etfProfile`. */
export interface EtfReferenceCapability {
  getEtfProfiles(securityIds: readonly number[]): Promise<(EtfProfileRow | null)[]>;
  getEtfHoldings(securityIds: readonly number[]): Promise<HoldingRow[][]>;
  getEtfSectorExposure(securityIds: readonly number[]): Promise<ExposureRow[][]>;
  getEtfCountryExposure(securityIds: readonly number[]): Promise<ExposureRow[][]>;
}

/** Mutual fund profiles, holdings, exposures and allocation. */
export interface FundReferenceCapability {
  getFundProfiles(securityIds: readonly number[]): Promise<(FundProfileRow | null)[]>;
  getFundHoldings(securityIds: readonly number[]): Promise<HoldingRow[][]>;
  getFundSectorExposure(securityIds: readonly number[]): Promise<ExposureRow[][]>;
  getFundCountryExposure(securityIds: readonly number[]): Promise<ExposureRow[][]>;
  getFundAllocation(securityIds: readonly number[]): Promise<ExposureRow[][]>;
}

/** Reported quarterly financial statements. */
export interface FundamentalsCapability {
  /** Quarters oldest first. */
  getQuarterlyFinancials(securityIds: readonly number[]): Promise<QuarterlyFinancialsRow[][]>;
  /**
   * Earnings dates of every stock within the days asked, by (day, security), at most `limit`: the reported dates
   * of quarters, and each stock's next earnings date unless a quarter was reported that day. Indexes by day on
   * both, so a window reads its rows only.
   */
  getEarningsCalendar(params: EarningsCalendarParams): Promise<EarningsDateRow[]>;
}

/** Dividends, splits and IPOs (corporate actions), and the calendars across securities. */
export interface DividendsCapability {
  /** Dividends oldest first, announced ones included. */
  getDividends(securityIds: readonly number[]): Promise<DividendRow[][]>;
  getSplits(securityIds: readonly number[]): Promise<SplitRow[][]>;
  /**
   * One page of the calendar by (ex-date, security), keyset paginated. Null
   * when `cursor` is not one this source made for the calendar.
   */
  getDividendCalendar(params: DividendCalendarParams): Promise<Page<DividendRow> | null>;
  /**
   * Initial public offerings within the days asked, by (day, security), at most `limit`; read through the index by
   * day, so a window reads its rows only.
   */
  getIpoCalendar(params: IpoCalendarParams): Promise<IpoRow[]>;
}

/** Index constituents with their weights. */
export interface IndicesCapability {
  getIndexConstituents(indexSymbols: readonly string[]): Promise<IndexConstituentRow[][]>;
}

/** Whole lists of securities, page by page. */
export interface ListsCapability {
  /** One page of the list, by the store's order. Null when `cursor` is not one this source made for `params.list`. */
  listSecurities(params: ListSecuritiesParams): Promise<Page<SecurityRow> | null>;
}

/** Every security at once, for the in-process search index built at start. */
export interface SearchCorpusCapability {
  /** Streams every security with its listings, in pages. */
  searchDocuments(): AsyncIterable<SearchDocument[]>;
}

/** One page of a keyset-paginated answer: `nextCursor` is opaque, null on the last page. */
export interface Page<T> {
  rows: T[];
  nextCursor: string | null;
}

/** Every capability by name: the names a source declares and `requireCapability` takes. */
export interface Capabilities {
  instruments: InstrumentsCapability;
  bars: BarsCapability;
  fx: FxCapability;
  etfReference: EtfReferenceCapability;
  fundReference: FundReferenceCapability;
  fundamentals: FundamentalsCapability;
  dividends: DividendsCapability;
  indices: IndicesCapability;
  lists: ListsCapability;
  searchCorpus: SearchCorpusCapability;
}

export type CapabilityName = keyof Capabilities;

/** The methods of each capability: what "has the capability" means at run time (and in the conformance suite). */
export const CAPABILITY_METHODS: { readonly [K in CapabilityName]: readonly (keyof Capabilities[K])[] } = {
  instruments: [
    "getInstrumentsBySymbols",
    "getInstrumentsByIsins",
    "getInstrumentsByCusips",
    "getInstrumentsByWkns",
    "getSecuritiesByIds",
    "getListingsBySecurityIds",
    "getQuotes",
    "getStockPeers",
  ],
  bars: ["getDailyBars", "getIntradayBars", "getBarCoverage", "getLatestBars"],
  fx: ["getFxRates"],
  etfReference: ["getEtfProfiles", "getEtfHoldings", "getEtfSectorExposure", "getEtfCountryExposure"],
  fundReference: [
    "getFundProfiles",
    "getFundHoldings",
    "getFundSectorExposure",
    "getFundCountryExposure",
    "getFundAllocation",
  ],
  fundamentals: ["getQuarterlyFinancials", "getEarningsCalendar"],
  dividends: ["getDividends", "getSplits", "getDividendCalendar", "getIpoCalendar"],
  indices: ["getIndexConstituents"],
  lists: ["listSecurities"],
  searchCorpus: ["searchDocuments"],
};

export const CAPABILITY_NAMES = Object.keys(CAPABILITY_METHODS) as CapabilityName[];

/** What a client is told when the configured source lacks a capability (the 404's message). */
const WHAT: Record<CapabilityName, string> = {
  instruments: "instruments and quotes",
  bars: "price bars",
  fx: "exchange rates",
  etfReference: "ETF reference data (profiles, holdings, exposures)",
  fundReference: "fund reference data (profiles, holdings, exposures)",
  fundamentals: "fundamentals (financial statements)",
  dividends: "dividends, splits and IPOs",
  indices: "index constituents",
  lists: "security lists",
  searchCorpus: "the search corpus",
};

/** Counters a test or a benchmark reads to prove batching (queries per request). */
export interface SourceStats {
  queries: number;
}

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every capability's methods together: what a full row store (SQLite, PostgreSQL) implements. */
export type AllCapabilities = UnionToIntersection<Capabilities[CapabilityName]>;

/** What every source has, whatever it serves. */
export interface SourceBase {
  readonly kind: "sqlite" | "postgres" | "upstream";
  readonly stats: SourceStats;
  /** The capabilities this source serves; it has the methods of each (the conformance suite checks it). */
  readonly capabilities: ReadonlySet<CapabilityName>;
  /**
   * Keys per call the source accepts, where it has a limit (an upstream API's
   * batch size, a database's bind-parameter count): the loaders split larger
   * batches. Unset: any number.
   */
  readonly maxBatchSize?: number;
  /**
   * A number that changes whenever rows this source answers may have changed:
   * what lets a cache of its rows (src/sources/source.cache.ts) outlive a
   * request and still never answer a row older than the last committed
   * change. Cheap and synchronous. A source without it is not cached.
   */
  dataVersion?(): number;
  /**
   * A worker module that computes ETF metrics reading this store itself, off
   * the event loop (src/domain/etf/etf.metrics.jobs.ts has its messages), and
   * the store it opens. Unset or null: the service computes them in process
   * from the loaders' rows.
   */
  etfMetricsWorker?(): MetricsWorker | null;
  /** Cheap round trip for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A worker module (a file piscina loads) and the store it reads. */
export interface MetricsWorker {
  file: string;
  store: string;
}

/** A source of market data: the methods of the capabilities it declares are present, the others absent. */
export type MarketDataSource = SourceBase & Partial<AllCapabilities>;

/** A source known to have capability `K`. */
export type SourceWith<K extends CapabilityName> = MarketDataSource & Capabilities[K];

/** A row store: every capability, keyed by ids the store persists (SQLite today, PostgreSQL next). */
export type RowStore = SourceBase & AllCapabilities;

export function hasCapability<K extends CapabilityName>(source: MarketDataSource, name: K): source is SourceWith<K> {
  return source.capabilities.has(name);
}

/** The source as one with capability `name`; NOT_AVAILABLE (404) when the configured source lacks it. */
export function requireCapability<K extends CapabilityName>(source: MarketDataSource, name: K): SourceWith<K> {
  if (!hasCapability(source, name)) throw notAvailable(source, name);
  return source;
}

/** The error a request gets for a capability its source lacks. */
export function notAvailable(source: MarketDataSource, name: CapabilityName): NotAvailableError {
  return new NotAvailableError(`this service's data source (${source.kind}) does not serve ${WHAT[name]}`, name);
}
