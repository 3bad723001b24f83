import { Agent } from "node:http";
import { connect, type Socket } from "node:net";
import { BOOTSTRAP_KEY, TEST_STORE_PATH } from "../../helpers/constants";
import pino from "pino";
import { createHttpServer } from "../../../src/http/server/server.http";
import { trackConnections } from "../../../src/http/server/server.shutdown";
import { createTestApp } from "../../helpers/app";
import { listen, send } from "../../helpers/http";
import { startEntry, type StartedEntry } from "../../helpers/entry";

/**
 * SIGTERM on the real service (a child process on a free port, on the test
 * store): it stops accepting, answers every request already under way, also
 * one whose body is still arriving, closes the store and exits 0.
 */
const STORE = process.env.MDG_TEST_STORE_PATH ?? TEST_STORE_PATH;

type Service = StartedEntry;

function startService(): Promise<Service> {
  return startEntry({
    MDG_SQLITE_PATH: STORE,
    MDG_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
    MDG_SHUTDOWN_TIMEOUT_MS: "15000",
    LOG_LEVEL: "info",
  });
}

/**
 * A POST in flight: headers sent with `Expect: 100-continue`, resolved once the
 * server has answered `100 Continue` (it has taken the request), then half the
 * body. `finish()` sends the rest and resolves with the raw answer.
 */
function halfSent(port: number, symbol: string): Promise<{ finish(): Promise<string> }> {
  const body = JSON.stringify({ symbol });
  const half = Math.floor(body.length / 2);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, "127.0.0.1", () => {
      socket.write(
        `POST /v1/crypto/price HTTP/1.1\r\nHost: x\r\nx-api-key: ${BOOTSTRAP_KEY}\r\n` +
          `content-type: application/json\r\ncontent-length: ${body.length}\r\nexpect: 100-continue\r\n\r\n`,
      );
    });
    let received = "";
    let continued = false;
    const closed = new Promise<string>((r, fail) => {
      const timer = setTimeout(() => fail(new Error(`no answer within 20 s; got ${JSON.stringify(received)}`)), 20_000);
      socket.once("close", () => {
        clearTimeout(timer);
        r(received);
      });
    });
    socket.on("data", (c: Buffer) => {
      received += c.toString("utf8");
      if (!continued && received.startsWith("HTTP/1.1 100 Continue\r\n\r\n")) {
        continued = true;
        received = received.slice("HTTP/1.1 100 Continue\r\n\r\n".length);
        socket.write(body.slice(0, half));
        resolve({
          finish: () => {
            socket.write(body.slice(half));
            return closed;
          },
        });
      }
    });
    socket.once("error", reject);
  });
}

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      resolve(false);
    });
    s.once("error", (e: NodeJS.ErrnoException) => resolve(e.code === "ECONNREFUSED"));
  });
}

describe("SIGTERM", () => {
  let service: Service | undefined;
  afterAll(() => {
    if (service && service.child.exitCode === null) service.child.kill("SIGKILL");
  });

  it("answers every in-flight request, refuses new connections, closes the store and exits 0", async () => {
    service = await startService();
    const { port, child, lines, exited } = service;
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const ok = (path: string, body: unknown) =>
      send(port, {
        method: "POST",
        path,
        agent,
        headers: { "x-api-key": BOOTSTRAP_KEY, "content-type": "application/json" },
        body: Buffer.from(JSON.stringify(body)),
      });

    // Warm, keep-alive connections, as a load balancer holds them.
    for (let i = 0; i < 8; i++) expect((await ok("/v1/crypto/price", { symbol: "BTC-USD" })).status).toBe(200);

    // Load: four loops of requests on those connections, and twelve requests whose bodies are still arriving.
    let stopLoad = false;
    const answered: number[] = [];
    const failedBeforeAnswer: string[] = [];
    const loops = Array.from({ length: 4 }, async () => {
      while (!stopLoad) {
        try {
          answered.push((await ok("/v1/list/stocks", { limit: 200 })).status);
        } catch (e) {
          // After SIGTERM a new connection is refused; an answer never breaks off half-way.
          failedBeforeAnswer.push((e as NodeJS.ErrnoException).code ?? String(e));
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    });
    const slow = await Promise.all(Array.from({ length: 12 }, () => halfSent(port, "BTC-USD")));
    await new Promise((r) => setTimeout(r, 200));
    const beforeSignal = answered.length;
    expect(beforeSignal).toBeGreaterThan(0);

    child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));
    expect(await connectionRefused(port)).toBe(true);
    expect(child.exitCode).toBeNull(); // still draining: twelve bodies are unfinished

    const answers = await Promise.all(slow.map((s) => s.finish()));
    for (const raw of answers) {
      expect(raw).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(raw.toLowerCase()).toContain("connection: close");
      expect(raw).toContain('"symbol":"BTC-USD"');
    }
    stopLoad = true;
    await Promise.all(loops);
    agent.destroy();

    expect(await exited).toBe(0);
    expect(answered.every((s) => s === 200)).toBe(true);
    expect(failedBeforeAnswer.every((code) => code === "ECONNREFUSED" || code === "ECONNRESET")).toBe(true);
    const log = lines.join("\n");
    expect(log).toContain("shutting down");
    expect(log).toContain("stopped: every in-flight request answered, store closed");
  }, 90_000);
});

describe("the shutdown deadline (MDG_SHUTDOWN_TIMEOUT_MS)", () => {
  it("cuts a request that does not finish in time, and says so", async () => {
    const t = await createTestApp();
    const server = createHttpServer(t.app, pino({ level: "silent" }));
    const connections = trackConnections(server);
    const { port } = await listen(server);
    try {
      // A body that never completes: the request stays in flight.
      const socket = connect(port, "127.0.0.1", () =>
        socket.write(
          `POST /v1/crypto/price HTTP/1.1\r\nHost: x\r\nx-api-key: ${BOOTSTRAP_KEY}\r\n` +
            "content-length: 100\r\nexpect: 100-continue\r\n\r\n",
        ),
      );
      const closed = new Promise<void>((r) => socket.once("close", () => r()));
      socket.on("error", () => undefined);
      await new Promise<void>((r) => socket.once("data", () => r()));
      expect(connections.inFlight).toBe(1);
      const result = await connections.drain(300);
      expect(result).toMatchObject({ drained: false, abandoned: 1 });
      await closed;
    } finally {
      await t.close();
    }
  });
});
