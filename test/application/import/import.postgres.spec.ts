// @requires-env DATABASE_URL postgres://postgres@127.0.0.1:5432/test
import { main, openConfiguredSink } from "../../../src/application/cli/import.cli";
import { openSources, type Sources } from "../../../src/app.sources";
import { loadConfig } from "../../../src/platform/config";
import type { PostgresChangeFeed } from "../../../src/sources/postgres/postgres.changes";
import { createTestApp, type TestApp } from "../../helpers/app";
import { createTestDatabase, type TestDatabase } from "../../helpers/postgres";
import { importConformance } from "./import.conformance";
import { join } from "node:path";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";

/**
 * The import into PostgreSQL: the ImportSink conformance cases (the same files, counts and answers as on SQLite),
 * through the CLI's own way of opening the store (DATABASE_URL, the source factory); then two replicas of the
 * service on one database, the second answering what an import committed without a restart.
 */
const RUN = process.env.DATABASE_URL ? describe : describe.skip;
if (!process.env.DATABASE_URL) console.warn("SKIPPED import.postgres.spec.ts: DATABASE_URL is unset");

const EXAMPLES = join(__dirname, "..", "..", "..", "examples", "data");

const configOf = (db: TestDatabase) =>
  loadConfig({ MDG_DATA_SOURCE: "postgres", DATABASE_URL: db.url, LOG_LEVEL: "silent", NODE_ENV: "test" });

RUN("ImportSink conformance: PostgreSQL", () => {
  importConformance(async () => {
    const db = await createTestDatabase("import", { load: true });
    const sources = await openSources(configOf(db), { buildSample: false });
    const app = await createTestApp({ market: () => sources.market, ownIndex: true });
    const pool = (sources.market as unknown as { pool: import("pg").Pool }).pool;
    return {
      app,
      openSink: () => openConfiguredSink(configOf(db)),
      sql: async (text) => (await pool.query(text)).rows as Record<string, unknown>[],
      // The poll the replica's timer makes, made now: the app's instrument cache follows the commit.
      settle: async () => void (await (sources.changes as PostgresChangeFeed).poll()),
      close: async () => {
        await app.close();
        await sources.close();
        await db.drop();
      },
    };
  });
});

