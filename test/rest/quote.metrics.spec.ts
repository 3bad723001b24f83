import { createTestApp, type TestApp } from "../helpers/app";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("quote metrics read the latest four quarters", () => {
  it("getLatestQuarterlyFinancials is the last four of getQuarterlyFinancials, for every stock with quarters", async () => {
    const ids = (t.source.db.prepare(`SELECT DISTINCT security_id AS id FROM quarterly_financials ORDER BY id`).all() as { id: number }[]).map((r) => r.id);
    expect(ids.length).toBeGreaterThan(20);
    const [all, latest] = await Promise.all([t.source.getQuarterlyFinancials(ids), t.source.getLatestQuarterlyFinancials(ids)]);
    ids.forEach((_, i) => expect(latest[i]).toEqual(all[i]!.slice(-4)));
  });

  it("answers fewer quarters, and none, where fewer are stored", async () => {
    const none = (t.source.db.prepare(`SELECT id FROM securities WHERE type = 'crypto' LIMIT 1`).get() as { id: number }).id;
    const rows = await t.source.getLatestQuarterlyFinancials([none]);
    expect(rows).toEqual([[]]);
  });

  it("a stock's REST quote carries TTM EPS over its latest four quarters, in two store queries", async () => {
    const stock = t.source.db
      .prepare(
        `SELECT l.symbol, s.id FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
         WHERE s.type = 'stock' AND (SELECT count(*) FROM quarterly_financials f WHERE f.security_id = s.id) > 4 ORDER BY s.rank LIMIT 1`,
      )
      .get() as { symbol: string; id: number };
    const quarters = (await t.source.getQuarterlyFinancials([stock.id]))[0]!;
    const eps = Math.round(quarters.slice(-4).reduce((sum, q) => sum + q.eps, 0) * 1e4) / 1e4;
    const { result: res, queries } = await t.countQueries(async () => t.post("/v1/quote", { symbol: stock.symbol }));
    expect(res.status).toBe(200);
    expect(res.body.metrics.eps).toBe(eps);
    expect(queries).toBe(2);
  });
});
