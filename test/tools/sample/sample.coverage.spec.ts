import Database from "better-sqlite3";
import type { Response } from "supertest";
import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_ANCHOR, TEST_STORE_PATH } from "../../helpers/constants";
import { Random } from "../../../src/sources/sample/sample.random";

/**
 * Issue 15, item 1: securities drawn at random from the whole of each list
 * answer every endpoint of their type, with data (not only a status: a
 * known security without data may come to answer 200 with an empty body).
 */

const PER_TYPE = 40;
const ANCHOR_T = Date.parse(`${TEST_ANCHOR}T00:00:00Z`) / 1000;

interface Drawn {
  symbol: string;
  isin: string | null;
  securityId: number;
  listingId: number;
  /** The security has dividend rows (a paying stock, a distributing ETF or fund). */
  pays: boolean;
}

/** PER_TYPE listings of `type` (primary and secondary alike), drawn with a fixed seed from all of them. */
function draw(db: Database.Database, type: string, primaryOnly = false): Drawn[] {
  const all = db
    .prepare(
      `SELECT l.symbol, s.isin, s.id AS securityId, l.id AS listingId,
         EXISTS (SELECT 1 FROM dividends d WHERE d.security_id = s.id) AS pays
       FROM listings l JOIN securities s ON s.id = l.security_id
       WHERE s.type = ? ${primaryOnly ? "AND l.is_primary = 1" : ""} ORDER BY l.id`,
    )
    .all(type) as (Omit<Drawn, "pays"> & { pays: number })[];
  const picked = Random.fromSeed(15, `coverage-${type}`).sample(all, Math.min(PER_TYPE, all.length));
  return picked.map((r) => ({ ...r, pays: r.pays === 1 }));
}

function ok(res: Response, what: string): Record<string, unknown> {
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Record<string, unknown>;
}

function expectBars(body: Record<string, unknown>, what: string): void {
  expect({ what, s: body.s }).toEqual({ what, s: "ok" });
  const c = body.c as number[];
  expect(c.length).toBeGreaterThan(0);
  for (const x of c) expect(Number.isFinite(x) && x > 0).toBe(true);
  expect((body.t as number[]).length).toBe(c.length);
}

function nonEmptyList(body: unknown, what: string): void {
  const list = Array.isArray(body)
    ? body
    : Object.values(body as Record<string, unknown>).find((v) => Array.isArray(v) && v.length > 0);
  expect({ what, items: Array.isArray(list) && list.length > 0 }).toEqual({ what, items: true });
}

