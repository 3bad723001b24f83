import pino from "pino";
import { listenEarly } from "../../../src/http/server/server.startup";
import { ROUTES } from "../../../src/http/rest/rest.routes";
import { SERVICE_ROUTES } from "../../../src/http/rest/routes/status.routes";
import { exampleSecurities } from "../../../src/http/openapi/openapi.examples";
import { createContext } from "../../../src/http/http.context";
import { ROW_STORE_ANSWERS } from "../../../src/domain/answers";
import type { Quote } from "../../../src/domain/quote/quote.types";
import { createTestApp, type TestApp } from "../../helpers/app";
import { manualClock } from "../../helpers/clock";
import { BOOTSTRAP_KEY, TEST_ANCHOR } from "../../helpers/constants";
import { LiveClient, refusedUpgrade, serveLive } from "../../helpers/live";

/** The first stock's primary symbol and the first crypto pair, from the store. */
function symbols(t: TestApp) {
  const pick = (type: string) =>
    t.source.db
      .prepare(
        `SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id
         WHERE s.type = ? AND l.is_primary = 1 ORDER BY s.id LIMIT 1`,
      )
      .pluck()
      .get(type) as string;
  return { stock: pick("stock"), crypto: pick("crypto"), etf: pick("etf") };
}

/** The domain quote of a symbol as the store holds it (what a feed publishes). */
async function storeQuote(t: TestApp, symbol: string): Promise<Quote> {
  const principal = await t.apiKeys.authenticate(BOOTSTRAP_KEY);
  return ROW_STORE_ANSWERS.quote.get(createContext(t.deps, "test", principal), { symbol });
}

/** An answer without the request ids of its error bodies, which differ from call to call. */
function withoutRequestId(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value: unknown) => (key === "requestId" ? undefined : value));
}

