import Database from "better-sqlite3";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSources } from "../../../src/app.sources";
import { fixedClock } from "../../../src/platform/clock";
import { loadConfig } from "../../../src/platform/config";
import { createTestApp } from "../../helpers/app";
import { type ProviderServer, serve, startProviderServer, zipOf, ingestCli, storeRows } from "../../helpers/providers";

const FIXTURES = join(__dirname, "..", "..", "fixtures", "providers", "ecb");
const HIST = "/stats/eurofxref/eurofxref-hist.zip";
const DAILY = "/stats/eurofxref/eurofxref-daily.xml";
const HIST_CSV = readFileSync(join(FIXTURES, "eurofxref-hist.csv"));
const DAILY_XML = readFileSync(join(FIXTURES, "eurofxref-daily.xml"));

let dir: string;
let server: ProviderServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mdg-ingest-"));
  server = await startProviderServer();
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  server.hits.clear();
  server.route(HIST, serve(zipOf("eurofxref-hist.csv", HIST_CSV), "application/zip"));
  server.route(DAILY, serve(DAILY_XML, "text/xml"));
});

let stores = 0;
/** A store path in a folder that does not exist yet. */
function newStore(): string {
  return join(dir, `run-${++stores}`, "market.db");
}

/** Runs the CLI as `npm run ingest -- …` would, against the local ECB and the store at `store`. */
async function ingest(store: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const config = loadConfig({
    MDG_SQLITE_PATH: store,
    MDG_PROVIDER_ECB_URL: server.url,
    MDG_PROVIDER_RETRIES: "1",
    LOG_LEVEL: "silent",
    ...env,
  });
  return ingestCli(config, args, join(dir, `report-${stores}.csv`));
}

const query = storeRows;

/** What a user could see of the store: every row of the tables an ingest writes, in a stable order. */
function snapshot(store: string): string {
  const tables = [
    "SELECT code, name FROM exchanges ORDER BY code",
    "SELECT symbol, exchange, currency FROM listings ORDER BY symbol",
    "SELECT currency, day, per_usd FROM fx_daily ORDER BY currency, day",
    "SELECT listing_id, t, c FROM daily_bars ORDER BY listing_id, t",
    "SELECT listing_id, t, c, pc FROM quotes ORDER BY listing_id",
    "SELECT key, value FROM meta ORDER BY key",
  ];
  return JSON.stringify(tables.map((sql) => query(store, sql)));
}

/** The number the counts line gives: `ecb hist fx: 310 inserted, …`. */
function counts(text: string, kind: string): { inserted: number; changed: number; unchanged: number } | undefined {
  const m = new RegExp(`ecb \\w+ ${kind}: (\\d+) inserted, (\\d+) changed, (\\d+) unchanged`).exec(text);
  return m ? { inserted: Number(m[1]), changed: Number(m[2]), unchanged: Number(m[3]) } : undefined;
}

