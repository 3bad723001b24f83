// @requires-env REDIS_URL redis://127.0.0.1:6379
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import Redis from "ioredis";
import type { Response } from "supertest";
import { createTestApp, type TestApp } from "../../helpers/app";
import { manualClock } from "../../helpers/clock";
import { BOOTSTRAP_KEY, TEST_ANCHOR, TEST_STORE_PATH } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";

const clock = manualClock(`${TEST_ANCHOR}T15:00:30Z`);
let t: TestApp;
let dir: string;
// A store of its own: status is read again once per data version, which a commit by any other suite to a shared
// store (a key created) would move between two calls.
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mdg-status-"));
  const copy = join(dir, "store.db");
  const src = new Database(TEST_STORE_PATH, { readonly: true });
  src.exec(`VACUUM INTO '${copy.replace(/'/g, "''")}'`);
  src.close();
  t = await createTestApp({ clock, storePath: copy });
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => clock.set(`${TEST_ANCHOR}T15:00:30Z`));

/** `"minute";r=598;t=42, "day";r=99998;t=32400` → { minute: { r, t }, day: { r, t } }. */
function rateLimit(res: Response): Record<string, { r: number; t: number }> {
  const out: Record<string, { r: number; t: number }> = {};
  for (const part of String(res.headers.ratelimit).split(", ")) {
    const m = /^"(\w+)";r=(\d+);t=(\d+)$/.exec(part);
    if (!m) throw new Error(`unexpected RateLimit field ${part}`);
    out[m[1]!] = { r: Number(m[2]), t: Number(m[3]) };
  }
  return out;
}

function send(method: "get" | "post", path: string, key: string | null = BOOTSTRAP_KEY) {
  const r = method === "get" ? t.http.get(path) : t.http.post(path).set("content-type", "application/json");
  return key === null ? r : r.set("x-api-key", key);
}

async function newKey(name: string, ratePerMinute: number, dailyQuota: number): Promise<string> {
  const { key } = await t.apiKeys.create({
    name: `${name}-${randomBytes(3).toString("hex")}`,
    scopes: ["crypto"],
    ratePerMinute,
    dailyQuota,
  });
  return key;
}

describe.each(["v0", "v1"])("/%s/status", (v) => {
  it.each(["get", "post"] as const)(
    "%s: health, the source, and the latest bar of each kind of security",
    async (m) => {
      const res = await send(m, `/${v}/status`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: "ok",
        source: "sqlite",
        time: Math.floor(clock.now().getTime() / 1000),
      });
      // What the store holds, by a plain scan (fine on the test store).
      const stored = t.source.db
        .prepare(
          `SELECT s.type AS type, max(b.t) AS daily FROM daily_bars b JOIN listings l ON l.id = b.listing_id
         JOIN securities s ON s.id = l.security_id GROUP BY s.type ORDER BY s.type`,
        )
        .all() as { type: string; daily: number }[];
      const intraday = t.source.db.prepare(`SELECT max(t) FROM intraday_bars`).pluck().get() as number;
      expect(res.body.assetClasses.map((a: { type: string }) => a.type)).toEqual([
        "crypto",
        "etf",
        "forex",
        "fund",
        "stock",
      ]);
      for (const s of stored) {
        const answered = res.body.assetClasses.find((a: { type: string }) => a.type === s.type);
        expect(answered.latestDailyBar).toBe(new Date(s.daily * 1000).toISOString().slice(0, 10));
      }
      expect(
        Math.max(...res.body.assetClasses.map((a: { latestIntradayBar: number | null }) => a.latestIntradayBar ?? 0)),
      ).toBe(intraday);
    },
  );

  it("needs a valid key (401), answers GET and POST only (404 for others), ignores a body", async () => {
    expectErrorBody(await send("get", `/${v}/status`, null), 401, "UNAUTHENTICATED");
    expectErrorBody(await send("get", `/${v}/status`, "not-a-key"), 401, "UNAUTHENTICATED");
    expectErrorBody(await t.http.put(`/${v}/status`).set("x-api-key", BOOTSTRAP_KEY), 404, "NOT_FOUND");
    expect((await send("post", `/${v}/status`).send({ anything: 1 })).status).toBe(200);
  });

  it("costs one unit, like any call", async () => {
    const key = await newKey("status-cost", 100, 1_000);
    const first = rateLimit(await send("get", `/${v}/status`, key));
    const second = rateLimit(await send("post", `/${v}/status`, key));
    expect(first.minute!.r).toBe(99);
    expect(second.minute!.r).toBe(98);
    expect(second.day!.r).toBe(998);
  });

  it("reads the bars once per data version: a second call makes no store query", async () => {
    await send("get", `/${v}/status`);
    const { result, queries } = await t.countQueries(() => send("get", `/${v}/status`), { keepCache: true });
    expect(result.status).toBe(200);
    // `ping` (SELECT 1) only; the key check is cached.
    expect(queries).toBeLessThanOrEqual(1);
  });
});

