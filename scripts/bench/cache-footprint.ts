/**
 * How much heap the instrument cache's entries take, against what its budget
 * counts for them (`entryBytes` in src/sources/source.cache.ts): fills a
 * cache with no practical limit from the store, one type of security at a
 * time, and reads the heap after full collections. Not part of `npm test`.
 *
 *   node --expose-gc -r @swc-node/register scripts/bench/cache-footprint.ts [store] [symbols per type]
 */
import { openSqliteSource } from "../../src/sources/sqlite/sqlite.source";
import { cacheInstruments } from "../../src/sources/source.cache";

const gc = globalThis.gc;
if (!gc) throw new Error("run with node --expose-gc");
const store = process.argv[2] ?? "data/bench-42-2026-11-20-e40876a3bd5e.db";
const perType = Number(process.argv[3] ?? 5000);
const source = openSqliteSource(store, { readonly: true, mustExist: true });

async function fill(name: string, symbols: string[]): Promise<void> {
  const cache = cacheInstruments(source, 2 ** 30);
  gc!();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < symbols.length; i += 100) {
    const batch = symbols.slice(i, i + 100);
    // Twice: a key is kept from its second miss on.
    await cache.source.getInstrumentsBySymbols(batch);
    await cache.source.getInstrumentsBySymbols(batch);
  }
  gc!();
  const heap = process.memoryUsage().heapUsed - before;
  const { size, bytes } = cache.stats;
  console.log(
    `${name.padEnd(8)} ${String(size).padStart(6)} entries  ` +
      `heap ${(heap / 2 ** 20).toFixed(2)} MiB (${Math.round(heap / size)} B each)  ` +
      `counted ${(bytes / 2 ** 20).toFixed(2)} MiB  heap/counted ${(heap / bytes).toFixed(2)}`,
  );
}

async function main(): Promise<void> {
  for (const type of ["stock", "etf", "fund", "crypto"]) {
    const symbols = source.db
      .prepare(
        "SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id " +
          "WHERE s.type = ? ORDER BY l.id LIMIT ?",
      )
      .pluck()
      .all(type, perType) as string[];
    await fill(type, symbols);
  }
  await fill(
    "unknown",
    Array.from({ length: perType }, (_, i) => `NO-SUCH-${i}`),
  );
  await source.close();
}

void main();