describe("npm run ingest -- ecb", () => {
  it("from an empty folder, creates an empty store with the history, and the service serves its numbers", async () => {
    const store = newStore();
    const run = await ingest(store, ["ecb"]);
    expect(run.code).toBe(0);
    expect(run.text).toContain("ecb hist: 1 call");
    expect(server.hits.get(HIST)).toBe(1);
    expect(server.hits.get(DAILY)).toBeUndefined();
    // The recorded file: 10 days, 31 currencies with a rate in 2022 (HRK among them, CYP and the like N/A).
    expect(counts(run.text, "fx")).toEqual({ inserted: 310, changed: 0, unchanged: 0 });
    // 30 euro pairs (the 31 but HRK, no longer ISO 4217) and 29 dollar pairs; 10 days each.
    expect(counts(run.text, "securities")?.inserted).toBe(59);
    expect(counts(run.text, "daily-bars")?.inserted).toBe(590);
    // Nothing of the sample: the pairs are the only securities, and no generator's meta row.
    expect(query(store, `SELECT count(*) AS n FROM securities WHERE type <> 'forex'`)).toEqual([{ n: 0 }]);
    expect(query(store, `SELECT key FROM meta`)).toEqual([{ key: "ingest:ecb" }]);

    // As `npm start` opens it: the store exists, so no sample is built over it.
    const config = loadConfig({ MDG_SQLITE_PATH: store, LOG_LEVEL: "silent", MDG_SAMPLE_SCALE: "0.001" });
    const before = snapshot(store);
    const sources = await openSources(config, { log: () => undefined });
    expect(sources.sampleBuilt).toBeUndefined();
    await sources.close();
    expect(snapshot(store)).toBe(before);

    // An FX answer takes the latest rate of recent days: the service runs on the evening of the file's last day.
    const t = await createTestApp({ storePath: store, ownIndex: true, clock: fixedClock("2022-07-07T18:00:00Z") });
    try {
      // 2022-07-05 in eurofxref-hist.csv: USD 1.029, JPY 139.77.
      const candle = await t.post("/v1/candle", {
        symbol: "EURUSD",
        resolution: "D",
        from: "2022-07-05",
        to: "2022-07-05",
      });
      expect(candle.status).toBe(200);
      expect(candle.body.c).toEqual([1.029]);
      expect(candle.body.o).toEqual([1.029]);
      const usdJpy = await t.post("/v1/candle", {
        symbol: "USDJPY",
        resolution: "D",
        from: "2022-07-05",
        to: "2022-07-05",
      });
      expect(usdJpy.body.c).toEqual([139.77 / 1.029]);
      // The last day, 2022-07-07: USD 1.018, and 1.0177 the day before.
      const quote = await t.post("/v1/quote", { symbol: "EURUSD" });
      expect(quote.status).toBe(200);
      expect(quote.body).toMatchObject({ c: 1.018, pc: 1.0177 });
      const fx = await t.post("/v1/fx/quote", { from: "EUR", to: "USD" });
      expect(fx.status).toBe(200);
      expect(fx.body.info).toEqual({ timestamp: "2022-07-07 00:00:00", rate: 1.018 });
      // GBP per JPY, crossed through the dollar from the same day's two rates: 0.85105 / 138.11.
      const cross = await t.post("/v1/fx/quote", { from: "JPY", to: "GBP" });
      expect(cross.body.info.rate).toBeCloseTo(0.85105 / 138.11, 12);
    } finally {
      await t.close();
    }
  });

  it("adds 0 rows when the history is fetched again, and only the new day from the daily file", async () => {
    const store = newStore();
    expect((await ingest(store, ["ecb"])).code).toBe(0);

    const again = await ingest(store, ["ecb", "hist"]);
    expect(again.code).toBe(0);
    for (const kind of ["fx", "daily-bars"]) {
      expect(counts(again.text, kind)).toMatchObject({ inserted: 0, changed: 0 });
    }
    expect(counts(again.text, "quotes")).toEqual({ inserted: 0, changed: 0, unchanged: 59 });

    // Without a dataset, a store holding the history gets the daily file only: 2022-07-08, one day.
    server.hits.clear();
    const daily = await ingest(store, ["ecb"]);
    expect(daily.code).toBe(0);
    expect(server.hits.get(DAILY)).toBe(1);
    expect(server.hits.get(HIST)).toBeUndefined();
    expect(counts(daily.text, "fx")).toEqual({ inserted: 31, changed: 0, unchanged: 0 });
    expect(counts(daily.text, "daily-bars")).toEqual({ inserted: 59, changed: 0, unchanged: 0 });
    expect(query(store, `SELECT max(day) AS day FROM fx_daily`)).toEqual([{ day: "2022-07-08" }]);
    const t = await createTestApp({ storePath: store, ownIndex: true, clock: fixedClock("2022-07-08T18:00:00Z") });
    try {
      // eurofxref-daily.xml of 2022-07-08: USD 1.0163; the previous close is the history's last, 1.018.
      expect((await t.post("/v1/quote", { symbol: "EURUSD" })).body).toMatchObject({ c: 1.0163, pc: 1.018 });
      const fx = await t.post("/v1/fx/quote", { from: "EUR", to: "USD" });
      expect(fx.body.info).toEqual({ timestamp: "2022-07-08 00:00:00", rate: 1.0163 });
    } finally {
      await t.close();
    }

    // The daily file named again: the same day is rewritten as it was, its previous close kept.
    const named = await ingest(store, ["ecb", "daily"]);
    expect(named.code).toBe(0);
    expect(counts(named.text, "quotes")).toEqual({ inserted: 0, changed: 0, unchanged: 59 });
    expect(counts(named.text, "daily-bars")).toEqual({ inserted: 0, changed: 0, unchanged: 59 });

    // Once more: the daily file holds nothing after the last stored day.
    const before = snapshot(store);
    const nothing = await ingest(store, ["ecb"]);
    expect(nothing.code).toBe(0);
    expect(nothing.text).toContain("ecb daily: nothing new");
    expect(snapshot(store)).toBe(before);
  });

  it("fetches the history too when the store's last fixing is days behind the daily file's, writing both", async () => {
    const store = newStore();
    // A history recorded up to 2022-06-30: its last line is the one of 2022-06-30.
    const upTo = (day: string) => {
      const [header, ...lines] = HIST_CSV.toString("utf8").trimEnd().split("\n");
      return Buffer.from([header, ...lines.filter((l) => l.slice(0, 10) <= day)].join("\n") + "\n");
    };
    server.route(HIST, serve(zipOf("eurofxref-hist.csv", upTo("2022-06-30")), "application/zip"));
    expect((await ingest(store, ["ecb"])).code).toBe(0);
    server.route(HIST, serve(zipOf("eurofxref-hist.csv", HIST_CSV), "application/zip"));
    server.hits.clear();
    const run = await ingest(store, ["ecb"]);
    expect(run.code).toBe(0);
    expect(run.text).toContain("the store's last fixing is 2022-06-30 and the daily file's 2022-07-08");
    expect([server.hits.get(DAILY), server.hits.get(HIST)]).toEqual([1, 1]);
    // 2022-07-01 to 2022-07-07 from the history, 2022-07-08 from the daily file.
    expect(counts(run.text, "fx")).toEqual({ inserted: 31 * 6, changed: 0, unchanged: 0 });
    expect(query(store, `SELECT max(day) AS day FROM fx_daily WHERE currency = 'EUR'`)).toEqual([
      { day: "2022-07-08" },
    ]);
  });

  it("waits out a 429's Retry-After and then ingests", async () => {
    const zip = zipOf("eurofxref-hist.csv", HIST_CSV);
    server.route(HIST, (res, hit) => {
      if (hit === 0) {
        res.writeHead(429, { "retry-after": "1" });
        res.end("slow down");
        return;
      }
      serve(zip, "application/zip")(res, hit, undefined as never);
    });
    const store = newStore();
    const run = await ingest(store, ["ecb"], { MDG_PROVIDER_RETRIES: "1" });
    expect(run.code).toBe(0);
    expect(server.hits.get(HIST)).toBe(2);
    expect(counts(run.text, "fx")?.inserted).toBe(310);
  });

  it("fails on a 500 with a clear error, retrying first, and leaves the store as it was", async () => {
    const store = newStore();
    expect((await ingest(store, ["ecb"])).code).toBe(0);
    const before = snapshot(store);
    server.route(HIST, (res) => {
      res.writeHead(500, { "content-type": "text/html" });
      res.end("<html>error</html>");
    });
    server.hits.clear();
    const run = await ingest(store, ["ecb", "hist"], { MDG_PROVIDER_RETRIES: "2" });
    expect(run.code).toBe(1);
    expect(run.text).toContain(`ingest: failed: ecb: GET ${HIST}: answered 500 after 3 attempts`);
    expect(server.hits.get(HIST)).toBe(3);
    expect(snapshot(store)).toBe(before);

    // A store that did not exist is not even created.
    const fresh = newStore();
    expect((await ingest(fresh, ["ecb"], { MDG_PROVIDER_RETRIES: "0" })).code).toBe(1);
    expect(existsSync(fresh)).toBe(false);
  });

  it("fails on a malformed body with a clear error, and leaves the store as it was", async () => {
    const store = newStore();
    expect((await ingest(store, ["ecb"])).code).toBe(0);
    const before = snapshot(store);

    server.route(HIST, serve("<html>We are updating our website</html>", "text/html"));
    const notZip = await ingest(store, ["ecb", "hist"]);
    expect(notZip.code).toBe(1);
    expect(notZip.text).toContain(`ecb: ${HIST}: not a ZIP archive`);

    const damaged = zipOf("eurofxref-hist.csv", HIST_CSV);
    damaged[30 + "eurofxref-hist.csv".length + 100] ^= 0xff;
    server.route(HIST, serve(damaged, "application/zip"));
    expect((await ingest(store, ["ecb", "hist"])).text).toMatch(/eurofxref-hist\.zip: .*damaged|cannot be inflated/);

    server.route(HIST, serve(zipOf("eurofxref-hist.csv", Buffer.from("<html>nope</html>")), "application/zip"));
    expect((await ingest(store, ["ecb", "hist"])).text).toContain("expected the ECB's rates CSV (a header Date,USD,…)");

    server.route(DAILY, serve("<?xml version='1.0'?><error>maintenance</error>", "text/xml"));
    const xml = await ingest(store, ["ecb", "daily"]);
    expect(xml.code).toBe(1);
    expect(xml.text).toContain(`ecb: ${DAILY}: no <Cube time='…'> with rates`);
    expect(snapshot(store)).toBe(before);
  });

  it("creates only the pairs the store lacks, and leaves its own listings and exchange as they are", async () => {
    const store = newStore();
    expect((await ingest(store, ["ecb", "daily", "--symbols", "EURUSD"])).code).toBe(0);
    const db = new Database(store);
    db.prepare(`UPDATE exchanges SET name = 'FX (mine)' WHERE code = 'FOREX'`).run();
    db.prepare(`UPDATE securities SET name = 'Fiber' WHERE id = 1`).run();
    db.close();
    const run = await ingest(store, ["ecb", "hist", "--symbols", "EURUSD,USDJPY", "--since", "2022-07-01"]);
    expect(run.code).toBe(0);
    expect(counts(run.text, "securities")?.inserted).toBe(1);
    expect(query(store, `SELECT name FROM exchanges`)).toEqual([{ name: "FX (mine)" }]);
    expect(query(store, `SELECT s.name, l.symbol FROM securities s JOIN listings l ON l.security_id = s.id`)).toEqual([
      { name: "Fiber", symbol: "EURUSD" },
      { name: "US Dollar / Yen", symbol: "USDJPY" },
    ]);
    // --since 2022-07-01: five days of the history, and the daily file's day before.
    expect(query(store, `SELECT count(*) AS n FROM daily_bars`)).toEqual([{ n: 5 + 1 + 5 }]);
  });

  it("refuses an unknown provider, dataset or option before calling anyone", async () => {
    const store = newStore();
    for (const args of [["nope"], ["ecb", "monthly"], ["ecb", "--since", "2022-02-30"], ["ecb", "--symbols", ","]]) {
      const run = await ingest(store, args);
      expect(run.code).toBe(1);
      expect(run.text).toMatch(/^ingest: /);
    }
    expect(server.hits.size).toBe(0);
    expect(existsSync(store)).toBe(false);
  });
});

describe("ingesting into a copy of the generated sample store", () => {
  it("writes real rates over the sample's on their days and keeps its other rows", async () => {
    const { TEST_STORE_PATH } = await import("../../helpers/constants");
    const store = join(dir, "sample-copy.db");
    copyFileSync(TEST_STORE_PATH, store);
    const listings = query<{ n: number }>(store, `SELECT count(*) AS n FROM listings`)[0]!.n;
    const run = await ingest(store, ["ecb", "hist", "--symbols", "EURUSD"]);
    expect(run.code).toBe(0);
    // The sample lists EURUSD already: no listing is added.
    expect(query(store, `SELECT count(*) AS n FROM listings`)).toEqual([{ n: listings }]);
    expect(
      query(
        store,
        `SELECT b.c FROM daily_bars b JOIN listings l ON l.id = b.listing_id
         WHERE l.symbol = 'EURUSD' AND b.t = unixepoch('2022-07-05')`,
      ),
    ).toEqual([{ c: 1.029 }]);
  });
});
