import type { Server } from "node:http";
import pino from "pino";
import { createApp } from "../../../src/app";
import { ApiKeyService } from "../../../src/platform/auth/auth.service";
import type { AppDeps } from "../../../src/http/http.context";
import type { MarketDataSource } from "../../../src/domain/ports/source.capabilities";
import { gatedSource } from "../../helpers/sources";
import { createHttpServer } from "../../../src/http/server/server.http";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { listen, send, sendRaw } from "../../helpers/http";

/**
 * What Node would answer by itself (400, 408, 417, 431, a dropped CONNECT)
 * is the contract's 404 here; and no request hangs: a slow service answers
 * 500 INTERNAL, a slow client 404, at MDG_REQUEST_TIMEOUT_MS.
 */
let t: TestApp;
let port: number;
let close: () => Promise<void>;

beforeAll(async () => {
  t = await createTestApp({ env: { MDG_REQUEST_TIMEOUT_MS: "400" } });
  ({ port, close } = await listen(createHttpServer(t.app, pino({ level: "silent" }))));
});
afterAll(async () => {
  await close();
  await t.close();
});

function expectContract404(res: { status: number; head: string; json: unknown }, code = "INVALID_ARGUMENT"): void {
  expect(res.status).toBe(404);
  expect(res.head).toMatch(/content-type: application\/json/i);
  expect(res.head).toMatch(/x-request-id: [0-9a-f-]{36}/i);
  const body = res.json as Record<string, unknown>;
  expect(body).toMatchObject({ statusCode: 404, error: "Not Found", code });
  expect(typeof body.message).toBe("string");
}

