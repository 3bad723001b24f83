import { BOOTSTRAP_KEY, TEST_STORE_PATH } from "../../helpers/constants";
import { startEntry } from "../../helpers/entry";
import { send } from "../../helpers/http";
import { LiveClient, refusedUpgrade } from "../../helpers/live";
import { openSqliteSource } from "../../../src/sources/sqlite/sqlite.source";

/**
 * The real service (a child process on the test store, the generated sample): the WebSocket door on its one port,
 * the tick simulator on by default for the sample, and SIGTERM: new upgrades refused with the contract's 500 while
 * the listener is kept open, open sockets closed with 1001 after the drain, exit 0.
 */
const STORE = process.env.MDG_TEST_STORE_PATH ?? TEST_STORE_PATH;

function startService(env: NodeJS.ProcessEnv) {
  return startEntry({
    MDG_SQLITE_PATH: STORE,
    MDG_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
    LOG_LEVEL: "info",
    ...env,
  });
}

function firstStock(): string {
  const source = openSqliteSource(STORE, { mustExist: true, readonly: true });
  try {
    return source.db
      .prepare(
        `SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id
         WHERE s.type = 'stock' AND l.is_primary = 1 ORDER BY s.id LIMIT 1`,
      )
      .pluck()
      .get() as string;
  } finally {
    void source.close();
  }
}

describe("the WebSocket door of the running service", () => {
  it("pushes simulated quotes; after SIGTERM refuses upgrades (500), closes sockets 1001, exits 0", async () => {
    const service = await startService({ MDG_SIMULATE_TICK_MS: "50", MDG_SHUTDOWN_DELAY_MS: "1500" });
    try {
      const symbol = firstStock();
      const client = await LiveClient.open(`ws://127.0.0.1:${service.port}/v1`, BOOTSTRAP_KEY);
      const ok = await client.request({ action: "subscribe", channel: "quote", symbol });
      expect(ok.status).toBe(200);
      const stored = (ok.data as { quote: { c: number } }).quote.c;
      const pushes = () => client.received.filter((m) => m.channel === "quote");
      await client.waitFor(() => pushes().length >= 3);
      for (const p of pushes()) expect(p).toMatchObject({ channel: "quote", symbol, simulated: true });
      // A random walk from the stored price: it moves, by little.
      const prices = pushes().map((p) => (p.data as { c: number }).c);
      expect(new Set(prices).size).toBeGreaterThan(1);
      for (const c of prices) expect(Math.abs(c / stored - 1)).toBeLessThan(0.05);

      service.child.kill("SIGTERM");
      // /readyz turns 503 in the same turn as the door starts refusing (main.ts): wait for the one, then try the other.
      const deadline = Date.now() + 10_000;
      while ((await send(service.port, { method: "GET", path: "/readyz" })).status !== 503) {
        if (Date.now() > deadline) throw new Error(`never draining: ${service.lines.join("\n").slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const refused = await refusedUpgrade(`ws://127.0.0.1:${service.port}/v1`, { "x-api-key": BOOTSTRAP_KEY });
      expect(refused.status).toBe(500);
      expect(refused.body).toMatchObject({ statusCode: 500, code: "INTERNAL", message: /shutting down/ });
      expect(await client.closed).toEqual({ code: 1001, reason: "the service is shutting down; connect again" });
      expect(await service.exited).toBe(0);
    } finally {
      if (service.child.exitCode === null) service.child.kill("SIGKILL");
    }
  }, 90_000);
});
