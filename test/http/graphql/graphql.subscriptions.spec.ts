import { createClient, type Client, type ExecutionResult } from "graphql-ws";
import WebSocket from "ws";
import { createContext } from "../../../src/http/http.context";
import { ROW_STORE_ANSWERS } from "../../../src/domain/answers";
import type { Quote } from "../../../src/domain/quote/quote.types";
import { createTestApp, type TestApp } from "../../helpers/app";
import { manualClock } from "../../helpers/clock";
import { BOOTSTRAP_KEY, TEST_ANCHOR } from "../../helpers/constants";
import { LiveClient, refusedUpgrade, serveLive } from "../../helpers/live";

/** The first stock's and the first crypto pair's primary symbols, from the store. */
function symbols(t: TestApp) {
  const pick = (type: string, offset = 0) =>
    t.source.db
      .prepare(
        `SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id
         WHERE s.type = ? AND l.is_primary = 1 ORDER BY s.id LIMIT 1 OFFSET ?`,
      )
      .pluck()
      .get(type, offset) as string;
  return { stock: pick("stock"), stock2: pick("stock", 1), crypto: pick("crypto") };
}

async function storeQuote(t: TestApp, symbol: string): Promise<Quote> {
  const principal = await t.apiKeys.authenticate(BOOTSTRAP_KEY);
  return ROW_STORE_ANSWERS.quote.get(createContext(t.deps, "test", principal), { symbol });
}

function moved(base: Quote, fields: Partial<Quote>): Quote {
  return Object.assign(Object.create(Object.getPrototypeOf(base) as object) as Quote, base, fields);
}

/** A real graphql-ws client that does not retry, and what closed it. */
function client(url: string, connectionParams: Record<string, unknown> | undefined) {
  let closed: (e: { code: number; reason: string }) => void;
  const closedWith = new Promise<{ code: number; reason: string }>((r) => (closed = r));
  let opened: () => void;
  const connected = new Promise<void>((r) => (opened = r));
  const c: Client = createClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: false,
    // The close is what `closedWith` reports; the client would also print it.
    onNonLazyError: () => undefined,
    on: { closed: (e) => closed(e as { code: number; reason: string }), connected: () => opened() },
  });
  return { c, closedWith, connected };
}

/** One subscription's results as they come, and whether it completed or failed. */
function run(c: Client, query: string, variables?: Record<string, unknown>) {
  const results: ExecutionResult[] = [];
  let wake: () => void = () => undefined;
  let ended: "complete" | { error: unknown } | undefined;
  const stop = c.subscribe(
    { query, variables },
    {
      next: (r) => {
        results.push(r as ExecutionResult);
        wake();
      },
      error: (error) => {
        ended = { error };
        wake();
      },
      complete: () => {
        ended = "complete";
        wake();
      },
    },
  );
  const until = async (ok: () => boolean, ms = 10_000) => {
    const deadline = Date.now() + ms;
    while (!ok()) {
      if (Date.now() > deadline) throw new Error(`timed out; results: ${JSON.stringify(results).slice(0, 400)}`);
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 50);
      });
    }
  };
  return { results, stop, until, ended: () => ended };
}

const QUOTES = `subscription Q($symbols: [String!]!) {
  quoteUpdated(symbols: $symbols) { symbol simulated quote { symbol c t currency } }
}`;
const CANDLES = `subscription C($symbol: String!, $resolution: String!) {
  candleUpdated(symbol: $symbol, resolution: $resolution) { symbol resolution t o h l c v closed simulated }
}`;

