import type { Server } from "node:http";
import pino from "pino";
import { createApp } from "../../../src/app";
import type { AppDeps } from "../../../src/http/http.context";
import { createHttpServer } from "../../../src/http/server/server.http";
import { ApiKeyService } from "../../../src/platform/auth/auth.service";
import type { MarketDataSource } from "../../../src/domain/ports/source.capabilities";
import { gatedSource, largestEtfSymbol } from "../../helpers/sources";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { listen, send, type RawResponse } from "../../helpers/http";

/**
 * The request id and the RateLimit fields are held beside the response and written with the answer's head
 * (src/http/http.held.ts): every writer must still send them, whatever the status and whoever writes.
 */
let t: TestApp;
let port: number;
let close: () => Promise<void>;
let etfSymbol: string;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const json = { "content-type": "application/json" };

function post(path: string, body: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return send(port, { method: "POST", path, headers: { ...json, ...headers }, body: Buffer.from(body) });
}

function expectLimits(res: RawResponse): void {
  expect(res.headers["ratelimit-policy"]).toMatch(/^"minute";q=\d+;w=60, "day";q=\d+;w=86400$/);
  expect(res.headers["ratelimit"]).toMatch(/^"minute";r=\d+;t=\d+, "day";r=\d+;t=\d+$/);
}

beforeAll(async () => {
  t = await createTestApp();
  ({ port, close } = await listen(createHttpServer(t.app, pino({ level: "silent" }))));
  etfSymbol = largestEtfSymbol(t.source.db);
});
afterAll(async () => {
  await close();
  await t.close();
});

describe("REST answers", () => {
  it("carries a request id and both RateLimit fields on a 200", async () => {
    const res = await post("/v1/crypto/price", '{"symbol":"BTC-USD"}', { "x-api-key": BOOTSTRAP_KEY });
    expect(res.status).toBe(200);
    expect(res.headers["x-request-id"]).toMatch(UUID);
    expectLimits(res);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.headers["vary"]).toBe("Accept-Encoding");
  });

  it("carries them on a compressed 200 too", async () => {
    const res = await post("/v1/etf/holdings", JSON.stringify({ symbol: etfSymbol }), {
      "x-api-key": BOOTSTRAP_KEY,
      "accept-encoding": "br",
    });
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe("br");
    expect(res.headers["x-request-id"]).toMatch(UUID);
    expectLimits(res);
  });

  it("carries them on a counted 404, and the request id in the body is the header's", async () => {
    const res = await post("/v1/crypto/price", '{"symbol":"NOPE-USD"}', { "x-api-key": BOOTSTRAP_KEY });
    expect(res.status).toBe(404);
    expectLimits(res);
    expect((res.json as { requestId: string }).requestId).toBe(res.headers["x-request-id"]);
  });

  it("carries the request id but no RateLimit field on a 401, where nothing was counted", async () => {
    const res = await post("/v1/crypto/price", '{"symbol":"BTC-USD"}');
    expect(res.status).toBe(401);
    expect(res.headers["x-request-id"]).toMatch(UUID);
    expect(res.headers["ratelimit"]).toBeUndefined();
  });

  it("carries both RateLimit fields and Retry-After on a 403 QUOTA_EXCEEDED", async () => {
    const { key } = await t.apiKeys.create({ name: "rate-1", scopes: ["*"], ratePerMinute: 1, dailyQuota: 100 });
    expect((await post("/v1/crypto/price", '{"symbol":"BTC-USD"}', { "x-api-key": key })).status).toBe(200);
    const res = await post("/v1/crypto/price", '{"symbol":"BTC-USD"}', { "x-api-key": key });
    expect(res.status).toBe(403);
    expect(res.headers["retry-after"]).toMatch(/^\d+$/);
    expect(res.headers["x-request-id"]).toMatch(UUID);
    expectLimits(res);
    expect(res.headers["ratelimit"]).toMatch(/^"minute";r=0;/);
  });

  it("keeps a sane incoming x-request-id, and the /v0 headers beside it", async () => {
    const res = await post("/v0/crypto/price", '{"symbol":"BTC-USD"}', {
      "x-api-key": BOOTSTRAP_KEY,
      "x-request-id": "trace-42.a",
    });
    expect(res.status).toBe(200);
    expect(res.headers["x-request-id"]).toBe("trace-42.a");
    expect(res.headers["deprecation"]).toBeDefined();
    expectLimits(res);
  });

  it("gives each request its own id", async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const res = await post("/v1/crypto/price", '{"symbol":"BTC-USD"}', { "x-api-key": BOOTSTRAP_KEY });
      ids.add(res.headers["x-request-id"] as string);
    }
    expect(ids.size).toBe(20);
  });
});

describe("other writers", () => {
  it("POST /graphql carries the request id and its RateLimit fields, from Apollo and from the fast path", async () => {
    // Both sendings run on the pipeline (graphql.pipeline.ts).
    for (let i = 0; i < 2; i++) {
      const res = await post("/graphql", JSON.stringify({ query: '{ cryptoPrice(symbol: "BTC-USD") { price } }' }), {
        "x-api-key": BOOTSTRAP_KEY,
      });
      expect(res.status).toBe(200);
      expect(res.headers["x-request-id"]).toMatch(UUID);
      expectLimits(res);
    }
  });

  it("Express's answers (health, an unknown path, a body-parser refusal) carry the request id", async () => {
    const health = await send(port, { method: "GET", path: "/healthz" });
    expect(health.status).toBe(200);
    expect(health.headers["x-request-id"]).toMatch(UUID);
    const unknown = await send(port, { method: "GET", path: "/nowhere", headers: { "x-api-key": BOOTSTRAP_KEY } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers["x-request-id"]).toMatch(UUID);
    const refused = await send(port, {
      method: "POST",
      path: "/graphql",
      headers: { "content-type": "application/json; charset=latin1", "x-api-key": BOOTSTRAP_KEY },
      body: Buffer.from("{"),
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.headers["x-request-id"]).toMatch(UUID);
  });
});

describe("the timeout's 500", () => {
  let slow: { port: number; close(): Promise<void>; stop(): Promise<void>; release(): void };

  beforeAll(async () => {
    // Every data lookup waits until released: the timeout answers first.
    const { source, release } = gatedSource(t.source as MarketDataSource);
    const config = { ...t.deps.config, requestTimeoutMs: 300, metrics: { ...t.deps.config.metrics, enabled: false } };
    const deps: AppDeps = { ...t.deps, config, source };
    const apiKeys = new ApiKeyService(t.source.keys, t.deps.clock, { bootstrapKey: BOOTSTRAP_KEY });
    const { app, apollo } = await createApp(deps, apiKeys, pino({ level: "silent" }));
    const server: Server = createHttpServer(app, pino({ level: "silent" }));
    const l = await listen(server);
    slow = { ...l, stop: () => apollo.stop(), release };
  });
  afterAll(async () => {
    slow.release();
    await slow.close();
    await slow.stop();
  });

  it("carries the request id and the RateLimit fields counted before the call got stuck", async () => {
    const res = await send(slow.port, {
      method: "POST",
      path: "/v1/etf/profile",
      headers: { ...json, "x-api-key": BOOTSTRAP_KEY, "x-request-id": "stuck-1" },
      body: Buffer.from(JSON.stringify({ symbol: etfSymbol })),
    });
    expect(res.status).toBe(500);
    expect(res.headers["x-request-id"]).toBe("stuck-1");
    expect((res.json as { code: string; requestId: string }).requestId).toBe("stuck-1");
    expectLimits(res);
  });
});
