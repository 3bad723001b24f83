import pino from "pino";
import { Writable } from "node:stream";
import { MemoryCounterStore } from "../../../src/platform/quotas/quota.memory";
import { createRateLimiter } from "../../../src/platform/quotas/quota.service";
import { createTestApp, type TestApp } from "../../helpers/app";
import { manualClock } from "../../helpers/clock";
import { BOOTSTRAP_KEY, TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";

/**
 * Per-key rate (per minute) and daily quota, in this process's memory:
 * 403 QUOTA_EXCEEDED with Retry-After and the RateLimit fields of
 * draft-ietf-httpapi-ratelimit-headers-10 when spent; the fields on every
 * counted answer; bulk counted per security; GraphQL per root field.
 */
const clock = manualClock(`${TEST_ANCHOR}T15:00:00Z`);
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t.close());
beforeEach(() => clock.set(`${TEST_ANCHOR}T15:00:00Z`));

const crypto = (key: string, body: unknown = { symbol: "BTC-USD" }) => t.post("/v1/crypto/price", body, key);
const gql = (key: string, query: string) => t.http.post("/graphql").set("x-api-key", key).send({ query });
const etfSymbols = (n: number) =>
  (
    t.source.db
      .prepare(
        `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
          WHERE s.type = 'etf' ORDER BY s.id LIMIT ?`,
      )
      .all(n) as { symbol: string }[]
  ).map((r) => ({ symbol: r.symbol }));

describe("rate per minute", () => {
  it("serves the rate with RateLimit fields, then answers 403 QUOTA_EXCEEDED with Retry-After", async () => {
    const { key } = await t.apiKeys.create({ name: "rate-3", scopes: ["*"], ratePerMinute: 3, dailyQuota: 100 });
    for (let i = 1; i <= 3; i++) {
      const res = await crypto(key);
      expect(res.status).toBe(200);
      expect(res.headers["ratelimit-policy"]).toBe('"minute";q=3;w=60, "day";q=100;w=86400');
      // 15:00:00 UTC: 60 s to the next minute, 9 h to the next day.
      expect(res.headers["ratelimit"]).toBe(`"minute";r=${3 - i};t=60, "day";r=${100 - i};t=32400`);
    }
    clock.advance(15_000);
    const spent = await crypto(key);
    expectErrorBody(spent, 403, "QUOTA_EXCEEDED");
    expect(spent.body.message).toMatch(/rate limit of 3 per minute is spent; retry in 45 s/);
    expect(spent.headers["retry-after"]).toBe("45");
    expect(spent.headers["ratelimit"]).toBe('"minute";r=0;t=45, "day";r=97;t=32385');
    expect(spent.headers["ratelimit-policy"]).toBeDefined();
  });

  it("counts nothing for a refused call, and serves again in the next minute", async () => {
    const { key } = await t.apiKeys.create({ name: "rate-1", scopes: ["*"], ratePerMinute: 1, dailyQuota: 100 });
    expect((await crypto(key)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await crypto(key)).status).toBe(403);
    clock.advance(60_000);
    const again = await crypto(key);
    expect(again.status).toBe(200);
    // 1 + 1: the three refusals left the day untouched.
    expect(again.headers["ratelimit"]).toBe('"minute";r=0;t=60, "day";r=98;t=32340');
  });

  it("counts a call with a body it cannot read, after the key and scope checks", async () => {
    const { key } = await t.apiKeys.create({ name: "rate-2", scopes: ["crypto"], ratePerMinute: 2, dailyQuota: 100 });
    const malformed = await crypto(key, '{"symbol":');
    expectErrorBody(malformed, 404, "INVALID_ARGUMENT");
    expect(malformed.headers["ratelimit"]).toMatch(/^"minute";r=1;/);
    // A missing scope (403 FORBIDDEN) and a bad key (401) are refused before counting.
    const forbidden = await t.post("/v1/etf/profile", { symbol: "QUEU" }, key);
    expectErrorBody(forbidden, 403, "FORBIDDEN");
    expect(forbidden.headers["ratelimit"]).toBeUndefined();
    expect((await crypto(key)).headers["ratelimit"]).toMatch(/^"minute";r=0;/);
    expectErrorBody(await crypto(key, '{"symbol":'), 403, "QUOTA_EXCEEDED");
  });
});

