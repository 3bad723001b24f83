import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";
import { GATEWAY_KEY, gatewayPerSuite } from "../../helpers/gateway";
import { gql } from "../../helpers/graphql";
import { dividendPayer, nonPayer, type SampleListing } from "../../helpers/stock-samples";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/**
 * The Bavest Python SDK's stock `Profile` model (bavest/finance/models/v0/stock/profile/profile.py at
 * Bavest/python-sdk d6e4d7ab211b5a57e7bf491bed4493452c8552a8), every field with the type it declares.
 */
const PROFILE_MODEL = {
  symbol: "str",
  beta: "float",
  price: "float",
  volAvg: "float",
  lastDiv: "float",
  range: "str",
  changes: "float",
  companyName: "str",
  currency: "str",
  cik: "str",
  isin: "str",
  cusip: "str",
  exchange: "str",
  exchangeShortName: "str",
  industry: "str",
  website: "str",
  description: "str",
  ceo: "str",
  sector: "str",
  country: "str",
  phone: "str",
  address: "str",
  city: "str",
  state: "str",
  zip: "str",
  dcfDiff: "float",
  dcf: "float",
  isEtf: "bool",
  isActivelyTrading: "bool",
  isAdr: "bool",
  isFund: "bool",
  marketCapitalization: "float",
  employeeTotal: "float",
  ipo: "str",
} as const;

/** Keys of figures the store does not hold: the contract answers them null, never invented. */
const NOT_HELD = [
  "beta",
  "cik",
  "ceo",
  "phone",
  "address",
  "city",
  "state",
  "zip",
  "dcfDiff",
  "dcf",
  "employeeTotal",
] as const;

const JS_TYPE = { str: "string", float: "number", bool: "boolean" } as const;

/** Every key of the model and no other; each of the model's type, or null where the contract allows it. */
function expectProfileModel(body: Record<string, unknown>, nullable: readonly string[]) {
  expect(Object.keys(body).sort()).toEqual(Object.keys(PROFILE_MODEL).sort());
  for (const [key, type] of Object.entries(PROFILE_MODEL)) {
    const value = body[key];
    if ((NOT_HELD as readonly string[]).includes(key)) expect({ key, value }).toEqual({ key, value: null });
    else if (value === null) expect({ key, nullable: nullable.includes(key) }).toEqual({ key, nullable: true });
    else expect({ key, type: typeof value }).toEqual({ key, type: JS_TYPE[type] });
  }
}

interface StoredSecurity {
  name: string;
  isin: string | null;
  cusip: string | null;
  exchange: string;
  currency: string;
  sector: string | null;
  industry: string | null;
  country: string | null;
  website: string | null;
  description: string | null;
  ipo: string | null;
  isActive: number;
  isAdr: number;
  marketCap: number | null;
  c: number;
  pc: number;
  avgVolume: number | null;
  t: number;
}

function stored(s: SampleListing): StoredSecurity {
  return t.source.db
    .prepare(
      `SELECT s.name, s.isin, s.cusip, l.exchange, l.currency, s.sector, s.industry, s.country, s.website,
         s.description, s.ipo_date AS ipo, s.is_active AS isActive, s.is_adr AS isAdr, s.market_cap AS marketCap,
         q.c, q.pc, q.avg_volume AS avgVolume, q.t
       FROM listings l JOIN securities s ON s.id = l.security_id JOIN quotes q ON q.listing_id = l.id
       WHERE l.id = ?`,
    )
    .get(s.listingId) as StoredSecurity;
}

/** The 52-week range as the contract states it: the daily bars of the 365 days to the quote. */
function yearRange(s: SampleListing, quoteT: number): string | null {
  const r = t.source.db
    .prepare(`SELECT min(l) AS lo, max(h) AS hi FROM daily_bars WHERE listing_id = ? AND t BETWEEN ? AND ?`)
    .get(s.listingId, quoteT - 365 * 86_400, quoteT) as { lo: number | null; hi: number | null };
  return r.lo == null ? null : `${r.lo}-${r.hi}`;
}

