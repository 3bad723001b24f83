// @requires-env DATABASE_URL postgres://postgres@127.0.0.1:5432/test
import Database from "better-sqlite3";
import { loadConfig } from "../../src/platform/config";
import { openSources, type Sources } from "../../src/app.sources";
import { corpus, KEPT_HEADERS, withoutRequestIds, type Ask } from "../helpers/answers";
import { createTestApp, type TestApp } from "../helpers/app";
import { TEST_STORE_PATH } from "../helpers/constants";
import { createTestDatabase, type TestDatabase } from "../helpers/postgres";

/**
 * The same REST (and GraphQL) answers from PostgreSQL as from SQLite, for the fixed list of requests of
 * `npm run answers` (every endpoint), on the test data set copied into a database of this run's own the way a first
 * start copies the sample. Only request ids differ between two runs, and are left out.
 */
const RUN = process.env.DATABASE_URL ? describe : describe.skip;

RUN("PostgreSQL answers as SQLite does", () => {
  let db: TestDatabase;
  let pg: Sources;
  let onSqlite: TestApp;
  let onPostgres: TestApp;
  const asks: Ask[] = [];

  beforeAll(async () => {
    const store = new Database(TEST_STORE_PATH, { readonly: true, fileMustExist: true });
    asks.push(...corpus(store));
    store.close();
    db = await createTestDatabase("parity", { load: true });
    pg = await openSources(loadConfig({ MDG_DATA_SOURCE: "postgres", DATABASE_URL: db.url, LOG_LEVEL: "silent" }), {
      buildSample: false,
    });
    onSqlite = await createTestApp();
    onPostgres = await createTestApp({ market: () => pg.market, ownIndex: true });
  }, 120_000);

  afterAll(async () => {
    await onSqlite?.close();
    await onPostgres?.close();
    await pg?.close();
    await db?.drop();
  });

  async function answer(t: TestApp, a: Ask) {
    const key = a.key === undefined ? "test-bootstrap-key-0123456789" : a.key;
    const res = await t.post(a.path, a.body ?? {}, key);
    const headers = Object.fromEntries(
      KEPT_HEADERS.filter((h) => res.headers[h] !== undefined).map((h) => [h, res.headers[h]]),
    );
    return { status: res.status, headers, body: withoutRequestIds(res.body) };
  }

  it("asks every endpoint (the list is not empty, and most answers are 200)", () => {
    expect(asks.length).toBeGreaterThan(200);
    for (const path of ["/v1/quote", "/v1/candle", "/v1/etf/holdings", "/v1/fund/profile", "/v1/bulk", "/graphql"]) {
      expect(asks.some((a) => a.path === path)).toBe(true);
    }
  });

  it("every answer is the same: status, the headers a client reads, and the body", async () => {
    const differing: string[] = [];
    let ok = 0;
    for (const a of asks) {
      const [s, p] = [await answer(onSqlite, a), await answer(onPostgres, a)];
      if (s.status === 200) ok++;
      try {
        expect(p).toEqual(s);
      } catch {
        differing.push(
          `${a.name}: sqlite ${s.status} ${JSON.stringify(s.body).slice(0, 200)}\n` +
            `  postgres ${p.status} ${JSON.stringify(p.body).slice(0, 200)}`,
        );
      }
    }
    expect(differing).toEqual([]);
    expect(ok).toBeGreaterThan(asks.length / 2);
    // The PostgreSQL app really read PostgreSQL (fewer statements than asks: with change notices its instrument
    // cache answers repeated lookups, as on SQLite).
    expect(pg.market.stats.queries).toBeGreaterThan(asks.length / 2);
  }, 300_000);
});