describe("daily quota", () => {
  it("refuses past the quota until 00:00 UTC, whatever the rate", async () => {
    const { key } = await t.apiKeys.create({ name: "day-2", scopes: ["*"], ratePerMinute: 1_000, dailyQuota: 2 });
    expect((await crypto(key)).status).toBe(200);
    expect((await crypto(key)).status).toBe(200);
    clock.advance(5 * 60_000);
    const spent = await crypto(key);
    expectErrorBody(spent, 403, "QUOTA_EXCEEDED");
    expect(spent.body.message).toMatch(/daily quota of 2 is spent/);
    expect(spent.headers["retry-after"]).toBe(String(9 * 3600 - 300));
    clock.set(`2026-11-21T00:00:00Z`);
    expect((await crypto(key)).status).toBe(200);
  });
});

describe("bulk and GraphQL costs", () => {
  it("counts a bulk call once per security it names", async () => {
    const { key } = await t.apiKeys.create({ name: "bulk-10", scopes: ["*"], ratePerMinute: 10, dailyQuota: 1_000 });
    const eight = await t.post("/v1/bulk", { endpoint: "etf/profile", symbols: etfSymbols(8) }, key);
    expect(eight.status).toBe(200);
    expect(eight.headers["ratelimit"]).toMatch(/^"minute";r=2;/);
    const three = await t.post("/v1/bulk", { endpoint: "etf/profile", symbols: etfSymbols(3) }, key);
    expectErrorBody(three, 403, "QUOTA_EXCEEDED");
    clock.advance(60_000);
    const eleven = await t.post("/v1/bulk", { endpoint: "etf/profile", symbols: etfSymbols(11) }, key);
    expectErrorBody(eleven, 403, "QUOTA_EXCEEDED");
    expect(eleven.body.message).toMatch(/costs 11 units, more than the key's rate limit of 10 per minute/);
  });

  it("counts a /graphql operation once per root field, same headers, and 403 FORBIDDEN when spent", async () => {
    const { key } = await t.apiKeys.create({ name: "gql-5", scopes: ["*"], ratePerMinute: 5, dailyQuota: 1_000 });
    const three = await gql(
      key,
      '{ a: quote(symbol: "BTC-USD") { c } b: quote(symbol: "QUEU") { c } ' +
        'c: cryptoPrice(symbol: "BTC-USD") { price } }',
    );
    expect(three.status).toBe(200);
    expect(three.headers["ratelimit"]).toMatch(/^"minute";r=2;/);
    // Introspection fields cost nothing, and an operation at least 1.
    const typename = await gql(key, `{ __typename }`);
    expect(typename.headers["ratelimit"]).toMatch(/^"minute";r=1;/);
    const { result: spent, queries } = await t.countQueries(() =>
      gql(key, `{ a: quote(symbol: "BTC-USD") { c } b: quote(symbol: "QUEU") { c } }`),
    );
    expect(spent.status).toBe(403);
    expect(spent.body.errors[0].extensions).toMatchObject({ code: "FORBIDDEN", reason: "QUOTA_EXCEEDED" });
    expect(spent.body.data).toBeUndefined();
    expect(spent.headers["retry-after"]).toBe("60");
    expect(spent.headers["ratelimit"]).toMatch(/^"minute";r=1;t=60/);
    expect(queries).toBe(0);
  });

  it("gives the bootstrap key limits that never get in the way, shown in the same fields", async () => {
    const res = await crypto(BOOTSTRAP_KEY);
    expect(res.headers["ratelimit-policy"]).toBe('"minute";q=1000000000;w=60, "day";q=1000000000000;w=86400');
  });
});

describe("a call refused for its scope counts nothing", () => {
  // A stock: its scope ("stock") is known only once `quote` has looked the symbol up.
  const stock = () =>
    (
      t.source.db
        .prepare(
          `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
            WHERE s.type = 'stock' ORDER BY s.id LIMIT 1`,
        )
        .get() as { symbol: string }
    ).symbol;
  const minuteLeft = (res: { headers: Record<string, string> }) =>
    /^"minute";r=(\d+);/.exec(res.headers["ratelimit"] ?? "")?.[1];
  const cryptoOnly = async (name: string) =>
    (await t.apiKeys.create({ name, scopes: ["crypto", "bulk"], ratePerMinute: 10, dailyQuota: 100 })).key;

  it("REST: a quote refused 403 for the stock scope leaves the count as it was", async () => {
    const key = await cryptoOnly("scope-rest");
    const refused = await t.post("/v1/quote", { symbol: stock() }, key);
    expectErrorBody(refused, 403, "FORBIDDEN");
    expect(refused.headers["ratelimit"]).toBeUndefined();
    expect(minuteLeft(await t.post("/v1/quote", { symbol: "BTC-USD" }, key))).toBe("9");
    // Refused again and again: still nothing counted.
    for (let i = 0; i < 3; i++)
      expectErrorBody(
        await t.post("/v1/candle", { symbol: stock(), from: "2026-11-01", to: "2026-11-20" }, key),
        403,
        "FORBIDDEN",
      );
    const next = await crypto(key);
    expect(next.headers["ratelimit"]).toBe('"minute";r=8;t=60, "day";r=98;t=32400');
  });

  it("REST bulk: an item refused for its scope gives back its unit", async () => {
    const key = await cryptoOnly("scope-bulk");
    const res = await t.post(
      "/v1/bulk",
      { endpoint: "quote", symbols: [{ symbol: "BTC-USD" }, { symbol: stock() }, { symbol: "ETH-USD" }] },
      key,
    );
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { statusCode: number }) => r.statusCode)).toEqual([200, 403, 200]);
    expect(minuteLeft(res)).toBe("8");
    expect(minuteLeft(await crypto(key))).toBe("7");
  });

  it("/graphql: a root field refused for its scope gives back its units; the rest stay counted", async () => {
    const key = await cryptoOnly("scope-gql");
    const refused = await gql(key, `{ quote(symbol: "${stock()}") { c } }`);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: "FORBIDDEN", reason: "FORBIDDEN" });
    expect(refused.headers["ratelimit"]).toBeUndefined();
    const etf = await gql(key, `{ etf(symbol: "QUEU") { symbol } }`);
    expect(etf.body.errors[0].extensions).toMatchObject({ code: "FORBIDDEN" });
    expect(etf.headers["ratelimit"]).toBeUndefined();
    // Two root fields, one refused: one unit counted (the other ran, though a non-null root field's error nulls
    // `data`).
    const mixed = await gql(key, `{ a: quote(symbol: "BTC-USD") { c } b: quote(symbol: "${stock()}") { c } }`);
    expect(mixed.body.errors.map((e: { path: unknown[] }) => e.path)).toEqual([["b"]]);
    expect(minuteLeft(mixed)).toBe("9");
    // A list by keys: the refused item gives back its one unit.
    const list = await gql(key, `{ quotes(symbols: ["BTC-USD", "${stock()}", "ETH-USD"]) { symbol } }`);
    expect(list.body.errors.map((e: { path: unknown[] }) => e.path)).toEqual([["quotes", 1]]);
    expect(minuteLeft(list)).toBe("7");
    expect(minuteLeft(await crypto(key))).toBe("6");
  });
});

