import type Database from "better-sqlite3";
import type { SqlValue } from "./sample.model";
import type { RowWriter } from "../../sources/sample/sample.prices";

/** SQLite page cache during the build, in KiB (the helper thread's too). */
export const BUILD_CACHE_KIB = 4 * 1024;
/**
 * The build threads' young generation (V8's default is 48 MB): the build keeps its objects for long, so a smaller
 * nursery costs no measurable CPU and takes ~10 MB of resident memory off each thread.
 */
export const BUILD_THREAD_LIMITS = { maxYoungGenerationSizeMb: 8 } as const;

// Multi-row INSERTs cut the per-call overhead of better-sqlite3, which
// dominates single-row inserts (measured ~1.7 M rows/s against ~0.9 M).
const ROWS_PER_STATEMENT = 100;

/** Buffers rows and inserts them ROWS_PER_STATEMENT at a time with a prepared statement. */
export class BatchInserter implements RowWriter {
  private readonly width: number;
  private readonly args: SqlValue[];
  private readonly full: Database.Statement;
  private buffered = 0;
  count = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly tableName: string,
    private readonly columns: readonly string[],
    private readonly onRow: () => void,
  ) {
    this.width = columns.length;
    this.args = new Array<SqlValue>(this.width * ROWS_PER_STATEMENT).fill(null);
    this.full = db.prepare(this.sql(ROWS_PER_STATEMENT));
  }

  private sql(rows: number): string {
    const tuple = `(${this.columns.map(() => "?").join(",")})`;
    return `INSERT INTO ${this.tableName} (${this.columns.join(",")}) VALUES ${Array(rows).fill(tuple).join(",")}`;
  }

  write(values: readonly SqlValue[]): void {
    const width = this.width;
    const base = this.buffered * width;
    const args = this.args;
    for (let i = 0; i < width; i++) args[base + i] = values[i] as SqlValue;
    this.count++;
    if (++this.buffered === ROWS_PER_STATEMENT) {
      this.full.run(args);
      this.buffered = 0;
    }
    this.onRow();
  }

  flush(): void {
    if (this.buffered === 0) return;
    this.db.prepare(this.sql(this.buffered)).run(this.args.slice(0, this.buffered * this.width));
    this.buffered = 0;
  }
}
