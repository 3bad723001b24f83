// @requires-env REDIS_URL redis://127.0.0.1:6379
import { randomBytes } from "node:crypto";
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { Writable } from "node:stream";
import Redis from "ioredis";
import pino from "pino";
import { createTestApp, type TestApp } from "../../helpers/app";
import { manualClock } from "../../helpers/clock";
import { TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";

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
    for (const app of [a, b])
      await (app.rateLimiter.store as unknown as { ready(ms: number): Promise<void> }).ready(5_000);
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
    expect(a.rateLimiter.store.kind).toBe("redis");
    expect(b.rateLimiter.store.kind).toBe("redis");
  });

  it("holds a rate of 5 per minute across two instances called in turn", async () => {
    // The key is in the shared test store, so both instances know it.
    const { key, row } = await a.apiKeys.create({
      name: "redis-rate-5",
      scopes: ["*"],
      ratePerMinute: 5,
      dailyQuota: 1_000,
    });
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
    const { key } = await a.apiKeys.create({
      name: "redis-rate-7",
      scopes: ["*"],
      ratePerMinute: 7,
      dailyQuota: 1_000,
    });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => crypto(i % 2 === 0 ? a : b, key)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(7);
    expect(results.filter((r) => r.status === 403)).toHaveLength(33);
  });

  it("holds the daily quota and bulk costs across both instances", async () => {
    const { key } = await a.apiKeys.create({
      name: "redis-day-12",
      scopes: ["*"],
      ratePerMinute: 1_000,
      dailyQuota: 12,
    });
    const etfs = (
      a.source.db
        .prepare(
          `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
            WHERE s.type = 'etf' LIMIT 10`,
        )
        .all() as { symbol: string }[]
    ).map((r) => ({ symbol: r.symbol }));
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

  it("gives a call refused for its scope back in Redis: the next call sees the count as it was", async () => {
    const { key } = await a.apiKeys.create({
      name: "redis-scope",
      scopes: ["crypto"],
      ratePerMinute: 10,
      dailyQuota: 1_000,
    });
    const stock = (
      a.source.db
        .prepare(
          `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
            WHERE s.type = 'stock' LIMIT 1`,
        )
        .get() as { symbol: string }
    ).symbol;
    expect((await crypto(a, key)).headers["ratelimit"]).toMatch(/^"minute";r=9;/);
    expectErrorBody(await a.post("/v1/quote", { symbol: stock }, key), 403, "FORBIDDEN");
    expectErrorBody(await b.post("/v1/quote", { symbol: stock }, key), 403, "FORBIDDEN");
    expect((await crypto(b, key)).headers["ratelimit"]).toMatch(/^"minute";r=8;/);
  });

  it("counts /graphql and REST calls of one key together", async () => {
    const { key } = await a.apiKeys.create({
      name: "redis-mixed-3",
      scopes: ["*"],
      ratePerMinute: 3,
      dailyQuota: 1_000,
    });
    const two = await b.http
      .post("/graphql")
      .set("x-api-key", key)
      .send({ query: `{ a: quote(symbol: "BTC-USD") { c } b: cryptoPrice(symbol: "BTC-USD") { price } }` });
    expect(two.status).toBe(200);
    expect((await crypto(a, key)).status).toBe(200);
    expectErrorBody(await crypto(a, key), 403, "QUOTA_EXCEEDED");
  });
});

/**
 * A proxy to the real Redis that can freeze (it holds what the client sends, as a stopped Redis process would) and
 * thaw (it passes on what it held, then everything): the limiter fails open while Redis is frozen and counts in Redis
 * again after the cooling period once it answers.
 */
async function freezableProxy(
  target: string,
): Promise<{ port: number; freeze(): void; thaw(): void; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  let frozen = false;
  const pairs = new Set<{ client: Socket; upstream: Socket; held: Buffer[] }>();
  const server: Server = createServer((client) => {
    const pair = { client, upstream: connect(Number(port || 6379), hostname), held: [] as Buffer[] };
    pairs.add(pair);
    client.on("data", (chunk: Buffer) => (frozen ? pair.held.push(chunk) : pair.upstream.write(chunk)));
    pair.upstream.on("data", (chunk: Buffer) => client.write(chunk));
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      pair.upstream.destroy();
    };
    client.on("close", end).on("error", end);
    pair.upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    freeze: () => void (frozen = true),
    thaw() {
      frozen = false;
      for (const pair of pairs) for (const chunk of pair.held.splice(0)) pair.upstream.write(chunk);
    },
    async close() {
      for (const pair of pairs) pair.client.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describeRedis("rate limits when Redis freezes and comes back (REDIS_URL)", () => {
  const prefix = `mdg-test-${randomBytes(4).toString("hex")}:`;
  const clock = manualClock(`${TEST_ANCHOR}T15:00:00Z`);
  const lines: { level: number; msg: string }[] = [];
  let proxy: Awaited<ReturnType<typeof freezableProxy>>;
  let t: TestApp;
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL!);
    proxy = await freezableProxy(REDIS_URL!);
    const logger = pino(
      { level: "info" },
      new Writable({ write: (chunk, _e, cb) => (lines.push(JSON.parse(String(chunk))), cb()) }),
    );
    const env = {
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      MDG_REDIS_KEY_PREFIX: prefix,
      MDG_REDIS_TIMEOUT_MS: "200",
      MDG_REDIS_COOLDOWN_MS: "500",
    };
    t = await createTestApp({ clock, env, logger });
    await (t.rateLimiter.store as unknown as { ready(ms: number): Promise<void> }).ready(5_000);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await t?.close();
    await proxy?.close();
  });

  it("counts in memory while Redis is frozen, then in Redis again after the cooling period", async () => {
    const { key, row } = await t.apiKeys.create({
      name: "redis-freeze",
      scopes: ["*"],
      ratePerMinute: 100,
      dailyQuota: 1_000,
    });
    const left = async () =>
      /^"minute";r=(\d+);/.exec(
        (await t.post("/v1/crypto/price", { symbol: "BTC-USD" }, key)).headers["ratelimit"] ?? "",
      )?.[1];
    expect([await left(), await left()]).toEqual(["99", "98"]);
    expect(t.rateLimiter.redisUp).toBe(true);
    expect((await t.http.get("/metrics")).text).toMatch(/^mdg_rate_limit_redis_up 1$/m);

    proxy.freeze();
    // The first call meets the timeout; the next ones count in memory (a count of their own) without waiting.
    const started = performance.now();
    const frozen = [await left(), await left(), await left(), await left()];
    expect(frozen).toEqual(["99", "98", "97", "96"]);
    expect(t.rateLimiter.redisUp).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);

    proxy.thaw();
    await new Promise((resolve) => setTimeout(resolve, 700));
    // The probe reaches Redis and its count goes on: 2 before the freeze, 1 for the call that timed out (Redis ran it
    // once it thawed, as a Redis that was only slow would), 1 for the probe.
    expect(await left()).toBe("96");
    expect(t.rateLimiter.redisUp).toBe(true);
    expect(await redis.get(`${prefix}rl:{${row.id}}:m:${Math.floor(clock.now().getTime() / 60_000)}`)).toBe("4");
    expect(await left()).toBe("95");
    expect(lines.filter((l) => /Redis unreachable/.test(l.msg))).toHaveLength(1);
    expect(lines.filter((l) => /Redis reachable again/.test(l.msg))).toHaveLength(1);
  });
});
