import type {
  BarRow,
  DividendRow,
  EtfProfileRow,
  FundProfileRow,
  IpoRow,
  QuarterlyFinancialsRow,
  QuoteRow,
  SecurityType,
} from "./source.types";

/** What one batch did: rows new to the store, rows whose stored values differed, rows already as given. */
export interface ImportCounts {
  inserted: number;
  changed: number;
  unchanged: number;
}

/** A market its listings trade on, keyed by its code (a MIC such as XNAS, or CRYPTO, FOREX, FUND). */
export interface ExchangeImportRow {
  code: string;
  name: string;
  /** ISO 3166 alpha-2, or null (CRYPTO, FOREX). */
  country: string | null;
  /** ISO 4217 of its listings. */
  currency: string;
  /** IANA time zone of its sessions. */
  timezone: string;
}

/**
 * A security with one of its listings, keyed by the listing's symbol. Optional fields left undefined keep what
 * the store holds; a new security takes its ISIN (when given) as its identity, so a second listing of a known
 * ISIN joins that security.
 */
export interface SecurityImportRow {
  symbol: string;
  exchange: string;
  /** ISO 4217 of the listing's prices (a minor unit already turned into its major currency). */
  currency: string;
  type: SecurityType;
  name: string;
  isin?: string;
  cusip?: string;
  wkn?: string;
  /** The SEC's Central Index Key of a US registrant. */
  cik?: number;
  country?: string;
  sector?: string;
  industry?: string;
}

/** A row of a batch the store refused as it stands (an ISIN already held by another security). */
export interface ImportConflict {
  /** The row's position in the batch. */
  index: number;
  column: string;
  reason: string;
}

/** A batch's counts, and the rows it left out (each counted nowhere else). */
export interface ImportResult extends ImportCounts {
  conflicts: ImportConflict[];
}

/** One daily bar in the store's convention: adjusted for every split the store knows. */
export interface DailyBarImportRow extends BarRow {
  listingId: number;
}

/** The latest quote of a listing; a second quote of the listing replaces it. */
export type QuoteImportRow = QuoteRow;

/** A split of a security: `numerator` new shares for `denominator` old ones, from `day` (YYYY-MM-DD) on. */
export interface SplitImportRow {
  securityId: number;
  day: string;
  numerator: number;
  denominator: number;
}

/** Units of `currency` per 1 USD on `day` (YYYY-MM-DD). */
export interface FxImportRow {
  currency: string;
  day: string;
  perUsd: number;
}

/** A 5-minute bar of a listing; `t` is the Unix second the bar starts. */
export interface IntradayBarImportRow extends BarRow {
  listingId: number;
}

/** An ETF's profile, keyed by its security; a second profile of the ETF replaces the first. */
export type EtfProfileImportRow = EtfProfileRow;

/** A fund's profile, keyed by its security. */
export type FundProfileImportRow = FundProfileRow;

/**
 * A position of an ETF's or a fund's holdings, keyed by the holder and `position` (1 = first). `holder` is the
 * holder's type: an ETF's positions carry `shares`, a fund's an `assetClass`.
 */
export interface HoldingImportRow {
  holderId: number;
  holder: "etf" | "fund";
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
  /** Percent of the holder's assets, 0 to 100. */
  weight: number;
  marketValue: number;
}

/** One weight of an ETF's or a fund's exposure, keyed by the holder, the exposure and `name`. */
export interface ExposureImportRow {
  holderId: number;
  holder: "etf" | "fund";
  /** `allocation` (asset classes) is kept for funds only. */
  exposure: "sector" | "country" | "allocation";
  /** A sector, an ISO 3166 alpha-2 country, or an asset class. */
  name: string;
  /** Percent, 0 to 100. */
  weight: number;
}

/** A quarter of a security's financials, keyed by the security and `periodEnd`. */
export interface FinancialsImportRow extends QuarterlyFinancialsRow {
  securityId: number;
}

