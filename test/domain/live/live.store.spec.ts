import Database from "better-sqlite3";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../../src/application/cli/import.cli";
import { SqliteImportSink } from "../../../src/sources/sqlite/sqlite.import";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY, TEST_STORE_PATH } from "../../helpers/constants";
import { LiveClient, serveLive } from "../../helpers/live";
import { LiveHub } from "../../../src/domain/live/live.hub";
import { StoreQuoteWatch } from "../../../src/domain/live/live.store";

/**
 * An import run as another process would (the import CLI on a connection of its own) into the store a service reads:
 * the quote it changes is pushed to that symbol's subscribers, and to nobody else.
 */
describe("live quotes of a store that an import writes", () => {
  let dir: string;
  let store: string;
  let t: TestApp;
  let served: Awaited<ReturnType<typeof serveLive>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mdg-live-"));
    store = join(dir, "store.db");
    const src = new Database(TEST_STORE_PATH, { readonly: true });
    src.exec(`VACUUM INTO '${store.replace(/'/g, "''")}'`);
    src.close();
    t = await createTestApp({ storePath: store, env: { MDG_LIVE_STORE_POLL_MS: "20" } });
    served = await serveLive(t);
  });
  afterAll(async () => {
    await t.close();
    await served.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function importQuotes(csv: string): Promise<number> {
    const path = join(dir, `quotes-${Math.random().toString(36).slice(2)}.csv`);
    writeFileSync(path, csv);
    return main(["quotes", path], {
      openSink: async () => {
        const db = new Database(store);
        db.pragma("busy_timeout = 5000");
        const sink = new SqliteImportSink(db);
        return { sink, close: () => sink.close() };
      },
      out: { log: () => undefined, error: () => undefined },
      tty: false,
    });
  }

  it("pushes the quote an import changed to its subscribers once, nothing for a symbol it left alone", async () => {
    const [changed, untouched] = t.source.db
      .prepare(
        `SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id
         WHERE s.type = 'stock' AND l.is_primary = 1 ORDER BY s.id LIMIT 2`,
      )
      .pluck()
      .all() as string[];
    const stored = t.source.db
      .prepare(
        `SELECT q.t, q.c, q.o, q.h, q.l, q.pc, q.v
         FROM quotes q JOIN listings l ON l.id = q.listing_id WHERE l.symbol = ?`,
      )
      .get(changed) as { t: number; c: number; o: number; h: number; l: number; pc: number; v: number };
    const client = await LiveClient.open(served.url("/v1"), BOOTSTRAP_KEY);
    await client.request({ action: "subscribe", channel: "quote", symbol: changed });
    await client.request({ action: "subscribe", channel: "quote", symbol: untouched });
    // The store watch takes its baseline of each subscribed quote before the import commits.
    await new Promise((r) => setTimeout(r, 200));

    const c = Math.round((stored.c + 1.25) * 100) / 100;
    const h = Math.max(stored.h, c);
    const row = [changed, stored.t + 60, c, stored.o, h, stored.l, stored.pc, stored.v + 100].join(",");
    expect(await importQuotes(`symbol,t,c,o,h,l,pc,v\n${row}\n`)).toBe(0);

    const push = await client.waitFor((m) => m.channel === "quote");
    expect(push).toMatchObject({
      channel: "quote",
      symbol: changed,
      data: { symbol: changed, c, h, t: stored.t + 60 },
    });
    expect(push.simulated).toBeUndefined();
    // What REST answers now is what was pushed.
    expect(push.data).toEqual((await t.post("/v1/quote", { symbol: changed })).body);
    await new Promise((r) => setTimeout(r, 200));
    expect(client.received.filter((m) => m.channel === "quote")).toHaveLength(1);
    client.close();
  });
});

describe("a store that closes under the watch", () => {
  it("reports the failed read and throws nothing out of its timer", async () => {
    const errors: unknown[] = [];
    let open = true;
    const hub = new LiveHub();
    const watch = new StoreQuoteWatch(hub, {
      pollMs: 1_000,
      dataVersion: () => {
        if (!open) throw new TypeError("The database connection is not open");
        return 1;
      },
      readQuotes: async () => [],
      onError: (err) => errors.push(err),
    });
    hub.subscribe("quote", "A", null, () => undefined);
    open = false;
    await expect(watch.poll()).resolves.toBeUndefined();
    expect(errors.map(String)).toEqual(["TypeError: The database connection is not open"]);
  });
});
