import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";
import { GATEWAY_KEY, gatewayPerSuite } from "../../helpers/gateway";
import { gql } from "../../helpers/graphql";
import {
  dividendPayer,
  nonPayer,
  perUsd,
  storedDividends,
  type SampleListing,
  type StoredDividend,
} from "../../helpers/stock-samples";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/**
 * The Bavest Python SDK's `Dividend` model (bavest/finance/models/v0/stock/dividend/dividend.py at Bavest/python-sdk
 * d6e4d7ab211b5a57e7bf491bed4493452c8552a8), every field with the type it declares.
 */
const DIVIDEND_MODEL = { dividends: "List[DividendsItem]" } as const;
const DIVIDENDS_ITEM_MODEL = {
  date: "str",
  recordDate: "str",
  amount: "float",
  declarationDate: "str",
  adjustedAmount: "float",
  payDate: "str",
} as const;
/** The model's `str` dates the store may lack: the contract's dividend row answers null there. */
const STORE_NULLABLE = ["recordDate", "declarationDate", "payDate"];

const JS_TYPE = { str: "string", float: "number" } as const;

function expectDividendModel(body: Record<string, unknown>) {
  for (const key of Object.keys(DIVIDEND_MODEL)) expect(Object.keys(body)).toContain(key);
  expect(Array.isArray(body.dividends)).toBe(true);
  for (const item of body.dividends as Record<string, unknown>[]) {
    for (const [key, type] of Object.entries(DIVIDENDS_ITEM_MODEL)) {
      const value = item[key];
      if (value === null) expect({ key, nullable: STORE_NULLABLE.includes(key) }).toEqual({ key, nullable: true });
      else expect({ key, type: typeof value }).toEqual({ key, type: JS_TYPE[type] });
    }
  }
}

/** Known on the test clock's day: gone ex, or declared by then (or without a declaration day). */
function known(s: SampleListing): StoredDividend[] {
  return storedDividends(t.source.db, s.securityId).filter(
    (d) => d.exDate <= TEST_ANCHOR || d.declarationDate == null || d.declarationDate <= TEST_ANCHOR,
  );
}

const row = (d: StoredDividend) => ({
  date: d.exDate,
  recordDate: d.recordDate,
  payDate: d.payDate,
  declarationDate: d.declarationDate,
  amount: d.amount,
  adjustedAmount: d.adjustedAmount,
  currency: d.currency,
});

