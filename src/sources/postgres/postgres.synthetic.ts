import type { BarRow } from "../../domain/ports/source.types";
import { CACHED_PATHS, SERIES_META_KEY, seriesModule, slice, type DailySeries } from "../sqlite/sqlite.synthetic";

type Raw = Record<string, unknown>;
/** One statement against the store (counted by the source). */
type Query = (sql: string, params?: unknown[]) => Promise<Raw[]>;

/**
 * The generated sample's computed daily paths on PostgreSQL: the same
 * `sample_series` rows, `meta` keys and synthesizer as on SQLite
 * (src/sources/sqlite/sqlite.synthetic.ts), so the same seed and anchor give
 * the same bars on either store. Asynchronous where SQLite's is not; the rules
 * are the same: nothing unless `meta` names the generator's series format, and
 * never for a listing whose path is stored (`stored = 1`).
 */
export class PgSampleSeriesBars {
  private state: Promise<{ run(row: Raw): DailySeries } | null> | undefined;
  private readonly cache = new Map<number, DailySeries>();
  /** Computed paths so far (for tests and the benchmark's notes). */
  computed = 0;

  constructor(private readonly query: Query) {}

  /** The synthesizer when this store is the generated sample with computed paths (read once, on first use). */
  private synthesizer(): Promise<{ run(row: Raw): DailySeries } | null> {
    this.state ??= (async () => {
      const rows = await this.query(
        `SELECT key, value FROM meta WHERE key IN ($1, 'seed', 'anchor_date', 'history_start')`,
        [SERIES_META_KEY],
      );
      const meta = new Map(rows.map((r) => [r.key as string, r.value as string]));
      const mod = meta.has(SERIES_META_KEY) ? seriesModule() : null;
      if (!mod || meta.get(mod.SERIES_META_KEY) !== mod.SERIES_FORMAT) return null;
      return mod.seriesSynthesizer(meta);
    })();
    // A failed read is tried again on the next call rather than remembered.
    this.state.catch(() => (this.state = undefined));
    return this.state;
  }

  private async paths(listingIds: readonly number[]): Promise<Map<number, DailySeries>> {
    const out = new Map<number, DailySeries>();
    if (listingIds.length === 0) return out;
    const synth = await this.synthesizer();
    if (!synth) return out;
    const missing: number[] = [];
    for (const id of listingIds) {
      const hit = this.cache.get(id);
      if (hit) {
        this.cache.delete(id);
        this.cache.set(id, hit);
        out.set(id, hit);
      } else if (!missing.includes(id) && Number.isSafeInteger(id)) missing.push(id);
    }
    if (missing.length === 0) return out;
    const rows = await this.query(
      `SELECT * FROM sample_series WHERE listing_id = ANY($1::bigint[]) AND stored = 0 ORDER BY listing_id`,
      [missing],
    );
    for (const r of rows) {
      const id = r.listing_id as number;
      const series = synth.run(r);
      this.computed++;
      out.set(id, series);
      this.cache.set(id, series);
      if (this.cache.size > CACHED_PATHS) this.cache.delete(this.cache.keys().next().value as number);
    }
    return out;
  }

  /** Fills `out[i]` for the keys without stored bars whose listing has a computed path. */
  async fill(keys: readonly { listingId: number; from: number; to: number }[], out: BarRow[][]): Promise<void> {
    const need: number[] = [];
    keys.forEach((k, i) => {
      if ((out[i] as BarRow[]).length === 0) need.push(k.listingId);
    });
    const paths = await this.paths(need);
    if (paths.size === 0) return;
    keys.forEach((k, i) => {
      const s = paths.get(k.listingId);
      if (!s || (out[i] as BarRow[]).length > 0) return;
      out[i] = slice(s, k.from, k.to);
    });
  }

  /** First and last bar times of the computed paths among `listingIds` (null where there is none). */
  async coverage(listingIds: readonly number[]): Promise<({ from: number; to: number } | null)[]> {
    const paths = await this.paths(listingIds);
    return listingIds.map((id) => {
      const s = paths.get(id);
      return s && s.t.length > 0 ? { from: s.t[0] as number, to: s.t[s.t.length - 1] as number } : null;
    });
  }
}
