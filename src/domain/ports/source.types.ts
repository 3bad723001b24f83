/**
 * The rows and keys of market data as the sources answer them; the
 * capabilities that answer them are in src/domain/ports/source.capabilities.ts.
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

/** A stock whose peers are asked for, and how many at most. */
export interface PeersKey {
  securityId: number;
  limit: number;
}

/** Where a listing's stored bars start and end (Unix seconds of the first and last bar), null when it has none. */
export interface BarCoverageRow {
  dailyFrom: number | null;
  dailyTo: number | null;
  intradayFrom: number | null;
  intradayTo: number | null;
}

/** The latest stored bar of any listing of one kind of security (`GET /v1/status`). */
export interface LatestBarRow {
  type: SecurityType;
  /** Unix seconds of the latest daily bar (its day's 00:00 UTC); null when none of its listings has one. */
  dailyTo: number | null;
  /** Unix seconds of the latest intraday bar; null when none. */
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
  /** The figures of OPTIONAL_FINANCIAL_FIGURES: null where the report has none (or the store predates them). */
  currentAssets: number | null;
  currentLiabilities: number | null;
  inventory: number | null;
  accountsReceivable: number | null;
  accountsPayable: number | null;
  depreciationAmortization: number | null;
  stockBasedCompensation: number | null;
}

/** The money and share figures of a reported quarter, in the order the stores' columns hold them. */
export const FINANCIAL_FIGURES = [
  "revenue",
  "costOfRevenue",
  "grossProfit",
  "operatingIncome",
  "netIncome",
  "eps",
  "totalAssets",
  "totalLiabilities",
  "totalEquity",
  "cash",
  "totalDebt",
  "sharesOutstanding",
  "operatingCashFlow",
  "capex",
  "freeCashFlow",
  "dividendsPaid",
] as const satisfies readonly (keyof QuarterlyFinancialsRow)[];

/**
 * Balance-sheet and cash-flow details a report may lack (a bank has no current assets, a software company no
 * inventory): stored as null then, where a missing figure of FINANCIAL_FIGURES leaves the quarter out. In the
 * stores' column order after FINANCIAL_FIGURES.
 */
export const OPTIONAL_FINANCIAL_FIGURES = [
  "currentAssets",
  "currentLiabilities",
  "inventory",
  "accountsReceivable",
  "accountsPayable",
  "depreciationAmortization",
  "stockBasedCompensation",
] as const satisfies readonly (keyof QuarterlyFinancialsRow)[];

/** `costOfRevenue` → `cost_of_revenue`: a figure's column in both stores. */
export const columnOf = (field: string): string => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

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
  /** Opaque: the `nextCursor` of the previous page. */
  cursor?: string;
  limit: number;
}

/** Earnings dates within [fromDay, toDay]: the first `limit` by (day, security). */
export interface EarningsCalendarParams {
  fromDay: string;
  toDay: string;
  limit: number;
}

/**
 * A stock's earnings date: a reported quarter's (its fiscal year and quarter set) or the stock's next one, not yet
 * reported (both null).
 */
export interface EarningsDateRow {
  securityId: number;
  day: string;
  fiscalYear: number | null;
  fiscalQuarter: number | null;
}

/** Initial public offerings within [fromDay, toDay]: the first `limit` by (day, security). */
export interface IpoCalendarParams {
  fromDay: string;
  toDay: string;
  limit: number;
}

export type IpoStatus = "expected" | "priced" | "withdrawn";

/**
 * An initial public offering as stored: the security offered, the day it lists (or was to list), the exchange,
 * and the shares and price offered (in `currency`), null where the offering has none yet (or no longer).
 */
export interface IpoRow {
  securityId: number;
  day: string;
  exchange: string;
  sharesOffered: number | null;
  offerPrice: number | null;
  currency: string;
  status: IpoStatus;
}

export interface ListSecuritiesParams {
  /** The list's name, part of its cursors: a cursor of one list is refused by another. */
  list: string;
  types: SecurityType[];
  /** Opaque: the `nextCursor` of the previous page. */
  cursor?: string;
  limit: number;
}

export interface IndexConstituentRow {
  securityId: number;
  weight: number;
  indexName: string;
}

/** What the search index is built from: one document per security with all its listings. */
export interface SearchDocument {
  security: Pick<
    SecurityRow,
    "id" | "type" | "name" | "isin" | "cusip" | "currency" | "marketCap" | "isAdr" | "isActive"
  >;
  listings: Pick<ListingRow, "symbol" | "exchange" | "currency" | "isPrimary">[];
}