/**
 * A dividend of a security, keyed by the security and `exDate`. `adjustedAmount` is not given: the store sets it
 * from `amount` and the splits it knows after the ex-date, and keeps it so when a split arrives later.
 */
export type DividendImportRow = Omit<DividendRow, "adjustedAmount">;

/** An initial public offering of a security, keyed by the security and its (expected) listing day. */
export type IpoImportRow = IpoRow;

export interface ImportListing {
  listingId: number;
  securityId: number;
  symbol: string;
  exchange: string;
  currency: string;
}

/** A split of a security: `numerator` new shares for `denominator` old ones, from `day` on. */
export interface ImportSplit {
  day: string;
  numerator: number;
  denominator: number;
}

/**
 * The write side of a row store, for the import pipeline. Every upsert is one transaction: a batch is wholly in
 * the store or wholly out. Rows are matched on their natural keys, so writing the same rows again changes nothing.
 * A service reading the same store sees the rows on its next request.
 */
export interface ImportSink {
  /**
   * Rows per batch (one transaction each) this store takes best, when the caller names no size: a store in another
   * process pays a few round trips and a commit a batch, and wants them fewer.
   */
  readonly batchRows?: number;
  /**
   * The listing of `symbol`, or null. With `exchange`, the listing of the same security on that exchange (null
   * when it has none there).
   */
  findListing(symbol: string, exchange?: string): Promise<ImportListing | null>;
  /** The exchange codes the store knows, with the currency of their listings. */
  exchanges(): Promise<ReadonlyMap<string, string>>;
  /** The splits the store knows for a security, oldest first. */
  splits(securityId: number): Promise<ImportSplit[]>;
  upsertExchanges(rows: readonly ExchangeImportRow[]): Promise<ImportCounts>;
  upsertSecurities(rows: readonly SecurityImportRow[]): Promise<ImportResult>;
  upsertDailyBars(rows: readonly DailyBarImportRow[]): Promise<ImportCounts>;
  upsertFx(rows: readonly FxImportRow[]): Promise<ImportCounts>;
  upsertQuotes(rows: readonly QuoteImportRow[]): Promise<ImportCounts>;
  /**
   * Stores splits and keeps the bars' convention (adjusted for every split the store knows): a new split divides
   * the prices of the security's earlier daily and intraday bars and the adjusted amounts of its earlier dividends by
   * its ratio and multiplies the bars' volumes, a changed one by the change, in the same transaction.
   */
  upsertSplits(rows: readonly SplitImportRow[]): Promise<ImportCounts>;
  /** The security holding `isin`, or null. */
  securityOfIsin(isin: string): Promise<number | null>;
  /** The type of a security (null when the store has no such security). */
  securityType(securityId: number): Promise<SecurityType | null>;
  upsertIntradayBars(rows: readonly IntradayBarImportRow[]): Promise<ImportCounts>;
  upsertEtfProfiles(rows: readonly EtfProfileImportRow[]): Promise<ImportCounts>;
  upsertFundProfiles(rows: readonly FundProfileImportRow[]): Promise<ImportCounts>;
  upsertHoldings(rows: readonly HoldingImportRow[]): Promise<ImportCounts>;
  upsertExposures(rows: readonly ExposureImportRow[]): Promise<ImportCounts>;
  /** Stores quarters and keeps each security's trailing-twelve-month EPS and net income in the same transaction. */
  upsertFinancials(rows: readonly FinancialsImportRow[]): Promise<ImportCounts>;
  /** Stores dividends with their amount adjusted for the splits the store knows after each ex-date. */
  upsertDividends(rows: readonly DividendImportRow[]): Promise<ImportCounts>;
  /** Stores offerings; a second row of a security's day replaces its figures and status. */
  upsertIpos(rows: readonly IpoImportRow[]): Promise<ImportCounts>;
  close(): Promise<void>;
}
