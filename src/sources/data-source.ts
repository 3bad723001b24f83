/**
 * The one interface every data source implements (embedded SQLite today;
 * PostgreSQL and an upstream HTTP API later). Batch methods take arrays of
 * keys and answer arrays of the same length and order, with `null` (or an
 * empty list) for a key the source does not know, so each one plugs straight
 * into a DataLoader created per request.
 *
 * Rows use the store's conventions: days `YYYY-MM-DD`, instants Unix seconds,
 * percentages as percent numbers, money beside an ISO 4217 currency.
 */

export type SecurityType = "stock" | "etf" | "fund" | "crypto" | "forex";

export interface SecurityRow {
  id: number;
  type: SecurityType;
  name: string;
  isin: string | null;
  cusip: string | null;
  country: string | null;
  sector: string | null;
  industry: string | null;
  currency: string;
  marketCap: number | null;
  sharesOutstanding: number | null;
  isAdr: boolean;
  isActive: boolean;
  description: string | null;
  website: string | null;
  ipoDate: string | null;
  nextEarningsDate: string | null;
  rank: number | null;
  /** Sum of the latest four quarters' EPS (reporting currency); null for non-stocks and stocks with fewer quarters. */
  epsTtm: number | null;
  /** Sum of the latest four quarters' net income (reporting currency); null as `epsTtm`. */
  netIncomeTtm: number | null;
}

export interface ListingRow {
  id: number;
  securityId: number;
  symbol: string;
  exchange: string;
  currency: string;
  isPrimary: boolean;
  quoteCurrency: string | null;
}

/**
 * A listing together with the security it lists and its latest quote: what a
 * symbol or ISIN resolves to, in one round trip (quotes are the hottest path).
 */
export interface InstrumentRow {
  listing: ListingRow;
  security: SecurityRow;
  quote: QuoteRow | null;
  /**
   * The ETF profile, where the source reads it with the instrument in one
   * statement (null: not an ETF, or an ETF without one). Undefined where it
   * did not, and the `etfProfile` loader reads it. Almost every ETF endpoint
   * needs it right after the instrument, so the SQLite store saves a query.
   */
  etfProfile?: EtfProfileRow | null;
}

export interface QuoteRow {
  listingId: number;
  t: number;
  c: number;
  o: number;
  h: number;
  l: number;
  pc: number;
  v: number;
  ma50: number | null;
  ma200: number | null;
  avgVolume: number | null;
}

export interface BarRow {
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
}

export interface BarRangeKey {
  listingId: number;
  /** Inclusive Unix seconds. */
  from: number;
  /** Inclusive Unix seconds. */
  to: number;
}

/** Where a listing's stored bars start and end (Unix seconds of the first and last bar), null when it has none. */
export interface BarCoverageRow {
  dailyFrom: number | null;
  dailyTo: number | null;
  intradayFrom: number | null;
  intradayTo: number | null;
}

export interface FxRangeKey {
  currency: string;
  /** Inclusive days `YYYY-MM-DD`. */
  fromDay: string;
  toDay: string;
}

export interface FxRow {
  day: string;
  /** Units of the currency per 1 USD. */
  perUsd: number;
}

export interface ExposureRow {
  name: string;
  weight: number;
}

export interface EtfProfileRow {
  securityId: number;
  issuer: string;
  assetClass: string;
  aum: number;
  nav: number;
  navCurrency: string;
  expenseRatio: number;
  inceptionDate: string;
  domicile: string;
  replication: string;
  distributionPolicy: string;
  benchmark: string;
  holdingsCount: number;
  holdingsDate: string;
}

export interface HoldingRow {
  position: number;
  holdingSecurityId: number | null;
  symbol: string | null;
  name: string;
  isin: string | null;
  cusip: string | null;
  assetClass: string | null;
  sector: string | null;
  country: string | null;
  shares: number | null;
  weight: number;
  marketValue: number;
}

export interface FundProfileRow {
  securityId: number;
  fundCompany: string;
  category: string;
  assetClass: string;
  aum: number;
  nav: number;
  navCurrency: string;
  ongoingCharge: number;
  entryCharge: number;
  inceptionDate: string;
  domicile: string;
  benchmark: string;
  riskClass: number;
  distributionPolicy: string;
  minInvestment: number;
  holdingsCount: number;
  holdingsDate: string;
}

export interface QuarterlyFinancialsRow {
  periodEnd: string;
  fiscalYear: number;
  fiscalQuarter: number;
  reportedDate: string;
  currency: string;
  revenue: number;
  costOfRevenue: number;
  grossProfit: number;
  operatingIncome: number;
  netIncome: number;
  eps: number;
  totalAssets: number;
  totalLiabilities: number;
  totalEquity: number;
  cash: number;
  totalDebt: number;
  sharesOutstanding: number;
  operatingCashFlow: number;
  capex: number;
  freeCashFlow: number;
  dividendsPaid: number;
}

