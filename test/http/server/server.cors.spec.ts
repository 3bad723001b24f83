import pino from "pino";
import { createHttpServer } from "../../../src/http/server/server.http";
import { loadConfig } from "../../../src/platform/config";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { listen, send, type RawResponse } from "../../helpers/http";

/** MDG_CORS_ORIGINS (src/http/server/server.cors.ts): preflights, and CORS headers on every answer, errors included. */

const ALLOWED = "http://127.0.0.1:5173";
const OTHER = "https://evil.example";

interface Served {
  t: TestApp;
  port: number;
  close(): Promise<void>;
}

async function serve(env: NodeJS.ProcessEnv): Promise<Served> {
  const t = await createTestApp({ env });
  const { port, close } = await listen(createHttpServer(t.app, pino({ level: "silent" })));
  return {
    t,
    port,
    close: async () => {
      await close();
      await t.close();
    },
  };
}

function preflight(port: number, path: string, origin: string, requestHeaders = "content-type, x-api-key") {
  return send(port, {
    method: "OPTIONS",
    path,
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": requestHeaders,
    },
  });
}

function postJson(port: number, path: string, body: unknown, headers: Record<string, string> = {}) {
  const bytes = Buffer.from(JSON.stringify(body));
  return send(port, {
    method: "POST",
    path,
    headers: { "content-type": "application/json", "content-length": bytes.length, ...headers },
    body: bytes,
  });
}

function expectReadable(res: RawResponse, origin: string): void {
  expect(res.headers["access-control-allow-origin"]).toBe(origin);
  expect(res.headers["vary"]).toMatch(/\bOrigin\b/);
  const exposed = String(res.headers["access-control-expose-headers"]).toLowerCase().split(/,\s*/);
  expect(exposed).toEqual(expect.arrayContaining(["x-request-id", "ratelimit", "ratelimit-policy", "retry-after"]));
}

describe("MDG_CORS_ORIGINS: a list of origins", () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve({ MDG_CORS_ORIGINS: `${ALLOWED}, https://app.example.com` });
  });
  afterAll(() => s.close());

  it.each(["/graphql", "/v1/quote", "/v0/etf/profile", "/V1/bulk"])(
    "answers a preflight of %s from an allowed origin 200, with no key",
    async (path) => {
      const res = await preflight(s.port, path, ALLOWED);
      expect(res.status).toBe(200);
      expect(res.body.length).toBe(0);
      expect(res.headers["access-control-allow-origin"]).toBe(ALLOWED);
      expect(res.headers["access-control-allow-methods"]).toBe("GET, POST");
      const allowed = String(res.headers["access-control-allow-headers"]).split(/,\s*/);
      expect(allowed).toEqual(
        expect.arrayContaining(["content-type", "x-api-key", "apollo-require-preflight", "x-apollo-operation-name"]),
      );
      expect(Number(res.headers["access-control-max-age"])).toBeGreaterThan(0);
      expect(res.headers["vary"]).toMatch(/\bOrigin\b/);
      expect(res.headers["x-request-id"]).toBeTruthy();
    },
  );

  it("refuses a preflight from another origin with 403 FORBIDDEN and no CORS grant", async () => {
    for (const path of ["/graphql", "/v1/quote"]) {
      const res = await preflight(s.port, path, OTHER);
      expect(res.status).toBe(403);
      expect(res.headers["access-control-allow-origin"]).toBeUndefined();
      expect(res.json).toMatchObject({ statusCode: 403, code: "FORBIDDEN", details: [{ field: "origin" }] });
    }
  });

  it("matches origins exactly: another port, scheme or a trailing slash is another origin", async () => {
    for (const origin of ["http://127.0.0.1:5174", "https://127.0.0.1:5173", `${ALLOWED}/`, "null"]) {
      expect((await preflight(s.port, "/graphql", origin)).status).toBe(403);
    }
  });

  it("leaves an OPTIONS that is not a preflight, or of another path, as it was: 404", async () => {
    const plain = await send(s.port, { method: "OPTIONS", path: "/v1/quote", headers: { origin: ALLOWED } });
    expect(plain.status).toBe(404);
    const elsewhere = await preflight(s.port, "/healthz", ALLOWED);
    expect(elsewhere.status).toBe(404);
  });

  it("grants the allowed origin on data answers of both doors", async () => {
    const rest = await postJson(
      s.port,
      "/v1/quote",
      { symbol: "BTC-USD" },
      { origin: ALLOWED, "x-api-key": BOOTSTRAP_KEY },
    );
    expect(rest.status).toBe(200);
    expectReadable(rest, ALLOWED);
    const gql = await postJson(
      s.port,
      "/graphql",
      { query: '{ quote(symbol: "BTC-USD") { symbol } }' },
      { origin: ALLOWED, "x-api-key": BOOTSTRAP_KEY },
    );
    expect(gql.status).toBe(200);
    expectReadable(gql, ALLOWED);
  });

  it("grants it on error answers too: 401, 404, and the 401 of /graphql", async () => {
    const noKey = await postJson(s.port, "/v1/quote", { symbol: "BTC-USD" }, { origin: ALLOWED });
    expect(noKey.status).toBe(401);
    expectReadable(noKey, ALLOWED);
    const unknown = await postJson(s.port, "/v1/nope", {}, { origin: ALLOWED, "x-api-key": BOOTSTRAP_KEY });
    expect(unknown.status).toBe(404);
    expectReadable(unknown, ALLOWED);
    const badKey = await postJson(
      s.port,
      "/graphql",
      { query: "{ __typename }" },
      { origin: ALLOWED, "x-api-key": "no" },
    );
    expect(badKey.status).toBe(401);
    expectReadable(badKey, ALLOWED);
  });

  it("grants nothing to another origin, but still answers (the browser is what refuses to read it)", async () => {
    const res = await postJson(
      s.port,
      "/v1/quote",
      { symbol: "BTC-USD" },
      { origin: OTHER, "x-api-key": BOOTSTRAP_KEY },
    );
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    expect(res.headers["vary"]).toMatch(/\bOrigin\b/);
  });
});

