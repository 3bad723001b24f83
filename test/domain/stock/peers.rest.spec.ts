import { createTestApp, type TestApp } from "../../helpers/app";
import { expectErrorBody } from "../../helpers/expect";
import { GATEWAY_KEY, gatewayPerSuite } from "../../helpers/gateway";
import { gql } from "../../helpers/graphql";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/**
 * The Bavest Python SDK's `Peers` model (bavest/finance/models/v0/stock/peers/peers.py at Bavest/python-sdk
 * d6e4d7ab211b5a57e7bf491bed4493452c8552a8), every field with the type it declares.
 */
const PEERS_MODEL = { peers: "List[str]" } as const;

function expectPeersModel(body: Record<string, unknown>) {
  expect(Object.keys(body).sort()).toEqual(Object.keys(PEERS_MODEL).sort());
  expect(Array.isArray(body.peers)).toBe(true);
  for (const p of body.peers as unknown[]) expect(typeof p).toBe("string");
}

interface StoredStock {
  id: number;
  symbol: string;
  isin: string | null;
  sector: string | null;
  industry: string | null;
  currency: string;
  marketCap: number | null;
  isActive: number;
}

let stocksRead: StoredStock[] | undefined;
/** Every stock of the store with its primary listing, read whole: the test's own ranking works from these. */
function storedStocks(): StoredStock[] {
  return (stocksRead ??= t.source.db
    .prepare(
      `SELECT s.id, l.symbol, s.isin, s.sector, s.industry, s.currency, s.market_cap AS marketCap,
              s.is_active AS isActive
       FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1 WHERE s.type = 'stock'`,
    )
    .all() as StoredStock[]);
}

/** Units of each currency per US dollar on the latest day stored. */
function latestRates(): Map<string, number> {
  const rows = t.source.db
    .prepare(
      `SELECT f.currency, f.per_usd AS perUsd FROM fx_daily f
       WHERE f.day = (SELECT max(g.day) FROM fx_daily g WHERE g.currency = f.currency)`,
    )
    .all() as { currency: string; perUsd: number }[];
  return new Map(rows.map((r) => [r.currency, r.perUsd]));
}

/**
 * The contract's ranking, computed here from the whole store: active stocks of the sector, the industry's first,
 * then by |log(cap / cap0)| of capitalisations in US dollars, then the larger, then the lower id.
 */
function expectedPeers(of: StoredStock, limit: number): string[] {
  const rates = latestRates();
  const usd = (s: StoredStock) =>
    s.marketCap != null && s.marketCap > 0 && (s.currency === "USD" || rates.has(s.currency))
      ? s.marketCap / (s.currency === "USD" ? 1 : rates.get(s.currency)!)
      : null;
  const cap0 = usd(of);
  return storedStocks()
    .filter((c) => c.id !== of.id && c.isActive === 1 && c.sector === of.sector && usd(c) != null)
    .map((c) => ({
      c,
      industry: c.industry === of.industry ? 0 : 1,
      distance: cap0 == null ? 0 : Math.abs(Math.log(usd(c)! / cap0)),
      cap: usd(c)!,
    }))
    .sort((a, b) => a.industry - b.industry || a.distance - b.distance || b.cap - a.cap || a.c.id - b.c.id)
    .slice(0, limit)
    .map((x) => x.c.symbol);
}

/** A stock with a sector, a capitalisation, and fewer other stocks in its industry than `atMost`. */
function stockOfSmallIndustry(atMost: number): StoredStock {
  const all = storedStocks();
  const counts = new Map<string, number>();
  for (const s of all) if (s.industry) counts.set(s.industry, (counts.get(s.industry) ?? 0) + 1);
  const found = all.find(
    (s) => s.sector && s.industry && s.isin && s.marketCap != null && (counts.get(s.industry) ?? 0) - 1 < atMost,
  );
  if (found) return found;
  // No industry that small in the store: the first stock with a sector (its industry then fills the answer).
  return all.find((s) => s.sector && s.industry && s.isin && s.marketCap != null)!;
}

const firstStock = () => storedStocks().find((s) => s.sector && s.industry && s.isin && s.marketCap != null)!;