export interface DividendRow {
  securityId: number;
  exDate: string;
  recordDate: string | null;
  payDate: string | null;
  declarationDate: string | null;
  amount: number;
  adjustedAmount: number;
  currency: string;
  frequency: number;
}

export interface SplitRow {
  day: string;
  numerator: number;
  denominator: number;
}

export interface DividendCalendarParams {
  fromDay: string;
  toDay: string;
  /** Restrict to these securities; all stocks and ETFs when absent. */
  securityIds?: number[];
  /** Keyset cursor: rows strictly after (exDate, securityId). */
  after?: { exDate: string; securityId: number };
  limit: number;
}

export interface ListSecuritiesParams {
  types: SecurityType[];
  /** Keyset cursor: securities with id greater than this. */
  afterId?: number;
  limit: number;
}

export interface IndexConstituentRow {
  securityId: number;
  weight: number;
  indexName: string;
}

/** What the search index is built from: one document per security with all its listings. */
export interface SearchDocument {
  security: Pick<SecurityRow, "id" | "type" | "name" | "isin" | "cusip" | "currency" | "marketCap" | "isAdr" | "isActive">;
  listings: Pick<ListingRow, "symbol" | "exchange" | "currency" | "isPrimary">[];
}

export interface ApiKeyRow {
  id: string;
  name: string;
  hash: string;
  scopes: string[];
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  ratePerMinute: number;
  dailyQuota: number;
}

/** Counters a test or a benchmark reads to prove batching (queries per request). */
export interface SourceStats {
  queries: number;
}

export interface DataSource {
  readonly kind: "sqlite" | "postgres" | "upstream";
  readonly stats: SourceStats;

  /** Listings by exact symbol (case as stored: upper case). */
  getInstrumentsBySymbols(symbols: readonly string[]): Promise<(InstrumentRow | null)[]>;
  /** The primary listing of the security with each ISIN. */
  getInstrumentsByIsins(isins: readonly string[]): Promise<(InstrumentRow | null)[]>;
  getSecuritiesByIds(ids: readonly number[]): Promise<(SecurityRow | null)[]>;
  /** Every listing of each security, primary first. */
  getListingsBySecurityIds(securityIds: readonly number[]): Promise<ListingRow[][]>;
  getQuotes(listingIds: readonly number[]): Promise<(QuoteRow | null)[]>;
  getDailyBars(keys: readonly BarRangeKey[]): Promise<BarRow[][]>;
  getIntradayBars(keys: readonly BarRangeKey[]): Promise<BarRow[][]>;
  /** First and last stored bar of each listing, daily and intraday: tells "no bars here" from "no bars at all". */
  getBarCoverage(listingIds: readonly number[]): Promise<BarCoverageRow[]>;
  getFxRates(keys: readonly FxRangeKey[]): Promise<FxRow[][]>;

  getEtfProfiles(securityIds: readonly number[]): Promise<(EtfProfileRow | null)[]>;
  getEtfHoldings(securityIds: readonly number[]): Promise<HoldingRow[][]>;
  getEtfSectorExposure(securityIds: readonly number[]): Promise<ExposureRow[][]>;
  getEtfCountryExposure(securityIds: readonly number[]): Promise<ExposureRow[][]>;

  getFundProfiles(securityIds: readonly number[]): Promise<(FundProfileRow | null)[]>;
  getFundHoldings(securityIds: readonly number[]): Promise<HoldingRow[][]>;
  getFundSectorExposure(securityIds: readonly number[]): Promise<ExposureRow[][]>;
  getFundCountryExposure(securityIds: readonly number[]): Promise<ExposureRow[][]>;
  getFundAllocation(securityIds: readonly number[]): Promise<ExposureRow[][]>;

  /** Quarters oldest first. */
  getQuarterlyFinancials(securityIds: readonly number[]): Promise<QuarterlyFinancialsRow[][]>;
  /** Dividends oldest first, announced ones included. */
  getDividends(securityIds: readonly number[]): Promise<DividendRow[][]>;
  getSplits(securityIds: readonly number[]): Promise<SplitRow[][]>;
  getDividendCalendar(params: DividendCalendarParams): Promise<DividendRow[]>;
  getIndexConstituents(indexSymbols: readonly string[]): Promise<IndexConstituentRow[][]>;

  listSecurities(params: ListSecuritiesParams): Promise<SecurityRow[]>;
  /** Streams every security with its listings, to build the search index at start. */
  searchDocuments(): AsyncIterable<SearchDocument[]>;

  findApiKeyByHash(hash: string): Promise<ApiKeyRow | null>;
  insertApiKey(row: ApiKeyRow): Promise<void>;
  listApiKeys(): Promise<ApiKeyRow[]>;
  revokeApiKey(id: string, at: number): Promise<boolean>;

  /**
   * A number that changes whenever rows this source answers may have changed:
   * what lets a cache of its rows (src/sources/source.cache.ts) outlive a
   * request and still never answer a row older than the last committed
   * change. Cheap and synchronous. A source without it is not cached.
   */
  dataVersion?(): number;
  /** Cheap round trip for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