describe.each(["v0", "v1"])("/%s/quota", (v) => {
  it("answers the key's limits as its RateLimit fields state them, and costs nothing", async () => {
    const key = await newKey("quota", 10, 50);
    await t.post(`/${v}/crypto/price`, { symbol: "BTC-USD" }, key).expect(200);
    await t.post(`/${v}/crypto/price`, { symbol: "ETH-USD" }, key).expect(200);
    for (const m of ["get", "post", "get"] as const) {
      const res = await send(m, `/${v}/quota`, key);
      expect(res.status).toBe(200);
      const headers = rateLimit(res);
      expect(res.body).toMatchObject({ allowed: true, retryAfterSeconds: 0 });
      expect(res.body.keyId).toMatch(/^key_/);
      expect(res.body.policies).toEqual([
        {
          name: "minute",
          quota: 10,
          windowSeconds: 60,
          used: 2,
          remaining: 8,
          resetSeconds: 30,
          resetsAt: expect.any(Number),
        },
        {
          name: "day",
          quota: 50,
          windowSeconds: 86_400,
          used: 2,
          remaining: 48,
          resetSeconds: 32_370,
          resetsAt: expect.any(Number),
        },
      ]);
      expect(headers).toEqual({ minute: { r: 8, t: 30 }, day: { r: 48, t: 32_370 } });
      expect(res.headers["ratelimit-policy"]).toBe('"minute";q=10;w=60, "day";q=50;w=86400');
      const [minute, day] = res.body.policies;
      expect(minute.resetsAt).toBe(Date.parse(`${TEST_ANCHOR}T15:01:00Z`) / 1000);
      expect(day.resetsAt).toBe(Date.parse(`${TEST_ANCHOR}T00:00:00Z`) / 1000 + 86_400);
    }
    // Three quota calls later, a data call still has 8 left before it.
    expect(rateLimit(await t.post(`/${v}/crypto/price`, { symbol: "BTC-USD" }, key)).minute!.r).toBe(7);
  });

  it("answers when the quota is spent, saying when it comes back", async () => {
    const key = await newKey("quota-spent", 2, 100);
    await t.post(`/${v}/crypto/price`, { symbol: "BTC-USD" }, key).expect(200);
    await t.post(`/${v}/crypto/price`, { symbol: "BTC-USD" }, key).expect(200);
    expectErrorBody(await t.post(`/${v}/crypto/price`, { symbol: "BTC-USD" }, key), 403, "QUOTA_EXCEEDED");
    const res = await send("get", `/${v}/quota`, key);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ allowed: false, retryAfterSeconds: 30 });
    expect(res.body.policies[0]).toMatchObject({ name: "minute", used: 2, remaining: 0 });
    expect(rateLimit(res).minute).toEqual({ r: 0, t: 30 });
    clock.set(`${TEST_ANCHOR}T15:01:00Z`);
    const next = await send("get", `/${v}/quota`, key);
    expect(next.body).toMatchObject({
      allowed: true,
      policies: [{ used: 0, remaining: 2, resetSeconds: 60 }, { used: 2 }],
    });
  });

  it("needs a valid key", async () => {
    expectErrorBody(await send("get", `/${v}/quota`, null), 401, "UNAUTHENTICATED");
  });
});

const REDIS_URL = process.env.REDIS_URL;
(REDIS_URL ? describe : describe.skip)("/v1/quota with the counters in Redis (REDIS_URL)", () => {
  const prefix = `mdg-test-${randomBytes(4).toString("hex")}:`;
  let a: TestApp;
  let b: TestApp;
  let redis: Redis;
  beforeAll(async () => {
    redis = new Redis(REDIS_URL!);
    const env = { REDIS_URL: REDIS_URL!, MDG_REDIS_KEY_PREFIX: prefix };
    [a, b] = await Promise.all([createTestApp({ clock, env }), createTestApp({ clock, env })]);
    for (const app of [a, b])
      await (app.rateLimiter.store as unknown as { ready(ms: number): Promise<void> }).ready(5_000);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await Promise.all([a?.close(), b?.close()]);
  });

  it("reports what every replica counted, and counts nothing", async () => {
    const { key } = await a.apiKeys.create({
      name: "quota-redis",
      scopes: ["crypto"],
      ratePerMinute: 10,
      dailyQuota: 50,
    });
    await a.post("/v1/crypto/price", { symbol: "BTC-USD" }, key).expect(200);
    await b.post("/v1/crypto/price", { symbol: "BTC-USD" }, key).expect(200);
    for (const app of [a, b, a]) {
      const res = await app.http.get("/v1/quota").set("x-api-key", key);
      expect(res.status).toBe(200);
      expect(res.body.policies.map((p: { used: number }) => p.used)).toEqual([2, 2]);
      expect(res.headers.ratelimit).toMatch(/^"minute";r=8;t=\d+, "day";r=48;t=\d+$/);
    }
  });
});
