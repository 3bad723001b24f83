import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY, TEST_ANCHOR } from "../../helpers/constants";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

function gql(query: string, variables?: Record<string, unknown>) {
  return t.http
    .post("/graphql")
    .set("content-type", "application/json")
    .set("x-api-key", BOOTSTRAP_KEY)
    .send({ query, variables });
}

const NOW = Date.parse(`${TEST_ANCHOR}T15:00:00Z`) / 1000;

/** The n largest ETFs by rank (symbols of their primary listings). */
function etfSymbols(n: number): string[] {
  const rows = t.source.db
    .prepare(
      `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
        WHERE s.type = 'etf' ORDER BY s.rank LIMIT ?`,
    )
    .all(n) as { symbol: string }[];
  return rows.map((r) => r.symbol);
}

function holdsNonUsdStock(symbol: string): boolean {
  return !!t.source.db
    .prepare(
      `SELECT 1 FROM listings l JOIN etf_holdings h ON h.etf_id = l.security_id JOIN securities s
        ON s.id = h.holding_security_id
       WHERE l.symbol = ? AND s.currency <> 'USD' LIMIT 1`,
    )
    .get(symbol);
}

const FIELDS = `symbol
  profile { name aum expenseRatio }
  holdings { atDate holdings { symbol percent } }
  metrics(from: ${NOW - 180 * 86_400}, to: ${NOW}) { totalReturn annualisedVolatility maxDrawdown { value } }`;

const ALL_FIELDS = `${FIELDS}
  sectorExposure { sector weightPercentage }
  countryExposure { country exposure }
  fundamentals { expenseRatio valuation { peRatio dividendYield marketCapBreakdown { large } } }`;

async function countEtfs(symbols: string[], fields: string) {
  const { result, queries } = await t.countQueries(() =>
    gql(`query($s: [String!]!) { etfs(symbols: $s) { ${fields} } }`, { s: symbols }),
  );
  expect(result.body.errors).toBeUndefined();
  expect(result.body.data.etfs.map((e: { symbol: string }) => e.symbol)).toEqual(symbols);
  return queries;
}

async function countAliases(symbols: string[], fields: string) {
  const query = `{ ${symbols.map((s, i) => `e${i}: etf(symbol: ${JSON.stringify(s)}) { ${fields} }`).join("\n")} }`;
  const { result, queries } = await t.countQueries(() => gql(query));
  expect(result.body.errors).toBeUndefined();
  expect(symbols.map((_, i) => result.body.data[`e${i}`].symbol)).toEqual(symbols);
  return queries;
}

describe("ETF batching", () => {
  it("runs metrics, profile and holdings of 2 and of 20 ETFs in the same small number of store queries", async () => {
    const twenty = etfSymbols(20);
    expect(twenty).toHaveLength(20);
    const two = twenty.slice(0, 2);
    const [q2, q20] = [await countEtfs(two, FIELDS), await countEtfs(twenty, FIELDS)];
    const [a2, a20] = [await countAliases(two, FIELDS), await countAliases(twenty, FIELDS)];
    // instruments with their profiles (one statement in the SQLite store), holdings, daily bars
    expect(q2).toBe(3);
    expect(q20).toBe(q2);
    expect(a2).toBe(q2);
    expect(a20).toBe(q2);
  });

  it("keeps every ETF field batched: exposures and fundamentals add a constant, not a per-ETF, cost", async () => {
    const twenty = etfSymbols(20);
    // Market caps in other currencies need one FX query: let the pair hold some, like the twenty do.
    const foreign = twenty.find(holdsNonUsdStock);
    const two = foreign ? [twenty[0]!, foreign].filter((s, i, a) => a.indexOf(s) === i) : twenty.slice(0, 2);
    if (two.length < 2) two.push(twenty.find((s) => s !== two[0])!);
    expect(twenty.some(holdsNonUsdStock)).toBe(two.some(holdsNonUsdStock));
    const q2 = await countEtfs(two, ALL_FIELDS);
    const q20 = await countEtfs(twenty, ALL_FIELDS);
    // instruments with their profiles, holdings, daily bars, sectors, countries, holdings' securities, financials,
    // dividends, FX
    expect(q20).toBe(q2);
    expect(q20).toBeLessThanOrEqual(9);
  });

  it("converts 20 ETFs into one currency with one FX query for all", async () => {
    const twenty = etfSymbols(20);
    const fields =
      `symbol metrics(from: ${NOW - 90 * 86_400}, to: ${NOW}, currency: "CHF") ` +
      "{ currency totalReturn fxFilledDays }";
    const q20 = await countEtfs(twenty, fields);
    // instruments, daily bars, FX
    expect(q20).toBe(3);
  });
});

describe("the Etf and Fund types", () => {
  it("etfs answers in request order with null for unknown symbols and non-ETFs", async () => {
    const [a, b] = etfSymbols(2);
    const res = await gql(`query($s: [String!]!) { etfs(symbols: $s) { symbol } }`, {
      s: [a, "NO-SUCH", "BTC-USD", b],
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.etfs).toEqual([{ symbol: a }, null, null, { symbol: b }]);
  });

  it("marks the cusip of holdings deprecated", async () => {
    const res = await gql(
      `{ __type(name: "EtfHolding") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }`,
    );
    const cusip = res.body.data.__type.fields.find((f: { name: string }) => f.name === "cusip");
    expect(cusip.isDeprecated).toBe(true);
    expect(cusip.deprecationReason).toMatch(/v1/);
  });

  it("maps typed errors to extensions.code", async () => {
    const [a] = etfSymbols(1);
    const nf = await gql(`{ etf(symbol: "NO-SUCH") { symbol } }`);
    expect(nf.body.errors[0].extensions.code).toBe("NOT_FOUND");
    const bad = await gql(`{ etf(symbol: ${JSON.stringify(a)}) { metrics(resolution: "Q") { totalReturn } } }`);
    expect(bad.body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
    const fundOnly = await t.apiKeys.create({ name: "gql-fund-only", scopes: ["fund"] });
    const forbidden = await t.http
      .post("/graphql")
      .set("content-type", "application/json")
      .set("x-api-key", fundOnly.key)
      .send({ query: `{ etf(symbol: ${JSON.stringify(a)}) { symbol } }` });
    expect(forbidden.body.errors[0].extensions.code).toBe("FORBIDDEN");
  });

  it("answers a fund and a list of funds by ISIN, batched", async () => {
    const isins = (
      t.source.db.prepare(`SELECT isin FROM securities WHERE type = 'fund' ORDER BY rank LIMIT 10`).all() as {
        isin: string;
      }[]
    ).map((r) => r.isin);
    const query =
      "query($i: [String!]!) { funds(isins: $i) { isin profile { fundCompany } sectors { sector } " +
      "countries { country } holdings { atDate } allocationExposure { assetClass weightPercentage } } }";
    const { result, queries } = await t.countQueries(() => gql(query, { i: [...isins, "XS0000000009"] }));
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data.funds.map((f: { isin: string } | null) => f?.isin ?? null)).toEqual([...isins, null]);
    // instruments, profiles, sectors, countries, holdings, allocation
    expect(queries).toBe(6);
    const one = await gql(`{ fund(isin: ${JSON.stringify(isins[0])}) { isin name currency } }`);
    expect(one.body.data.fund.isin).toBe(isins[0]);
    const malformed = await gql(`{ funds(isins: ["LU123"]) { isin } }`);
    expect(malformed.body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
  });
});
