import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_STORE_PATH } from "../helpers/constants";
import { startFaultProxy, type FaultProxy } from "../helpers/fault-proxy";
import { GATEWAY_KEY, startGateway, type TestGateway } from "../helpers/gateway";
import { LiveClient, serveLive } from "../helpers/live";
import { startUpstream, type TestUpstream } from "../helpers/upstream";

/**
 * Gateway mode's live quotes: a gateway in front of a second instance of this service (over a copy of the test store
 * that the test changes), polling it every MDG_UPSTREAM_POLL_MS through its bulk endpoint while someone subscribes.
 */
describe("live quotes in gateway mode", () => {
  let dir: string;
  let store: string;
  let upstream: TestUpstream;
  let proxy: FaultProxy;
  let gateway: TestGateway;
  let served: Awaited<ReturnType<typeof serveLive>>;
  let symbols: string[];

  const upstreamCalls = () => proxy.calls().filter((c) => /^\/v[01]\/(bulk|quote)$/.test(c.path)).length;
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mdg-gateway-live-"));
    store = join(dir, "store.db");
    const src = new Database(TEST_STORE_PATH, { readonly: true });
    src.exec(`VACUUM INTO '${store.replace(/'/g, "''")}'`);
    src.close();
    upstream = await startUpstream({ storePath: store });
    proxy = await startFaultProxy(upstream.url);
    // Quotes are not kept by the gateway's cache here, so each poll reads what the upstream holds now.
    gateway = await startGateway(upstream, proxy, { MDG_UPSTREAM_POLL_MS: "50", MDG_UPSTREAM_TTL_QUOTE_S: "0" });
    served = await serveLive(gateway);
    symbols = upstream.app.source.db
      .prepare(
        `SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id
         WHERE s.type = 'stock' AND l.is_primary = 1 ORDER BY s.id LIMIT 2`,
      )
      .pluck()
      .all() as string[];
  });
  afterAll(async () => {
    // The gateway closes its sockets first: the server's close waits for them.
    await gateway?.close();
    await served?.close();
    await proxy?.close();
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("polls nothing while nobody subscribes", async () => {
    proxy.resetCounts();
    await wait(300);
    expect(upstreamCalls()).toBe(0);
  });

  it("pushes a change the upstream made, batched through its bulk, and stops polling once unsubscribed", async () => {
    const [changed, untouched] = symbols as [string, string];
    const client = await LiveClient.open(served.url("/v1"), GATEWAY_KEY);
    for (const symbol of [changed, untouched]) {
      expect(await client.request({ action: "subscribe", channel: "quote", symbol })).toMatchObject({ status: 200 });
    }
    // Both symbols read in one bulk call of the poll (their baseline), before the upstream changes.
    const deadline = Date.now() + 10_000;
    const bulkOfBoth = () =>
      proxy.calls().some((c) => c.path === "/v1/bulk" && c.body.includes(changed) && c.body.includes(untouched));
    while (!bulkOfBoth() && Date.now() < deadline) await wait(20);
    expect(bulkOfBoth()).toBe(true);

    const stored = upstream.app.source.db
      .prepare(`SELECT q.c, q.t FROM quotes q JOIN listings l ON l.id = q.listing_id WHERE l.symbol = ?`)
      .get(changed) as { c: number; t: number };
    const c = Math.round((stored.c + 1.5) * 100) / 100;
    const db = new Database(store);
    db.prepare(`UPDATE quotes SET c = ?, t = ? WHERE listing_id = (SELECT id FROM listings WHERE symbol = ?)`).run(
      c,
      stored.t + 60,
      changed,
    );
    db.close();

    const push = await client.waitFor((m) => m.channel === "quote");
    expect(push).toMatchObject({ channel: "quote", symbol: changed, data: { symbol: changed, c, t: stored.t + 60 } });
    expect(push.simulated).toBeUndefined();
    // What the gateway answers by REST now is what was pushed.
    expect(push.data).toEqual((await gateway.post("/v1/quote", { symbol: changed })).body);
    await wait(200);
    expect(client.received.filter((m) => m.channel === "quote")).toHaveLength(1);

    client.close();
    await client.closed;
    while (gateway.live.hub.size > 0) await wait(20);
    // A poll already out may still land; after it, nothing more.
    await wait(200);
    proxy.resetCounts();
    await wait(300);
    expect(upstreamCalls()).toBe(0);
  });
});
