import type { Server } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import pino from "pino";
import { createApp } from "../../src/app";
import type { AppDeps } from "../../src/http/http.context";
import { COMPRESS_MIN_BYTES, negotiateEncoding } from "../../src/http/http.compress";
import { createHttpServer } from "../../src/http/server/server.http";
import { ApiKeyService } from "../../src/platform/auth/auth.service";
import type { MarketDataSource } from "../../src/domain/ports/source.capabilities";
import { gatedSource, largestEtfSymbol } from "../helpers/sources";
import { createTestApp, type TestApp } from "../helpers/app";
import { BOOTSTRAP_KEY } from "../helpers/constants";
import { listen, send, sendRaw, type RawResponse } from "../helpers/http";

/**
 * Answers of 1 KiB and more go brotli- or gzip-compressed when the client
 * accepts it, on every door (REST, /graphql with and without Express,
 * /metrics, /openapi.json); smaller ones go as they are. The raw client here
 * never decompresses by itself, so each test sees the bytes on the wire.
 */
let t: TestApp;
let port: number;
let close: () => Promise<void>;
let etfSymbol: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ port, close } = await listen(createHttpServer(t.app, pino({ level: "silent" }))));
  etfSymbol = largestEtfSymbol(t.source.db);
});
afterAll(async () => {
  await close();
  await t.close();
});

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return send(port, {
    method: "POST",
    path,
    headers: { "x-api-key": BOOTSTRAP_KEY, "content-type": "application/json", ...headers },
    body: Buffer.from(JSON.stringify(body)),
  });
}

/** The body as sent, decoded by its Content-Encoding. */
function decoded(res: RawResponse): Buffer {
  const enc = res.headers["content-encoding"];
  if (enc === "br") return brotliDecompressSync(res.body);
  if (enc === "gzip") return gunzipSync(res.body);
  if (enc !== undefined) throw new Error(`unexpected content-encoding ${enc}`);
  return res.body;
}

function expectVary(res: RawResponse): void {
  expect(res.headers.vary).toMatch(/(^|,\s*)Accept-Encoding(\s*,|$)/);
}

/** Content-Length, when sent, is the length of the bytes on the wire. */
function expectHonestLength(res: RawResponse): void {
  if (res.headers["content-length"] !== undefined) expect(Number(res.headers["content-length"])).toBe(res.body.length);
}

describe("Accept-Encoding negotiation", () => {
  it.each([
    [undefined, null],
    ["", null],
    ["identity", null],
    ["deflate", null],
    ["gzip", "gzip"],
    ["x-gzip", "gzip"],
    ["gzip, deflate, br", "br"],
    ["br", "br"],
    ["BR;q=0.8, gzip;q=0.8", "br"],
    ["gzip;q=1, br;q=0.5", "gzip"],
    ["br;q=0, gzip", "gzip"],
    ["br;q=0, gzip;q=0", null],
    ["*", "br"],
    ["*;q=0.5, gzip", "gzip"],
    ["*, br;q=0", "gzip"],
    ["gzip;q=nonsense", null],
  ])("%j → %j", (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected);
  });
});

