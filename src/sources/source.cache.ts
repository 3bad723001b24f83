import { LRUCache } from "lru-cache";
import type { InstrumentRow } from "../domain/ports/source.types";
import { hasCapability, type MarketDataSource } from "../domain/ports/source.capabilities";

import type { InstrumentCacheStats } from "../platform/metrics/metrics";

export type { InstrumentCacheStats };

export interface CachedSource<T extends MarketDataSource> {
  source: T;
  stats: InstrumentCacheStats;
  /** Drops every entry and what it remembers of keys asked once (tests use it to count a cold lookup). */
  clear(): void;
}

/** A cached "no such symbol" (crypto spellings try up to four symbols, most of them unknown). */
const UNKNOWN = Symbol("unknown");
type Entry = InstrumentRow | typeof UNKNOWN;

/** Rough heap bytes of a row object: header, a slot per field, and the strings and boxed numbers it holds. */
function objectBytes(o: object): number {
  let n = 24;
  for (const v of Object.values(o)) n += 8 + (typeof v === "string" ? 24 + v.length : typeof v === "number" ? 16 : 0);
  return n;
}

/**
 * Rough heap bytes of one cache entry: its key twice (the LRU's map and
 * list), the LRU's slots, and the row's objects. Measured on the sample
 * store (scripts/bench/cache-footprint.ts): 13-15 % above the heap a found
 * instrument takes (about 1.0-1.7 KB), 3 % below an unknown key's (170 B).
 */
export function entryBytes(key: string, entry: InstrumentRow | null): number {
  const keyBytes = 2 * (24 + key.length) + 88;
  if (entry === null) return keyBytes;
  let n = keyBytes + 56 + objectBytes(entry.listing) + objectBytes(entry.security);
  if (entry.quote) n += objectBytes(entry.quote);
  if (entry.etfProfile) n += objectBytes(entry.etfProfile);
  return n;
}

function freeze(row: InstrumentRow): InstrumentRow {
  // Cached rows are shared by every request from now on: a change by one would show in the next.
  Object.freeze(row.listing);
  Object.freeze(row.security);
  if (row.quote) Object.freeze(row.quote);
  if (row.etfProfile) Object.freeze(row.etfProfile);
  return Object.freeze(row);
}

/** A key's answer from the source: its row, null (no such key), or an Error of that key alone. */
type Answer = InstrumentRow | null | Error;

/**
 * A source's answer for one key as callers get it: a row is frozen whether kept or not, so that a change to a row
 * fails the same way on every request.
 */
function settled(row: Answer | undefined): Answer {
  return row instanceof Error ? row : row ? freeze(row) : null;
}

/** The misses of one lookup kind gathered in one turn of the event loop, read by one call of the source. */
interface Batch {
  /** The data version its callers read before they missed: a caller joins only a batch of its own version. */
  readonly version: number;
  readonly keys: string[];
  /** Requests (calls of the cached lookup) waiting on it. */
  callers: number;
  answers?: Map<string, Answer>;
  /** Set when the source's call rejected. */
  failed?: { error: unknown };
  readonly done: Promise<void>;
}

/**
 * The misses of every request, gathered per turn of the event loop: a caller's keys join the batch the turn is
 * gathering, or the read already under way for a key (of the same data version), and the batch goes to the source
 * as ONE call once the turn's I/O callbacks have run (`setImmediate`). DataLoaders are per request, so without this
 * 50 concurrent requests that miss cost 50 statements; on PostgreSQL each costs 160-360 µs of node-postgres CPU in
 * the service and about 130 µs of a backend's, where one statement of 50 keys costs little more
 * than one of 2.
 *
 * What a caller gets is what its own call of the source would have answered: the rows are read after it asked, at
 * its data version or one it has not seen moved; an Error in place of one key's row goes to that key's callers
 * only; and when the whole call fails for a batch of several callers, each reads its keys again alone, so one
 * request's failure is never another's.
 */
