import { ROW_STORE_RELAY_ANSWERS, type RelayedEndpoint } from "../../../src/domain/relay/relay.answers";
import type { RequestContext } from "../../../src/domain/request.context";
import { NotAvailableError } from "../../../src/platform/errors";
import { createTestApp, type TestApp } from "../../helpers/app";
import { expectErrorBody } from "../../helpers/expect";
import { gql } from "../../helpers/graphql";
import { modelMismatches, RELAYED } from "./relay.sdk";

/**
 * Over a store, the endpoints only gateway mode serves answer 404 NOT_AVAILABLE naming gateway mode, on every door,
 * posted exactly as the Bavest SDKs post them (relay.sdk.ts): never an empty answer made up.
 */
let t: TestApp;
let stockOnly: string;
let etfOnly: string;
beforeAll(async () => {
  t = await createTestApp();
  stockOnly = (await t.apiKeys.create({ name: "stock", scopes: ["stock"] })).key;
  etfOnly = (await t.apiKeys.create({ name: "etf", scopes: ["etf"] })).key;
});
afterAll(() => t.close());

function expectNotAvailable(res: { status: number; body: { message: string } }, path: string) {
  expectErrorBody(res as never, 404, "NOT_AVAILABLE");
  expect(res.body.message).toContain(`${path}: this service's data source (sqlite) holds no `);
  expect(res.body.message).toContain("gateway mode (MDG_DATA_SOURCE=upstream)");
}

describe.each(RELAYED)("$path over a store", (c) => {
  it.each(["v0", "v1"])("answers 404 NOT_AVAILABLE on /%s to the Python SDK's body", async (v) => {
    const res = await t.post(`/${v}/${c.path}`, c.python.body, stockOnly);
    expectNotAvailable(res, c.path);
  });

  it("answers 404 NOT_AVAILABLE to the Dart client's body and to a GET", async () => {
    if (c.dart) expectNotAvailable(await t.post(`/v1/${c.path}`, c.dart.body), c.path);
    const query = new URLSearchParams(
      Object.entries(c.python.body).map(([k, v]) => [k, String(v)] as [string, string]),
    ).toString();
    const get = await t.http.get(`/v1/${c.path}${query ? `?${query}` : ""}`).set("x-api-key", stockOnly);
    expectNotAvailable(get, c.path);
    expect(get.headers["cache-control"]).toBe("no-store");
  });

  it("needs the stock scope before anything else", async () => {
    expectErrorBody(await t.post(`/v1/${c.path}`, c.python.body, etfOnly), 403, "FORBIDDEN");
  });
});

it("refuses a malformed body before saying NOT_AVAILABLE (two identifiers, a time in an unknown form)", async () => {
  expectErrorBody(await t.post("/v1/stock/news", { symbol: "AAPL", isin: "US0378331005" }), 404, "INVALID_ARGUMENT");
  expectErrorBody(await t.post("/v1/stock/esg", {}), 404, "INVALID_ARGUMENT");
  expectErrorBody(await t.post("/v1/calender/economics", { from: "1667260800" }), 404, "INVALID_ARGUMENT");
});

it("bulk names the single-security ones, each item 404 NOT_AVAILABLE; the others are not bulk's", async () => {
  for (const c of RELAYED) {
    const res = await t.post("/v1/bulk", { endpoint: c.path, symbols: [{ symbol: "AAPL" }, { isin: "US0378331005" }] });
    if (!c.singleSecurity) {
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      expect(res.body.message).toContain("is not a single-security endpoint");
      continue;
    }
    expect(res.status).toBe(200);
    const results = res.body.results as { statusCode: number; error: { code: string; message: string } }[];
    expect(results.map((r) => [r.statusCode, r.error.code])).toEqual([
      [404, "NOT_AVAILABLE"],
      [404, "NOT_AVAILABLE"],
    ]);
    expect(results[0]!.error.message).toContain("MDG_DATA_SOURCE=upstream");
  }
});

it("GraphQL: each field is NOT_FOUND with reason NOT_AVAILABLE, data null", async () => {
  const fields = [
    'stockNews(symbol: "AAPL")',
    'stockEsg(symbol: "AAPL")',
    'earningCallTranscript(symbol: "AAPL")',
    'analystEstimates(symbol: "AAPL")',
    'sentiment(symbol: "AAPL")',
    'socialSentiment(symbol: "AAPL")',
    "ipoProspectus(from: 1667260800, to: 1670371200)",
    'economicCalendar(event: "economics", from: 1667260800, to: 1670371200)',
    "marketNews",
  ];
  for (const field of fields) {
    const res = await gql(t, `{ ${field} }`);
    expect(res.status).toBe(200);
    expect({ field, data: res.body.data }).toEqual({ field, data: null });
    expect(res.body.errors[0].extensions).toMatchObject({ code: "NOT_FOUND", reason: "NOT_AVAILABLE" });
    expect(res.body.errors[0].message).toContain("MDG_DATA_SOURCE=upstream");
  }
});

it("the row stores' answer is the same NOT_AVAILABLE for PostgreSQL, naming it", async () => {
  for (const c of RELAYED) {
    const ctx = { source: { kind: "postgres" } } as unknown as RequestContext;
    const failure = ROW_STORE_RELAY_ANSWERS.answer(ctx, c.path as RelayedEndpoint, {});
    await expect(failure).rejects.toBeInstanceOf(NotAvailableError);
    await expect(failure).rejects.toThrow(`${c.path}: this service's data source (postgres) holds no `);
  }
});

it("the model check used on the gateway's answers names what does not parse", () => {
  const model = RELAYED.find((c) => c.path === "stock/esg")!.model;
  const answer = {
    data: [{ formType: "10-K", acceptedDate: "2022-10-27 18:01:14", date: 20220924 }],
    series: null,
    sector: { year: 2022.5, sector: "X", environmentalScore: null, socialScore: null, governanceScore: null },
    environmentScore: 1,
    governanceScore: 1,
    socialScore: "1",
    symbol: "AAPL",
  };
  expect(modelMismatches(answer, model)).toEqual([
    "$.data[0].date: 20220924 is not str",
    "$.sector.year: 2022.5 is not int",
    "$.sector.totalESGScore: expected an object",
    '$.socialScore: "1" is not float',
    "$.totalESGScore: missing",
  ]);
});