describe("REST answers", () => {
  let plain: RawResponse;
  beforeAll(async () => {
    plain = await post("/v1/etf/holdings", { symbol: etfSymbol });
  });

  it("sends a large answer uncompressed to a client that accepts no encoding, with Vary", () => {
    expect(plain.status).toBe(200);
    expect(plain.body.length).toBeGreaterThanOrEqual(COMPRESS_MIN_BYTES);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(Number(plain.headers["content-length"])).toBe(plain.body.length);
    expectVary(plain);
    expect((plain.json as { holdings: unknown[] }).holdings.length).toBeGreaterThan(5);
  });

  it.each([
    ["gzip, deflate, br", "br"],
    ["gzip", "gzip"],
    ["br;q=0.5, gzip", "gzip"],
  ])("compresses a large answer for Accept-Encoding %j as %s, same JSON, smaller", async (accept, encoding) => {
    const res = await post("/v1/etf/holdings", { symbol: etfSymbol }, { "accept-encoding": accept });
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe(encoding);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expectVary(res);
    expect(Number(res.headers["content-length"])).toBe(res.body.length);
    expect(res.headers["transfer-encoding"]).toBeUndefined();
    expect(res.body.length).toBeLessThan(plain.body.length / 2);
    expect(decoded(res).equals(plain.body)).toBe(true);
    expect(res.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("keeps the version and rate-limit headers on a compressed /v0 answer", async () => {
    const res = await post("/v0/etf/holdings", { symbol: etfSymbol }, { "accept-encoding": "br" });
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe("br");
    expect(res.headers.deprecation).toBeDefined();
    expect(res.headers.sunset).toBeDefined();
    expect(res.headers.link).toMatch(/successor-version/);
    expect(JSON.parse(decoded(res).toString("utf8"))).toMatchObject({ symbol: etfSymbol });
  });

  it("sends a small answer as it is, even to a client that accepts br", async () => {
    const res = await post("/v1/crypto/price", { symbol: "BTC-USD" }, { "accept-encoding": "gzip, deflate, br" });
    expect(res.status).toBe(200);
    expect(res.body.length).toBeLessThan(COMPRESS_MIN_BYTES);
    expect(res.headers["content-encoding"]).toBeUndefined();
    expect(Number(res.headers["content-length"])).toBe(res.body.length);
    expectVary(res);
    expect(res.json).toMatchObject({ symbol: "BTC-USD" });
  });

  it("compresses a large bulk answer and an error answer stays plain", async () => {
    const symbols = (
      t.source.db.prepare("SELECT symbol FROM listings WHERE is_primary = 1 ORDER BY symbol LIMIT 40").all() as {
        symbol: string;
      }[]
    ).map(({ symbol }) => ({ symbol }));
    const bulk = await post("/v1/bulk", { symbols, endpoint: "quote" }, { "accept-encoding": "gzip" });
    expect(bulk.status).toBe(200);
    expect(bulk.headers["content-encoding"]).toBe("gzip");
    expectHonestLength(bulk);
    const results = (JSON.parse(decoded(bulk).toString("utf8")) as { results: unknown[] }).results;
    expect(results).toHaveLength(40);

    const missing = await post("/v1/etf/holdings", { symbol: "NO-SUCH-ETF" }, { "accept-encoding": "br" });
    expect(missing.status).toBe(404);
    expect(missing.headers["content-encoding"]).toBeUndefined();
    expect(missing.json).toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("/graphql answers", () => {
  const holdings = (symbol: string) => ({
    query: "query H($s: String!) { etf(symbol: $s) { holdings { atDate holdings { name isin percent share } } } }",
    variables: { s: symbol },
  });

  it("compresses a large answer of a plain POST (the door without Express)", async () => {
    const plain = await post("/graphql", holdings(etfSymbol));
    const res = await post("/graphql", holdings(etfSymbol), { "accept-encoding": "br" });
    expect(res.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.length).toBeGreaterThanOrEqual(COMPRESS_MIN_BYTES);
    expect(res.headers["content-encoding"]).toBe("br");
    expect(res.headers["content-type"]).toMatch(/^application\/(graphql-response\+)?json/);
    expectVary(res);
    expect(Number(res.headers["content-length"])).toBe(res.body.length);
    expect(decoded(res).equals(plain.body)).toBe(true);
  });

  it("sends a small operation's answer as it is", async () => {
    const res = await post(
      "/graphql",
      { query: '{ cryptoPrice(symbol: "BTC-USD") { symbol } }' },
      { "accept-encoding": "gzip, br" },
    );
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBeUndefined();
    expectVary(res);
    expect(res.json).toEqual({ data: { cryptoPrice: { symbol: "BTC-USD" } } });
  });

  it("compresses a large answer that goes through Express (GET, chunked POST)", async () => {
    const q = holdings(etfSymbol);
    const search = `?query=${encodeURIComponent(q.query)}&variables=${encodeURIComponent(JSON.stringify(q.variables))}`;
    const get = await send(port, {
      method: "GET",
      path: `/graphql${search}`,
      headers: {
        "x-api-key": BOOTSTRAP_KEY,
        accept: "application/json",
        "apollo-require-preflight": "true",
        "accept-encoding": "gzip",
      },
    });
    expect(get.status).toBe(200);
    expect(get.headers["content-encoding"]).toBe("gzip");
    expectVary(get);
    expectHonestLength(get);
    const viaGet = JSON.parse(decoded(get).toString("utf8")) as { data: { etf: { holdings: { holdings: [] } } } };
    expect(viaGet.data.etf.holdings.holdings.length).toBeGreaterThan(5);

    const chunked = await send(port, {
      method: "POST",
      path: "/graphql",
      headers: {
        "x-api-key": BOOTSTRAP_KEY,
        "content-type": "application/json",
        "transfer-encoding": "chunked",
        "accept-encoding": "br",
      },
      body: Buffer.from(JSON.stringify(q)),
    });
    expect(chunked.status).toBe(200);
    expect(chunked.headers["content-encoding"]).toBe("br");
    expectHonestLength(chunked);
    expect(JSON.parse(decoded(chunked).toString("utf8"))).toEqual(viaGet);
  });

  it("compresses the GraphiQL page for a browser, keeping its Vary: Accept", async () => {
    const res = await send(port, {
      method: "GET",
      path: "/graphql",
      headers: { accept: "text/html", "accept-encoding": "gzip, deflate, br" },
    });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.headers.vary).toMatch(/Accept\b/);
    expectVary(res);
    expect(res.headers["content-encoding"]).toBe("br");
    expect(decoded(res).toString("utf8")).toMatch(/^<!doctype html>/);
  });
});

describe("GET /metrics", () => {
  it("compresses the exposition text for a scraper that accepts gzip", async () => {
    const plain = await send(port, { method: "GET", path: "/metrics" });
    const res = await send(port, { method: "GET", path: "/metrics", headers: { "accept-encoding": "gzip" } });
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.length).toBeGreaterThanOrEqual(COMPRESS_MIN_BYTES);
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(res.headers["content-type"]).toBe(plain.headers["content-type"]);
    expect(res.headers["cache-control"]).toBe("no-store");
    expectVary(res);
    expect(Number(res.headers["content-length"])).toBe(res.body.length);
    expect(decoded(res).toString("utf8")).toMatch(/^# HELP /m);
    expect(decoded(res).toString("utf8")).toContain("mdg_http_requests_total");
  });
});

describe("GET /openapi.json", () => {
  const get = (headers: Record<string, string> = {}) => send(port, { method: "GET", path: "/openapi.json", headers });
  let plain: RawResponse;
  beforeAll(async () => {
    plain = await get();
  });

  it("carries a strong ETag made from its bytes, the same on every request", async () => {
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.etag).toMatch(/^"[A-Za-z0-9_-]{16,}"$/);
    expect(Number(plain.headers["content-length"])).toBe(plain.body.length);
    expectVary(plain);
    expect(plain.headers["cache-control"]).toBe("no-cache");
    expect(plain.headers["access-control-allow-origin"]).toBe("*");
    expect((await get()).headers.etag).toBe(plain.headers.etag);
    expect((plain.json as { openapi: string }).openapi).toMatch(/^3\./);
  });

  it.each([
    ["gzip, deflate, br", "br"],
    ["gzip", "gzip"],
  ])("answers Accept-Encoding %j with the %s form, its own ETag, the same document", async (accept, encoding) => {
    const res = await get({ "accept-encoding": accept });
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe(encoding);
    expectVary(res);
    expect(Number(res.headers["content-length"])).toBe(res.body.length);
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{16,}"$/);
    expect(res.headers.etag).not.toBe(plain.headers.etag);
    expect(res.body.length).toBeLessThan(plain.body.length / 5);
    expect(decoded(res).equals(plain.body)).toBe(true);
    // Compressed once: the second answer is byte for byte the first.
    const again = await get({ "accept-encoding": accept });
    expect(again.headers.etag).toBe(res.headers.etag);
    expect(again.body.equals(res.body)).toBe(true);
  });

  it("answers 304 with no body to a matching If-None-Match, 200 otherwise", async () => {
    const notModified = await get({ "if-none-match": plain.headers.etag! });
    expect(notModified.status).toBe(304);
    expect(notModified.body.length).toBe(0);
    expect(notModified.headers.etag).toBe(plain.headers.etag);
    expectVary(notModified);

    const br = await get({ "accept-encoding": "br" });
    const brNotModified = await get({ "accept-encoding": "br", "if-none-match": `"other", ${br.headers.etag!}` });
    expect(brNotModified.status).toBe(304);
    expect(brNotModified.body.length).toBe(0);
    expect(brNotModified.headers.etag).toBe(br.headers.etag);
    expect((await get({ "if-none-match": `W/${plain.headers.etag!}` })).status).toBe(304);
    expect((await get({ "if-none-match": "*" })).status).toBe(304);

    const changed = await get({ "if-none-match": '"something-else"' });
    expect(changed.status).toBe(200);
    expect(changed.body.equals(plain.body)).toBe(true);
    // The tag of another encoding is not this representation's.
    const otherForm = await get({ "accept-encoding": "gzip", "if-none-match": br.headers.etag! });
    expect(otherForm.status).toBe(200);
    expect(otherForm.headers["content-encoding"]).toBe("gzip");
  });

  it("answers HEAD with the plain document's headers and no body", async () => {
    const res = await send(port, {
      method: "HEAD",
      path: "/openapi.json",
      headers: { "accept-encoding": "br" },
    });
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(0);
    expect(res.headers["content-encoding"]).toBeUndefined();
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{16,}"$/);
    expect(res.headers.etag).toBe(plain.headers.etag);
    expect(Number(res.headers["content-length"])).toBe(plain.body.length);
  });
});

describe("compression and the request timeout", () => {
  let slow: { port: number; close(): Promise<void>; stop(): Promise<void>; release(): void };

  beforeAll(async () => {
    // Every data lookup waits until released: the large answer is built only after the timeout has answered.
    const { source, release } = gatedSource(t.source as MarketDataSource);
    const config = {
      ...t.deps.config,
      requestTimeoutMs: 300,
      metrics: { ...t.deps.config.metrics, enabled: false },
    };
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

  it("answers a stuck call that accepts br with one plain 500, and the late large answer never follows", async () => {
    const body = JSON.stringify({ symbol: etfSymbol });
    const raw = await sendRaw(
      slow.port,
      `POST /v1/etf/holdings HTTP/1.1\r\nHost: x\r\nx-api-key: ${BOOTSTRAP_KEY}\r\ncontent-type: application/json\r\n` +
        `accept-encoding: br\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    expect(raw.status).toBe(500);
    expect(raw.head).not.toMatch(/content-encoding/i);
    expect(raw.head).toMatch(/vary: Accept-Encoding/i);
    expect(raw.json).toMatchObject({ statusCode: 500, code: "INTERNAL" });
    // The server closed the connection after the timeout's answer: one status line in all it sent.
    expect(raw.raw.match(/HTTP\/1\.1 \d{3}/g)).toHaveLength(1);

    slow.release();
    // The abandoned handler now builds and compresses its answer; the service writes nothing of it and keeps serving.
    const after = await send(slow.port, {
      method: "POST",
      path: "/v1/etf/holdings",
      headers: { "x-api-key": BOOTSTRAP_KEY, "content-type": "application/json", "accept-encoding": "br" },
      body: Buffer.from(body),
    });
    expect(after.status).toBe(200);
    expect(after.headers["content-encoding"]).toBe("br");
    expect(JSON.parse(decoded(after).toString("utf8"))).toMatchObject({ symbol: etfSymbol });
  });
});
