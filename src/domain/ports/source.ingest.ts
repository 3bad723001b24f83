/**
 * What a provider's fetcher hands the ingest job: rows of the import kinds, written as the records of an import
 * file of that kind (its documented columns, docs/import.md), so that they pass through the import pipeline's own
 * parsing and validation unchanged. A provider knows no store ids: bars and quotes name their listing by symbol.
 */
export interface IngestRecord {
  /** Where the record stands in what the provider sent (a CSV line, a day's position), for the rejection report. */
  row: number;
  values: Record<string, unknown>;
}

/** One import of an ingest: a kind of the import pipeline, the columns its records use, and the records. */
export interface IngestLoad {
  /** An import kind: `exchanges`, `securities`, `fx`, `daily-bars` or `quotes`. */
  kind: string;
  /** The name the rejection report gives these records (the provider's file, or what was derived from it). */
  name: string;
  columns: readonly string[];
  /** Records in order; iterated once, lazily, so a long history is never held twice. */
  records: Iterable<IngestRecord>;
  /** How many records `records` yields, for progress. */
  count: number;
  /**
   * Create what the store lacks and leave what it has as it is: records whose key the store already holds (an
   * exchange's code, a listing's symbol) are left out, so an operator's own names and settings stay.
   */
  createOnly?: boolean;
}

/**
 * What an ingest keeps between its runs, beside the rows it wrote (for example the last day a dataset reached, so
 * the next run fetches only what is new). A store that cannot keep it makes every run a full one.
 */
export interface IngestStateStore {
  readIngestState(key: string): Promise<string | undefined>;
  writeIngestState(key: string, value: string): Promise<void>;
}

export function hasIngestState<T extends object>(sink: T): sink is T & IngestStateStore {
  const s = sink as Partial<IngestStateStore>;
  return typeof s.readIngestState === "function" && typeof s.writeIngestState === "function";
}

/** A company the store lists with the SEC's Central Index Key: its primary listing, by which its rows are imported. */
export interface IngestCompany {
  cik: number;
  symbol: string;
  exchange: string;
  currency: string;
  type: string;
  name: string;
}

/** A listing a provider fills: its symbol and the currency of its prices. */
export interface IngestListingRef {
  symbol: string;
  currency: string;
}

/** What a provider may read of the store before it calls: the companies it lists with a CIK, its crypto pairs. */
export interface IngestCompanies {
  companiesWithCik(): Promise<IngestCompany[]>;
  cryptoListings(): Promise<IngestListingRef[]>;
}

export function hasIngestCompanies<T extends object>(sink: T): sink is T & IngestCompanies {
  return typeof (sink as Partial<IngestCompanies>).companiesWithCik === "function";
}