function lastDividend(s: SampleListing): number {
  const r = t.source.db
    .prepare(`SELECT amount FROM dividends WHERE security_id = ? AND ex_date <= ? ORDER BY ex_date DESC LIMIT 1`)
    .get(s.securityId, TEST_ANCHOR) as { amount: number } | undefined;
  return r ? r.amount : 0;
}

function expected(s: SampleListing): Record<string, unknown> {
  const r = stored(s);
  return {
    symbol: s.symbol,
    beta: null,
    price: r.c,
    volAvg: r.avgVolume,
    lastDiv: lastDividend(s),
    range: yearRange(s, r.t),
    changes: Math.round((r.c - r.pc) * 1e10) / 1e10,
    companyName: r.name,
    currency: r.currency,
    cik: null,
    isin: r.isin,
    cusip: r.cusip,
    exchange: r.exchange,
    exchangeShortName: r.exchange,
    industry: r.industry,
    website: r.website,
    description: r.description,
    ceo: null,
    sector: r.sector,
    country: r.country,
    phone: null,
    address: null,
    city: null,
    state: null,
    zip: null,
    dcfDiff: null,
    dcf: null,
    isEtf: false,
    isActivelyTrading: r.isActive === 1,
    isAdr: r.isAdr === 1,
    isFund: false,
    marketCapitalization: r.marketCap,
    employeeTotal: null,
    ipo: r.ipo,
  };
}

/** Where the store itself has no value (columns without NOT NULL): null is the contract's answer there. */
const STORE_NULLABLE = ["isin", "cusip", "industry", "sector", "country", "website", "description", "ipo"];

describe.each(["v0", "v1"])("POST /%s/stock/profile", (v) => {
  // client.stock.profile(symbol) and client.stock.fundamentals(symbol) both post exactly this.
  it("answers what the Python SDK posts in its Profile model's keys, from the store", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    const res = await t.post(`/${v}/stock/profile`, { symbol: payer.symbol });
    expect(res.status).toBe(200);
    expectProfileModel(res.body, STORE_NULLABLE);
    expect(res.body).toEqual(expected(payer));
    expect(res.body.lastDiv).toBeGreaterThan(0);
    expect(res.body.range).toMatch(/^\d+(\.\d+)?-\d+(\.\d+)?$/);
  });

  it("answers lastDiv 0 for a stock that has paid no dividend", async () => {
    const none = nonPayer(t.source.db, "stock");
    const res = await t.post(`/${v}/stock/profile`, { symbol: none.symbol });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expected(none));
    expect(res.body.lastDiv).toBe(0);
  });

  it("answers the Dart client's {isin} alike, naming the primary listing", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    const res = await t.post(`/${v}/stock/profile`, { isin: payer.isin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expected(payer));
  });

  it("reads the store in one query per kind (instrument, bars, dividends)", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    const { result, queries } = await t.countQueries(() => t.post(`/${v}/stock/profile`, { symbol: payer.symbol }));
    expect(result.status).toBe(200);
    expect(queries).toBeLessThanOrEqual(3);
  });

  it("answers 404 NOT_FOUND for an ETF and an unknown symbol, INVALID_ARGUMENT for a malformed body", async () => {
    const etf = t.source.db
      .prepare(`SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id WHERE s.type = 'etf'`)
      .get() as { symbol: string };
    expectErrorBody(await t.post(`/${v}/stock/profile`, { symbol: etf.symbol }), 404, "NOT_FOUND");
    expectErrorBody(await t.post(`/${v}/stock/profile`, { symbol: "NOPE-NOT-A-SYMBOL" }), 404, "NOT_FOUND");
    expectErrorBody(await t.post(`/${v}/stock/profile`, { symbol: 42 }), 404, "INVALID_ARGUMENT");
    expectErrorBody(await t.post(`/${v}/stock/profile`, {}), 404, "INVALID_ARGUMENT");
  });

  it("needs the stock scope, and a key", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    const dividendOnly = await t.apiKeys.create({ name: `profile-dividend-${v}`, scopes: ["dividend"] });
    expectErrorBody(await t.post(`/${v}/stock/profile`, { symbol: payer.symbol }, dividendOnly.key), 403, "FORBIDDEN");
    expectErrorBody(await t.post(`/${v}/stock/profile`, { symbol: payer.symbol }, null), 401, "UNAUTHENTICATED");
    const stockOnly = await t.apiKeys.create({ name: `profile-stock-${v}`, scopes: ["stock"] });
    expect((await t.post(`/${v}/stock/profile`, { symbol: payer.symbol }, stockOnly.key)).status).toBe(200);
  });

  it("answers GET with the query string as POST", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    const post = await t.post(`/${v}/stock/profile`, { symbol: payer.symbol });
    const res = await t.http
      .get(`/${v}/stock/profile?symbol=${encodeURIComponent(payer.symbol)}`)
      .set("x-api-key", "test-bootstrap-key-0123456789");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(post.body);
    expect(res.headers["cache-control"]).toBe("private, max-age=300");
  });

  it("answers through bulk, item by item", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    const none = nonPayer(t.source.db, "stock");
    const res = await t.post(`/${v}/bulk`, {
      endpoint: "stock/profile",
      symbols: [{ symbol: payer.symbol }, { symbol: none.symbol }, { symbol: "NOPE-NOT-A-SYMBOL" }],
    });
    expect(res.status).toBe(200);
    const results = res.body.results as { statusCode: number; data?: unknown }[];
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 404]);
    expect(results[0]!.data).toEqual(expected(payer));
    expect(results[1]!.data).toEqual(expected(none));
  });
});

