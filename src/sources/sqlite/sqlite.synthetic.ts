import type { Database as Db, Statement } from "better-sqlite3";
import type { BarRow } from "../../domain/ports/source.types";

/** The daily bars of one computed path, columns as typed arrays (sample.series.ts DailySeries). */
export interface DailySeries {
  t: Float64Array;
  o: Float64Array;
  h: Float64Array;
  l: Float64Array;
  c: Float64Array;
  v: Float64Array;
}

/** What this module uses of src/sources/sample/sample.series.ts, loaded only on the generated sample. */
interface SeriesModule {
  SERIES_META_KEY: string;
  SERIES_FORMAT: string;
  seriesSynthesizer(meta: ReadonlyMap<string, string>): { run(row: Record<string, unknown>): DailySeries };
}

/** The meta key the generator writes beside its `sample_series` table (sample.series.ts SERIES_META_KEY). */
export const SERIES_META_KEY = "synthetic_daily_bars";

/**
 * The generator's module, required the first time a store turns out to be the generated sample: a user's store
 * never loads it (test/sources/source.factory.spec.ts). Synchronous, as every SQLite read here is.
 */
export function seriesModule(): SeriesModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("../sample/sample.series") as SeriesModule;
}

/**
 * The daily bars the generated sample computes instead of storing
 * (src/sources/sample/sample.series.ts), for the readers of daily bars: the
 * SQLite source and the ETF metrics worker.
 *
 * Asked only for listings without stored rows in the range. It answers
 * nothing unless the store's `meta` holds the generator's SERIES_META_KEY,
 * so a store the generator did not fill (a user's own) never gets a
 * computed bar; and a listing whose path is stored (`stored = 1`) is never
 * computed, so a range of it without rows stays empty.
 */

/** Paths kept computed: a candle asked again (another range, a page) reuses its path. */
export const CACHED_PATHS = 32;

export class SampleSeriesBars {
  private state: "unknown" | "off" | "on" = "unknown";
  private synth: { run(row: Record<string, unknown>): DailySeries } | null = null;
  private specs: Statement | null = null;
  private readonly cache = new Map<number, DailySeries>();
  /** Computed paths so far (for tests and the benchmark's notes). */
  computed = 0;

  constructor(
    private readonly db: Db,
    private readonly onQuery: () => void = () => undefined,
  ) {}

  /** True when this store is the generated sample with computed paths (read once, on first use). */
  enabled(): boolean {
    if (this.state === "unknown") {
      this.onQuery();
      const meta = new Map(
        (
          this.db
            .prepare(`SELECT key, value FROM meta WHERE key IN (?, 'seed', 'anchor_date', 'history_start')`)
            .all(SERIES_META_KEY) as { key: string; value: string }[]
        ).map((r) => [r.key, r.value]),
      );
      const mod = meta.has(SERIES_META_KEY) ? seriesModule() : null;
      if (!mod || meta.get(mod.SERIES_META_KEY) !== mod.SERIES_FORMAT) {
        this.state = "off";
      } else {
        this.synth = mod.seriesSynthesizer(meta);
        this.specs = this.db.prepare(
          `SELECT k.key AS k, s.* FROM json_each(?) k JOIN sample_series s ON s.listing_id = k.value AND s.stored = 0`,
        );
        this.state = "on";
      }
    }
    return this.state === "on";
  }

  /** The computed paths of `listingIds` (absent: stored, or not a sample listing); one statement for the uncached. */
  private paths(listingIds: readonly number[]): Map<number, DailySeries> {
    const out = new Map<number, DailySeries>();
    if (listingIds.length === 0 || !this.enabled()) return out;
    const missing: number[] = [];
    for (const id of listingIds) {
      const hit = this.cache.get(id);
      if (hit) {
        // Most recently used last.
        this.cache.delete(id);
        this.cache.set(id, hit);
        out.set(id, hit);
      } else if (!missing.includes(id)) missing.push(id);
    }
    if (missing.length === 0) return out;
    this.onQuery();
    const rows = (this.specs as Statement).all(JSON.stringify(missing)) as Record<string, unknown>[];
    for (const r of rows) {
      const id = r.listing_id as number;
      const series = (this.synth as { run(row: Record<string, unknown>): DailySeries }).run(r);
      this.computed++;
      out.set(id, series);
      this.cache.set(id, series);
      if (this.cache.size > CACHED_PATHS) this.cache.delete(this.cache.keys().next().value as number);
    }
    return out;
  }

  /**
   * Fills `out[i]` for the keys whose listing has a computed path: its bars
   * within [from, to]. Keys with stored bars are left as they are.
   */
  fill(keys: readonly { listingId: number; from: number; to: number }[], out: BarRow[][]): void {
    const need: number[] = [];
    keys.forEach((k, i) => {
      if ((out[i] as BarRow[]).length === 0) need.push(k.listingId);
    });
    const paths = this.paths(need);
    if (paths.size === 0) return;
    keys.forEach((k, i) => {
      const s = paths.get(k.listingId);
      if (!s || (out[i] as BarRow[]).length > 0) return;
      out[i] = slice(s, k.from, k.to);
    });
  }

  /** First and last bar times of the computed paths among `listingIds` (null where there is none). */
  coverage(listingIds: readonly number[]): ({ from: number; to: number } | null)[] {
    const paths = this.paths(listingIds);
    return listingIds.map((id) => {
      const s = paths.get(id);
      return s && s.t.length > 0 ? { from: s.t[0] as number, to: s.t[s.t.length - 1] as number } : null;
    });
  }
}

function lowerBound(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The bars of a computed path within [from, to] (also the PostgreSQL source's, postgres.synthetic.ts). */
export function slice(s: DailySeries, from: number, to: number): BarRow[] {
  const out: BarRow[] = [];
  for (let i = lowerBound(s.t, from); i < s.t.length && (s.t[i] as number) <= to; i++) {
    out.push({
      t: s.t[i] as number,
      o: s.o[i] as number,
      h: s.h[i] as number,
      l: s.l[i] as number,
      c: s.c[i] as number,
      v: s.v[i] as number,
    });
  }
  return out;
}