describe("malformed HTTP, answered by the contract instead of Node's defaults", () => {
  const post = (extra: string, body = '{"symbol":"BTC-USD"}') =>
    `POST /v1/crypto/price HTTP/1.1\r\nHost: x\r\nx-api-key: ${BOOTSTRAP_KEY}\r\ncontent-type: application/json\r\n` +
    `content-length: ${body.length}\r\nconnection: close\r\n${extra}\r\n${body}`;

  it("answers 404 INVALID_ARGUMENT, not 431, for headers over 16 KiB", async () => {
    const res = await sendRaw(port, post(`x-big: ${"b".repeat(20_000)}\r\n`));
    expectContract404(res);
    expect((res.json as { message: string }).message).toContain("headers");
  });

  it("answers 404, not 400, for a request line or headers that do not parse", async () => {
    expectContract404(await sendRaw(port, "GARBAGE\r\n\r\n"));
    expectContract404(await sendRaw(port, "POST /v1/quote HTTP/1.1\r\nHost: x\r\nx-bad\u0000: 1\r\n\r\n"));
    expectContract404(await sendRaw(port, "post /v1/quote HTTP/1.1\r\nHost: x\r\n\r\n"));
    expectContract404(await sendRaw(port, "FOO /v1/quote HTTP/1.1\r\nHost: x\r\n\r\n"));
    // Content-Length beside Transfer-Encoding: a request-smuggling shape Node refuses.
    expectContract404(
      await sendRaw(
        port,
        "POST /v1/quote HTTP/1.1\r\nHost: x\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n",
      ),
    );
  });

  it("answers HEAD with headers only, even for a request it cannot parse", async () => {
    const res = await sendRaw(port, `HEAD /v1/quote HTTP/1.1\r\nHost: x\r\nx-big: ${"b".repeat(20_000)}\r\n\r\n`);
    expect(res.status).toBe(404);
    expect(res.raw.endsWith("\r\n\r\n")).toBe(true);
  });

  it("answers CONNECT with 404 NOT_FOUND instead of dropping the connection", async () => {
    expectContract404(
      await sendRaw(port, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"),
      "NOT_FOUND",
    );
  });

  it("answers an unknown Expect as usual (not 417), and a request without Host (not 400)", async () => {
    const expect200 = await sendRaw(port, post("expect: 200-ok\r\n"));
    expect(expect200.status).toBe(200);
    const noHost = await sendRaw(
      port,
      "POST /v1/crypto/price HTTP/1.1\r\ncontent-type: application/json\r\n" +
        "content-length: 2\r\nconnection: close\r\n\r\n{}",
    );
    expect(noHost.status).toBe(401);
  });

  it("answers a body that never finishes with 404 at the request timeout, not a hang", async () => {
    const started = Date.now();
    const res = await sendRaw(
      port,
      post("", '{"symbol":"BTC-USD"}').replace(/content-length: \d+/, "content-length: 500"),
      5_000,
    );
    expectContract404(res);
    expect((res.json as { message: string }).message).toMatch(/body: not received within 400 ms/);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it("still serves after all of that", async () => {
    const res = await send(port, {
      method: "POST",
      path: "/v1/crypto/price",
      headers: { "x-api-key": BOOTSTRAP_KEY },
      body: Buffer.from('{"symbol":"BTC-USD"}'),
    });
    expect(res.status).toBe(200);
  });
});

describe("request timeouts (MDG_REQUEST_TIMEOUT_MS)", () => {
  let slow: { port: number; close(): Promise<void>; stop(): Promise<void>; release(): void; queries: () => number };

  beforeAll(async () => {
    // The store as it is, except that every data lookup waits until released: a stuck upstream.
    const { source, release } = gatedSource(t.source as MarketDataSource);
    // Metrics off: their instrumentation re-binds the store's prototype methods and would step around this proxy.
    const config = { ...t.deps.config, metrics: { ...t.deps.config.metrics, enabled: false } };
    const deps: AppDeps = { ...t.deps, config, source };
    const apiKeys = new ApiKeyService(t.source.keys, t.deps.clock, { bootstrapKey: BOOTSTRAP_KEY });
    const { app, apollo } = await createApp(deps, apiKeys, pino({ level: "silent" }));
    const server: Server = createHttpServer(app, pino({ level: "silent" }));
    const l = await listen(server);
    slow = { ...l, stop: () => apollo.stop(), release, queries: () => t.source.stats.queries };
  });
  afterAll(async () => {
    slow.release();
    await slow.close();
    await slow.stop();
  });

  it("answers a stuck REST call 500 INTERNAL with a clear message, and nothing else later", async () => {
    const started = Date.now();
    const res = await send(slow.port, {
      method: "POST",
      path: "/v1/quote",
      headers: { "x-api-key": BOOTSTRAP_KEY, "content-type": "application/json" },
      body: Buffer.from('{"symbol":"BTC-USD"}'),
    });
    expect(res.status).toBe(500);
    expect(res.json).toMatchObject({ statusCode: 500, error: "Internal Server Error", code: "INTERNAL" });
    expect((res.json as { message: string }).message).toMatch(/took longer than 400 ms/);
    expect((res.json as { requestId: string }).requestId).toBe(res.headers["x-request-id"]);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("answers a stuck /graphql operation 500 with an INTERNAL_SERVER_ERROR error", async () => {
    const res = await send(slow.port, {
      method: "POST",
      path: "/graphql",
      headers: { "x-api-key": BOOTSTRAP_KEY, "content-type": "application/json" },
      body: Buffer.from(JSON.stringify({ query: '{ quote(symbol: "BTC-USD") { c } }' })),
    });
    expect(res.status).toBe(500);
    const body = res.json as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0]!.extensions.code).toBe("INTERNAL_SERVER_ERROR");
    expect(body.errors[0]!.message).toMatch(/took longer than 400 ms/);
  });

  it("lets the abandoned handlers finish quietly, and keeps serving", async () => {
    slow.release();
    await new Promise((r) => setTimeout(r, 100));
    const res = await send(slow.port, {
      method: "POST",
      path: "/v1/crypto/price",
      headers: { "x-api-key": BOOTSTRAP_KEY },
      body: Buffer.from('{"symbol":"BTC-USD"}'),
    });
    expect(res.status).toBe(200);
  });
});