describe.each(["v0", "v1"])("POST /%s/stock/peers", (v) => {
  it("answers what client.stock.peers(symbol) posts in the SDK model's keys, ranked as the store says", async () => {
    const s = firstStock();
    const res = await t.post(`/${v}/stock/peers`, { symbol: s.symbol });
    expect(res.status).toBe(200);
    expectPeersModel(res.body);
    expect(res.body.peers).toHaveLength(10);
    expect(res.body).toEqual({ peers: expectedPeers(s, 10) });
    expect(res.body.peers).not.toContain(s.symbol);
  });

  it("puts the industry's stocks before the rest of the sector, and takes limit up to 50", async () => {
    const s = stockOfSmallIndustry(50);
    const res = await t.post(`/${v}/stock/peers`, { symbol: s.symbol, limit: 50 });
    expect(res.status).toBe(200);
    const expected = expectedPeers(s, 50);
    expect(res.body).toEqual({ peers: expected });
    const bySymbol = new Map(storedStocks().map((x) => [x.symbol, x]));
    const industries = expected.map((p) => bySymbol.get(p)!.industry === s.industry);
    // Same-industry peers form a prefix, and the sector's others follow.
    expect(industries).toEqual([...industries].sort((a, b) => Number(b) - Number(a)));
    expect(industries).toContain(false);
    for (const p of expected) expect(bySymbol.get(p)!.sector).toBe(s.sector);
  });

  it("answers by ISIN (a form of the Dart client's SecurityIdentifier) as by symbol", async () => {
    const s = firstStock();
    const bySymbol = await t.post(`/${v}/stock/peers`, { symbol: s.symbol, limit: 3 });
    const byIsin = await t.post(`/${v}/stock/peers`, { isin: s.isin, limit: 3 });
    expect(byIsin.status).toBe(200);
    expect(byIsin.body).toEqual(bySymbol.body);
    expect(bySymbol.body.peers).toHaveLength(3);
  });

  it("answers 404 INVALID_ARGUMENT for a limit out of range, NOT_FOUND for an ETF and an unknown symbol", async () => {
    const s = firstStock();
    for (const limit of [0, 51, 2.5]) {
      const res = await t.post(`/${v}/stock/peers`, { symbol: s.symbol, limit });
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      expect(res.body.details[0].field).toBe("limit");
    }
    const etf = t.source.db
      .prepare(`SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id WHERE s.type = 'etf'`)
      .get() as { symbol: string };
    expectErrorBody(await t.post(`/${v}/stock/peers`, { symbol: etf.symbol }), 404, "NOT_FOUND");
    expectErrorBody(await t.post(`/${v}/stock/peers`, { symbol: "NOPE-NOT-A-SYMBOL" }), 404, "NOT_FOUND");
  });

  it("needs the stock scope, and a key", async () => {
    const s = firstStock();
    const dividendOnly = await t.apiKeys.create({ name: `peers-dividend-${v}`, scopes: ["dividend"] });
    expectErrorBody(await t.post(`/${v}/stock/peers`, { symbol: s.symbol }, dividendOnly.key), 403, "FORBIDDEN");
    expectErrorBody(await t.post(`/${v}/stock/peers`, { symbol: s.symbol }, null), 401, "UNAUTHENTICATED");
  });

  it("answers GET as POST", async () => {
    const s = firstStock();
    const post = await t.post(`/${v}/stock/peers`, { symbol: s.symbol, limit: 5 });
    const res = await t.http
      .get(`/${v}/stock/peers?symbol=${encodeURIComponent(s.symbol)}&limit=5`)
      .set("x-api-key", "test-bootstrap-key-0123456789");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(post.body);
    expect(res.headers["cache-control"]).toMatch(/^private, max-age=\d+$/);
  });

  it("answers through bulk in one store read for every item", async () => {
    const stocks = storedStocks()
      .filter((s) => s.sector && s.marketCap != null)
      .slice(0, 5);
    const before = t.source.stats.queries;
    const res = await t.post(`/${v}/bulk`, {
      endpoint: "stock/peers",
      symbols: [...stocks.map((s) => ({ symbol: s.symbol })), { symbol: "NOPE-NOT-A-SYMBOL" }],
      params: { limit: 4 },
    });
    const queries = t.source.stats.queries - before;
    expect(res.status).toBe(200);
    const results = res.body.results as { statusCode: number; data?: unknown }[];
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 404]);
    stocks.forEach((s, i) => expect(results[i]!.data).toEqual({ peers: expectedPeers(s, 4) }));
    // The key's lookup, the symbols' lookup, one peers statement: never one per item.
    expect(queries).toBeLessThanOrEqual(4);
  });
});

describe("GraphQL Stock.peers", () => {
  it("answers the stocks REST names, each a stock with its fields", async () => {
    const s = firstStock();
    const res = await gql(
      t,
      `query ($s: String) { stock(symbol: $s) { peers(limit: 4) { symbol sector industry marketCapitalization } } }`,
      { s: s.symbol },
    );
    const rest = await t.post("/v1/stock/peers", { symbol: s.symbol, limit: 4 });
    const peers = res.body.data.stock.peers as { symbol: string; sector: string }[];
    expect(peers.map((p) => p.symbol)).toEqual(rest.body.peers);
    for (const p of peers) expect(p.sector).toBe(s.sector);
  });

  it("refuses the field to a key without the stock scope", async () => {
    const s = firstStock();
    const searchOnly = await t.apiKeys.create({ name: "peers-search-gql", scopes: ["search"] });
    const res = await gql(
      t,
      `query ($s: String) { stock(symbol: $s) { symbol peers { symbol } } }`,
      { s: s.symbol },
      searchOnly.key,
    );
    expect(res.body.data.stock).toEqual({ symbol: s.symbol, peers: null });
    expect(res.body.errors[0].extensions.code).toBe("FORBIDDEN");
  });
});

describe("gateway mode", () => {
  const gw = gatewayPerSuite();

  it("answers what the upstream answers, by symbol and by ISIN, with and without limit", async () => {
    const s = firstStock();
    const direct = await gw.upstream.app.post("/v1/stock/peers", { symbol: s.symbol });
    expect(direct.body.peers).toHaveLength(10);
    for (const v of ["v0", "v1"]) {
      for (const body of [{ symbol: s.symbol }, { isin: s.isin }]) {
        const res = await gw.gateway.post(`/${v}/stock/peers`, body, GATEWAY_KEY);
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: direct.body });
      }
    }
    const three = await gw.gateway.post("/v1/stock/peers", { symbol: s.symbol, limit: 3 }, GATEWAY_KEY);
    expect(three.body).toEqual({ peers: direct.body.peers.slice(0, 3) });
  });
});