describe("GraphQL subscriptions over graphql-ws on /graphql", () => {
  let t: TestApp;
  let served: Awaited<ReturnType<typeof serveLive>>;
  let url: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { MDG_WS_MAX_SUBSCRIPTIONS: "3" } });
    served = await serveLive(t);
    url = served.url("/graphql");
  });
  afterEach(async () => {
    // Every subscription of a test ended before the next starts (ending is asynchronous: a message to the server).
    const deadline = Date.now() + 5_000;
    while (t.live.hub.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(t.live.hub.size).toBe(0);
  });
  afterAll(async () => {
    await t.close();
    await served.close();
  });

  describe("connection_init", () => {
    it("closes with 4401 and a reason without a key, and with an unknown key", async () => {
      for (const params of [undefined, { "x-api-key": "mdg_not-a-key" }]) {
        const { c, closedWith } = client(url, params);
        const closed = await closedWith;
        expect(closed.code).toBe(4401);
        expect(closed.reason).toMatch(/API key is required in connection_init/);
        expect(closed.reason).not.toContain("mdg_not-a-key");
        await c.dispose();
      }
    });

    it("closes with 4403 and a reason for a key without any data scope", async () => {
      const { key } = await t.apiKeys.create({ name: "bulk only", scopes: "bulk" });
      const { c, closedWith } = client(url, { apiKey: key });
      const closed = await closedWith;
      expect(closed.code).toBe(4403);
      expect(closed.reason).toMatch(/no data scope/);
      await c.dispose();
    });

    it("refuses a query over the socket and a document past the limits, each with an error", async () => {
      const { c } = client(url, { "x-api-key": BOOTSTRAP_KEY });
      const query = run(c, "{ __typename }");
      await query.until(() => query.ended() !== undefined);
      expect(query.ended()).toEqual({
        error: [
          {
            message: "only subscriptions are served over the WebSocket; send queries by POST /graphql",
            extensions: { code: "BAD_REQUEST" },
          },
        ],
      });
      const aliases = Array.from({ length: t.deps.config.graphql.maxAliases + 1 }, (_, i) => `a${i}: symbol`).join(" ");
      const wide = run(c, `subscription { quoteUpdated(symbols: ["A"]) { ${aliases} } }`);
      await wide.until(() => wide.ended() !== undefined);
      expect(wide.ended()).toEqual({
        error: [
          expect.objectContaining({ extensions: expect.objectContaining({ reason: "TOO_MANY_SAME_NAME_FIELDS" }) }),
        ],
      });
      const invalid = run(c, "subscription { quoteUpdated(symbols: 1) { symbol } }");
      await invalid.until(() => invalid.ended() !== undefined);
      expect(invalid.ended()).toEqual({ error: [expect.objectContaining({ message: expect.any(String) })] });
      expect(t.live.hub.size).toBe(0);
      await c.dispose();
    });
  });

  it("pushes a change of a subscribed quote, and nothing once the client completes", async () => {
    const { stock } = symbols(t);
    const { c } = client(url, { "x-api-key": BOOTSTRAP_KEY });
    const sub = run(c, QUOTES, { symbols: [stock.toLowerCase()] });
    await sub.until(() => t.live.hub.wanted().includes(stock));
    const base = await storeQuote(t, stock);
    t.live.hub.publish({ symbol: stock, quote: moved(base, { c: base.c + 1 }), origin: "store" });
    await sub.until(() => sub.results.length === 1);
    expect(sub.results[0]).toEqual({
      data: {
        quoteUpdated: {
          symbol: stock,
          simulated: false,
          quote: { symbol: stock, c: base.c + 1, t: base.t, currency: base.currency },
        },
      },
    });

    sub.stop();
    await sub.until(() => !t.live.hub.wanted().includes(stock));
    t.live.hub.publish({ symbol: stock, quote: moved(base, { c: base.c + 2 }), origin: "store" });
    // A round trip on the same socket after the change: anything pushed would have come before its answer.
    const other = run(c, QUOTES, { symbols: [stock] });
    await other.until(() => t.live.hub.size === 1);
    t.live.hub.publish({ symbol: stock, quote: moved(base, { c: base.c + 3 }), origin: "simulated" });
    await other.until(() => other.results.length === 1);
    expect(sub.results).toHaveLength(1);
    expect(other.results[0]!.data).toMatchObject({ quoteUpdated: { simulated: true, quote: { c: base.c + 3 } } });
    other.stop();
    await c.dispose();
  });

  it("pushes the forming bar and closes it", async () => {
    const { stock } = symbols(t);
    const { c } = client(url, { "x-api-key": BOOTSTRAP_KEY });
    const sub = run(c, CANDLES, { symbol: stock, resolution: "1" });
    await sub.until(() => t.live.hub.size === 1);
    const base = await storeQuote(t, stock);
    const minute = Math.floor(base.t / 60) * 60 + 600;
    t.live.hub.publish({ symbol: stock, quote: moved(base, { t: minute + 1, c: 10 }), origin: "store" });
    t.live.hub.publish({ symbol: stock, quote: moved(base, { t: minute + 61, c: 11 }), origin: "store" });
    await sub.until(() => sub.results.length === 3);
    const bars = sub.results.map((r) => (r.data as { candleUpdated: Record<string, unknown> }).candleUpdated);
    expect(bars.map((b) => [b.t, b.c, b.closed])).toEqual([
      [minute, 10, false],
      [minute, 10, true],
      [minute + 60, 11, false],
    ]);
    expect(bars[0]).toMatchObject({ symbol: stock, resolution: "1", simulated: false });
    const bad = run(c, CANDLES, { symbol: stock, resolution: "60" });
    await bad.until(() => bad.ended() !== undefined);
    expect(bad.results[0]!.errors![0]!.extensions).toMatchObject({ code: "BAD_USER_INPUT" });
    sub.stop();
    await c.dispose();
  });

  it("refuses a symbol outside the key's scope (FORBIDDEN), an unknown one (NOT_FOUND), counting nothing", async () => {
    const { stock, crypto } = symbols(t);
    const { key } = await t.apiKeys.create({ name: "stocks only", scopes: "stock" });
    const { c } = client(url, { "x-api-key": key });
    const used = async () => {
      const r = await t.post("/v1/quota", {}, key);
      return (r.body as { policies: { used: number }[] }).policies[0]!.used;
    };
    const before = await used();
    const refused = run(c, QUOTES, { symbols: [stock, crypto] });
    await refused.until(() => refused.ended() !== undefined);
    expect(refused.ended()).toBe("complete");
    expect(refused.results[0]!.errors![0]!.extensions).toMatchObject({ code: "FORBIDDEN" });
    const unknown = run(c, QUOTES, { symbols: ["NO-SUCH-SYMBOL"] });
    await unknown.until(() => unknown.ended() !== undefined);
    expect(unknown.results[0]!.errors![0]!.extensions).toMatchObject({ code: "NOT_FOUND" });
    expect(t.live.hub.wanted()).not.toContain(stock);
    expect(await used()).toBe(before);
    await c.dispose();
  });

  it("charges one unit per symbol and shares MDG_WS_MAX_SUBSCRIPTIONS with the WebSocket door", async () => {
    const { stock, stock2, crypto } = symbols(t);
    const { key } = await t.apiKeys.create({ name: "limited", scopes: "stock,crypto" });
    const used = async () => {
      const r = await t.post("/v1/quota", {}, key);
      return (r.body as { policies: { used: number }[] }).policies[0]!.used;
    };
    const before = await used();
    const door = await LiveClient.open(served.url("/v1"), key);
    expect(await door.request({ action: "subscribe", channel: "quote", symbol: crypto })).toMatchObject({
      status: 200,
    });
    const { c } = client(url, { "x-api-key": key });
    const two = run(c, QUOTES, { symbols: [stock, stock2] });
    await two.until(() => t.live.hub.size === 3);
    // quota answers free of charge: the door's subscribe and the two symbols.
    expect(await used()).toBe(before + 1 + 2);
    const third = run(c, CANDLES, { symbol: stock, resolution: "5" });
    await third.until(() => third.ended() !== undefined);
    expect(third.results[0]!.errors![0]).toMatchObject({
      message: expect.stringMatching(/MDG_WS_MAX_SUBSCRIPTIONS/),
      extensions: { code: "FORBIDDEN" },
    });
    const refusedByDoor = await door.request({ action: "subscribe", channel: "quote", symbol: stock });
    expect(refusedByDoor).toMatchObject({ status: 403 });
    two.stop();
    await two.until(() => !t.live.hub.wanted().includes(stock2));
    const again = run(c, CANDLES, { symbol: stock, resolution: "5" });
    await again.until(() => t.live.hub.size === 2);
    expect(again.ended()).toBeUndefined();
    again.stop();
    door.close();
    await c.dispose();
  });
});

