import { roundMoney } from "../../../src/domain/fx/fx.service";
import { createTestApp, type TestApp } from "../../helpers/app";
import { expectErrorBody } from "../../helpers/expect";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface Row {
  symbol: string;
  isin: string | null;
  type: string;
  currency: string;
  c: number;
  pc: number;
  t: number;
}

/** The primary listing of the largest security of a type, as stored. */
function sample(type: string): Row {
  return t.source.db
    .prepare(
      `SELECT l.symbol, s.isin, s.type, l.currency, q.c, q.pc, q.t FROM securities s
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1 JOIN quotes q ON q.listing_id = l.id
       WHERE s.type = ? ORDER BY s.rank LIMIT 1`,
    )
    .get(type) as Row;
}

describe.each(["v0", "v1"])("POST /%s/crypto/price", (v) => {
  it("answers the stored price of BTC-USD", async () => {
    const stored = t.source.db
      .prepare(`SELECT q.c, q.pc FROM quotes q JOIN listings l ON l.id = q.listing_id WHERE l.symbol = 'BTC-USD'`)
      .get() as { c: number; pc: number };
    const res = await t.post(`/${v}/crypto/price`, { symbol: "BTC-USD" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      symbol: "BTC-USD",
      base: "BTC",
      name: "Bitcoin",
      currency: "USD",
      price: stored.c,
      previousClose: stored.pc,
    });
    expect(res.body.change).toBeCloseTo(stored.c - stored.pc, 9);
  });

  it.each(["BTCUSD", "BTC/USD", "btc", "btc-usd"])("answers %s with the canonical pair", async (symbol) => {
    const res = await t.post(`/${v}/crypto/price`, { symbol });
    expect(res.status).toBe(200);
    expect(res.body.symbol).toBe("BTC-USD");
  });

  it("answers BTC-EUR in EUR", async () => {
    const res = await t.post(`/${v}/crypto/price`, { symbol: "BTC/EUR" });
    expect(res.body).toMatchObject({ symbol: "BTC-EUR", currency: "EUR" });
  });

  it("answers 404 NOT_FOUND for a stock symbol", async () => {
    const stock = sample("stock");
    expectErrorBody(await t.post(`/${v}/crypto/price`, { symbol: stock.symbol }), 404, "NOT_FOUND");
  });
});

describe.each(["v0", "v1"])("POST /%s/quote", (v) => {
  it.each(["stock", "etf", "fund", "crypto", "forex"])("answers the contract's shape for a %s", async (type) => {
    const row = sample(type);
    const res = await t.post(`/${v}/quote`, { symbol: row.symbol });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        "symbol",
        "c",
        "d",
        "dp",
        "h",
        "l",
        "o",
        "pc",
        "t",
        "v",
        "currency",
        "exchange",
        "earningsAnnouncement",
        "historical_price",
        "metrics",
      ].sort(),
    );
    expect(res.body).toMatchObject({ symbol: row.symbol, c: row.c, pc: row.pc, t: row.t, currency: row.currency });
    expect(res.body.d).toBeCloseTo(row.c - row.pc, 6);
    expect(res.body.dp).toBeCloseTo(((row.c - row.pc) / row.pc) * 100, 3);
    expect(Object.keys(res.body.historical_price).sort()).toEqual(["200days", "50days", "day"]);
    expect(res.body.h).toBeGreaterThanOrEqual(Math.max(res.body.o, res.body.c) - 1e-9);
    expect(res.body.l).toBeLessThanOrEqual(Math.min(res.body.o, res.body.c) + 1e-9);
    // Only a stock has EPS; every other type answers metrics null (docs/contract.md section 4, and
    // test/domain/quote/quote.metrics-shape.spec.ts for the shape over many securities).
    if (type !== "stock") expect(res.body.metrics).toBeNull();
    else
      expect(Object.keys(res.body.metrics).sort()).toEqual(
        expect.arrayContaining(["avgVolume", "eps", "marketCapitalization", "sharesOutstanding"]),
      );
  });

  it("resolves an ISIN to the primary listing", async () => {
    const row = sample("etf");
    const res = await t.post(`/${v}/quote`, { isin: row.isin });
    expect(res.status).toBe(200);
    expect(res.body.symbol).toBe(row.symbol);
  });

  it("answers 404 INVALID_ARGUMENT for a malformed ISIN and NOT_FOUND for an unknown one", async () => {
    expectErrorBody(await t.post(`/${v}/quote`, { isin: "US0378331006" }), 404, "INVALID_ARGUMENT");
    // A valid check digit, but no such security in the store.
    expectErrorBody(await t.post(`/${v}/quote`, { isin: "XS0000000009" }), 404, "NOT_FOUND");
  });

  it("converts prices with the FX rate of the quote day when asked for a currency, onto its tick", async () => {
    const row = sample("stock");
    const target = row.currency === "EUR" ? "USD" : "EUR";
    const day = new Date(row.t * 1000).toISOString().slice(0, 10);
    const perUsd = (cur: string) =>
      cur === "USD"
        ? 1
        : (
            t.source.db
              .prepare(`SELECT per_usd FROM fx_daily WHERE currency = ? AND day <= ? ORDER BY day DESC LIMIT 1`)
              .get(cur, day) as { per_usd: number }
          ).per_usd;
    const rate = perUsd(target) / perUsd(row.currency);
    const res = await t.post(`/${v}/quote`, { symbol: row.symbol, currency: target.toLowerCase() });
    expect(res.status).toBe(200);
    expect(res.body.currency).toBe(target);
    expect(res.body.c).toBe(roundMoney(row.c * rate, target));
    expect(res.body.pc).toBe(roundMoney(row.pc * rate, target));
    expect(Math.abs(res.body.c * 100 - Math.round(res.body.c * 100))).toBeLessThan(1e-9);
  });

  it("answers 404 INVALID_ARGUMENT for a currency that is not ISO 4217", async () => {
    const res = await t.post(`/${v}/quote`, { symbol: "BTC-USD", currency: "XYZ" });
    expectErrorBody(res, 404, "INVALID_ARGUMENT");
    expect(res.body.details[0].field).toBe("currency");
  });

  it("needs the scope of the security's type", async () => {
    const cryptoOnly = await t.apiKeys.create({ name: "crypto-only", scopes: ["crypto"] });
    expect((await t.post(`/${v}/quote`, { symbol: "BTC-USD" }, cryptoOnly.key)).status).toBe(200);
    const res = await t.post(`/${v}/quote`, { symbol: sample("etf").symbol }, cryptoOnly.key);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("FORBIDDEN");
  });
});