describe.each(["v0", "v1"])("POST /%s/stock/dividend", (v) => {
  it("answers what client.stock.dividend(symbol) posts (currency EUR), converted at each ex-date's rate", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    const res = await t.post(`/${v}/stock/dividend`, { symbol: payer.symbol, currency: "EUR" });
    expect(res.status).toBe(200);
    expectDividendModel(res.body);
    const rows = known(payer);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((d) => d.currency !== "EUR")).toBe(true);
    expect(res.body.symbol).toBe(payer.symbol);
    expect(res.body.currency).toBe("EUR");
    expect(res.body.dividends.map((d: { date: string }) => d.date)).toEqual(rows.map((d) => d.exDate));
    rows.forEach((d, i) => {
      const got = res.body.dividends[i];
      const rate = perUsd(t.source.db, "EUR", d.exDate) / perUsd(t.source.db, d.currency, d.exDate);
      expect(got.currency).toBe("EUR");
      for (const key of ["amount", "adjustedAmount"] as const) {
        const exact = d[key] * rate;
        // Rounded to the euro's tick (cents; four significant digits below one euro).
        expect(Math.abs(got[key] - exact)).toBeLessThanOrEqual(Math.max(0.005, exact * 5e-4));
      }
      expect([got.recordDate, got.payDate, got.declarationDate]).toEqual([d.recordDate, d.payDate, d.declarationDate]);
    });
  });

  it("answers each dividend in its own currency, as stored, without currency", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    const res = await t.post(`/${v}/stock/dividend`, { symbol: payer.symbol });
    expect(res.status).toBe(200);
    expectDividendModel(res.body);
    expect(res.body).toEqual({ symbol: payer.symbol, currency: null, dividends: known(payer).map(row) });
  });

  it("answers what the Dart client posts ({currency, isin}) as the Python form by symbol", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    const python = await t.post(`/${v}/stock/dividend`, { symbol: payer.symbol, currency: "EUR" });
    const dart = await t.post(`/${v}/stock/dividend`, { currency: "EUR", isin: payer.isin });
    expect(dart.status).toBe(200);
    expect(dart.body).toEqual(python.body);
  });

  it("answers an empty list for a stock that pays none", async () => {
    const none = nonPayer(t.source.db, "stock");
    const res = await t.post(`/${v}/stock/dividend`, { symbol: none.symbol, currency: "EUR" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ symbol: none.symbol, currency: "EUR", dividends: [] });
  });

  it("answers 404 for an ETF, an unknown symbol and a currency that is not ISO 4217", async () => {
    const etf = dividendPayer(t.source.db, "etf");
    expectErrorBody(await t.post(`/${v}/stock/dividend`, { symbol: etf.symbol }), 404, "NOT_FOUND");
    expectErrorBody(await t.post(`/${v}/stock/dividend`, { symbol: "NOPE-NOT-A-SYMBOL" }), 404, "NOT_FOUND");
    const payer = dividendPayer(t.source.db, "stock");
    const bad = await t.post(`/${v}/stock/dividend`, { symbol: payer.symbol, currency: "XYZ" });
    expectErrorBody(bad, 404, "INVALID_ARGUMENT");
  });

  it("needs the stock scope, and a key", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    const dividendOnly = await t.apiKeys.create({ name: `sdiv-dividend-${v}`, scopes: ["dividend"] });
    expectErrorBody(await t.post(`/${v}/stock/dividend`, { symbol: payer.symbol }, dividendOnly.key), 403, "FORBIDDEN");
    expectErrorBody(await t.post(`/${v}/stock/dividend`, { symbol: payer.symbol }, null), 401, "UNAUTHENTICATED");
    const stockOnly = await t.apiKeys.create({ name: `sdiv-stock-${v}`, scopes: ["stock"] });
    expect((await t.post(`/${v}/stock/dividend`, { symbol: payer.symbol }, stockOnly.key)).status).toBe(200);
  });

  it("answers GET with the query string as POST, and bulk item by item", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    const post = await t.post(`/${v}/stock/dividend`, { symbol: payer.symbol, currency: "EUR" });
    const res = await t.http
      .get(`/${v}/stock/dividend?symbol=${encodeURIComponent(payer.symbol)}&currency=EUR`)
      .set("x-api-key", "test-bootstrap-key-0123456789");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(post.body);
    const bulk = await t.post(`/${v}/bulk`, {
      endpoint: "stock/dividend",
      symbols: [{ symbol: payer.symbol }, { symbol: "NOPE-NOT-A-SYMBOL" }],
      params: { currency: "EUR" },
    });
    const results = bulk.body.results as { statusCode: number; data?: unknown }[];
    expect(results.map((r) => r.statusCode)).toEqual([200, 404]);
    expect(results[0]!.data).toEqual(post.body);
  });
});

describe("GraphQL Stock.dividendHistory", () => {
  it("answers the dividends REST answers, and the list Stock.dividends gives", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    const res = await gql(
      t,
      `query ($s: String) {
        stock(symbol: $s) {
          dividendHistory { symbol currency dividends { date amount currency } }
          dividends { date amount currency }
        }
      }`,
      { s: payer.symbol },
    );
    const h = res.body.data.stock.dividendHistory;
    expect(h.dividends).toEqual(res.body.data.stock.dividends);
    const rest = await t.post("/v1/stock/dividend", { symbol: payer.symbol });
    expect(h.dividends.map((d: { amount: number }) => d.amount)).toEqual(
      rest.body.dividends.map((d: { amount: number }) => d.amount),
    );
  });

  it("refuses the field to a key without the stock scope", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    const searchOnly = await t.apiKeys.create({ name: "sdiv-search-gql", scopes: ["search"] });
    const res = await gql(
      t,
      `query ($s: String) { stock(symbol: $s) { symbol dividendHistory { currency } } }`,
      { s: payer.symbol },
      searchOnly.key,
    );
    expect(res.body.data.stock).toEqual({ symbol: payer.symbol, dividendHistory: null });
    expect(res.body.errors[0].extensions.code).toBe("FORBIDDEN");
  });
});

describe("gateway mode", () => {
  const gw = gatewayPerSuite();

  it("answers what the upstream answers, on both doors", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    for (const body of [{ symbol: payer.symbol, currency: "EUR" }, { symbol: payer.symbol }]) {
      const direct = await gw.upstream.app.post("/v1/stock/dividend", body);
      expect(direct.body.dividends.length).toBeGreaterThan(0);
      for (const v of ["v0", "v1"]) {
        const res = await gw.gateway.post(`/${v}/stock/dividend`, body, GATEWAY_KEY);
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: direct.body });
      }
    }
  });
});
