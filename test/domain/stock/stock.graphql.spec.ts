import { createTestApp, type TestApp } from "../../helpers/app";
import { gql as gqlRequest } from "../../helpers/graphql";
import { TEST_ANCHOR } from "../../helpers/constants";
import { dividendPayer, stockWithQuarters, unix, withDailyBars } from "../../helpers/stock-samples";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const gql = (query: string, variables?: Record<string, unknown>, key?: string | null) =>
  gqlRequest(t, query, variables, key);

describe("GraphQL: stock, candle and dividends", () => {
  it("answers a stock with TTM financials, dividends, annual dividends, estimate and candles, as in REST", async () => {
    const s = dividendPayer(t.source.db, "stock");
    const from = unix("2026-10-01");
    const to = unix(TEST_ANCHOR);
    const res = await gql(
      `query($s: String!, $from: Int, $to: Int) { stock(symbol: $s) {
        symbol name reportingCurrency
        dividends(from: "2025-01-01") { date amount adjustedAmount currency }
        annualDividends { forwardAnnualDividend years { year count } }
        dividendEstimate { total dividends { date status } }
        candles(from: $from, to: $to, resolution: "W") { s t c resolution }
      } }`,
      { s: s.symbol, from, to },
    );
    expect(res.body.errors).toBeUndefined();
    const stock = res.body.data.stock;
    expect(stock.symbol).toBe(s.symbol);
    expect(stock.dividends.length).toBeGreaterThan(0);
    expect(stock.dividends.every((d: { date: string }) => d.date >= "2025-01-01")).toBe(true);
    const annual = await t.post("/v1/dividends/annual", { symbol: s.symbol });
    expect(stock.annualDividends.forwardAnnualDividend).toBe(annual.body.forwardAnnualDividend);
    const estimate = await t.post("/v1/stock/dividend-estimate", { symbol: s.symbol });
    expect(stock.dividendEstimate.total).toBe(estimate.body.total);
    const candles = await t.post("/v1/candle", { symbol: s.symbol, from, to, resolution: "W" });
    expect(stock.candles).toEqual({ s: "ok", t: candles.body.t, c: candles.body.c, resolution: "W" });
  });

  it("keeps each field's scope: a stock-only key reads financials but not dividends", async () => {
    const stockOnly = await t.apiKeys.create({ name: "gql-stock-only", scopes: ["stock"] });
    const s = stockWithQuarters(t.source.db, 4);
    const res = await gql(
      `{ stock(symbol: ${JSON.stringify(s.symbol)}) { name financialsTtm { asOf } annualDividends { currency } } }`,
      undefined,
      stockOnly.key,
    );
    expect(res.body.data.stock.name).toBeTruthy();
    expect(res.body.data.stock.financialsTtm.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(res.body.data.stock.annualDividends).toBeNull();
    expect(res.body.errors[0].extensions.code).toBe("FORBIDDEN");
  });

  it("maps a bad resolution to BAD_USER_INPUT; an empty range is no_data, not an error", async () => {
    const s = withDailyBars(t.source.db, "stock");
    const bad = await gql(`{ candle(symbol: ${JSON.stringify(s.symbol)}, resolution: "2") { s } }`);
    expect(bad.body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
    const empty = await gql(
      `{ candle(symbol: ${JSON.stringify(s.symbol)}, from: ${unix("2026-11-14")}, to: ${unix("2026-11-15")}) { s t } }`,
    );
    expect(empty.body).toEqual({ data: { candle: { s: "no_data", t: [] } } });
  });

  it("batches aliased candle fields: 20 listings cost a constant number of store queries", async () => {
    const symbols = (
      t.source.db
        .prepare(
          `SELECT DISTINCT l.symbol FROM daily_bars b JOIN listings l ON l.id = b.listing_id ORDER BY l.id LIMIT 20`,
        )
        .all() as { symbol: string }[]
    ).map((r) => r.symbol);
    expect(symbols).toHaveLength(20);
    const range = `from: ${unix("2026-11-02")}, to: ${unix(TEST_ANCHOR)}`;
    const candles = symbols.map((s, i) => `c${i}: candle(symbol: ${JSON.stringify(s)}, ${range}) { symbol t }`);
    const query = `{ ${candles.join(" ")} }`;
    const { result: res, queries } = await t.countQueries(() => gql(query));
    expect(res.body.errors).toBeUndefined();
    expect(symbols.map((_, i) => res.body.data[`c${i}`].symbol)).toEqual(symbols);
    // One lookup of the symbols, one of the bars.
    expect(queries).toBe(2);
  });

  it("answers the dividend calendar with symbols of mixed securities", async () => {
    const res = await gql(
      `{ dividendCalendar(limit: 5) { from to nextCursor dividends { symbol date amount currency } } }`,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.dividendCalendar.from).toBe(TEST_ANCHOR);
    expect(res.body.data.dividendCalendar.dividends).toHaveLength(5);
    for (const d of res.body.data.dividendCalendar.dividends) expect(d.symbol).toBeTruthy();
  });
});
