// @requires-env REDIS_URL redis://127.0.0.1:6379
import { randomBytes } from "node:crypto";
import Redis from "ioredis";
import { createTestApp, type TestApp } from "../helpers/app";
import { manualClock } from "../helpers/clock";
import { TEST_ANCHOR } from "../helpers/constants";
import { expectErrorBody } from "../helpers/expect";

/**
 * Two service instances sharing one Redis (REDIS_URL) enforce one count per
 * key: the limit holds across both, under concurrency too (one atomic script
 * per call). Runs when REDIS_URL is set (CI sets it); skipped with a note
 * printed at the end of `npm test` otherwise.
 */
const REDIS_URL = process.env.REDIS_URL;
const describeRedis = REDIS_URL ? describe : describe.skip;

describeRedis("rate limits shared by two instances through Redis (REDIS_URL)", () => {
  // A prefix of this run only, so runs never share counters, and the keys are removed afterwards.
  const prefix = `mdg-test-${randomBytes(4).toString("hex")}:`;
  const clock = manualClock(`${TEST_ANCHOR}T15:00:00Z`);
  const env = { REDIS_URL: REDIS_URL!, MDG_REDIS_KEY_PREFIX: prefix };
  let a: TestApp;
  let b: TestApp;
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL!);
    [a, b] = await Promise.all([createTestApp({ clock, env }), createTestApp({ clock, env })]);
    // Both instances count in Redis from the first call (no start-up fallback to memory).
    for (const app of [a, b]) await (app.limits.store as unknown as { ready(ms: number): Promise<void> }).ready(5_000);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await Promise.all([a?.close(), b?.close()]);
  });
  beforeEach(() => clock.set(`${TEST_ANCHOR}T15:00:00Z`));

  const crypto = (app: TestApp, key: string) => app.post("/v1/crypto/price", { symbol: "BTC-USD" }, key);

  it("counts in Redis, not in each instance", async () => {
    expect(a.limits.store.kind).toBe("redis");
    expect(b.limits.store.kind).toBe("redis");
  });

  it("holds a rate of 5 per minute across two instances called in turn", async () => {
    // The key is in the shared test store, so both instances know it.
    const { key, row } = await a.apiKeys.create({ name: "redis-rate-5", scopes: ["*"], ratePerMinute: 5, dailyQuota: 1_000 });
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await crypto(i % 2 === 0 ? a : b, key);
      statuses.push(res.status);
      remaining.push(/"minute";r=(\d+)/.exec(String(res.headers["ratelimit"]))?.[1] ?? "-");
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 403, 403, 403]);
    expect(remaining).toEqual(["4", "3", "2", "1", "0", "0", "0", "0"]);
    expectErrorBody(await crypto(b, key), 403, "QUOTA_EXCEEDED");
    // One counter per key and window, in Redis.
    expect(await redis.keys(`${prefix}rl:{${row.id}}:m:*`)).toHaveLength(1);
    clock.advance(60_000);
    expect((await crypto(b, key)).status).toBe(200);
  });

  it("holds under concurrency: 40 calls at once on both instances, exactly the rate served", async () => {
    const { key } = await a.apiKeys.create({ name: "redis-rate-7", scopes: ["*"], ratePerMinute: 7, dailyQuota: 1_000 });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => crypto(i % 2 === 0 ? a : b, key)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(7);
    expect(results.filter((r) => r.status === 403)).toHaveLength(33);
  });

  it("holds the daily quota and bulk costs across both instances", async () => {
    const { key } = await a.apiKeys.create({ name: "redis-day-12", scopes: ["*"], ratePerMinute: 1_000, dailyQuota: 12 });
    const etfs = (a.source.db.prepare(`SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1 WHERE s.type = 'etf' LIMIT 10`).all() as { symbol: string }[]).map((r) => ({ symbol: r.symbol }));
    const bulk = await a.post("/v1/bulk", { endpoint: "etf/profile", symbols: etfs }, key);
    expect(bulk.status).toBe(200);
    expect(bulk.headers["ratelimit"]).toMatch(/"day";r=2;/);
    expect((await crypto(b, key)).status).toBe(200);
    expect((await crypto(a, key)).status).toBe(200);
    const spent = await crypto(b, key);
    expectErrorBody(spent, 403, "QUOTA_EXCEEDED");
    expect(spent.body.message).toMatch(/daily quota of 12/);
    expect(spent.headers["retry-after"]).toBe(String(9 * 3600));
  });

  it("counts /graphql and REST calls of one key together", async () => {
    const { key } = await a.apiKeys.create({ name: "redis-mixed-3", scopes: ["*"], ratePerMinute: 3, dailyQuota: 1_000 });
    const two = await b.http.post("/graphql").set("x-api-key", key).send({ query: `{ a: quote(symbol: "BTC-USD") { c } b: cryptoPrice(symbol: "BTC-USD") { price } }` });
    expect(two.status).toBe(200);
    expect((await crypto(a, key)).status).toBe(200);
    expectErrorBody(await crypto(a, key), 403, "QUOTA_EXCEEDED");
  });
});