describe("GraphQL Stock.profile", () => {
  it("answers the figures REST answers", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    const res = await gql(
      t,
      `query ($s: String) {
        stock(symbol: $s) { profile { symbol companyName price changes yearLow yearHigh lastDiv } }
      }`,
      { s: payer.symbol },
    );
    const rest = (await t.post("/v1/stock/profile", { symbol: payer.symbol })).body;
    const p = res.body.data.stock.profile;
    expect(p).toEqual({
      symbol: rest.symbol,
      companyName: rest.companyName,
      price: rest.price,
      changes: rest.changes,
      yearLow: Number(rest.range.split("-")[0]),
      yearHigh: Number(rest.range.split("-")[1]),
      lastDiv: rest.lastDiv,
    });
  });

  it("refuses the field to a key without the stock scope, its siblings answered", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    const searchOnly = await t.apiKeys.create({ name: "profile-search-gql", scopes: ["search"] });
    const res = await gql(
      t,
      `query ($s: String) { stock(symbol: $s) { symbol profile { price } } }`,
      { s: payer.symbol },
      searchOnly.key,
    );
    expect(res.body.data.stock).toEqual({ symbol: payer.symbol, profile: null });
    expect(res.body.errors[0].extensions.code).toBe("FORBIDDEN");
  });
});

describe("gateway mode", () => {
  const gw = gatewayPerSuite();

  it("answers what the upstream answers, on both doors", async () => {
    const payer = dividendPayer(t.source.db, "stock");
    const direct = await gw.upstream.app.post("/v1/stock/profile", { symbol: payer.symbol });
    expect(direct.status).toBe(200);
    for (const v of ["v0", "v1"]) {
      const res = await gw.gateway.post(`/${v}/stock/profile`, { symbol: payer.symbol }, GATEWAY_KEY);
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: direct.body });
    }
    const unknown = await gw.gateway.post("/v1/stock/profile", { symbol: "NOPE-NOT-A-SYMBOL" }, GATEWAY_KEY);
    expectErrorBody(unknown, 404, "NOT_FOUND");
  });
});
