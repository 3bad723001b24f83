import type { SearchDocument } from "./source.types";

/** What changed in a shared store between two of its versions, for what a replica keeps in memory (search). */
export interface ChangeNotice {
  from: number;
  to: number;
  /**
   * `all`: rebuild (a TRUNCATE, a log pruned past this replica, or too many to patch). Otherwise the securities
   * whose search documents changed, and their documents now: an id without a document was removed (or lost its
   * last listing).
   */
  securities: "all" | { ids: number[]; documents: SearchDocument[] };
}

export type ChangeListener = (notice: ChangeNotice) => Promise<void> | void;

/**
 * Change notices of a store other processes write (PostgreSQL: src/sources/postgres/postgres.changes.ts; SQLite:
 * src/sources/sqlite/sqlite.changes.ts).
 */
export interface ChangeFeed {
  /** Called on every change seen from now on, in order. */
  subscribe(listener: ChangeListener): void;
  /**
   * A store this process reads in process (SQLite): looks for commits now and tells the listeners before returning,
   * so the caller's request sees them. Absent: the feed polls on its own (PostgreSQL).
   */
  catchUp?(): void;
}
