import pino from "pino";
import { createHttpServer } from "../../../src/http/server/server.http";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { listen, send, type RawResponse } from "../../helpers/http";

/**
 * POST /graphql with a plain JSON body takes a path without Express
 * (src/http/graphql/graphql.http.ts); every other POST goes through Express and
 * body-parser. Both must answer alike.
 */
let t: TestApp;
let port: number;
let close: () => Promise<void>;
beforeAll(async () => {
  t = await createTestApp();
  ({ port, close } = await listen(createHttpServer(t.app, pino({ level: "silent" }))));
});
afterAll(async () => {
  await close();
  await t.close();
});

const QUERY = JSON.stringify({
  query: "query P($s: String!) { cryptoPrice(symbol: $s) { symbol currency } }",
  variables: { s: "BTC-USD" },
});

function post(body: string | Buffer, headers: Record<string, string | number> = {}): Promise<RawResponse> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return send(port, {
    method: "POST",
    path: "/graphql",
    headers: { "x-api-key": BOOTSTRAP_KEY, "content-length": bytes.length, ...headers },
    body: bytes,
  });
}

function expectData(res: RawResponse): void {
  expect(res.status).toBe(200);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(res.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.json).toEqual({ data: { cryptoPrice: { symbol: "BTC-USD", currency: "USD" } } });
}

describe("POST /graphql, with and without Express in the way", () => {
  it.each([
    ["application/json", {}],
    ["application/json; charset=utf-8", {}],
    ['Application/JSON;charset="UTF-8"', {}],
  ])("answers a plain JSON body (%s) with the data", async (type) => {
    expectData(await post(QUERY, { "content-type": type }));
  });

  it("answers a chunked JSON body (through body-parser) the same", async () => {
    const res = await send(port, {
      method: "POST",
      path: "/graphql",
      headers: { "x-api-key": BOOTSTRAP_KEY, "content-type": "application/json", "transfer-encoding": "chunked" },
      body: Buffer.from(QUERY),
    });
    expectData(res);
  });

  it("passes the query string on: a GET-style search on a POST is ignored by Apollo, the body counts", async () => {
    const res = await send(port, {
      method: "POST",
      path: "/graphql?x=1",
      headers: {
        "x-api-key": BOOTSTRAP_KEY,
        "content-type": "application/json",
        "content-length": Buffer.byteLength(QUERY),
      },
      body: Buffer.from(QUERY),
    });
    expectData(res);
  });

  it.each([
    ["malformed JSON", '{"query": '],
    ["a JSON string", '"query"'],
    ["a JSON number", "42"],
    ["a JSON string after white space", ' \r\n\t"query"'],
    ["a JSON number after a no-break space", "\u00a042"],
  ])("answers %s 400 BAD_REQUEST on either path", async (_what, body) => {
    for (const res of [
      await post(body, { "content-type": "application/json" }),
      await send(port, {
        method: "POST",
        path: "/graphql",
        headers: { "x-api-key": BOOTSTRAP_KEY, "content-type": "application/json", "transfer-encoding": "chunked" },
        body: Buffer.from(body),
      }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ errors: [{ extensions: { code: "BAD_REQUEST" } }] });
    }
  });

  it("answers a body with white space before the object with the data", async () => {
    expectData(await post(` \n\t${QUERY}`, { "content-type": "application/json" }));
  });

  it("answers a body of white space alone as an empty one (body-parser's {}): 400", async () => {
    const res = await post(" \n\u2028 ", { "content-type": "application/json" });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ errors: [{ message: expect.stringMatching(/POST body missing/) }] });
  });

  it("answers an empty JSON body as Apollo does with body-parser's {}: 400, nothing to run", async () => {
    const res = await post("", { "content-type": "application/json" });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      errors: [{ message: expect.stringMatching(/POST body missing/), extensions: { code: "BAD_REQUEST" } }],
    });
  });

  it("answers a text/plain POST without a key 401 through Express, before Apollo's CSRF prevention", async () => {
    const res = await send(port, {
      method: "POST",
      path: "/graphql",
      headers: { "content-type": "text/plain", "content-length": Buffer.byteLength(QUERY) },
      body: Buffer.from(QUERY),
    });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ errors: [{ extensions: { code: "UNAUTHENTICATED" } }] });
    // With the key (which a browser sends cross-origin only after a CORS preflight) it passes that check, and Apollo
    // still reads only JSON bodies.
    const keyed = await post(QUERY, { "content-type": "text/plain" });
    expect(keyed.status).toBe(400);
    expect(keyed.body.toString()).not.toMatch(/CSRF/i);
  });

  it("answers a bad key 401 on the fast path", async () => {
    const res = await post(QUERY, { "content-type": "application/json", "x-api-key": "nope" });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ errors: [{ extensions: { code: "UNAUTHENTICATED" } }] });
  });

  it("is counted in the metrics and carries the RateLimit headers", async () => {
    const res = await post(QUERY, { "content-type": "application/json" });
    expect(res.headers["ratelimit"]).toMatch(/"minute";r=\d+/);
    const metrics = await send(port, { method: "GET", path: "/metrics" });
    expect(metrics.body.toString()).toMatch(
      /mdg_http_request_duration_seconds_count\{route="\/graphql",status="200"\} [1-9]/,
    );
  });
});
