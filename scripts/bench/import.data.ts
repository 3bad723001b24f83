import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";

/**
 * The import benchmark's input: `listings` securities on XNAS and `days` daily bars for each, in three files:
 *
 * - `securities.csv`: the listings, in the importer's columns (BENCH0001, BENCH0002, …);
 * - `daily-bars.csv`: the bars in the importer's columns (`symbol,day,o,h,l,c,v`);
 * - `daily-bars.store.csv`: the same bars in the store's own columns (`listing_id,t,o,h,l,c,v`), for the stores'
 *   bulk loaders (`sqlite3 .import`, psql `\copy`) to load unvalidated. Its ids are those a store without
 *   listings gives `securities.csv` in order (1, 2, …): load the securities into an empty store first.
 *
 * Prices are a seeded random walk with valid bars (h >= max(o, c), min(o, c) >= l >= 0), so every row passes
 * validation and the same arguments give the same bytes.
 *
 *   node -r @swc-node/register scripts/bench/import.data.ts <dir> [listings=100] [days=10000]
 */
export interface ImportBenchData {
  securities: string;
  bars: string;
  storeBars: string;
  rows: number;
}

/** Park–Miller: small, seeded, the same on every machine. */
function random(seed: number): () => number {
  let s = seed % 2147483647 || 1;
  return () => (s = (s * 48271) % 2147483647) / 2147483647;
}

async function write(out: WriteStream, text: string): Promise<void> {
  if (!out.write(text)) await once(out, "drain");
}

async function end(out: WriteStream): Promise<void> {
  out.end();
  await once(out, "finish");
}

export async function writeImportBenchData(dir: string, listings = 100, days = 10_000): Promise<ImportBenchData> {
  mkdirSync(dir, { recursive: true });
  const paths = {
    securities: join(dir, "securities.csv"),
    bars: join(dir, "daily-bars.csv"),
    storeBars: join(dir, "daily-bars.store.csv"),
  };
  const sec = createWriteStream(paths.securities);
  await write(sec, "symbol,exchange,currency,type,name\n");
  for (let i = 1; i <= listings; i++) {
    await write(sec, `BENCH${String(i).padStart(4, "0")},XNAS,USD,stock,Bench ${i} Inc.\n`);
  }
  await end(sec);

  const bars = createWriteStream(paths.bars);
  const store = createWriteStream(paths.storeBars);
  await write(bars, "symbol,day,o,h,l,c,v\n");
  await write(store, "listing_id,t,o,h,l,c,v\n");
  const first = Date.UTC(1990, 0, 1) / 1000;
  const rnd = random(20261126);
  const price = (x: number) => x.toFixed(4);
  for (let i = 1; i <= listings; i++) {
    const symbol = `BENCH${String(i).padStart(4, "0")}`;
    let close = 10 + rnd() * 190;
    let chunk = "";
    let storeChunk = "";
    for (let d = 0; d < days; d++) {
      const t = first + d * 86_400;
      const o = close * (1 + (rnd() - 0.5) * 0.02);
      close = Math.max(0.01, o * (1 + (rnd() - 0.5) * 0.04));
      const h = Math.max(o, close) * (1 + rnd() * 0.01);
      const l = Math.min(o, close) * (1 - rnd() * 0.01);
      const v = Math.floor(1_000 + rnd() * 5_000_000);
      const values = `${price(o)},${price(h)},${price(l)},${price(close)},${v}\n`;
      chunk += `${symbol},${new Date(t * 1000).toISOString().slice(0, 10)},${values}`;
      storeChunk += `${i},${t},${values}`;
      if (chunk.length > 1 << 16) {
        await write(bars, chunk);
        await write(store, storeChunk);
        chunk = storeChunk = "";
      }
    }
    await write(bars, chunk);
    await write(store, storeChunk);
  }
  await Promise.all([end(bars), end(store)]);
  return { ...paths, rows: listings * days };
}

if (require.main === module) {
  const [dir, listings, days] = process.argv.slice(2);
  if (!dir) {
    console.error("usage: import.data.ts <dir> [listings=100] [days=10000]");
    process.exitCode = 1;
  } else {
    writeImportBenchData(dir, listings ? Number(listings) : undefined, days ? Number(days) : undefined).then(
      (d) => console.log(`${d.rows} bars: ${d.bars}, ${d.storeBars}; listings: ${d.securities}`),
      (e: unknown) => {
        console.error(e);
        process.exitCode = 1;
      },
    );
  }
}