RUN("an import seen by every replica", () => {
  let db: TestDatabase;
  let replicas: { sources: Sources; app: TestApp }[] = [];
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mdg-import-replicas-"));
    db = await createTestDatabase("import_replicas", { load: true });
    for (let i = 0; i < 2; i++) {
      const sources = await openSources(configOf(db), { buildSample: false });
      // Each follows the database's change feed with its own search index, as main.ts wires a replica.
      const app = await createTestApp({
        market: () => sources.market,
        ownIndex: true,
        followChanges: true,
        changes: sources.changes,
      });
      replicas.push({ sources, app });
    }
  }, 180_000);

  afterAll(async () => {
    for (const r of replicas) {
      await r.app.close();
      await r.sources.close();
    }
    replicas = [];
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Asks until the answer is 200; the deadline only catches a change that never arrives. */
  async function answered(
    app: TestApp,
    path: string,
    body: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const started = Date.now();
    for (;;) {
      const r = await app.post(path, body);
      if (r.status === 200 || Date.now() - started > 10_000) return r;
      await new Promise((done) => setTimeout(done, 50));
    }
  }

  it("a second replica answers a security and bars imported through the CLI, without a restart", async () => {
    const [, second] = replicas;
    const candle = { symbol: "RPLC", resolution: "D", from: "2026-11-16", to: "2026-11-17" };
    // Asked twice: the instrument cache keeps the miss from the second one on.
    for (let i = 0; i < 2; i++) {
      expect((await second!.app.post("/v1/quote", { symbol: "RPLC" })).status).toBe(404);
      expect((await second!.app.post("/v1/candle", candle)).status).toBe(404);
    }
    const found = async () =>
      ((await second!.app.post("/v1/search", { query: "Replica Inc" })).body as { results: { symbol: string }[] })
        .results;
    expect((await found()).map((r) => r.symbol)).not.toContain("RPLC");
    const securities = join(dir, "s.csv");
    writeFileSync(securities, "symbol,exchange,currency,type,name\nRPLC,XNAS,USD,stock,Replica Inc.\n");
    const bars = join(dir, "b.csv");
    writeFileSync(
      bars,
      "symbol,day,o,h,l,c,v\nRPLC,2026-11-16,10,11,9,10.5,100\nRPLC,2026-11-17,10.5,12,10,11.5,200\n",
    );
    const quotes = join(dir, "q.csv");
    writeFileSync(quotes, "symbol,t,c,o,h,l,pc,v\nRPLC,2026-11-17T21:00:00Z,11.5,10.5,12,10,10.5,200\n");
    const err: string[] = [];
    for (const [kind, path] of [
      ["securities", securities],
      ["daily-bars", bars],
      ["quotes", quotes],
    ] as const) {
      const code = await main([kind, path, "--report", join(dir, "report.csv")], {
        openSink: () => openConfiguredSink(configOf(db)),
        out: { log: (l) => err.push(l), error: (l) => err.push(l) },
        tty: false,
      });
      expect({ kind, code }).toEqual({ kind, code: 0 });
    }
    expect(err).toEqual([
      "securities: 1 inserted, 0 changed, 0 unchanged, 0 rejected",
      "daily-bars: 2 inserted, 0 changed, 0 unchanged, 0 rejected",
      "quotes: 1 inserted, 0 changed, 0 unchanged, 0 rejected",
    ]);
    const c = await answered(second!.app, "/v1/candle", candle);
    expect(c.status).toBe(200);
    expect(c.body.c).toEqual([10.5, 11.5]);
    const q = await answered(second!.app, "/v1/quote", { symbol: "RPLC" });
    expect(q.status).toBe(200);
    expect(q.body).toMatchObject({ c: 11.5, pc: 10.5, exchange: "XNAS" });
    // Search too, from the same notices, without a rebuild of the second replica's index.
    const started = Date.now();
    while (!(await found()).some((r) => r.symbol === "RPLC") && Date.now() - started < 10_000) {
      await (second!.sources.changes as PostgresChangeFeed).poll();
    }
    expect((await found())[0]).toMatchObject({ symbol: "RPLC" });
  });

  it("takes new bars that another writer stored between its check and its COPY, by upsert", async () => {
    const { sink, close } = await openConfiguredSink(configOf(db));
    try {
      const listing = await sink.findListing("RPLC");
      const t = Date.parse("2026-11-16T00:00:00Z") / 1000;
      const bars = [
        { listingId: listing!.listingId, t, o: 10, h: 11, l: 9, c: 10.5, v: 100 },
        { listingId: listing!.listingId, t: t + 86_400, o: 10.5, h: 12, l: 10, c: 12, v: 200 },
      ];
      // The check answers "none stored" although both days are: as if another writer committed them meanwhile.
      (sink as unknown as { noBarsIn(): Promise<boolean> }).noBarsIn = async () => true;
      expect(await sink.upsertDailyBars(bars)).toEqual({ inserted: 0, changed: 1, unchanged: 1 });
    } finally {
      await close();
    }
  });

  it("gives an empty database its schema and imports into it", async () => {
    const empty = await createTestDatabase("import_empty");
    try {
      const err: string[] = [];
      const code = await main(["exchanges", join(EXAMPLES, "exchanges.csv"), "--report", join(dir, "r2.csv")], {
        openSink: () => openConfiguredSink(configOf(empty)),
        out: { log: (l) => err.push(l), error: (l) => err.push(l) },
        tty: false,
      });
      expect({ code, err }).toEqual({ code: 0, err: ["exchanges: 3 inserted, 0 changed, 0 unchanged, 0 rejected"] });
    } finally {
      await empty.drop();
    }
  });
});
