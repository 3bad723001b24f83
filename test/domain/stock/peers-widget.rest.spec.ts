import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { expectErrorBody, expectGetAndBulkAsPost } from "../../helpers/expect";
import { GATEWAY_KEY, gatewayPerSuite } from "../../helpers/gateway";
import { gql } from "../../helpers/graphql";
import { LiveClient, serveLive } from "../../helpers/live";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/**
 * The Bavest Python SDK's `StockPeers` model (bavest/finance/models/v0/widget/stock/peers/peers.py at
 * Bavest/python-sdk d6e4d7ab211b5a57e7bf491bed4493452c8552a8), every field with the type it declares; the Dart
 * SDK's `PeersWidget` (lib/model/v0/widget/peers/peers.dart) declares the item's five the same (String, double).
 */
const STOCK_PEERS_MODEL = { stock_peers: "List[StockPeersItem]" } as const;
const STOCK_PEERS_ITEM_MODEL = {
  symbol: "str",
  name: "str",
  category: "str",
  close: "float",
  priceChange: "float",
} as const;

function expectStockPeersModel(body: Record<string, unknown>) {
  expect(Object.keys(body).sort()).toEqual(Object.keys(STOCK_PEERS_MODEL).sort());
  expect(Array.isArray(body.stock_peers)).toBe(true);
  for (const item of body.stock_peers as Record<string, unknown>[]) {
    expect(Object.keys(item).sort()).toEqual(Object.keys(STOCK_PEERS_ITEM_MODEL).sort());
    for (const [key, type] of Object.entries(STOCK_PEERS_ITEM_MODEL)) {
      const value = item[key];
      if (type === "float") expect({ key, finite: Number.isFinite(value) }).toEqual({ key, finite: true });
      else expect({ key, type: typeof value }).toEqual({ key, type: "string" });
    }
  }
}

interface StoredPeer {
  symbol: string;
  name: string;
  sector: string;
  industry: string | null;
  c: number | null;
  pc: number | null;
}

/** A stock with a sector and a capitalisation, by its primary listing. */
function aStock(): { symbol: string; isin: string } {
  return t.source.db
    .prepare(
      `SELECT l.symbol, s.isin FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       WHERE s.type = 'stock' AND s.sector IS NOT NULL AND s.market_cap > 0 AND s.isin IS NOT NULL
       ORDER BY s.id LIMIT 1`,
    )
    .get() as { symbol: string; isin: string };
}

/** What the store holds of each peer's primary listing: name, classification and latest quote. */
function stored(symbols: readonly string[]): StoredPeer[] {
  const stmt = t.source.db.prepare(
    `SELECT l.symbol, s.name, s.sector, s.industry, q.c, q.pc FROM listings l
     JOIN securities s ON s.id = l.security_id LEFT JOIN quotes q ON q.listing_id = l.id WHERE l.symbol = ?`,
  );
  return symbols.map((symbol) => stmt.get(symbol) as StoredPeer);
}

