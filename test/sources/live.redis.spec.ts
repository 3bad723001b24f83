// @requires-env REDIS_URL redis://127.0.0.1:6379
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, connect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import Redis from "ioredis";
import type { Quote } from "../../src/domain/quote/quote.types";
import { ROW_STORE_ANSWERS } from "../../src/domain/answers";
import { createContext } from "../../src/http/http.context";
import { main as importMain, openConfiguredSink } from "../../src/application/cli/import.cli";
import { loadConfig } from "../../src/platform/config";
import { createTestApp, type TestApp } from "../helpers/app";
import { BOOTSTRAP_KEY, TEST_STORE_PATH } from "../helpers/constants";
import { LiveClient, serveLive } from "../helpers/live";

/** A TCP hop in front of Redis that a test can cut (Redis gone: connections dropped, new ones refused) and restore. */
async function redisHop(target: URL) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port || 6379), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, "127.0.0.1", () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  await open();
  return {
    url: () => `redis://127.0.0.1:${port}`,
    async cut() {
      const closing = server;
      server = undefined;
      if (!closing) return;
      const closed = new Promise<void>((r) => closing.close(() => r()));
      for (const s of sockets) s.destroy();
      await closed;
    },
    restore: open,
    async close() {
      await this.cut();
    },
  };
}

