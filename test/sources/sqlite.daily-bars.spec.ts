import { openSqliteSource, type SqliteSource } from "../../src/sources/sqlite/sqlite.source";
import { TEST_STORE_PATH } from "../helpers/constants";

/**
 * A long read of daily bars is split into statements of about 25,000 bars, each on a turn of the event loop of its
 * own: SQLite answers synchronously, and a 50-position portfolio over ten years held the loop for 300 ms and more.
 */
let store: SqliteSource;
beforeAll(() => {
  store = openSqliteSource(TEST_STORE_PATH, { readonly: true });
});
afterAll(() => store.close());

const YEAR = 365 * 86_400;

function listings(n: number): number[] {
  return store.db
    .prepare(
      `SELECT l.id FROM listings l JOIN securities s ON s.id = l.security_id
       WHERE s.type IN ('stock', 'etf') AND l.is_primary = 1 ORDER BY s.rank, s.id LIMIT ?`,
    )
    .pluck()
    .all(n) as number[];
}

/** Reads `keys`, counting the statements and the turns of the event loop other work got meanwhile. */
async function read(keys: { listingId: number; from: number; to: number }[]) {
  let turns = 0;
  let reading = true;
  const tick = () => {
    if (!reading) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const before = store.stats.queries;
  const bars = await store.getDailyBars(keys);
  reading = false;
  return { bars, turns, queries: store.stats.queries - before };
}

it("reads 30 ten-year spans in several statements with turns between, answering as one at a time", async () => {
  const to = Math.floor(Date.parse("2026-11-20T00:00:00Z") / 1000);
  const keys = listings(30).map((listingId) => ({ listingId, from: to - 10 * YEAR, to }));
  expect(keys).toHaveLength(30);
  const long = await read(keys);
  // A ten-year span is estimated at 2,520 bars: 9 spans a statement, so four statements and three turns between.
  expect(long.queries).toBeGreaterThanOrEqual(4);
  expect(long.turns).toBeGreaterThanOrEqual(3);
  for (const [i, k] of keys.entries()) expect(long.bars[i]).toEqual((await store.getDailyBars([k]))[0]);
  expect(long.bars.some((b) => b.length > 0)).toBe(true);
});

it("reads 30 one-month spans in one statement, without giving up its turn", async () => {
  const to = Math.floor(Date.parse("2026-11-20T00:00:00Z") / 1000);
  const keys = listings(30).map((listingId) => ({ listingId, from: to - 31 * 86_400, to }));
  const short = await read(keys);
  expect(short.queries).toBe(1);
  expect(short.turns).toBe(0);
});
