// @requires-env REDIS_URL redis://127.0.0.1:6379
import { randomBytes } from "node:crypto";
import { createServer, type AddressInfo } from "node:net";
import Redis from "ioredis";
import { quote, startBench, type Bench } from "./upstream.fixture";

/**
 * With REDIS_URL the upstream cache is shared by replicas: what one fetched, another serves (fresh, or stale when
 * the upstream fails) without calling the upstream. A Redis that is down costs nothing but the sharing.
 */
const REDIS_URL = process.env.REDIS_URL;
const describeRedis = REDIS_URL ? describe : describe.skip;

describeRedis("the upstream cache in Redis (REDIS_URL)", () => {
  // This run's own keys, removed afterwards: other suites and engineers share the server.
  const prefix = `mdg-test-upstream-${randomBytes(4).toString("hex")}:`;
  const env = { REDIS_URL: REDIS_URL!, MDG_REDIS_KEY_PREFIX: prefix, MDG_UPSTREAM_RETRIES: "0" };
  let bench: Bench;
  let redis: Redis;

  beforeAll(async () => {
    bench = await startBench();
    redis = new Redis(REDIS_URL!);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await bench.close();
  });
  afterEach(() => {
    bench.proxy.fault(null);
    bench.proxy.resetCounts();
  });

  async function replica() {
    const made = bench.client(env);
    expect(await made.client.ready(5_000)).toBe(true);
    return made;
  }

  it("a second replica serves what the first fetched, single or batched, without the upstream", async () => {
    const a = await replica();
    const b = await replica();
    const one = await a.client.request(quote(bench.symbols[0]!));
    await a.client.requestMany(bench.symbols.slice(1, 6).map(quote));
    expect(bench.proxy.count()).toBe(2);
    // Writes to Redis are not awaited by the caller: give them a moment to land.
    await redis.ping();
    await new Promise((r) => setTimeout(r, 50));
    expect(await b.client.request(quote(bench.symbols[0]!))).toEqual(one);
    const many = await b.client.requestMany(bench.symbols.slice(1, 6).map(quote));
    expect(many.every((r) => !(r instanceof Error) && r.status === 200 && !r.stale)).toBe(true);
    expect(bench.proxy.count()).toBe(2);
    const keys = await redis.keys(`${prefix}upstream:*`);
    expect(keys).toHaveLength(6);
    // Keys are hashed: no symbol in a key name.
    expect(keys.join(" ")).not.toContain(bench.symbols[0]!);
  });

  it("serves another replica's answer stale when the upstream fails", async () => {
    const a = await replica();
    const b = await replica();
    const good = await a.client.request(quote(bench.symbols[10]!));
    await new Promise((r) => setTimeout(r, 50));
    b.clock.advance(30_000);
    bench.proxy.fault({ kind: "status", status: 500 });
    expect(await b.client.request(quote(bench.symbols[10]!))).toEqual({ ...good, stale: true, ageSeconds: 30 });
  });

  it("answers from the upstream and memory when Redis is unreachable", async () => {
    // A loopback port that was just free: connections are refused at once.
    const server = createServer().listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const { port } = server.address() as AddressInfo;
    await new Promise((r) => server.close(r));
    const down = `redis://127.0.0.1:${port}`;
    const { client } = bench.client({ ...env, REDIS_URL: down, MDG_REDIS_TIMEOUT_MS: "100" });
    expect(await client.ready(200)).toBe(false);
    expect((await client.request(quote(bench.symbols[20]!))).status).toBe(200);
    const batch = await client.requestMany(bench.symbols.slice(21, 25).map(quote));
    expect(batch.every((r) => !(r instanceof Error) && r.status === 200)).toBe(true);
    expect((await client.request(quote(bench.symbols[20]!))).status).toBe(200);
    expect(bench.proxy.count()).toBe(2);
  });
});
