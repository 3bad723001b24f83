import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import pino from "pino";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";

/**
 * A Redis that accepts connections and never answers (a hung server, a full
 * network buffer): after the first timeout the limiter counts in memory for
 * MDG_REDIS_COOLDOWN_MS without calling Redis, so the hang costs one request
 * one timeout per cooling period, not every request.
 */
const TIMEOUT_MS = 400;

/**
 * A TCP server that answers the client's ready check (INFO) and then takes every command and never says a word: a
 * Redis that froze after the connection was made. (A server silent from the first byte is not the same test: the
 * client never becomes ready and refuses commands at once, which costs nothing.)
 */
async function hungRedis(): Promise<{ server: Server; port: number; sockets: Set<Socket>; commands: () => number }> {
  const sockets = new Set<Socket>();
  let commands = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    // The hand-shake (CLIENT SETINFO, the INFO ready check) is answered; from the first other command on, nothing.
    let frozen = false;
    socket.on("data", (chunk: Buffer) => {
      for (const command of chunk.toString("latin1").split(/(?=\*\d+\r\n)/)) {
        if (!frozen && /^\*\d+\r\n\$6\r\nclient\r\n/i.test(command)) socket.write("+OK\r\n");
        else if (!frozen && /^\*1\r\n\$4\r\ninfo\r\n/i.test(command)) {
          const info = "# Server\r\nredis_version:7.2.0\r\nloading:0\r\n";
          socket.write(`$${Buffer.byteLength(info)}\r\n${info}\r\n`);
        } else {
          frozen = true;
          commands++;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, sockets, commands: () => commands };
}

describe("rate limits with a Redis that accepts connections and never answers", () => {
  let hung: Awaited<ReturnType<typeof hungRedis>>;
  let t: TestApp;
  const lines: { level: number; msg: string }[] = [];

  beforeAll(async () => {
    hung = await hungRedis();
    const logger = pino(
      { level: "info" },
      new Writable({ write: (chunk, _e, cb) => (lines.push(JSON.parse(String(chunk))), cb()) }),
    );
    t = await createTestApp({
      env: {
        REDIS_URL: `redis://127.0.0.1:${hung.port}`,
        MDG_REDIS_TIMEOUT_MS: String(TIMEOUT_MS),
        MDG_REDIS_COOLDOWN_MS: "60000",
      },
      logger,
    });
    await (t.rateLimiter.store as unknown as { ready(ms: number): Promise<void> }).ready(5_000);
  });
  afterAll(async () => {
    await t.close();
    for (const s of hung.sockets) s.destroy();
    await new Promise((resolve) => hung.server.close(resolve));
  });

  it("calls the hung Redis once for 200 requests in one cooling period, and answers every one", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) {
      statuses.push((await t.post("/v1/crypto/price", { symbol: "BTC-USD" }, BOOTSTRAP_KEY)).status);
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    // Without the cooling period every request would send a command and wait out its timeout.
    expect(hung.commands()).toBeLessThanOrEqual(2);
    // The first call met the timeout (the hang was seen, not missed), and it was logged once, not per request.
    expect(t.rateLimiter.redisUp).toBe(false);
    expect(hung.commands()).toBeGreaterThanOrEqual(1);
    const metrics = await t.http.get("/metrics");
    expect(metrics.text).toMatch(/^mdg_rate_limit_redis_up 0$/m);
    expect(lines.filter((l) => l.level === 40 && /fail open/.test(l.msg))).toHaveLength(1);
  });

  it("still enforces the limits, in memory, while cooling", async () => {
    const { key } = await t.apiKeys.create({ name: "hung-rate-2", scopes: ["*"], ratePerMinute: 2, dailyQuota: 100 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await t.post("/v1/crypto/price", { symbol: "BTC-USD" }, key)).status);
    expect(statuses).toEqual([200, 200, 403]);
  });
});