describe("every security of the sample answers every endpoint of its type, with data", () => {
  let t: TestApp;
  let db: Database.Database;
  beforeAll(async () => {
    t = await createTestApp();
    db = new Database(TEST_STORE_PATH, { readonly: true });
  });
  afterAll(async () => {
    db.close();
    await t.close();
  });

  // (stock/candle was removed on 2024-12-31 and answers 404 ENDPOINT_REMOVED: candle serves stocks.)
  it("stocks: quote, candle, TTM financials; dividends for the payers", async () => {
    const drawn = draw(db, "stock");
    expect(drawn.length).toBe(PER_TYPE);
    expect(drawn.some((d) => d.pays)).toBe(true);
    for (const d of drawn) {
      const q = ok(await t.post("/v1/quote", { symbol: d.symbol }), `quote ${d.symbol}`);
      expect(q.c as number).toBeGreaterThan(0);
      expectBars(ok(await t.post("/v1/candle", { symbol: d.symbol }), `candle ${d.symbol}`), d.symbol);
      const ttm = ok(await t.post("/v1/stock/financials/ttm", { symbol: d.symbol }), `ttm ${d.symbol}`);
      const sums = ttm.ttm as Record<string, unknown>;
      for (const k of ["revenue", "netIncome", "eps"]) expect(Number.isFinite(sums[k])).toBe(true);
      expect((ttm.quarters as unknown[]).length).toBe(4);
      if (d.pays) {
        const annual = ok(await t.post("/v1/dividends/annual", { symbol: d.symbol }), `annual ${d.symbol}`);
        nonEmptyList(annual, `dividends/annual ${d.symbol}`);
        ok(await t.post("/v1/stock/dividend-estimate", { symbol: d.symbol }), `dividend-estimate ${d.symbol}`);
      }
    }
  });

  it("stocks report at least eight quarters, large or small", () => {
    const fewest = db
      .prepare(
        `SELECT min(n) AS n FROM (SELECT (SELECT count(*) FROM quarterly_financials f WHERE f.security_id = s.id) AS n
         FROM securities s WHERE s.type = 'stock')`,
      )
      .get() as { n: number };
    expect(fewest.n).toBeGreaterThanOrEqual(8);
  });

  it("ETFs: quote, candle, profile, holdings, exposures, fundamentals, metrics; distributors: dividends", async () => {
    const drawn = draw(db, "etf");
    expect(drawn.some((d) => d.pays)).toBe(true);
    for (const d of drawn) {
      const q = ok(await t.post("/v1/quote", { symbol: d.symbol }), `quote ${d.symbol}`);
      expect(q.c as number).toBeGreaterThan(0);
      expectBars(ok(await t.post("/v1/candle", { symbol: d.symbol }), `candle ${d.symbol}`), d.symbol);
      for (const p of ["profile", "fundamentals"]) ok(await t.post(`/v1/etf/${p}`, { symbol: d.symbol }), `${p}`);
      for (const p of ["holdings", "sector", "country"])
        nonEmptyList(ok(await t.post(`/v1/etf/${p}`, { symbol: d.symbol }), p), `etf/${p} ${d.symbol}`);
      const m = ok(await t.post("/v1/etf/metrics", { symbol: d.symbol }), `metrics ${d.symbol}`);
      expect(Number.isFinite(m.totalReturn)).toBe(true);
      if (d.pays) {
        nonEmptyList(ok(await t.post("/v1/dividends/annual", { symbol: d.symbol }), "annual"), `annual ${d.symbol}`);
        const est = ok(await t.post("/v1/etf/dividend-estimate", { symbol: d.symbol }), `estimate ${d.symbol}`);
        expect(Object.keys(est).length).toBeGreaterThan(0);
      }
    }
  });

  it("funds: quote, candle, profile, holdings and exposures", async () => {
    const drawn = draw(db, "fund");
    for (const d of drawn) {
      const q = ok(await t.post("/v1/quote", { symbol: d.symbol }), `quote ${d.symbol}`);
      expect(q.c as number).toBeGreaterThan(0);
      expectBars(ok(await t.post("/v1/candle", { symbol: d.symbol }), `candle ${d.symbol}`), d.symbol);
      ok(await t.post("/v1/fund/profile", { isin: d.isin }), `fund/profile ${d.isin}`);
      for (const p of ["holding", "sector", "country", "allocation-exposure"])
        nonEmptyList(ok(await t.post(`/v1/fund/${p}`, { isin: d.isin }), p), `fund/${p} ${d.isin}`);
    }
  });

  it("crypto pairs: quote, candle and crypto/price", async () => {
    const drawn = draw(db, "crypto");
    for (const d of drawn) {
      const q = ok(await t.post("/v1/quote", { symbol: d.symbol }), `quote ${d.symbol}`);
      expect(q.c as number).toBeGreaterThan(0);
      expectBars(ok(await t.post("/v1/candle", { symbol: d.symbol }), `candle ${d.symbol}`), d.symbol);
      const p = ok(await t.post("/v1/crypto/price", { symbol: d.symbol }), `crypto/price ${d.symbol}`);
      expect(Object.keys(p).length).toBeGreaterThan(0);
    }
  });

  it("forex pairs: quote and candle", async () => {
    for (const d of draw(db, "forex")) {
      ok(await t.post("/v1/quote", { symbol: d.symbol }), `quote ${d.symbol}`);
      expectBars(ok(await t.post("/v1/candle", { symbol: d.symbol }), `candle ${d.symbol}`), d.symbol);
    }
  });

  it("the quote is the last daily bar, never after the anchor", async () => {
    for (const type of ["stock", "etf", "fund", "crypto", "forex"]) {
      for (const d of draw(db, type).slice(0, 12)) {
        const q = ok(await t.post("/v1/quote", { symbol: d.symbol }), `quote ${d.symbol}`);
        const candle = ok(
          await t.post("/v1/candle", { symbol: d.symbol, from: ANCHOR_T - 30 * 86_400, to: ANCHOR_T + 86_400 }),
          `candle ${d.symbol}`,
        );
        const c = candle.c as number[];
        expect({ symbol: d.symbol, quote: q.c }).toEqual({ symbol: d.symbol, quote: c[c.length - 1] });
        expect(q.t as number).toBeLessThanOrEqual(ANCHOR_T);
        expect(q.t as number).toBeGreaterThanOrEqual((candle.t as number[])[c.length - 1] as number);
      }
    }
  });
});
