// @requires-env DATABASE_URL postgres://postgres@127.0.0.1:5432/test
import { loadConfig } from "../../../src/platform/config";
import type { InstrumentRow } from "../../../src/domain/ports/source.types";
import { cacheInstruments, type CachedSource } from "../../../src/sources/source.cache";
import type { MarketDataSource } from "../../../src/domain/ports/source.capabilities";
import { openSources, type Sources } from "../../../src/app.sources";
import { createLoaders, symbolCandidates } from "../../../src/domain/ports/source.loaders";
import { createReplicaDatabase, type ReplicaDatabase } from "../../helpers/postgres.replicas";

/**
 * The instrument cache over PostgreSQL, as main.ts opens it: the misses of concurrent requests (each with its own
 * loaders, as each HTTP request has) cost one statement per turn of the event loop, answer what each request would
 * have read alone, and a change committed by SQL is still read on the next request.
 */
const run = process.env.DATABASE_URL ? describe : describe.skip;
if (!process.env.DATABASE_URL) console.warn("SKIPPED postgres.coalesce.spec.ts: DATABASE_URL is unset");

run("instrument cache misses on PostgreSQL", () => {
  let db: ReplicaDatabase;
  let sources: Sources;
  let cache: CachedSource<MarketDataSource>;
  /** Statements of the instrument lookups (the change feed's polls, on the same pool, are not counted). */
  let statements = 0;
  let stocks: { symbol: string; listingId: number; c: number }[];

  beforeAll(async () => {
    db = await createReplicaDatabase("coalesce");
    sources = await openSources(loadConfig({ ...db.env, LOG_LEVEL: "silent" }));
    const market = sources.market;
    const counted = Object.create(market) as MarketDataSource;
    for (const name of ["getInstrumentsBySymbols", "getInstrumentsByIsins"] as const) {
      const original = market[name]!;
      Object.defineProperty(counted, name, {
        value: (keys: readonly string[]) => {
          statements++;
          return original.call(market, keys);
        },
      });
    }
    cache = cacheInstruments(counted, 8 * 2 ** 20);
    stocks = (
      await db.sql(
        `SELECT l.symbol, l.id AS listing_id, q.c FROM listings l JOIN securities s ON s.id = l.security_id
         JOIN quotes q ON q.listing_id = l.id WHERE s.type = 'stock' AND l.is_primary ORDER BY l.symbol LIMIT 40`,
      )
    ).rows.map((r) => ({ symbol: r.symbol as string, listingId: Number(r.listing_id), c: r.c as number }));
  }, 180_000);

  afterAll(async () => {
    await sources?.close();
    await db?.drop();
  });

  /** One request's lookup of each symbol, all requests in the same turn; the statements they cost. */
  async function requests(symbols: readonly string[]): Promise<{ rows: (InstrumentRow | null)[]; statements: number }> {
    const before = statements;
    const rows = await Promise.all(symbols.map((s) => createLoaders(cache.source).instrumentBySymbol.load(s)));
    return { rows, statements: statements - before };
  }

  it("answers 41 concurrent requests that miss the cache with one statement, as each would alone", async () => {
    const symbols = [...stocks.map((s) => s.symbol), "NOPE.NOPE"];
    const alone = [];
    for (const symbol of symbols)
      alone.push((await sources.market.getInstrumentsBySymbols!(symbolCandidates(symbol)))[0]);
    cache.clear();
    const { rows, statements: n } = await requests(symbols);
    expect(n).toBe(1);
    expect(rows).toEqual(alone);
    expect(rows.map((r) => r?.quote?.c)).toEqual([...stocks.map((s) => s.c), undefined]);
  });

  it("reads a key that two requests miss together once, and answers both", async () => {
    cache.clear();
    const [s] = stocks;
    const { rows, statements: n } = await requests([s!.symbol, s!.symbol]);
    expect(n).toBe(1);
    expect(rows[0]!.listing.symbol).toBe(s!.symbol);
    expect(rows[1]).toBe(rows[0]);
    // Missed by two requests: kept from that second miss on.
    expect((await requests([s!.symbol])).statements).toBe(0);
  });

  it("reads a price changed by SQL on the next request after the change is seen", async () => {
    const [, s] = stocks;
    cache.clear();
    for (let i = 0; i < 2; i++) await requests([s!.symbol]);
    expect((await requests([s!.symbol])).statements).toBe(0);
    try {
      await db.sql(`UPDATE quotes SET c = $1 WHERE listing_id = $2`, [s!.c + 1.25, s!.listingId]);
      const deadline = Date.now() + 5_000;
      let after = await requests(Array(10).fill(s!.symbol));
      while (after.rows[0]!.quote!.c !== s!.c + 1.25 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        after = await requests(Array(10).fill(s!.symbol));
      }
      // Ten requests in one turn after the change: one statement, the new price for all.
      expect(after.rows.map((r) => r!.quote!.c)).toEqual(Array(10).fill(s!.c + 1.25));
      expect(after.statements).toBe(1);
    } finally {
      await db.sql(`UPDATE quotes SET c = $1 WHERE listing_id = $2`, [s!.c, s!.listingId]);
    }
  });
});