describe.each(["v0", "v1"])("POST /%s/widgets/stock/peers", (v) => {
  it("answers what client.widget.peers(symbol) posts (currency EUR) in the SDK model's keys", async () => {
    const s = aStock();
    const res = await t.post(`/${v}/widgets/stock/peers`, { symbol: s.symbol, currency: "EUR" });
    expect(res.status).toBe(200);
    expectStockPeersModel(res.body);
    const peers = await t.post(`/${v}/stock/peers`, { symbol: s.symbol });
    const items = res.body.stock_peers as { symbol: string; close: number; priceChange: number }[];
    const quoted = stored(peers.body.peers).filter((p) => p.c != null);
    expect(items.map((i) => i.symbol)).toEqual(quoted.map((p) => p.symbol));
    expect(items.length).toBeGreaterThan(0);
    // Each price is what quote answers in euros.
    for (const item of items) {
      const quote = await t.post(`/${v}/quote`, { symbol: item.symbol, currency: "EUR" });
      expect({ symbol: item.symbol, close: item.close, priceChange: item.priceChange }).toEqual({
        symbol: item.symbol,
        close: quote.body.c,
        priceChange: quote.body.d,
      });
    }
  });

  it("answers the Dart client's {symbol} and {isin} in each listing's currency, as the store holds it", async () => {
    const s = aStock();
    const res = await t.post(`/${v}/widgets/stock/peers`, { symbol: s.symbol });
    expect(res.status).toBe(200);
    expectStockPeersModel(res.body);
    const peers = await t.post(`/${v}/stock/peers`, { symbol: s.symbol });
    const expected = stored(peers.body.peers)
      .filter((p) => p.c != null && p.pc != null)
      .map((p) => ({
        symbol: p.symbol,
        name: p.name,
        category: p.industry ?? p.sector,
        close: p.c,
        priceChange: Math.round((p.c! - p.pc!) * 1e10) / 1e10,
      }));
    expect(res.body).toEqual({ stock_peers: expected });
    const byIsin = await t.post(`/${v}/widgets/stock/peers`, { isin: s.isin });
    expect(byIsin.body).toEqual(res.body);
  });

  it("takes limit as stock/peers does, and refuses one out of range or an unknown currency", async () => {
    const s = aStock();
    const three = await t.post(`/${v}/widgets/stock/peers`, { symbol: s.symbol, limit: 3 });
    expect(three.body.stock_peers.length).toBeLessThanOrEqual(3);
    const limited = await t.post(`/${v}/stock/peers`, { symbol: s.symbol, limit: 3 });
    expect(three.body.stock_peers.map((p: { symbol: string }) => p.symbol)).toEqual(
      stored(limited.body.peers)
        .filter((p) => p.c != null)
        .map((p) => p.symbol),
    );
    expectErrorBody(
      await t.post(`/${v}/widgets/stock/peers`, { symbol: s.symbol, limit: 51 }),
      404,
      "INVALID_ARGUMENT",
    );
    const xxx = await t.post(`/${v}/widgets/stock/peers`, { symbol: s.symbol, currency: "XXQ" });
    expectErrorBody(xxx, 404, "INVALID_ARGUMENT");
    expect(xxx.body.details[0].field).toBe("currency");
  });

  it("answers 404 NOT_FOUND for an ETF, needs the stock scope and a key", async () => {
    const s = aStock();
    const etf = t.source.db
      .prepare(`SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id WHERE s.type = 'etf'`)
      .get() as { symbol: string };
    expectErrorBody(await t.post(`/${v}/widgets/stock/peers`, { symbol: etf.symbol }), 404, "NOT_FOUND");
    const dividendOnly = await t.apiKeys.create({ name: `peers-widget-dividend-${v}`, scopes: ["dividend"] });
    expectErrorBody(
      await t.post(`/${v}/widgets/stock/peers`, { symbol: s.symbol }, dividendOnly.key),
      403,
      "FORBIDDEN",
    );
    expectErrorBody(await t.post(`/${v}/widgets/stock/peers`, { symbol: s.symbol }, null), 401, "UNAUTHENTICATED");
  });

  it("answers GET as POST, and through bulk", async () => {
    await expectGetAndBulkAsPost(t, `/${v}/widgets/stock/peers`, { symbol: aStock().symbol, currency: "EUR" });
  });
});

describe("the Dart client's WebSocket action stock/peers/widget", () => {
  it("answers as POST /v0/widgets/stock/peers, echoing the action", async () => {
    const served = await serveLive(t);
    try {
      const s = aStock();
      const client = await LiveClient.open(served.url("/v0"), BOOTSTRAP_KEY);
      const ws = await client.request({ action: "stock/peers/widget", symbol: s.symbol });
      const rest = await t.post("/v0/widgets/stock/peers", { symbol: s.symbol });
      expect(ws).toMatchObject({ action: "stock/peers/widget", status: 200, data: rest.body });
      const peers = await client.request({ action: "stock/peers", symbol: s.symbol });
      expect(peers).toMatchObject({ status: 200, data: (await t.post("/v0/stock/peers", { symbol: s.symbol })).body });
      client.close();
    } finally {
      await served.close();
    }
  });
});

describe("GraphQL Stock.peersWidget", () => {
  it("answers the items REST answers", async () => {
    const s = aStock();
    const res = await gql(
      t,
      `query ($s: String) {
        stock(symbol: $s) { peersWidget(currency: "EUR", limit: 4) { symbol name category close priceChange } }
      }`,
      { s: s.symbol },
    );
    const rest = await t.post("/v1/widgets/stock/peers", { symbol: s.symbol, currency: "EUR", limit: 4 });
    expect(res.body.data.stock.peersWidget).toEqual(rest.body.stock_peers);
  });
});

describe("gateway mode", () => {
  const gw = gatewayPerSuite();

  it("answers what the upstream answers, for the Python and the Dart forms", async () => {
    const s = aStock();
    for (const body of [{ symbol: s.symbol, currency: "EUR" }, { isin: s.isin }]) {
      const direct = await gw.upstream.app.post("/v1/widgets/stock/peers", body);
      expect(direct.body.stock_peers.length).toBeGreaterThan(0);
      for (const v of ["v0", "v1"]) {
        const res = await gw.gateway.post(`/${v}/widgets/stock/peers`, body, GATEWAY_KEY);
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: direct.body });
      }
    }
  });
});
