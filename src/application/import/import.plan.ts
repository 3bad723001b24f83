import type { ImportCounts, ImportListing, ImportResult, ImportSink } from "../../domain/ports/source.import";
import { RowError, text } from "./import.validate";

/** A mistake in the command line or a file that cannot be imported as a whole: the import fails (exit 1). */
export class ImportSetupError extends Error {
  override name = "ImportSetupError";
}

/**
 * How one file of a kind is read: the format recognised from its columns, each record turned into rows of the
 * store (or a RowError), and a batch written.
 */
export interface FilePlan<R> {
  format: string;
  /** Throws a RowError (or rejects with one) for a bad record; async only when it must ask the store. */
  parse(values: Record<string, unknown>): R[] | Promise<R[]>;
  write(rows: readonly R[]): Promise<ImportResult>;
  /**
   * A CSV line (without quotes) read straight to its row, without its record: the row `parse` would answer for
   * the line's record, or undefined to leave the line to `parse` (which then accepts or rejects it). Only for a
   * plan that skips no record and whose `write` answers no conflicts (a parsed line keeps its line number, not its
   * cells).
   */
  line?(text: string): R | undefined;
  /** Records this kind does not read (counted nowhere): a Ghostfolio export's market data, for securities. */
  skip?(values: Record<string, unknown>): boolean;
  /** Rows of another kind the file also wrote (a Ghostfolio export's securities), for the summary. */
  also?(): { kind: string; counts: ImportCounts } | undefined;
  /** Lines for the summary once the file is read: what it held and left out (an SEC document's partial quarters). */
  notes?(): string[];
}

export function hasAll(columns: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((c) => columns.includes(c));
}

export function missing(columns: readonly string[], wanted: readonly string[]): string {
  return wanted.filter((c) => !columns.includes(c)).join(", ");
}

/** Refuses a file that lacks a column the kind needs, naming the kind's columns and the missing ones. */
export function needColumns(kind: string, columns: readonly string[], wanted: readonly string[]): void {
  if (!hasAll(columns, wanted)) {
    throw new ImportSetupError(
      `${kind}: expected the columns ${wanted.join(",")} (missing ${missing(columns, wanted)})`,
    );
  }
}

export const noConflicts = <T extends object>(c: T): T & { conflicts: [] } => ({ ...c, conflicts: [] });

/**
 * The listing a row's `symbol` (and optional `exchange`) names, asked of the store once per symbol; a RowError when
 * the store has none.
 */
export function listingLookup(
  sink: ImportSink,
  column = "symbol",
): (values: Record<string, unknown>) => ImportListing | Promise<ImportListing> {
  const known = new Map<string, ImportListing | null>();
  const check = (symbol: string, listing: ImportListing | null): ImportListing => {
    if (!listing) throw new RowError(column, symbol, "no such listing in the store (import it with securities)");
    return listing;
  };
  return (values) => {
    const symbol = text(values, column);
    if (symbol === "") throw new RowError(column, values[column] ?? "", "required");
    const exchange = text(values, "exchange").toUpperCase() || undefined;
    const key = `${symbol}\u0000${exchange ?? ""}`;
    const hit = known.get(key);
    if (hit !== undefined) return check(symbol, hit);
    return sink.findListing(symbol, exchange).then((listing) => {
      known.set(key, listing);
      return check(symbol, listing);
    });
  };
}
