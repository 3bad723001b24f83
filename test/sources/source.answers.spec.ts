import { ROW_STORE_ANSWERS, type Answers } from "../../src/domain/answers";
import type { EtfHoldings } from "../../src/domain/etf/etf.types";
import { createTestApp, type TestApp } from "../helpers/app";
import { gql } from "../helpers/graphql";

/**
 * The answer level: an implementation of a domain's answers other than the
 * row-store services (what an upstream adapter supplies) is what both doors
 * serve, in the same shapes, without a store query for what it answers.
 */
const DOCUMENT: EtfHoldings = {
  id: "DE0000000009@2026-10-31",
  atDate: "2026-10-31",
  currency: "EUR",
  holdings: [
    {
      id: "DE0000000009@2026-10-31/DE0000000001",
      symbol: "UPST",
      name: "Upstream Holding AG",
      isin: "DE0000000001",
      cusip: null,
      share: 1200,
      percent: 61.5,
      value: 98_765.4,
      sector: "Industrials",
      country: "DE",
    },
  ],
};

let t: TestApp;
let etf: string;
const asked: string[] = [];
beforeAll(async () => {
  const answers: Answers = {
    ...ROW_STORE_ANSWERS,
    etf: {
      ...ROW_STORE_ANSWERS.etf,
      holdings: async (_ctx, e) => {
        asked.push(e.symbol);
        return DOCUMENT;
      },
    },
  };
  t = await createTestApp({ answers });
  etf = (
    t.source.db
      .prepare(
        `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
         WHERE s.type = 'etf' ORDER BY s.rank LIMIT 1`,
      )
      .get() as { symbol: string }
  ).symbol;
});
afterAll(() => t.close());

it("REST serves the supplied ETF holdings document in the contract's shapes (v0 and v1)", async () => {
  const { symbol, name, isin, cusip, share, percent, value } = DOCUMENT.holdings[0]!;
  const v1 = await t.post("/v1/etf/holdings", { symbol: etf });
  expect(v1.status).toBe(200);
  const v1Holding = { symbol, name, isin, share, percent, value };
  expect(v1.body).toEqual({ symbol: etf, atDate: DOCUMENT.atDate, holdings: [v1Holding] });
  const v0 = await t.post("/v0/etf/holdings", { symbol: etf });
  const v0Holding = { symbol, name, isin, cusip, share, percent, value };
  expect(v0.body).toEqual({ symbol: etf, atDate: DOCUMENT.atDate, holdings: [v0Holding] });
  expect(asked).toEqual([etf, etf]);
});

it("GraphQL serves it too, and the answers not replaced still come from the store", async () => {
  const query = `query($s: String!) { etf(symbol: $s) { holdings { currency } profile { navCurrency } } }`;
  const res = await gql(t, query, { s: etf });
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data.etf.holdings).toEqual({ currency: "EUR" });
  expect(typeof res.body.data.etf.profile.navCurrency).toBe("string");
});

it("holdings answered by the supplied implementation cost no holdings query", async () => {
  const { queries } = await t.countQueries(() => t.post("/v1/etf/holdings", { symbol: etf }));
  // The instrument lookup only (the row store would add the holdings query).
  expect(queries).toBe(1);
});
