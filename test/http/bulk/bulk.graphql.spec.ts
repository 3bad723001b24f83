import { createTestApp, type TestApp } from "../../helpers/app";
import { primarySymbols } from "../../helpers/stock-samples";
import { gql as gqlRequest } from "../../helpers/graphql";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const gql = (query: string, variables?: Record<string, unknown>, key?: string | null) =>
  gqlRequest(t, query, variables, key);

const primary = (type: string, n: number, where = "") => primarySymbols(t.source.db, type, n, where);

const QUOTES =
  "query($s: [String!]!, $currency: String) { " +
  "quotes(symbols: $s, currency: $currency) { symbol c currency metrics { eps } } }";

describe("GraphQL quotes(symbols)", () => {
  it("answers in request order, null where a symbol names nothing, with the numbers of REST quote", async () => {
    const [stock] = primary("stock", 1);
    const [etf] = primary("etf", 1);
    const res = await gql(QUOTES, { s: [etf, "NO-SUCH", "btcusd", stock] });
    expect(res.body.errors).toBeUndefined();
    const quotes = res.body.data.quotes;
    expect(quotes.map((q: { symbol: string } | null) => q?.symbol ?? null)).toEqual([etf, null, "BTC-USD", stock]);
    const rest = await t.post("/v1/quote", { symbol: stock });
    expect(quotes[3]).toEqual({
      symbol: stock,
      c: rest.body.c,
      currency: rest.body.currency,
      metrics: { eps: rest.body.metrics.eps },
    });
  });

  it("converts every quote into `currency`", async () => {
    const [stock] = primary("stock", 1);
    const res = await gql(QUOTES, { s: [stock, "BTC-USD"], currency: "EUR" });
    expect(res.body.errors).toBeUndefined();
    const rest = await t.post("/v1/quote", { symbol: stock, currency: "EUR" });
    expect(res.body.data.quotes.map((q: { currency: string }) => q.currency)).toEqual(["EUR", "EUR"]);
    expect(res.body.data.quotes[0].c).toBe(rest.body.c);
  });

  it("nulls only the items the key may not read, each with a FORBIDDEN error at its index", async () => {
    const [etf] = primary("etf", 1);
    const key = (await t.apiKeys.create({ name: "gql-crypto-only", scopes: ["crypto"] })).key;
    const res = await gql(QUOTES, { s: ["BTC-USD", etf, "ETH-USD"] }, key);
    expect(res.body.data.quotes.map((q: { symbol: string } | null) => q?.symbol ?? null)).toEqual([
      "BTC-USD",
      null,
      "ETH-USD",
    ]);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ path: ["quotes", 1], extensions: { code: "FORBIDDEN" } });
  });

  it("refuses more than MDG_BULK_MAX_SYMBOLS symbols with BAD_USER_INPUT", async () => {
    const res = await gql(QUOTES, { s: Array.from({ length: 101 }, () => "BTC-USD") });
    expect(res.body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
  });

  it("costs the same store queries for 1, 10 and 100 symbols", async () => {
    const stocks = primary("stock", 100);
    const counts: number[] = [];
    for (const n of [1, 10, 100]) {
      const { result, queries } = await t.countQueries(() => gql(QUOTES, { s: stocks.slice(0, n) }));
      expect(result.body.errors).toBeUndefined();
      expect(result.body.data.quotes).toHaveLength(n);
      counts.push(queries);
    }
    expect(counts[0]).toBeLessThanOrEqual(3);
    expect(counts).toEqual([counts[0], counts[0], counts[0]]);
  });
});

describe("GraphQL etfs(symbols)", () => {
  it("costs the same store queries for 1, 10 and every ETF of the store", async () => {
    const etfs = primary("etf", 100);
    const counts: number[] = [];
    for (const n of [1, 10, etfs.length]) {
      const query =
        "query($s: [String!]!) { etfs(symbols: $s) { symbol profile { name aum } sectorExposure { sector } } }";
      const { result, queries } = await t.countQueries(() => gql(query, { s: etfs.slice(0, n) }));
      expect(result.body.errors).toBeUndefined();
      expect(result.body.data.etfs.map((e: { symbol: string }) => e.symbol)).toEqual(etfs.slice(0, n));
      counts.push(queries);
    }
    expect(counts).toEqual([counts[0], counts[0], counts[0]]);
  });
});