(process.env.REDIS_URL ? describe : describe.skip)("live changes across two replicas over Redis", () => {
  const prefix = `mdg-test-live-${process.pid}-${Date.now()}:`;
  let hop: Awaited<ReturnType<typeof redisHop>>;
  let a: TestApp;
  let b: TestApp;
  let servedB: Awaited<ReturnType<typeof serveLive>>;
  let servedA: Awaited<ReturnType<typeof serveLive>>;
  let redis: Redis;
  let symbol: string;
  let base: Quote;

  beforeAll(async () => {
    hop = await redisHop(new URL(process.env.REDIS_URL!));
    const env = () => ({ REDIS_URL: hop.url(), MDG_REDIS_KEY_PREFIX: prefix });
    a = await createTestApp({ env: env() });
    b = await createTestApp({ env: env() });
    servedA = await serveLive(a);
    servedB = await serveLive(b);
    redis = new Redis(process.env.REDIS_URL!);
    symbol = a.source.db
      .prepare(
        `SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id
         WHERE s.type = 'stock' AND l.is_primary = 1 ORDER BY s.id LIMIT 1`,
      )
      .pluck()
      .get() as string;
    const ctx = createContext(a.deps, "test", await a.apiKeys.authenticate(BOOTSTRAP_KEY));
    base = await ROW_STORE_ANSWERS.quote.get(ctx, { symbol });
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await Promise.all([servedA.close(), servedB.close()]);
    redis.disconnect();
    await hop.close();
  });

  let attempt = 0;
  // Each attempt a new quote (its time moves by a second): a replica delivers the same quote only once.
  const quoteAt = (c: number) => Object.assign(Object.create(base) as Quote, { ...base, c, t: base.t + ++attempt });
  const subscribers = async () => ((await redis.pubsub("NUMSUB", `${prefix}live:${symbol}`)) as [string, number])[1];
  const pricesOf = (client: LiveClient) =>
    client.received.filter((m) => m.channel === "quote").map((m) => (m.data as { c: number }).c);

  /** Publishes on A until `client` receives that price (the relay's SUBSCRIBE lands asynchronously). */
  async function crossUntilReceived(client: LiveClient, c: number): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (!pricesOf(client).includes(c)) {
      if (Date.now() > deadline) throw new Error(`replica B never received ${c}; got ${pricesOf(client).join(",")}`);
      a.live.hub.publish({ symbol, quote: quoteAt(c), origin: "store" });
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it("delivers a change made on replica A to a subscriber on replica B, listening only while subscribed", async () => {
    expect(await subscribers()).toBe(0);
    const client = await LiveClient.open(servedB.url("/v1"), BOOTSTRAP_KEY);
    expect((await client.request({ action: "subscribe", channel: "quote", symbol })).status).toBe(200);
    await crossUntilReceived(client, base.c + 1);
    // B listens to the symbol's channel; A, with no subscriber of it, does not.
    expect(await subscribers()).toBe(1);
    expect(pricesOf(client).every((c) => c === base.c + 1)).toBe(true);

    expect((await client.request({ action: "unsubscribe", channel: "quote", symbol })).status).toBe(200);
    const deadline = Date.now() + 5_000;
    while ((await subscribers()) !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await subscribers()).toBe(0);
    const seen = pricesOf(client).length;
    a.live.hub.publish({ symbol, quote: quoteAt(base.c + 2), origin: "store" });
    await client.request({ action: "ping" });
    await new Promise((r) => setTimeout(r, 200));
    expect(pricesOf(client)).toHaveLength(seen);
    client.close();
  });

  it("keeps serving local subscribers while Redis is gone, and crosses replicas again once it is back", async () => {
    const onA = await LiveClient.open(servedA.url("/v1"), BOOTSTRAP_KEY);
    const onB = await LiveClient.open(servedB.url("/v1"), BOOTSTRAP_KEY);
    await onA.request({ action: "subscribe", channel: "quote", symbol });
    await onB.request({ action: "subscribe", channel: "quote", symbol });
    await crossUntilReceived(onB, base.c + 3);

    await hop.cut();
    a.live.hub.publish({ symbol, quote: quoteAt(base.c + 4), origin: "store" });
    await onA.waitFor(() => pricesOf(onA).includes(base.c + 4));
    await new Promise((r) => setTimeout(r, 300));
    expect(pricesOf(onB)).not.toContain(base.c + 4);

    await hop.restore();
    await crossUntilReceived(onB, base.c + 5);
    onA.close();
    onB.close();
  }, 60_000);
});

(process.env.REDIS_URL ? describe : describe.skip)("a writer's notices over Redis", () => {
  const prefix = `mdg-test-notice-${process.pid}-${Date.now()}:`;
  let dir: string;
  let store: string;
  let t: TestApp;
  let served: Awaited<ReturnType<typeof serveLive>>;
  let redis: Redis;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mdg-notice-"));
    store = join(dir, "store.db");
    const src = new Database(TEST_STORE_PATH, { readonly: true });
    src.exec(`VACUUM INTO '${store.replace(/'/g, "''")}'`);
    src.close();
    // The replica's own look at the store comes a minute after a commit at the latest: only the notice is sooner.
    t = await createTestApp({
      storePath: store,
      env: { REDIS_URL: process.env.REDIS_URL!, MDG_REDIS_KEY_PREFIX: prefix, MDG_LIVE_STORE_POLL_MS: "60000" },
    });
    served = await serveLive(t);
    redis = new Redis(process.env.REDIS_URL!);
  });
  afterAll(async () => {
    await t.close();
    await served.close();
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  it("an import's commit pushes the new quote to a subscriber at once, not at the replica's next look", async () => {
    const symbol = t.source.db
      .prepare(
        `SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id JOIN quotes q ON q.listing_id = l.id
         WHERE s.type = 'stock' AND l.is_primary = 1 ORDER BY s.id LIMIT 1`,
      )
      .pluck()
      .get() as string;
    const before = (await t.post("/v1/quote", { symbol })).body as { c: number; t: number; pc: number };
    const client = await LiveClient.open(served.url("/v1"), BOOTSTRAP_KEY);
    expect((await client.request({ action: "subscribe", channel: "quote", symbol })).status).toBe(200);
    const deadline = Date.now() + 10_000;
    while (((await redis.pubsub("NUMSUB", `${prefix}live:${symbol}`)) as [string, number])[1] !== 1) {
      if (Date.now() > deadline) throw new Error("the replica never listened to the symbol's channel");
      await new Promise((r) => setTimeout(r, 20));
    }

    const c = Math.round((before.c + 1) * 100) / 100;
    const file = join(dir, "quotes.csv");
    writeFileSync(file, `symbol,t,c,o,h,l,pc,v\n${symbol},${before.t + 60},${c},${c},${c},${c},${before.pc},1000\n`);
    const lines: string[] = [];
    const config = loadConfig({
      MDG_DATA_SOURCE: "sqlite",
      MDG_SQLITE_PATH: store,
      REDIS_URL: process.env.REDIS_URL!,
      MDG_REDIS_KEY_PREFIX: prefix,
      LOG_LEVEL: "silent",
      NODE_ENV: "test",
    });
    const code = await importMain(["quotes", file], {
      openSink: () => openConfiguredSink(config),
      out: { log: (l: string) => lines.push(l), error: (l: string) => lines.push(l) },
      tty: false,
    });
    expect({ code, lines }).toMatchObject({
      code: 0,
      lines: expect.arrayContaining(["quotes: 0 inserted, 1 changed, 0 unchanged, 0 rejected"]),
    });
    const push = await client.waitFor((m) => m.channel === "quote", 20_000);
    expect(push).toMatchObject({ channel: "quote", symbol, data: { c, t: before.t + 60 } });
    await client.request({ action: "ping" });
    expect(client.received.filter((m) => m.channel === "quote")).toHaveLength(1);
    client.close();
  }, 60_000);
});