describe("the counters", () => {
  it("forget windows that ended (memory stays bounded by the active keys)", async () => {
    const c = manualClock("2026-11-20T15:00:00Z");
    const store = new MemoryCounterStore(() => c.now().getTime());
    for (let i = 0; i < 500; i++) {
      await store.consume({
        minuteKey: `m${i}`,
        dayKey: `d${i}`,
        cost: 1,
        minuteLimit: 5,
        dayLimit: 5,
        minuteTtlMs: 60_000,
        dayTtlMs: 120_000,
      });
    }
    expect(store.size).toBe(1_000);
    c.advance(130_000);
    for (let i = 0; i < 1_000; i++) {
      await store.consume({
        minuteKey: "live-m",
        dayKey: "live-d",
        cost: 0,
        minuteLimit: 5,
        dayLimit: 5,
        minuteTtlMs: 60_000,
        dayTtlMs: 60_000,
      });
    }
    expect(store.size).toBe(2);
  });

  it("fail open when Redis is unreachable: counted in memory, one warning, never a 500", async () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino(
      { level: "info" },
      new Writable({ write: (chunk, _e, cb) => (lines.push(JSON.parse(String(chunk))), cb()) }),
    );
    const limiter = createRateLimiter(
      { redisUrl: "redis://127.0.0.1:1", redisKeyPrefix: "mdg-test:", redisTimeoutMs: 100, redisCooldownMs: 5_000 },
      clock,
      logger,
    );
    try {
      const key = { keyId: "key_down", ratePerMinute: 2, dailyQuota: 10 };
      const decisions = [];
      for (let i = 0; i < 3; i++) decisions.push(await limiter.consume(key, 1));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
      const warnings = lines.filter((l) => l.level === 40 && /fail open/.test(l.msg));
      expect(warnings).toHaveLength(1);
    } finally {
      await limiter.close();
    }
  });
});
