import { createTestApp, type TestApp } from "../../helpers/app";
import { expectErrorBody } from "../../helpers/expect";
import { GATEWAY_KEY, gatewayPerSuite } from "../../helpers/gateway";
import { gql } from "../../helpers/graphql";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** A currency's latest per-USD rate on or before the test clock's day, as stored. */
function stored(currency: string): { day: string; perUsd: number } {
  return t.source.db
    .prepare(
      `SELECT day, per_usd AS perUsd FROM fx_daily WHERE currency = ? AND day <= '2026-11-20'
       ORDER BY day DESC LIMIT 1`,
    )
    .get(currency) as { day: string; perUsd: number };
}

/** The SDK's forex model: every key, in the SDK's types. */
function expectForexShape(body: Record<string, unknown>, from: string, to: string, rate: number, day: string) {
  const at = `${day} 00:00:00`;
  expect(body).toEqual({ success: true, query: { from, to }, info: { timestamp: at, rate }, date: at, result: rate });
}

describe.each(["v0", "v1"])("POST /%s/fx/quote", (v) => {
  it("answers euros in US dollars from the stored EUR rate", async () => {
    const eur = stored("EUR");
    const res = await t.post(`/${v}/fx/quote`, { from: "EUR", to: "USD" });
    expect(res.status).toBe(200);
    expectForexShape(res.body, "EUR", "USD", 1 / eur.perUsd, eur.day);
  });

  it("crosses two currencies through USD, case-insensitively", async () => {
    const [gbp, jpy] = [stored("GBP"), stored("JPY")];
    const res = await t.post(`/${v}/fx/quote`, { from: "gbp", to: " jpy " });
    expect(res.status).toBe(200);
    expectForexShape(res.body, "GBP", "JPY", jpy.perUsd / gbp.perUsd, [gbp.day, jpy.day].sort()[1]!);
  });

  it("answers 1 for the same currency", async () => {
    const res = await t.post(`/${v}/fx/quote`, { from: "CHF", to: "CHF" });
    expectForexShape(res.body, "CHF", "CHF", 1, stored("CHF").day);
  });

  it("answers 404 INVALID_ARGUMENT for a code that is not ISO 4217, and for a missing field", async () => {
    const res = await t.post(`/${v}/fx/quote`, { from: "XYZ", to: "USD" });
    expectErrorBody(res, 404, "INVALID_ARGUMENT");
    expect(res.body.details[0].field).toBe("from");
    expectErrorBody(await t.post(`/${v}/fx/quote`, { from: "EUR" }), 404, "INVALID_ARGUMENT");
  });

  it("answers 404 NOT_FOUND for an ISO code the store has no rate of", async () => {
    expect(t.source.db.prepare(`SELECT 1 FROM fx_daily WHERE currency = 'XAU'`).get()).toBeUndefined();
    expectErrorBody(await t.post(`/${v}/fx/quote`, { from: "USD", to: "XAU" }), 404, "NOT_FOUND");
  });

  it("needs the stock scope (forex rides with stocks), and a key", async () => {
    const cryptoOnly = await t.apiKeys.create({ name: "crypto-only", scopes: ["crypto"] });
    expectErrorBody(await t.post(`/${v}/fx/quote`, { from: "EUR", to: "USD" }, cryptoOnly.key), 403, "FORBIDDEN");
    const stockOnly = await t.apiKeys.create({ name: "stock-only", scopes: ["stock"] });
    expect((await t.post(`/${v}/fx/quote`, { from: "EUR", to: "USD" }, stockOnly.key)).status).toBe(200);
    expectErrorBody(await t.post(`/${v}/fx/quote`, { from: "EUR", to: "USD" }, null), 401, "UNAUTHENTICATED");
  });

  it("answers GET with the query string, kept privately for five minutes", async () => {
    const post = await t.post(`/${v}/fx/quote`, { from: "EUR", to: "GBP" });
    const res = await t.http.get(`/${v}/fx/quote?from=EUR&to=GBP`).set("x-api-key", "test-bootstrap-key-0123456789");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(post.body);
    expect(res.headers["cache-control"]).toBe("private, max-age=300");
  });
});

describe("GraphQL fxQuote", () => {
  it("answers the rate REST answers", async () => {
    const res = await gql(t, `{ fxQuote(from: "EUR", to: "JPY") { from to rate day } }`);
    const [eur, jpy] = [stored("EUR"), stored("JPY")];
    expect(res.body).toEqual({
      data: { fxQuote: { from: "EUR", to: "JPY", rate: jpy.perUsd / eur.perUsd, day: [eur.day, jpy.day].sort()[1] } },
    });
    const rest = await t.post("/v1/fx/quote", { from: "EUR", to: "JPY" });
    expect(rest.body.result).toBe(res.body.data.fxQuote.rate);
  });

  it("refuses a key without the stock scope", async () => {
    const cryptoOnly = await t.apiKeys.create({ name: "crypto-only-gql", scopes: ["crypto"] });
    const res = await gql(t, `{ fxQuote(from: "EUR", to: "USD") { rate } }`, undefined, cryptoOnly.key);
    expect(res.body.errors[0].extensions.code).toBe("FORBIDDEN");
  });
});

describe("gateway mode", () => {
  const gw = gatewayPerSuite();

  it("answers what the upstream answers, on both doors", async () => {
    const direct = await gw.upstream.app.post("/v1/fx/quote", { from: "GBP", to: "JPY" });
    for (const v of ["v0", "v1"]) {
      const res = await gw.gateway.post(`/${v}/fx/quote`, { from: "GBP", to: "JPY" }, GATEWAY_KEY);
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: direct.body });
    }
    const unknown = await gw.gateway.post("/v1/fx/quote", { from: "USD", to: "XAU" }, GATEWAY_KEY);
    expectErrorBody(unknown, 404, "NOT_FOUND");
  });
});