function coalesce(
  source: MarketDataSource,
  read: (keys: readonly string[]) => Promise<(InstrumentRow | null)[]>,
): (keys: readonly string[], version: number) => Promise<Answer[]> {
  /** Each key being read (gathered this turn, or in flight), by the batch of the newest version that asked it. */
  const reading = new Map<string, Batch>();
  let open: Batch | undefined;

  const call = async (keys: readonly string[]): Promise<Answer[]> => {
    const max = source.maxBatchSize;
    if (max === undefined || keys.length <= max) return read.call(source, keys);
    const parts = [];
    for (let i = 0; i < keys.length; i += max) parts.push(read.call(source, keys.slice(i, i + max)));
    return (await Promise.all(parts)).flat();
  };

  const run = async (batch: Batch): Promise<void> => {
    if (open === batch) open = undefined;
    try {
      const rows = await call(batch.keys);
      const answers = new Map<string, Answer>();
      for (let i = 0; i < batch.keys.length; i++) answers.set(batch.keys[i]!, settled(rows[i]));
      batch.answers = answers;
    } catch (error) {
      batch.failed = { error };
    }
    for (const key of batch.keys) if (reading.get(key) === batch) reading.delete(key);
  };

  const start = (version: number): Batch => {
    let settle!: () => void;
    const batch: Batch = { version, keys: [], callers: 0, done: new Promise<void>((r) => (settle = r)) };
    setImmediate(() => void run(batch).then(settle));
    return batch;
  };

  return async (keys, version) => {
    if (keys.length === 0) return [];
    const from = new Array<Batch>(keys.length);
    let first: Batch | undefined;
    let others: Set<Batch> | undefined;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      let batch = reading.get(key);
      if (batch === undefined || batch.version !== version) {
        if (open === undefined || open.version !== version) open = start(version);
        batch = open;
        batch.keys.push(key);
        reading.set(key, batch);
      }
      from[i] = batch;
      if (first === undefined) first = batch;
      else if (batch !== first) (others ??= new Set()).add(batch);
    }
    first!.callers++;
    if (others) for (const b of others) b.callers++;
    await (others ? Promise.all([first!.done, ...[...others].map((b) => b.done)]) : first!.done);
    const out = new Array<Answer>(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const batch = from[i]!;
      if (batch.failed) {
        if (batch.callers === 1) throw batch.failed.error;
        return alone(keys);
      }
      out[i] = batch.answers!.get(keys[i]!)!;
    }
    return out;
  };

  /** A caller's own read, after a shared one failed: what it would have read without the others. */
  async function alone(keys: readonly string[]): Promise<Answer[]> {
    return (await call(keys)).map(settled);
  }
}

/**
 * The data source with its instrument lookups (by symbol, ISIN, CUSIP and WKN) cached
 * across requests, up to `maxBytes` of estimated heap (`entryBytes`), least
 * recently used dropped first.
 *
 * Every REST single-security call starts with that lookup, and in SQLite it
 * is five B-tree descents whose pages mostly miss the page cache: about a third
 * of the CPU of a quote that misses (BENCHMARKS.md, "Latest run": "REST quote"
 * against "REST quote, every listing"). The cache never answers
 * older data than the store held when the request arrived: the first batch of
 * each turn of the event loop reads the source's data version
 * (`MarketDataSource.dataVersion`, for SQLite `PRAGMA data_version`) and drops
 * every entry when it moved, so a row changed by a loader is read fresh on
 * the next request. Unknown keys are cached as well.
 *
 * A key is kept from its second miss on. A client sweeping every symbol once
 * (a nightly export) would otherwise push out the symbols asked again and
 * again, and fill the heap's old generation with rows that die at once. The
 * keys missed once are remembered, keys only (about 100 bytes each), in an LRU
 * of up to one key per 512 bytes of budget (at most 2^18). How often a key is
 * asked does not change with the data: when the version moves, the keys the
 * cache held count as missed once, so each is kept again on its next miss.
 *
 * Misses are read for all requests at once: those of one turn of the event loop go to the source as one call, and
 * a key already being read (at the same data version) is not read twice (`coalesce`). Each request still counts
 * its own misses, so two requests missing a key in one turn keep it, as two reads did.
 *
 * Returns the source unchanged when `maxBytes` is 0 or the source has no
 * data version or no instruments. Other methods read through (the cached source has the source
 * as its prototype), and calls that miss are made on `source`, so a metrics
 * wrapper below this one counts only real store calls.
 */
