// @requires-env DATABASE_URL postgres://postgres@127.0.0.1:5432/test
import Database from "better-sqlite3";
import { loadConfig } from "../../src/platform/config";
import { openSources, type Sources } from "../../src/app.sources";
import { createTestApp, type TestApp } from "../helpers/app";
import { TEST_STORE_PATH } from "../helpers/constants";
import { createTestDatabase, type TestDatabase } from "../helpers/postgres";

/**
 * A bulk call of 100 symbols costs at most 3 statements on PostgreSQL, as few as a call of 1: each DataLoader batch
 * is one statement with an array parameter (`stats.queries` counts the statements the source runs).
 */
const RUN = process.env.DATABASE_URL ? describe : describe.skip;

RUN("bulk on PostgreSQL: one statement per batch", () => {
  let db: TestDatabase;
  let pg: Sources;
  let t: TestApp;
  const symbols = new Map<string, string[]>();

  beforeAll(async () => {
    const store = new Database(TEST_STORE_PATH, { readonly: true, fileMustExist: true });
    for (const type of ["stock", "etf", "crypto"]) {
      const some = (
        store
          .prepare(
            `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
             WHERE s.type = ? ORDER BY s.rank, s.id LIMIT 100`,
          )
          .pluck()
          .all(type) as string[]
      ).filter(Boolean);
      symbols.set(
        type,
        Array.from({ length: 100 }, (_, i) => some[i % some.length]!),
      );
    }
    store.close();
    db = await createTestDatabase("bulk", { load: true });
    pg = await openSources(loadConfig({ MDG_DATA_SOURCE: "postgres", DATABASE_URL: db.url, LOG_LEVEL: "silent" }), {
      buildSample: false,
    });
    // Without the instrument cache (on for PostgreSQL since change notices give it a data version): its hits would
    // make the counts depend on what earlier cases asked.
    t = await createTestApp({ market: () => pg.market, ownIndex: true, env: { MDG_INSTRUMENT_CACHE_MB: "0" } });
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await pg?.close();
    await db?.drop();
  });

  it.each([
    ["quote", "stock"],
    ["etf/profile", "etf"],
    ["crypto/price", "crypto"],
    ["etf/holdings", "etf"],
  ])("%s: 1, 10 and 100 symbols cost the same number of statements, at most 3", async (endpoint, type) => {
    const all = symbols.get(type)!;
    const counts: number[] = [];
    for (const n of [1, 10, 100]) {
      const before = pg.market.stats.queries;
      const res = await t.post("/v1/bulk", { endpoint, symbols: all.slice(0, n).map((symbol) => ({ symbol })) });
      counts.push(pg.market.stats.queries - before);
      expect(res.status).toBe(200);
      expect(res.body.results.filter((r: { statusCode: number }) => r.statusCode === 200)).toHaveLength(n);
    }
    expect(counts[0]).toBeGreaterThanOrEqual(1);
    expect(counts[2]).toBeLessThanOrEqual(3);
    expect(counts).toEqual([counts[0], counts[0], counts[0]]);
  });
});
