import { createTestApp, type TestApp } from "../../helpers/app";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

describe("quote metrics from the trailing figures stored with the security", () => {
  it("stores the latest four quarters' sums for every stock with four or more, and nothing otherwise", async () => {
    const rows = t.source.db.prepare(`SELECT id, type, eps_ttm, net_income_ttm FROM securities ORDER BY id`).all() as {
      id: number;
      type: string;
      eps_ttm: number | null;
      net_income_ttm: number | null;
    }[];
    const quarters = await t.source.getQuarterlyFinancials(rows.map((r) => r.id));
    let withTtm = 0;
    rows.forEach((r, i) => {
      const last = quarters[i]!.slice(-4);
      if (last.length < 4) {
        expect([r.id, r.eps_ttm, r.net_income_ttm]).toEqual([r.id, null, null]);
        return;
      }
      withTtm++;
      expect(r.type).toBe("stock");
      // EPS to four decimals, as the quarters' are.
      expect(r.eps_ttm).toBe(Math.round(last.reduce((sum, q) => sum + q.eps, 0) * 1e4) / 1e4);
      expect(r.net_income_ttm).toBe(last.reduce((sum, q) => sum + q.netIncome, 0));
    });
    expect(withTtm).toBeGreaterThan(20);
  });

  it("a stock's REST quote carries TTM EPS and P/E in one store query", async () => {
    const stock = t.source.db
      .prepare(
        `SELECT l.symbol, s.id, s.market_cap FROM securities s JOIN listings l ON l.security_id = s.id
          AND l.is_primary = 1
         WHERE s.type = 'stock' AND s.net_income_ttm > 0 ORDER BY s.rank LIMIT 1`,
      )
      .get() as { symbol: string; id: number; market_cap: number };
    const last = (await t.source.getQuarterlyFinancials([stock.id]))[0]!.slice(-4);
    const eps = round4(last.reduce((sum, q) => sum + q.eps, 0));
    const netIncome = last.reduce((sum, q) => sum + q.netIncome, 0);
    const { result: res, queries } = await t.countQueries(async () => t.post("/v1/quote", { symbol: stock.symbol }));
    expect(res.status).toBe(200);
    expect(res.body.metrics.eps).toBe(eps);
    expect(res.body.metrics["pe/ratio"]).toBe(round4(stock.market_cap / netIncome));
    expect(queries).toBe(1);
  });

  it("fills the columns of a store built before they existed (migration 2) from its quarters", async () => {
    const Database = (await import("better-sqlite3")).default;
    const { MIGRATIONS } = await import("../../../src/sources/sqlite/sqlite.migrations");
    const db = new Database(":memory:");
    db.exec(MIGRATIONS[0]!);
    db.exec(
      `INSERT INTO securities (id, type, name, currency, is_adr, is_active) VALUES (1, 'stock', 'A', 'USD', 0, 1),
        (2, 'stock', 'B', 'USD', 0, 1)`,
    );
    const insert = db.prepare(
      `INSERT INTO quarterly_financials VALUES (?, ?, 2025, 1, ?, 'USD', 0, 0, 0, 0, ?, ?, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0)`,
    );
    ["2025-03-31", "2025-06-30", "2025-09-30", "2025-12-31", "2026-03-31"].forEach((day, i) =>
      insert.run(1, day, day, 10 * (i + 1), i + 1),
    );
    insert.run(2, "2026-03-31", "2026-03-31", 5, 1);
    db.exec(MIGRATIONS[1]!);
    expect(db.prepare(`SELECT id, eps_ttm, net_income_ttm FROM securities ORDER BY id`).all()).toEqual([
      { id: 1, eps_ttm: 2 + 3 + 4 + 5, net_income_ttm: 20 + 30 + 40 + 50 },
      { id: 2, eps_ttm: null, net_income_ttm: null },
    ]);
    db.close();
  });
});