describe("the WebSocket door", () => {
  let t: TestApp;
  let served: Awaited<ReturnType<typeof serveLive>>;

  beforeAll(async () => {
    t = await createTestApp({
      env: { MDG_WS_MAX_CONNECTIONS_PER_KEY: "2", MDG_WS_MAX_SUBSCRIPTIONS: "3", MDG_WS_MAX_MESSAGE_BYTES: "1024" },
    });
    served = await serveLive(t);
  });
  afterAll(async () => {
    await t.close();
    await served.close();
  });

  describe("at the upgrade", () => {
    it.each(["/v0", "/v1"])(
      "answers 401 with the contract's body on %s without a key, before the upgrade",
      async (path) => {
        const r = await refusedUpgrade(served.url(path));
        expect(r.status).toBe(401);
        expect(r.body).toEqual({
          statusCode: 401,
          error: "Unauthorized",
          code: "UNAUTHENTICATED",
          message: "a valid x-api-key header is required",
          requestId: r.headers["x-request-id"],
        });
      },
    );

    it("answers 401 for an unknown key", async () => {
      const r = await refusedUpgrade(served.url("/v1"), { "x-api-key": "mdg_not-a-key" });
      expect(r.status).toBe(401);
      expect((r.body as { code: string }).code).toBe("UNAUTHENTICATED");
    });

    it("answers 403 for a key without any data scope", async () => {
      const { key } = await t.apiKeys.create({ name: "bulk only", scopes: "bulk" });
      const r = await refusedUpgrade(served.url("/v1"), { "x-api-key": key });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ statusCode: 403, error: "Forbidden", code: "FORBIDDEN" });
      expect((r.body as { message: string }).message).toMatch(/no data scope/);
    });

    it("answers 403 past the connections a key may hold, and lets one in again once one closes", async () => {
      const { key } = await t.apiKeys.create({ name: "two sockets", scopes: "stock" });
      const a = await LiveClient.open(served.url("/v1"), key);
      const b = await LiveClient.open(served.url("/v0"), key);
      const r = await refusedUpgrade(served.url("/v1"), { "x-api-key": key });
      expect(r.status).toBe(403);
      expect((r.body as { message: string }).message).toMatch(/MDG_WS_MAX_CONNECTIONS_PER_KEY/);
      a.close();
      await a.closed;
      const c = await LiveClient.open(served.url("/v1"), key);
      c.close();
      b.close();
      await Promise.all([b.closed, c.closed]);
    });

    it("answers 401 then 404 for an upgrade of any other path", async () => {
      expect((await refusedUpgrade(served.url("/v1/quote"))).status).toBe(401);
      const r = await refusedUpgrade(served.url("/v2"), { "x-api-key": BOOTSTRAP_KEY });
      expect(r.status).toBe(404);
      expect((r.body as { code: string }).code).toBe("NOT_FOUND");
    });
  });

  describe("actions", () => {
    let client: LiveClient;
    beforeAll(async () => {
      client = await LiveClient.open(served.url("/v1"), BOOTSTRAP_KEY);
    });
    afterAll(() => client.close());

    it("answers every REST endpoint as REST does, status and body, echoing the id", async () => {
      const s = exampleSecurities(t.deps.searchIndex);
      const entries = [...ROUTES, ...SERVICE_ROUTES];
      let compared = 0;
      for (const entry of entries) {
        const body = entry.examples ? Object.values(entry.examples(s))[0]!.value : {};
        const version = entry.versions.includes("v1") ? "v1" : "v0";
        const socket = version === "v1" ? client : await LiveClient.open(served.url("/v0"), BOOTSTRAP_KEY);
        const rest = await t.post(`/${version}/${entry.path}`, body);
        const live = await socket.request({ action: entry.path, ...body });
        if (socket !== client) socket.close();
        expect({ path: entry.path, action: live.action, status: live.status }).toEqual({
          path: entry.path,
          action: entry.path,
          status: rest.status,
        });
        if (rest.status === 200) expect(live.data).toEqual(rest.body);
        else expect(withoutRequestId(live.error)).toEqual(withoutRequestId(rest.body));
        expect(live.id).toMatch(/^r\d+$/);
        compared++;
      }
      expect(compared).toBe(entries.length);
    });

    it("answers bulk as REST does", async () => {
      const { stock, etf } = symbols(t);
      const body = { endpoint: "quote", symbols: [{ symbol: stock }, { symbol: etf }, { symbol: "NO-SUCH-SYMBOL" }] };
      const rest = await t.post("/v1/bulk", body);
      const live = await client.request({ action: "bulk", ...body });
      expect(live.status).toBe(200);
      expect(withoutRequestId(live.data)).toEqual(withoutRequestId(rest.body));
      const statuses = (rest.body as { results: { statusCode: number }[] }).results.map((r) => r.statusCode);
      expect(statuses).toEqual([200, 200, 404]);
    });

    it("refuses what the key may not read as REST does (403), and the refused call counts nothing", async () => {
      const { key } = await t.apiKeys.create({ name: "stocks only", scopes: "stock" });
      const stocksOnly = await LiveClient.open(served.url("/v1"), key);
      const { crypto } = symbols(t);
      const before = await stocksOnly.request({ action: "quota" });
      const live = await stocksOnly.request({ action: "quote", symbol: crypto });
      const after = await stocksOnly.request({ action: "quota" });
      stocksOnly.close();
      expect(live.status).toBe(403);
      expect(live.error).toMatchObject({ statusCode: 403, code: "FORBIDDEN" });
      const used = (m: Record<string, unknown>) => (m.data as { policies: { used: number }[] }).policies[0]!.used;
      expect(used(after)).toBe(used(before));
    });

    it("answers ping with pong", async () => {
      const pong = await client.request({ action: "ping" });
      expect(pong).toMatchObject({ action: "pong", status: 200 });
      expect(typeof (pong.data as { time: number }).time).toBe("number");
    });

    it("answers invalid JSON, a non-object, no action, an unknown action with an error, and stays open", async () => {
      client.send("{not json");
      const notJson = await client.waitFor((m) => m.action === null && m.status === 404);
      expect(notJson.error).toMatchObject({
        code: "INVALID_ARGUMENT",
        details: [{ field: "message", issue: "not JSON" }],
      });
      client.send("[1,2]");
      await client.waitFor(
        (m) => (m.error as { details?: { issue: string }[] })?.details?.[0]?.issue === "not an object",
      );
      const noAction = await client.request({ symbol: "X" });
      expect(noAction).toMatchObject({ action: null, status: 404, error: { code: "INVALID_ARGUMENT" } });
      const unknown = await client.request({ action: "no/such/endpoint" });
      expect(unknown).toMatchObject({ action: "no/such/endpoint", status: 404, error: { code: "NOT_FOUND" } });
      expect((await client.request({ action: "ping" })).action).toBe("pong");
    });

    it("answers a message over the limit with an error and stays open; over four times the limit, 1009", async () => {
      client.send({ action: "quote", symbol: "A", pad: "x".repeat(1_500) });
      const big = await client.waitFor((m) => /1024 bytes/.test((m.error as { message?: string })?.message ?? ""));
      expect(big).toMatchObject({ action: null, status: 404, error: { code: "INVALID_ARGUMENT" } });
      expect((big.error as { message: string }).message).toMatch(/1024 bytes/);
      expect((await client.request({ action: "ping" })).action).toBe("pong");
      const other = await LiveClient.open(served.url("/v1"), BOOTSTRAP_KEY);
      other.send(JSON.stringify({ action: "ping", pad: "x".repeat(5_000) }));
      expect((await other.closed).code).toBe(1009);
    });
  });

  describe("subscriptions", () => {
    it("pushes a subscribed quote when it changes, and nothing more once unsubscribed", async () => {
      const { stock } = symbols(t);
      const client = await LiveClient.open(served.url("/v1"), BOOTSTRAP_KEY);
      const rest = await t.post("/v1/quote", { symbol: stock });
      const ok = await client.request({ action: "subscribe", channel: "quote", symbol: stock });
      expect(ok).toMatchObject({ action: "subscribe", status: 200, data: { channel: "quote", symbol: stock } });
      expect((ok.data as { quote: unknown }).quote).toEqual(rest.body);

      const base = await storeQuote(t, stock);
      t.live.hub.publish({
        symbol: stock,
        quote: Object.assign(Object.create(base), { ...base, c: base.c + 1 }),
        origin: "store",
      });
      const push = await client.waitFor((m) => m.channel === "quote");
      expect(push).toEqual({ channel: "quote", symbol: stock, data: { ...rest.body, c: base.c + 1 } });

      const off = await client.request({ action: "unsubscribe", channel: "quote", symbol: stock });
      expect(off).toMatchObject({ action: "unsubscribe", status: 200 });
      t.live.hub.publish({ symbol: stock, quote: base, origin: "store" });
      await client.request({ action: "ping" });
      expect(client.received.filter((m) => m.channel === "quote")).toHaveLength(1);
      expect(t.live.hub.wanted()).not.toContain(stock);
      client.close();
    });

    it("pushes the forming bar of a candle subscription and closes it with the first tick after its end", async () => {
      const { stock } = symbols(t);
      const client = await LiveClient.open(served.url("/v1"), BOOTSTRAP_KEY);
      const ok = await client.request({ action: "realtime/candle", symbol: stock, resolution: 1 });
      expect(ok).toMatchObject({ status: 200, data: { channel: "candle", symbol: stock, resolution: "1" } });
      const base = await storeQuote(t, stock);
      const minute = Math.floor(base.t / 60) * 60 + 600;
      const tick = (seconds: number, c: number, v: number) =>
        t.live.hub.publish({
          symbol: stock,
          quote: Object.assign(Object.create(base), { ...base, t: minute + seconds, c, v }),
          origin: "store",
        });
      tick(1, 10, 1_000);
      tick(20, 12, 1_500);
      tick(40, 9, 1_600);
      tick(61, 11, 1_700);
      await client.request({ action: "ping" });
      const bars = client.received.filter((m) => m.channel === "candle");
      const view = bars.map((m) => {
        const d = m.data as { t: number[]; o: number[]; h: number[]; l: number[]; c: number[]; v: number[] };
        return [m.closed, d.t[0], d.o[0], d.h[0], d.l[0], d.c[0], d.v[0]];
      });
      expect(view).toEqual([
        [false, minute, 10, 10, 10, 10, 0],
        [false, minute, 10, 12, 10, 12, 500],
        [false, minute, 10, 12, 9, 9, 600],
        [true, minute, 10, 12, 9, 9, 600],
        [false, minute + 60, 11, 11, 11, 11, 100],
      ]);
      expect(bars[0]!.data).toMatchObject({
        s: "ok",
        resolution: "1",
        from: minute,
        to: minute + 59,
        key: `${stock}:1:${base.currency}`,
      });
      client.close();
    });

    it("refuses a bad channel, a resolution bars are not built for, and an unknown symbol", async () => {
      const client = await LiveClient.open(served.url("/v1"), BOOTSTRAP_KEY);
      const { stock } = symbols(t);
      expect(await client.request({ action: "subscribe", channel: "forex", symbol: stock })).toMatchObject({
        status: 404,
        error: { code: "INVALID_ARGUMENT", details: [{ field: "channel" }] },
      });
      expect(
        await client.request({ action: "subscribe", channel: "candle", symbol: stock, resolution: "15" }),
      ).toMatchObject({
        status: 404,
        error: { code: "INVALID_ARGUMENT", details: [{ field: "resolution" }] },
      });
      expect(await client.request({ action: "subscribe", channel: "quote", symbol: "NO-SUCH-SYMBOL" })).toMatchObject({
        status: 404,
        error: { code: "NOT_FOUND" },
      });
      expect(t.live.hub.size).toBe(0);
      client.close();
    });

    it("charges one unit per subscription and refuses past MDG_WS_MAX_SUBSCRIPTIONS for the key", async () => {
      const { key } = await t.apiKeys.create({ name: "subscriber", scopes: "stock,etf,crypto" });
      const { stock, etf, crypto } = symbols(t);
      const a = await LiveClient.open(served.url("/v1"), key);
      const b = await LiveClient.open(served.url("/v1"), key);
      const used = async () =>
        ((await a.request({ action: "quota" })).data as { policies: { used: number }[] }).policies[0]!.used;
      const before = await used();
      expect((await a.request({ action: "subscribe", channel: "quote", symbol: stock })).status).toBe(200);
      expect((await a.request({ action: "subscribe", channel: "quote", symbol: etf })).status).toBe(200);
      expect((await b.request({ action: "subscribe", channel: "quote", symbol: crypto })).status).toBe(200);
      expect(await used()).toBe(before + 3);
      const over = await b.request({ action: "subscribe", channel: "candle", symbol: stock, resolution: "5" });
      expect(over).toMatchObject({ status: 403, error: { code: "FORBIDDEN" } });
      expect((over.error as { message: string }).message).toMatch(/MDG_WS_MAX_SUBSCRIPTIONS/);
      // Closing a socket gives its subscriptions back.
      a.close();
      await a.closed;
      expect((await b.request({ action: "subscribe", channel: "candle", symbol: stock, resolution: "5" })).status).toBe(
        200,
      );
      b.close();
      await b.closed;
      expect(t.live.hub.size).toBe(0);
    });
  });
});

