import { LRUCache } from "lru-cache";
import type { DataSource, InstrumentRow } from "./data-source";

/** Counters of the instrument cache, read by /metrics and by tests. */
export interface InstrumentCacheStats {
  /** Keys answered from the cache (a DataLoader batch of N keys counts N). */
  hits: number;
  /** Keys read from the data source. */
  misses: number;
  /** Times the whole cache was dropped because the source's data version changed. */
  invalidations: number;
  /** Entries held now (found instruments and unknown keys). */
  readonly size: number;
}

export interface CachedSource<T extends DataSource> {
  source: T;
  stats: InstrumentCacheStats;
  /** Drops every entry (tests use it to count a cold lookup). */
  clear(): void;
}

/** A cached "no such symbol" (crypto spellings try up to four symbols, most of them unknown). */
const UNKNOWN = Symbol("unknown");
type Entry = InstrumentRow | typeof UNKNOWN;

function freeze(row: InstrumentRow): InstrumentRow {
  // Cached rows are shared by every request from now on: a change by one would show in the next.
  Object.freeze(row.listing);
  Object.freeze(row.security);
  if (row.quote) Object.freeze(row.quote);
  if (row.etfProfile) Object.freeze(row.etfProfile);
  return Object.freeze(row);
}

/**
 * The data source with its instrument lookups (by symbol and by ISIN) cached
 * across requests, up to `maxEntries` keys, least recently used dropped first.
 *
 * Every REST single-security call starts with that lookup, and in SQLite it
 * is five B-tree descents whose pages mostly miss the page cache: most of what
 * such a call costs beyond HTTP (BENCHMARKS.md). The cache never answers
 * older data than the store holds: each batch first reads the source's data
 * version (`DataSource.dataVersion`, for SQLite `PRAGMA data_version`) and
 * drops every entry when it moved, so a row changed by a loader is read
 * fresh on the next request. Unknown keys are cached as well.
 *
 * Returns the source unchanged when `maxEntries` is 0 or the source has no
 * data version. Other methods read through (the cached source has the source
 * as its prototype), and calls that miss are made on `source`, so a metrics
 * wrapper below this one counts only real store calls.
 */
export function cacheInstruments<T extends DataSource>(source: T, maxEntries: number): CachedSource<T> {
  const cache = new LRUCache<string, Entry>({ max: Math.max(1, maxEntries) });
  const stats = {
    hits: 0,
    misses: 0,
    invalidations: 0,
    get size() {
      return cache.size;
    },
  };
  const clear = () => cache.clear();
  if (maxEntries === 0 || typeof source.dataVersion !== "function") return { source, stats, clear };

  let version = source.dataVersion();

  /** The source's data version now, dropping the cache when it moved. */
  const current = (): number => {
    const now = source.dataVersion!();
    if (now !== version) {
      version = now;
      if (cache.size > 0) stats.invalidations++;
      cache.clear();
    }
    return version;
  };

  const cached = (
    prefix: string,
    read: (keys: readonly string[]) => Promise<(InstrumentRow | null)[]>,
  ): ((keys: readonly string[]) => Promise<(InstrumentRow | null)[]>) => {
    return async (keys) => {
      const readAt = current();
      const out = new Array<InstrumentRow | null>(keys.length);
      let missing: string[] | undefined;
      let missingAt: number[] | undefined;
      for (let i = 0; i < keys.length; i++) {
        const hit = cache.get(prefix + keys[i]);
        if (hit === undefined) {
          (missing ??= []).push(keys[i]!);
          (missingAt ??= []).push(i);
        } else out[i] = hit === UNKNOWN ? null : hit;
      }
      if (!missing) {
        stats.hits += keys.length;
        return out;
      }
      stats.hits += keys.length - missing.length;
      stats.misses += missing.length;
      const rows = await read.call(source, missing);
      // Kept under the version read before them: a change committed since then moves the version, and the
      // next batch drops them. Only a batch that already saw a newer version while this one read discards them.
      const keep = version === readAt;
      for (let j = 0; j < missing.length; j++) {
        const row = rows[j] ?? null;
        out[missingAt![j]!] = row === null ? null : keep ? freeze(row) : row;
        if (keep) cache.set(prefix + missing[j], row ?? UNKNOWN);
      }
      return out;
    };
  };

  const wrapped = Object.create(source) as T;
  Object.defineProperty(wrapped, "getInstrumentsBySymbols", { value: cached("s:", source.getInstrumentsBySymbols) });
  Object.defineProperty(wrapped, "getInstrumentsByIsins", { value: cached("i:", source.getInstrumentsByIsins) });
  return { source: wrapped, stats, clear };
}
