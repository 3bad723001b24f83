import { openSqliteSource, type SqliteSource } from "../../src/sources/sqlite/sqlite.source";
import { TEST_STORE_PATH } from "../helpers/constants";

/**
 * A long read of daily bars or FX rates is split into statements of about 10,000 rows, each on a turn of the event
 * loop of its own: SQLite answers synchronously, and a 50-position portfolio over ten years held the loop for 300 ms
 * and more.
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

/** Reads the daily bars of `keys`, counted. */
async function read(keys: { listingId: number; from: number; to: number }[]) {
  const { result: bars, turns, queries } = await counted(() => store.getDailyBars(keys));
  return { bars, turns, queries };
}

/** Runs `readKeys`, counting the statements and the turns of the event loop other work got meanwhile. */
async function counted<T>(readKeys: () => Promise<T>) {
  let turns = 0;
  let reading = true;
  const tick = () => {
    if (!reading) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const before = store.stats.queries;
  const result = await readKeys();
  reading = false;
  return { result, turns, queries: store.stats.queries - before };
}

it("reads 30 ten-year spans in several statements with turns between, answering as one at a time", async () => {
  const to = Math.floor(Date.parse("2026-11-20T00:00:00Z") / 1000);
  const keys = listings(30).map((listingId) => ({ listingId, from: to - 10 * YEAR, to }));
  expect(keys).toHaveLength(30);
  const long = await read(keys);
  // A ten-year span is estimated at 2,520 bars: 3 spans a statement, so ten statements and nine turns between.
  expect(long.queries).toBeGreaterThanOrEqual(10);
  expect(long.turns).toBeGreaterThanOrEqual(9);
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

it("reads the FX rates of six currencies over ten years in several statements with turns between", async () => {
  const currencies = ["EUR", "GBP", "JPY", "CHF", "CAD", "AUD"];
  const keys = currencies.map((currency) => ({ currency, fromDay: "2016-11-20", toDay: "2026-11-20" }));
  const long = await counted(() => store.getFxRates(keys));
  // 3,653 days a span: two spans a statement, so three statements and two turns between.
  expect(long.queries).toBe(3);
  expect(long.turns).toBeGreaterThanOrEqual(2);
  for (const [i, k] of keys.entries()) expect(long.result[i]).toEqual((await store.getFxRates([k]))[0]);
  expect(long.result.every((rows) => rows.length === 3653)).toBe(true);
});

it("reads a year of FX rates of six currencies in one statement, without giving up its turn", async () => {
  const keys = ["EUR", "GBP", "JPY", "CHF", "CAD", "AUD"].map((currency) => ({
    currency,
    fromDay: "2025-11-20",
    toDay: "2026-11-20",
  }));
  const short = await counted(() => store.getFxRates(keys));
  expect(short.queries).toBe(1);
  expect(short.turns).toBe(0);
});