describe("the WebSocket door's idle rule, on an injected clock", () => {
  it("closes a socket idle for 15 minutes with 1000 and a reason, and keeps one that spoke", async () => {
    const clock = manualClock(`${TEST_ANCHOR}T15:00:00Z`);
    const t = await createTestApp({ clock, app: { wsSweepMs: 10 } });
    const served = await serveLive(t);
    try {
      const idle = await LiveClient.open(served.url("/v1"), BOOTSTRAP_KEY);
      const busy = await LiveClient.open(served.url("/v0"), BOOTSTRAP_KEY);
      clock.advance(14 * 60_000);
      expect((await busy.request({ action: "ping" })).action).toBe("pong");
      await new Promise((r) => setTimeout(r, 50));
      expect(idle.ws.readyState).toBe(idle.ws.OPEN);
      clock.advance(60_000);
      expect(await idle.closed).toEqual({ code: 1000, reason: "idle for 15 min (MDG_WS_IDLE_TIMEOUT_MS)" });
      expect(busy.ws.readyState).toBe(busy.ws.OPEN);
      clock.advance(14 * 60_000);
      expect((await busy.closed).code).toBe(1000);
    } finally {
      await t.close();
      await served.close();
    }
  });
});

describe("the WebSocket door under pressure and at shutdown", () => {
  let t: TestApp;
  let served: Awaited<ReturnType<typeof serveLive>>;
  beforeAll(async () => {
    t = await createTestApp({ env: { MDG_WS_MAX_BUFFERED_BYTES: "65536" } });
    served = await serveLive(t);
  });
  afterAll(async () => {
    await t.close();
    await served.close();
  });

  it("cuts off a consumer that stops reading with 1013 and a reason, without buffering more for it", async () => {
    const { stock } = symbols(t);
    const slow = await LiveClient.open(served.url("/v1"), BOOTSTRAP_KEY);
    const fast = await LiveClient.open(served.url("/v1"), BOOTSTRAP_KEY);
    await slow.request({ action: "subscribe", channel: "quote", symbol: stock });
    await fast.request({ action: "subscribe", channel: "quote", symbol: stock });
    slow.ws.pause();
    const base = await storeQuote(t, stock);
    const published = 20_000;
    for (let i = 0; i < published; i++) {
      t.live.hub.publish({
        symbol: stock,
        quote: Object.assign(Object.create(base), { ...base, v: base.v + i + 1 }),
        origin: "store",
      });
      if (i % 500 === 0) await new Promise((r) => setImmediate(r));
    }
    slow.ws.resume();
    const closed = await slow.closed;
    expect(closed.code).toBe(1013);
    expect(closed.reason).toMatch(/slow consumer/);
    expect(slow.received.filter((m) => m.channel === "quote").length).toBeLessThan(published);
    // The other subscriber got every change and is still connected.
    await fast.waitFor(() => fast.received.filter((m) => m.channel === "quote").length === published, 30_000);
    expect((await fast.request({ action: "ping" })).action).toBe("pong");
    fast.close();
  }, 60_000);

  it("refuses new upgrades with the contract's 500 body once shutting down, and closes open sockets 1001", async () => {
    const open = await LiveClient.open(served.url("/v1"), BOOTSTRAP_KEY);
    t.live.ws.refuse();
    const r = await refusedUpgrade(served.url("/v1"), { "x-api-key": BOOTSTRAP_KEY });
    expect(r.status).toBe(500);
    expect(r.body).toEqual({
      statusCode: 500,
      error: "Internal Server Error",
      code: "INTERNAL",
      message: "the service is shutting down; connect again",
      requestId: r.headers["x-request-id"],
    });
    // Actions on open sockets are still answered until they are closed.
    expect((await open.request({ action: "ping" })).action).toBe("pong");
    await t.live.ws.close(5_000);
    expect(await open.closed).toEqual({ code: 1001, reason: "the service is shutting down; connect again" });
  });
});

describe("an upgrade before the app is mounted", () => {
  it("is answered as any request of the start-up phase: the contract's 500 with the phase", async () => {
    const early = await listenEarly({ port: 0, host: "127.0.0.1" }, pino({ level: "silent" }));
    try {
      const r = await refusedUpgrade(`ws://127.0.0.1:${early.port}/v1`, { "x-api-key": BOOTSTRAP_KEY });
      expect(r.status).toBe(500);
      expect(r.body).toMatchObject({ statusCode: 500, code: "INTERNAL", status: "starting" });
      expect((r.body as { requestId: string }).requestId).toBe(r.headers["x-request-id"]);
    } finally {
      await early.close();
    }
  });
});