describe("live connections of both doors: the per-key bound, the idle rule and a revoked key", () => {
  const clock = manualClock(`${TEST_ANCHOR}T15:00:00Z`);
  let t: TestApp;
  let served: Awaited<ReturnType<typeof serveLive>>;

  beforeAll(async () => {
    t = await createTestApp({ clock, app: { wsSweepMs: 10 }, env: { MDG_WS_MAX_CONNECTIONS_PER_KEY: "2" } });
    served = await serveLive(t);
  });
  afterAll(async () => {
    await t.close();
    await served.close();
  });

  it("counts a key's connections on /v1 and /graphql together: past the bound, 4403 and 403", async () => {
    const { key } = await t.apiKeys.create({ name: "two connections", scopes: "stock" });
    const door = await LiveClient.open(served.url("/v1"), key);
    const first = client(served.url("/graphql"), { "x-api-key": key });
    await first.connected;

    const second = client(served.url("/graphql"), { "x-api-key": key });
    const refused = await second.closedWith;
    expect(refused.code).toBe(4403);
    expect(refused.reason).toMatch(/2 live connections open.*MDG_WS_MAX_CONNECTIONS_PER_KEY/);
    const upgrade = await refusedUpgrade(served.url("/v1"), { "x-api-key": key });
    expect(upgrade.status).toBe(403);
    expect(upgrade.body).toMatchObject({ code: "FORBIDDEN" });

    // A connection closed on one door frees its place for the other.
    door.close();
    await door.closed;
    const third = client(served.url("/graphql"), { "x-api-key": key });
    await third.connected;
    await Promise.all([first.c.dispose(), second.c.dispose(), third.c.dispose()]);
  });

  it("closes a /graphql connection idle for 15 minutes with 1000 and a reason", async () => {
    const { c, closedWith, connected } = client(served.url("/graphql"), { "x-api-key": BOOTSTRAP_KEY });
    await connected;
    clock.advance(14 * 60_000);
    await new Promise((r) => setTimeout(r, 50));
    let closed: { code: number; reason: string } | undefined;
    void closedWith.then((e) => (closed = e));
    expect(closed).toBeUndefined();
    clock.advance(60_000);
    expect(await closedWith).toMatchObject({ code: 1000, reason: "idle for 15 min (MDG_WS_IDLE_TIMEOUT_MS)" });
    await c.dispose();
  });

  it("ends the subscriptions of a key revoked while connected: 1008 on /v1, 4401 on /graphql", async () => {
    const { key, row } = await t.apiKeys.create({ name: "revoked live", scopes: "stock" });
    const { stock } = symbols(t);
    const door = await LiveClient.open(served.url("/v1"), key);
    expect((await door.request({ action: "subscribe", channel: "quote", symbol: stock })).status).toBe(200);
    const gql = client(served.url("/graphql"), { "x-api-key": key });
    const sub = run(gql.c, QUOTES, { symbols: [stock] });
    await gql.connected;
    const deadline = Date.now() + 5_000;
    while (t.live.hub.size < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(t.live.hub.size).toBe(2);

    expect(await t.apiKeys.revoke(row.id)).toBe(true);
    expect(await door.closed).toEqual({ code: 1008, reason: "the API key was revoked or has expired" });
    expect(await gql.closedWith).toMatchObject({ code: 4401, reason: "the API key was revoked or has expired" });
    await sub.until(() => sub.ended() !== undefined);
    while (t.live.hub.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(t.live.hub.size).toBe(0);
    await gql.c.dispose();
  });
});
