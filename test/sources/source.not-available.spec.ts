import { createTestApp, type TestApp } from "../helpers/app";
import { expectErrorBody } from "../helpers/expect";
import { gql } from "../helpers/graphql";
import { withoutCapabilities } from "../helpers/sources";

/** A source that lacks a capability answers 404 NOT_AVAILABLE for what needs it, and everything else as before. */
let t: TestApp;
let etf: string;
let stock: string;
beforeAll(async () => {
  t = await createTestApp({ market: (s) => withoutCapabilities(s, ["etfReference"]) });
  const primary = (type: string) =>
    (
      t.source.db
        .prepare(
          `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
           WHERE s.type = ? ORDER BY s.rank LIMIT 1`,
        )
        .get(type) as { symbol: string }
    ).symbol;
  etf = primary("etf");
  stock = primary("stock");
});
afterAll(() => t.close());

describe.each(["v0", "v1"])("a source without etfReference, on /%s", (v) => {
  const etfPaths = ["etf/profile", "etf/holdings", "etf/sector", "etf/country"];
  it.each(etfPaths)("%s answers 404 NOT_AVAILABLE", async (path) => {
    const res = await t.post(`/${v}/${path}`, { symbol: etf });
    expectErrorBody(res, 404, "NOT_AVAILABLE");
    expect(res.body.message).toBe(
      "this service's data source (sqlite) does not serve ETF reference data (profiles, holdings, exposures)",
    );
  });

  it("a quote, which needs no ETF reference data, still answers 200", async () => {
    expect((await t.post(`/${v}/quote`, { symbol: etf })).status).toBe(200);
    expect((await t.post(`/${v}/quote`, { symbol: stock })).status).toBe(200);
  });

  it("an unknown symbol is still NOT_FOUND, not NOT_AVAILABLE", async () => {
    expectErrorBody(await t.post(`/${v}/etf/holdings`, { symbol: "NOPE123" }), 404, "NOT_FOUND");
  });
});

describe("GraphQL", () => {
  it.each(["holdings { atDate }", "profile { aum }", "sectorExposure { sector }"])(
    "%s: NOT_FOUND with reason NOT_AVAILABLE",
    async (field) => {
      const res = await gql(t, `query($s: String!) { etf(symbol: $s) { symbol ${field} } }`, { s: etf });
      expect(res.status).toBe(200);
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0].path).toEqual(["etf", field.split(" ")[0]]);
      expect(res.body.errors[0].message).toMatch(/does not serve ETF reference data/);
      expect(res.body.errors[0].extensions).toEqual({ code: "NOT_FOUND", reason: "NOT_AVAILABLE" });
    },
  );

  it("the ETF itself (instruments) still resolves", async () => {
    const res = await gql(t, `query($s: String!) { etf(symbol: $s) { symbol } }`, { s: etf });
    expect(res.body).toEqual({ data: { etf: { symbol: etf } } });
  });
});