export function cacheInstruments<T extends MarketDataSource>(source: T, maxBytes: number): CachedSource<T> {
  const budget = Math.max(1, Math.floor(maxBytes));
  const cache = new LRUCache<string, Entry>({
    maxSize: budget,
    sizeCalculation: (entry, key) => Math.min(budget, entryBytes(key, entry === UNKNOWN ? null : entry)),
  });
  // lru-cache allocates its slots for `max` up front: at most 2^18 keys (about 6 MB of slots, 26 MB held full).
  const missedOnce = new LRUCache<string, true>({ max: Math.min(2 ** 18, Math.max(16, Math.floor(budget / 512))) });
  const stats = {
    hits: 0,
    misses: 0,
    invalidations: 0,
    get size() {
      return cache.size;
    },
    get bytes() {
      return cache.calculatedSize;
    },
  };
  const clear = () => {
    cache.clear();
    missedOnce.clear();
  };
  if (maxBytes <= 0 || typeof source.dataVersion !== "function" || !hasCapability(source, "instruments")) {
    return { source, stats, clear };
  }

  let version = source.dataVersion();
  // Read at most once per turn of the event loop: every batch of the requests that turn answers (their bytes had
  // arrived before it began) shares one reading. Read per batch, it takes 16 % of a cached quote's CPU.
  let readThisTurn = false;
  const nextTurn = () => (readThisTurn = false);

  /** The source's data version now, dropping the cache when it moved. */
  const current = (): number => {
    if (readThisTurn) return version;
    readThisTurn = true;
    setImmediate(nextTurn);
    const now = source.dataVersion!();
    if (now !== version) {
      version = now;
      if (cache.size > 0) {
        stats.invalidations++;
        for (const key of cache.keys()) missedOnce.set(key, true);
        cache.clear();
      }
    }
    return version;
  };

  const cached = (
    prefix: string,
    read: (keys: readonly string[]) => Promise<(InstrumentRow | null)[]>,
  ): ((keys: readonly string[]) => Promise<(InstrumentRow | null)[]>) => {
    const misses = coalesce(source, read);
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
      const missed = missing?.length ?? 0;
      stats.hits += keys.length - missed;
      stats.misses += missed;
      if (!missing) return out;
      const rows = await misses(missing, readAt);
      // Kept under the version read before them: a change committed since then moves the version, and the
      // next batch drops them. Only a batch that already saw a newer version while this one read discards them.
      const keep = version === readAt;
      for (let j = 0; j < missing.length; j++) {
        const row = rows[j]!;
        out[missingAt![j]!] = row as InstrumentRow | null;
        // A key's error is that key's answer (its load rejects), never cached.
        if (!keep || row instanceof Error) continue;
        const key = prefix + missing[j];
        if (missedOnce.delete(key)) cache.set(key, row ?? UNKNOWN);
        else missedOnce.set(key, true);
      }
      return out;
    };
  };

  const wrapped = Object.create(source) as T;
  Object.defineProperty(wrapped, "getInstrumentsBySymbols", { value: cached("s:", source.getInstrumentsBySymbols) });
  Object.defineProperty(wrapped, "getInstrumentsByIsins", { value: cached("i:", source.getInstrumentsByIsins) });
  Object.defineProperty(wrapped, "getInstrumentsByCusips", { value: cached("c:", source.getInstrumentsByCusips) });
  Object.defineProperty(wrapped, "getInstrumentsByWkns", { value: cached("w:", source.getInstrumentsByWkns) });
  return { source: wrapped, stats, clear };
}
