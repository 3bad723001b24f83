import type { Statement } from "better-sqlite3";
import type { ChangeFeed, ChangeListener, ChangeNotice } from "../../domain/ports/source.changes";
import type { SqliteSource } from "./sqlite.source";

/** Beyond this many changed securities the search index is rebuilt whole rather than patched. */
export const MAX_PATCHED_SECURITIES = 2_000;

/** The log rows an import keeps (the newest): a reader further behind rebuilds its index whole. */
export const CHANGE_LOG_KEEP_ROWS = 10_000;

/**
 * Change notices of a SQLite store that other processes write (an import): `catchUp`, called before the search
 * index answers, compares `PRAGMA data_version` (about 3 µs, no table read) and, when another connection has
 * committed, reads the rows of `mdg_change_log` (migration 4) after the last version seen and tells the listeners
 * which securities changed, with their documents now. The listeners run before `catchUp` returns, so the request
 * that called it already sees the import.
 *
 * A reader whose next version was pruned (more than CHANGE_LOG_KEEP_ROWS changes since its last request) or whose
 * log went back (the file was replaced) is told "all".
 */
export class SqliteChangeFeed implements ChangeFeed {
  private readonly listeners: ChangeListener[] = [];
  private position: number | undefined;
  private seenData = -1;
  private after: Statement | undefined;
  private readonly onError: (err: unknown) => void;

  constructor(
    private readonly source: SqliteSource,
    opts: { onError?: (err: unknown) => void } = {},
  ) {
    this.onError = opts.onError ?? (() => undefined);
  }

  /** The last log version seen (0 for an empty log or a store without one). */
  get version(): number {
    return this.position ?? 0;
  }

  /** Listeners hear of commits made after the first subscription. */
  subscribe(listener: ChangeListener): void {
    if (this.position === undefined) this.start();
    this.listeners.push(listener);
  }

  catchUp(): void {
    if (this.position === undefined || !this.after) return;
    const data = this.source.dataVersion();
    if (data === this.seenData) return;
    this.seenData = data;
    const from = this.position;
    const rows = this.after.all(from) as [number, number | null][];
    let securities: ChangeNotice["securities"];
    if (rows.length === 0) {
      const max = this.maxVersion();
      if (max >= from) return;
      this.position = max;
      securities = "all";
    } else {
      this.position = rows[rows.length - 1]![0];
      const ids = [...new Set(rows.map((r) => r[1]))];
      securities =
        rows[0]![0] !== from + 1 || ids.includes(null) || ids.length > MAX_PATCHED_SECURITIES
          ? "all"
          : { ids: ids as number[], documents: this.source.searchDocumentsFor(ids as number[]) };
    }
    const notice: ChangeNotice = { from, to: this.position, securities };
    for (const listener of this.listeners) {
      try {
        const done = listener(notice);
        if (done) done.catch(this.onError);
      } catch (err) {
        this.onError(err);
      }
    }
  }

  private start(): void {
    const { db } = this.source;
    const hasLog =
      db
        .prepare(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'mdg_change_log'`)
        .pluck()
        .get() === 1;
    this.position = 0;
    // A store opened read-only before its migration: it takes no import, so nothing to follow.
    if (!hasLog) return;
    this.after = db.prepare(`SELECT version, security_id FROM mdg_change_log WHERE version > ? ORDER BY version`).raw();
    this.position = this.maxVersion();
    this.seenData = this.source.dataVersion();
  }

  private maxVersion(): number {
    return (
      (this.source.db.prepare(`SELECT max(version) FROM mdg_change_log`).pluck().get() as number | null | undefined) ??
      0
    );
  }
}
