import { createTestApp, type TestApp } from "../../helpers/app";
import { expectErrorBody } from "../../helpers/expect";
import { primarySymbols } from "../../helpers/stock-samples";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** docs/contract.md section 6: a removed endpoint named in bulk is told as the client wrote it, never re-versioned. */
describe("bulk naming a removed endpoint", () => {
  it.each([
    ["v1", "/v0/stock/candle"],
    ["v1", "stock/candle"],
    ["v0", "v0/stock/candle"],
    ["v1", "/V0/Stock/Candle/"],
  ])("/%s/bulk naming %s answers ENDPOINT_REMOVED naming it as sent", async (v, endpoint) => {
    const [stock] = primarySymbols(t.source.db, "stock", 1);
    const res = await t.post(`/${v}/bulk`, { endpoint, symbols: [{ symbol: stock }], params: { resolution: "D" } });
    expectErrorBody(res, 404, "ENDPOINT_REMOVED");
    expect(res.body.message).toBe(`endpoint ${JSON.stringify(endpoint)} was removed on 2024-12-31; use /v1/candle`);
    expect(res.body).toMatchObject({ removedOn: "2024-12-31", replacement: "/v1/candle" });
    // The path of another version is never made up.
    expect(res.body.message).not.toContain(`/${v === "v1" ? "v1" : "v0"}/stock/candle was`);
  });
});