describe("MDG_CORS_ORIGINS: a spent rate limit", () => {
  let s: Served;
  let key: string;
  beforeAll(async () => {
    s = await serve({ MDG_CORS_ORIGINS: ALLOWED });
    key = (await s.t.apiKeys.create({ name: `cors-limited-${Date.now()}`, scopes: ["*"], ratePerMinute: 1 })).key;
  });
  afterAll(() => s.close());

  it("lets the page read the 403 and its Retry-After", async () => {
    await postJson(s.port, "/v1/quote", { symbol: "BTC-USD" }, { origin: ALLOWED, "x-api-key": key });
    const spent = await postJson(s.port, "/v1/quote", { symbol: "BTC-USD" }, { origin: ALLOWED, "x-api-key": key });
    expect(spent.status).toBe(403);
    expect(spent.headers["retry-after"]).toBeTruthy();
    expectReadable(spent, ALLOWED);
  });
});

describe("MDG_CORS_ORIGINS=*", () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve({ MDG_CORS_ORIGINS: "*" });
  });
  afterAll(() => s.close());

  it("answers any origin's preflight and grants every answer to any origin", async () => {
    const pre = await preflight(s.port, "/v1/quote", OTHER);
    expect(pre.status).toBe(200);
    expect(pre.headers["access-control-allow-origin"]).toBe("*");
    const res = await postJson(
      s.port,
      "/v1/quote",
      { symbol: "BTC-USD" },
      { origin: OTHER, "x-api-key": BOOTSTRAP_KEY },
    );
    expectReadable(res, "*");
  });
});

describe("MDG_CORS_ORIGINS unset", () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve({});
  });
  afterAll(() => s.close());

  it("grants no origin anything and answers preflights as any OPTIONS, within the five statuses", async () => {
    for (const path of ["/graphql", "/v1/quote"]) {
      const res = await preflight(s.port, path, ALLOWED);
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ statusCode: 404, code: "NOT_FOUND" });
      expect(res.headers["access-control-allow-origin"]).toBeUndefined();
      expect(res.headers["allow"]).toBeUndefined();
    }
    const res = await postJson(
      s.port,
      "/v1/quote",
      { symbol: "BTC-USD" },
      { origin: ALLOWED, "x-api-key": BOOTSTRAP_KEY },
    );
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("MDG_CORS_ORIGINS validation", () => {
  function refusal(value: string): string {
    try {
      loadConfig({ MDG_CORS_ORIGINS: value });
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error(`accepted ${value}`);
  }

  it("reads unset, empty, * and a list", () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(loadConfig({ MDG_CORS_ORIGINS: " " }).corsOrigins).toEqual([]);
    expect(loadConfig({ MDG_CORS_ORIGINS: "*" }).corsOrigins).toBe("*");
    expect(loadConfig({ MDG_CORS_ORIGINS: "https://a.example, http://localhost:5173" }).corsOrigins).toEqual([
      "https://a.example",
      "http://localhost:5173",
    ]);
  });

  it.each([
    ["https://a.example/", /write https:\/\/a\.example\)/],
    ["https://a.example/app", /not an origin as a browser sends it/],
    ["HTTPS://A.EXAMPLE", /write https:\/\/a\.example\)/],
    ["https://a.example:443", /write https:\/\/a\.example\)/],
    ["a.example", /is not an origin/],
    ["ftp://a.example", /not an http\(s\) origin/],
    ["https://a.example,,https://b.example", /an empty item/],
    ["*,https://a.example", /cannot be mixed/],
  ])("refuses %s at start, naming the variable", (value, why) => {
    const message = refusal(value);
    expect(message).toMatch(/^invalid configuration: MDG_CORS_ORIGINS: /);
    expect(message).toMatch(why);
  });
});
