import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { roundMoney } from "../../../src/domain/fx/fx.service";
import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_STORE_PATH } from "../../helpers/constants";
import { dayText, storedBars, type StoredBar } from "../../helpers/stock-samples";

/**
 * Intraday bars take a split's or a dividend's adjustment by their UTC day. The sample has no split or ex-date among
 * the days it keeps 5-minute bars for, so a copy of the test store gets one of each, by hand, for a stock with
 * stored intraday and daily bars: the stored bars then read as already adjusted for the split, the store's
 * convention.
 */

let dir: string;
let t: TestApp;
let stock: { listingId: number; securityId: number; symbol: string; currency: string };
let days: string[];
let intraday: StoredBar[];
let daily: StoredBar[];
const RATIO = 2;
const AMOUNT = 0.5;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mdg-adjust-"));
  const copy = join(dir, "store.db");
  const src = new Database(TEST_STORE_PATH, { readonly: true });
  src.exec(`VACUUM INTO '${copy.replace(/'/g, "''")}'`);
  src.close();
  const db = new Database(copy);
  stock = db
    .prepare(
      `SELECT l.id AS listingId, s.id AS securityId, l.symbol, l.currency FROM securities s
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       WHERE s.type = 'stock' AND EXISTS (SELECT 1 FROM intraday_bars b WHERE b.listing_id = l.id)
         AND EXISTS (SELECT 1 FROM daily_bars b WHERE b.listing_id = l.id)
       ORDER BY s.rank, s.id LIMIT 1`,
    )
    .get() as typeof stock;
  intraday = storedBars(db, "intraday_bars", stock.listingId, 0, 2 ** 31);
  days = [...new Set(intraday.map((b) => dayText(b.t)))];
  expect(days.length).toBeGreaterThanOrEqual(6);
  daily = storedBars(db, "daily_bars", stock.listingId, 0, 2 ** 31);
  // Nothing else of the stock's corporate actions on or after the first intraday day.
  db.prepare(`DELETE FROM splits WHERE security_id = ? AND day > ?`).run(stock.securityId, days[0]);
  db.prepare(`DELETE FROM dividends WHERE security_id = ? AND ex_date > ?`).run(stock.securityId, days[0]);
  db.prepare(`INSERT INTO splits (security_id, day, numerator, denominator) VALUES (?, ?, ?, 1)`).run(
    stock.securityId,
    days[2],
    RATIO,
  );
  db.prepare(
    `INSERT INTO dividends (security_id, ex_date, record_date, pay_date, declaration_date, amount, adjusted_amount,
     currency, frequency) VALUES (?, ?, NULL, NULL, NULL, ?, ?, ?, 4)`,
  ).run(stock.securityId, days[4], AMOUNT * RATIO, AMOUNT, stock.currency);
  db.close();
  t = await createTestApp({ storePath: copy });
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

const range = () => ({
  symbol: stock.symbol,
  from: intraday[0]!.t,
  to: intraday[intraday.length - 1]!.t,
  resolution: "5",
});

it("none multiplies the prices and divides the volumes of the 5-minute bars before the split's day", async () => {
  const res = await t.post("/v1/candle", { ...range(), adjustment: "none" });
  expect(res.status).toBe(200);
  expect(res.body.t).toEqual(intraday.map((b) => b.t));
  expect(res.body.t.length).toBeGreaterThan(days.length);
  intraday.forEach((b, i) => {
    const f = dayText(b.t) < days[2]! ? RATIO : 1;
    for (const k of ["o", "h", "l", "c"] as const) expect(res.body[k][i]).toBe(roundMoney(b[k] * f, stock.currency));
    expect(res.body.v[i]).toBeCloseTo(b.v / f, 3);
  });
  expect(res.body.key).toBe(`${stock.symbol}:5:${stock.currency}:none`);
});

it("all multiplies the 5-minute bars before the ex-date by 1 - amount / the previous daily close", async () => {
  const res = await t.post("/v1/candle", { ...range(), adjustment: "all" });
  const plain = await t.post("/v1/candle", range());
  expect(res.status).toBe(200);
  const before = daily.filter((b) => dayText(b.t) < days[4]!).pop()!;
  const factor = 1 - AMOUNT / before.c;
  expect(factor).toBeLessThan(1);
  intraday.forEach((b, i) => {
    const f = dayText(b.t) < days[4]! ? factor : 1;
    for (const k of ["o", "h", "l", "c"] as const) expect(res.body[k][i]).toBe(roundMoney(b[k] * f, stock.currency));
  });
  expect(res.body.v).toEqual(plain.body.v);
  expect(res.body.c.at(-1)).toBe(plain.body.c.at(-1));
});

it("60-minute bars aggregate the adjusted 5-minute bars", async () => {
  const five = await t.post("/v1/candle", { ...range(), adjustment: "none" });
  const hour = await t.post("/v1/candle", { ...range(), resolution: "60", adjustment: "none" });
  expect(hour.status).toBe(200);
  expect(hour.body.t.length).toBeGreaterThan(days.length);
  hour.body.t.forEach((ht: number, i: number) => {
    const js = five.body.t.flatMap((ft: number, j: number) => (ft >= ht && ft < ht + 3600 ? [j] : []));
    expect(hour.body.o[i]).toBe(five.body.o[js[0]]);
    expect(hour.body.c[i]).toBe(five.body.c[js[js.length - 1]]);
    expect(hour.body.h[i]).toBe(Math.max(...js.map((j: number) => five.body.h[j])));
  });
});
