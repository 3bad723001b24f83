import Database from "better-sqlite3";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { main, openConfiguredSink } from "../../../src/application/cli/import.cli";
import { exitCode, runImport, summaryLines } from "../../../src/application/import/import.run";
import { loadConfig } from "../../../src/platform/config";
import type { LiveSearchIndex } from "../../../src/domain/search/search.live";
import { SqliteImportSink } from "../../../src/sources/sqlite/sqlite.import";
import { openSqliteSource } from "../../../src/sources/sqlite/sqlite.source";
import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_STORE_PATH } from "../../helpers/constants";

const ROOT = join(__dirname, "..", "..", "..");
const FIXTURES = join(ROOT, "test", "fixtures");
const EXAMPLES = join(ROOT, "examples", "data");

let dir: string;
let store: string;

/** Runs the CLI against `store` on a connection of its own, as another process would. */
async function run(args: string[]): Promise<{ code: number; err: string[]; report: string[] }> {
  const err: string[] = [];
  const report = join(dir, `report-${Math.random().toString(36).slice(2)}.csv`);
  const code = await main([...args, "--report", report], {
    openSink: async () => {
      const db = new Database(store);
      db.pragma("busy_timeout = 5000");
      const sink = new SqliteImportSink(db);
      return { sink, close: () => sink.close() };
    },
    out: { log: (l) => err.push(l), error: (l) => err.push(l) },
    tty: false,
  });
  let lines: string[] = [];
  try {
    lines = readFileSync(report, "utf8").trimEnd().split("\n");
  } catch {
    // No rejection, no report.
  }
  return { code, err, report: lines };
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function query<T>(sql: string, ...params: unknown[]): T[] {
  const db = new Database(store, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mdg-import-"));
  store = join(dir, "store.db");
  const src = new Database(TEST_STORE_PATH, { readonly: true });
  src.exec(`VACUUM INTO '${store.replace(/'/g, "''")}'`);
  src.close();
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("securities", () => {
  it("rejects each bad row with its reason and loads the rest, then reports 0 changed on a second run", async () => {
    const path = file(
      "securities.csv",
      [
        "symbol,exchange,currency,type,name,isin,cusip,wkn,country,sector,industry",
        "IMPA,XNAS,USD,stock,Import A Inc.,US0378331005,037833100,,US,Technology,",
        "IMPB,XNAS,USD,stock,Import B Inc.,US0378331006,,,US,,",
        "IMPC,XNAS,USD,stock,Import C Inc.,,037833101,,US,,",
        "IMPD,XNAS,USX,stock,Import D Inc.,,,,US,,",
        "IMPE,XNAS,USD,stock,Import E Inc.,,,,QQ,,",
        "IMPF,XNOPE,USD,stock,Import F Inc.,,,,US,,",
        "IMPG,XNAS,USD,bond,Import G Inc.,,,,US,,",
        "IMPH,XLON,GBp,stock,Import H plc,,,,GB,,",
        ",XNAS,USD,stock,No symbol,,,,,,",
      ].join("\n") + "\n",
    );
    const first = await run(["securities", path]);
    expect(first.code).toBe(2);
    expect(first.report[0]).toBe("file,row,column,value,reason");
    expect(first.report.slice(1)).toEqual([
      "securities.csv,3,isin,US0378331006,not an ISIN (shape or check digit)",
      "securities.csv,4,cusip,037833101,not a CUSIP (shape or check digit)",
      'securities.csv,5,currency,USX,"not an ISO 4217 currency (or GBp, GBX, ZAc)"',
      "securities.csv,6,country,QQ,not an ISO 3166 alpha-2 country",
      expect.stringMatching(/^securities\.csv,7,exchange,XNOPE,"unknown exchange; the store has .*XNAS/),
      'securities.csv,8,type,bond,"expected one of stock, etf, fund, crypto, forex"',
      "securities.csv,10,symbol,,required",
    ]);
    expect(first.err).toContain("securities: 2 inserted, 0 changed, 0 unchanged, 7 rejected");
    const rows = query<{ symbol: string; currency: string; isin: string | null; is_primary: number }>(
      `SELECT l.symbol, l.currency, s.isin, l.is_primary FROM listings l JOIN securities s ON s.id = l.security_id
       WHERE l.symbol LIKE 'IMP%' ORDER BY l.symbol`,
    );
    // GBp is a minor unit: the listing is kept in pounds.
    expect(rows).toEqual([
      { symbol: "IMPA", currency: "USD", isin: "US0378331005", is_primary: 1 },
      { symbol: "IMPH", currency: "GBP", isin: null, is_primary: 1 },
    ]);

    const second = await run(["securities", path]);
    expect(second.err).toContain("securities: 0 inserted, 0 changed, 2 unchanged, 7 rejected");

    const renamed = file(
      "renamed.csv",
      "symbol,exchange,currency,type,name\nIMPA,XNAS,USD,stock,Import A Holdings\nIMPA2,XNYS,USD,stock,Import A\n",
    );
    const third = await run(["securities", renamed]);
    expect(third.code).toBe(0);
    expect(third.err).toContain("securities: 1 inserted, 1 changed, 0 unchanged, 0 rejected");
    expect(
      query(`SELECT name FROM securities s JOIN listings l ON l.security_id = s.id WHERE l.symbol = 'IMPA'`),
    ).toEqual([{ name: "Import A Holdings" }]);
  });

  it("joins a second listing of a known ISIN to its security, and refuses an ISIN another security holds", async () => {
    const path = file(
      "listings.csv",
      [
        "symbol,exchange,currency,type,name,isin",
        "IMPJ,XNAS,USD,stock,Import J,US5949181045",
        "IMPJ.DE,XETR,EUR,stock,Import J,US5949181045",
        "IMPA,XNAS,USD,stock,Import A Holdings,US5949181045",
      ].join("\n"),
    );
    const r = await run(["securities", path]);
    expect(r.code).toBe(2);
    expect(r.report[1]).toMatch(/^listings\.csv,4,isin,US5949181045,ISIN already belongs to another security/);
    const rows = query<{ symbol: string; security_id: number; is_primary: number }>(
      `SELECT symbol, security_id, is_primary FROM listings WHERE symbol IN ('IMPJ', 'IMPJ.DE') ORDER BY symbol`,
    );
    expect(rows[0]!.security_id).toBe(rows[1]!.security_id);
    expect(rows.map((x) => x.is_primary)).toEqual([1, 0]);
  });
});

describe("daily bars", () => {
  it("checks every bar rule, reports bad rows, and is idempotent", async () => {
    await run(["securities", file("s.csv", "symbol,exchange,currency,type,name\nIMPK,XNAS,USD,stock,Import K\n")]);
    const path = file(
      "bars.csv",
      [
        "symbol,day,o,h,l,c,v",
        "IMPK,2026-11-02,10,11,9,10.5,1000",
        "IMPK,1762214400,10.5,11.5,10,11,1200",
        "IMPK,2026-11-04,10,9.5,9,9.2,1000",
        "IMPK,2026-11-05,10,11,10.2,10.5,1000",
        "IMPK,2026-11-06,1,2,-1,1.5,1000",
        "IMPK,2026-11-07,NaN,11,9,10,1000",
        "IMPK,2026-11-08,10,11,9,10,-5",
        "IMPK,2026-02-30,10,11,9,10,5",
        "IMPK,11/09/2026,10,11,9,10,5",
        "NOPE,2026-11-09,10,11,9,10,5",
        "IMPK,2026-11-10,10,11,9,,5",
      ].join("\n"),
    );
    const first = await run(["daily-bars", path]);
    expect(first.code).toBe(2);
    expect(first.report.slice(1)).toEqual([
      "bars.csv,4,h,9.5,high is below the open or the close",
      "bars.csv,5,l,10.2,low is above the open or the close",
      "bars.csv,6,l,-1,low is negative",
      "bars.csv,7,o,NaN,not a finite number",
      "bars.csv,8,v,-5,must not be negative",
      "bars.csv,9,day,2026-02-30,not a calendar day",
      "bars.csv,10,day,11/09/2026,expected an ISO date (YYYY-MM-DD) or Unix seconds",
      "bars.csv,11,symbol,NOPE,no such listing in the store (import it with securities)",
      "bars.csv,12,c,,required",
    ]);
    expect(first.err).toContain("daily-bars: 2 inserted, 0 changed, 0 unchanged, 9 rejected");
    const second = await run(["daily-bars", path]);
    expect(second.err).toContain("daily-bars: 0 inserted, 0 changed, 2 unchanged, 9 rejected");
  });

  it("stops at --max-errors with exit 1, keeping the batches before; --dry-run writes nothing", async () => {
    await run(["securities", file("s2.csv", "symbol,exchange,currency,type,name\nIMPL,XNAS,USD,stock,Import L\n")]);
    const good = Array.from({ length: 10 }, (_, i) => `IMPL,2026-10-${String(i + 10)},1,2,1,1.5,10`);
    const bad = ["IMPL,2026-10-25,1,0.5,1,1,1", "IMPL,2026-10-26,1,0.5,1,1,1", "IMPL,2026-10-27,1,2,1,1,1"];
    const path = file("maxerr.csv", ["symbol,day,o,h,l,c,v", ...good, ...bad].join("\n"));

    const dry = await run(["daily-bars", path, "--dry-run"]);
    expect(dry.code).toBe(2);
    expect(dry.err).toContain("daily-bars: 13 rows read, 11 valid, 2 rejected (dry run: nothing written)");
    const listing = `(SELECT id FROM listings WHERE symbol = 'IMPL')`;
    expect(query(`SELECT count(*) AS n FROM daily_bars WHERE listing_id = ${listing}`)).toEqual([{ n: 0 }]);

    const stopped = await run(["daily-bars", path, "--max-errors", "2"]);
    expect(stopped.code).toBe(1);
    expect(stopped.err.join("\n")).toMatch(/stopped after 2 rejected rows/);
    // The ten rows validated before the limit went in; the one after it did not.
    expect(query(`SELECT count(*) AS n FROM daily_bars WHERE listing_id = ${listing}`)).toEqual([{ n: 10 }]);
  });

  it("reads JSON Lines and gzip-compressed files", async () => {
    await run(["securities", file("s3.csv", "symbol,exchange,currency,type,name\nIMPM,XNAS,USD,stock,Import M\n")]);
    const jsonl = [
      JSON.stringify({ symbol: "IMPM", day: "2026-11-02", o: 5, h: 6, l: 4, c: 5.5, v: 100 }),
      "not json",
      JSON.stringify({ symbol: "IMPM", day: 1762214400, o: 5.5, h: 6, l: 5, c: 5.8, v: 200 }),
    ].join("\n");
    const path = join(dir, "bars.jsonl.gz");
    writeFileSync(path, gzipSync(jsonl));
    const r = await run(["daily-bars", path]);
    expect(r.report.slice(1)).toEqual(["bars.jsonl.gz,2,,,not valid JSON"]);
    expect(r.err).toContain("daily-bars: 2 inserted, 0 changed, 0 unchanged, 1 rejected");
    expect(
      query(
        `SELECT t, c FROM daily_bars WHERE listing_id = (SELECT id FROM listings WHERE symbol = 'IMPM') ORDER BY t`,
      ),
    ).toEqual([
      { t: 1762214400, c: 5.8 },
      { t: Date.parse("2026-11-02T00:00:00Z") / 1000, c: 5.5 },
    ]);
  });
});

describe("an interrupted import", () => {
  it("ends between two batches: those before stay whole, and a rerun writes the rest", async () => {
    await run(["securities", file("int-s.csv", "symbol,exchange,currency,type,name\nIMPI,XNAS,USD,stock,Int\n")]);
    const lines = ["symbol,day,o,h,l,c,v"];
    for (let d = 0; d < 25; d++)
      lines.push(`IMPI,${new Date(Date.UTC(1990, 0, 1 + d)).toISOString().slice(0, 10)},1,2,1,1,5`);
    const path = file("int.csv", lines.join("\n") + "\n");
    const db = new Database(store);
    const sink = new SqliteImportSink(db);
    const stop = new AbortController();
    const upsert = sink.upsertDailyBars.bind(sink);
    // The signal arrives while the second batch is being written.
    let batches = 0;
    sink.upsertDailyBars = async (rows) => {
      if (++batches === 2) stop.abort();
      return upsert(rows);
    };
    const opts = {
      kind: "daily-bars" as const,
      files: [path],
      dryRun: false,
      maxErrors: 10,
      reportPath: join(dir, "int-r.csv"),
    };
    const quiet = { update: () => undefined, stop: () => undefined };
    try {
      const first = await runImport({ ...opts, batchRows: 10, signal: stop.signal }, sink, quiet);
      expect(first).toMatchObject({ rows: 20, inserted: 20, interrupted: true, stopped: false });
      expect(exitCode(first)).toBe(1);
      expect(summaryLines(first, false)).toContain("interrupted; the batches before stay written, and a rerun resumes");
      const count = `SELECT count(*) AS n FROM daily_bars
                     WHERE listing_id = (SELECT id FROM listings WHERE symbol = 'IMPI')`;
      expect(query(count)).toEqual([{ n: 20 }]);
      const rerun = await runImport({ ...opts, batchRows: 10 }, sink, quiet);
      expect(rerun).toMatchObject({ inserted: 5, unchanged: 20, interrupted: false });
      expect(query(count)).toEqual([{ n: 25 }]);
    } finally {
      sink.close();
    }
  });
});

describe("price downloads", () => {
  // Loading them is in the conformance cases (import.conformance.ts), on SQLite and PostgreSQL.
  const yahoo = join(FIXTURES, "yahoo", "AAPL.csv");

  it("needs --symbol and --prices, and the fields of a new security", async () => {
    expect((await run(["daily-bars", yahoo])).err.join("\n")).toMatch(/needs --symbol/);
    expect((await run(["daily-bars", yahoo, "--symbol", "IMPY"])).err.join("\n")).toMatch(/--prices raw/);
    const missing = await run(["daily-bars", yahoo, "--symbol", "IMPY", "--prices", "adjusted"]);
    expect(missing.code).toBe(1);
    expect(missing.err.join("\n")).toMatch(/give --exchange, --currency and --name to create it/);
  });
});

describe("fx", () => {
  it("converts the ECB's real reference rates into rates per USD, keeping every currency the file has", async () => {
    const r = await run(["fx", join(FIXTURES, "ecb", "eurofxref-hist.csv")]);
    expect(r.code).toBe(0);
    const rates = new Map(
      query<{ currency: string; per_usd: number }>(
        `SELECT currency, per_usd FROM fx_daily WHERE day = '2007-12-28'`,
      ).map((x) => [x.currency, x.per_usd]),
    );
    // 2007-12-28: USD 1.4692, JPY 166.13, CYP 0.585274 per euro.
    expect(rates.get("EUR")).toBeCloseTo(1 / 1.4692, 12);
    expect(rates.get("JPY")).toBeCloseTo(166.13 / 1.4692, 10);
    expect(rates.get("CYP")).toBeCloseTo(0.585274 / 1.4692, 12);
    // N/A is no rate: BRL had none that day.
    expect(rates.has("BRL")).toBe(false);
    const again = await run(["fx", join(FIXTURES, "ecb", "eurofxref-hist.csv")]);
    expect(again.err.join("\n")).toMatch(/fx: 0 inserted, 0 changed, \d+ unchanged, 0 rejected/);
  });

  it("rejects a bad rate, currency or day of the store's own columns", async () => {
    const path = file(
      "fx.csv",
      "currency,day,per_usd\nCHF,2026-11-18,0.88\nXXQ,2026-11-18,1\nCHF,2026-11-19,Infinity\nCHF,2026-13-01,1\n",
    );
    const r = await run(["fx", path]);
    expect(r.code).toBe(2);
    expect(r.report.slice(1)).toEqual([
      "fx.csv,3,currency,XXQ,not an ISO 4217 currency",
      "fx.csv,4,per_usd,Infinity,not a positive finite rate",
      "fx.csv,5,day,2026-13-01,not a calendar day",
    ]);
  });
});

describe("quotes", () => {
  it("rejects a bad instant or price, loads the rest, and reports 0 changed on a second run", async () => {
    await run(["securities", file("s5.csv", "symbol,exchange,currency,type,name\nIMPQ,XNAS,USD,stock,Import Q\n")]);
    const path = file(
      "quotes.csv",
      [
        "symbol,t,c,o,h,l,pc,v,ma50",
        "IMPQ,2026-11-20T16:00:00-05:00,10,9,11,8,9.5,100,",
        "IMPQ,2026-11-20T16:00:00,10,9,11,8,9.5,100,",
        "IMPQ,1795208400,10,9,9.5,8,9.5,100,",
        "IMPQ,1795208400,10,9,11,8,-1,100,",
        "IMPQ,1795208400,10,9,11,8,9,100,abc",
      ].join("\n"),
    );
    const r = await run(["quotes", path]);
    expect(r.code).toBe(2);
    expect(r.report.slice(1)).toEqual([
      "quotes.csv,3,t,2026-11-20T16:00:00," +
        '"expected an ISO 8601 date-time with an offset (…Z, …+01:00) or Unix seconds"',
      "quotes.csv,4,h,9.5,high is below the open or the close",
      "quotes.csv,5,pc,-1,must not be negative",
      "quotes.csv,6,ma50,abc,not a finite number",
    ]);
    expect(r.err).toContain("quotes: 1 inserted, 0 changed, 0 unchanged, 4 rejected");
    expect(
      query(`SELECT t, c, ma50 FROM quotes WHERE listing_id = (SELECT id FROM listings WHERE symbol = 'IMPQ')`),
    ).toEqual([{ t: Date.parse("2026-11-20T21:00:00Z") / 1000, c: 10, ma50: null }]);
    expect((await run(["quotes", path])).err).toContain("quotes: 0 inserted, 0 changed, 1 unchanged, 4 rejected");
  });
});

describe("the running service", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ storePath: store });
  });
  afterAll(async () => {
    await t.close();
  });

  it("answers the example files' security, bars and rate after an import, without a restart", async () => {
    const body = { symbol: "ACME", resolution: "D", from: "2026-11-16", to: "2026-11-20" };
    expect((await t.post("/v1/candle", body)).status).toBe(404);
    for (const kind of ["securities", "daily-bars", "fx", "quotes"]) {
      const r = await run([kind, join(EXAMPLES, `${kind}.csv`)]);
      expect({ kind, code: r.code, report: r.report }).toEqual({ kind, code: 0, report: [] });
    }
    const candle = await t.post("/v1/candle", body);
    expect(candle.status).toBe(200);
    expect(candle.body.s).toBe("ok");
    expect(candle.body.c).toEqual([103.1, 102.6, 100.4, 101.5, 104.8]);
    expect(candle.body.v).toEqual([1250000, 980000, 1430000, 1110000, 1820000]);
    const quote = await t.post("/v1/quote", { symbol: "ACME" });
    expect(quote.status).toBe(200);
    expect(quote.body).toMatchObject({ c: 104.8, o: 101.5, h: 105.2, l: 101.1, pc: 101.5, v: 1820000 });
    expect(quote.body.historical_price).toMatchObject({ "50days": 98.4, "200days": 91.2 });
    const fx = await t.post("/v1/fx/quote", { from: "USD", to: "CHF" });
    expect(fx.status).toBe(200);
    expect(fx.body.result).toBeCloseTo(0.8811, 6);
  });

  it("keeps one split convention whatever the order of a raw price file and its split", async () => {
    await run([
      "securities",
      file(
        "s7.csv",
        "symbol,exchange,currency,type,name\nIMPZ,XNAS,USD,stock,Split first\nIMPZ2,XNAS,USD,stock,Split last\n",
      ),
    ]);
    const raw = file(
      "raw-split.csv",
      "Date,Open,High,Low,Close,Volume\n2026-11-02,200,210,190,204,100\n2026-11-03,204,206,198,200,120\n" +
        "2026-11-04,100,104,99,102,260\n2026-11-05,102,103,100,101,250\n",
    );
    const split = (symbol: string) =>
      file(
        `split-${symbol}.csv`,
        `symbol,day,numerator,denominator\n${symbol},2026-11-04,2,1\n${symbol},2026-11-05,0,1\n`,
      );
    // The split first, then the raw prices: the file is converted as it goes in.
    const first = await run(["splits", split("IMPZ")]);
    expect(first.report.slice(1)).toEqual(["split-IMPZ.csv,3,numerator,0,must be more than 0"]);
    expect((await run(["daily-bars", raw, "--symbol", "IMPZ", "--prices", "raw"])).code).toBe(0);
    // The raw prices first, then the split: the earlier bars are rescaled in the split's transaction.
    expect((await run(["daily-bars", raw, "--symbol", "IMPZ2", "--prices", "raw"])).code).toBe(0);
    expect((await run(["splits", split("IMPZ2")])).err).toContain(
      "splits: 1 inserted, 0 changed, 0 unchanged, 1 rejected",
    );
    const again = await run(["splits", split("IMPZ2")]);
    expect(again.err).toContain("splits: 0 inserted, 0 changed, 1 unchanged, 1 rejected");

    const body = (symbol: string) => ({ symbol, resolution: "D", from: "2026-11-02", to: "2026-11-05" });
    const a = await t.post("/v1/candle", body("IMPZ"));
    const b = await t.post("/v1/candle", body("IMPZ2"));
    expect(a.status).toBe(200);
    expect(a.body.c).toEqual([102, 100, 102, 101]);
    expect(a.body.v).toEqual([200, 240, 260, 250]);
    for (const k of ["t", "o", "h", "l", "c", "v"]) expect(b.body[k]).toEqual(a.body[k]);
  });

  it("keeps a computed sample listing's other days and answers the imported one on its day", async () => {
    const [l] = query<{ symbol: string; listing_id: number }>(
      `SELECT l.symbol, s.listing_id FROM sample_series s JOIN listings l ON l.id = s.listing_id
       WHERE s.stored = 0 AND s.market = 'weekday' AND s.style = 'ohlc' ORDER BY s.listing_id LIMIT 1`,
    );
    const body = { symbol: l!.symbol, resolution: "D", from: "2026-11-02", to: "2026-11-13" };
    const before = await t.post("/v1/candle", body);
    expect(before.status).toBe(200);
    const days = (before.body.t as number[]).length;
    expect(days).toBeGreaterThan(5);
    const t3 = before.body.t[3] as number;
    const day = new Date(t3 * 1000).toISOString().slice(0, 10);
    const r = await run(["daily-bars", file("sample.csv", `symbol,day,o,h,l,c,v\n${l!.symbol},${day},1,3,0.5,2,77\n`)]);
    expect(r.code).toBe(0);
    const after = await t.post("/v1/candle", body);
    expect(after.body.t).toEqual(before.body.t);
    const expected = [...(before.body.c as number[])];
    expected[3] = 2;
    expect(after.body.c).toEqual(expected);
    expect(after.body.v[3]).toBe(77);
  });
});

describe("the running service's search index", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ storePath: store, followChanges: true });
  });
  afterAll(async () => {
    await t.close();
  });

  it("finds a new and a renamed security on its next request, patched in rather than rebuilt", async () => {
    const [old] = query<{ name: string; isin: string; symbol: string; exchange: string; currency: string }>(
      `SELECT s.name, s.isin, l.symbol, l.exchange, l.currency FROM securities s JOIN listings l ON l.security_id = s.id
       WHERE s.type = 'stock' AND s.isin IS NOT NULL
         AND (SELECT count(*) FROM listings o WHERE o.security_id = s.id) = 1
         AND (SELECT count(*) FROM securities o WHERE o.name = s.name) = 1
       ORDER BY s.id LIMIT 1`,
    );
    const renamed = "Quillmere Renamed Holdings";
    const names = async (path: string, q: string) =>
      ((await t.post(path, { query: q })).body.results as { companyName?: string; name?: string }[]).map(
        (r) => r.companyName ?? r.name,
      );
    expect(await names("/v1/search", old!.name)).toContain(old!.name);
    expect(await names("/v1/search", "Zephyrine Orbital")).toEqual([]);
    const live = t.deps.searchIndex as LiveSearchIndex;
    const sizeBefore = live.size;
    const csv = file(
      "search.csv",
      "symbol,exchange,currency,type,name,isin\n" +
        "ZPHO,XNAS,USD,stock,Zephyrine Orbital Inc.,\n" +
        `${old!.symbol},${old!.exchange},${old!.currency},stock,${renamed},${old!.isin}\n`,
    );
    const r = await run(["securities", csv]);
    expect(r.err).toContain("securities: 1 inserted, 1 changed, 0 unchanged, 0 rejected");

    for (const path of ["/v1/search", "/v1/search/aggregated"]) {
      expect((await names(path, "Zephyrine Orbital"))[0]).toBe("Zephyrine Orbital Inc.");
      expect((await names(path, renamed))[0]).toBe(renamed);
      expect(await names(path, old!.name)).not.toContain(old!.name);
    }
    const bySymbol = await t.post("/v1/search", { query: "ZPHO" });
    expect(bySymbol.body.results[0]).toMatchObject({
      symbol: "ZPHO",
      exchange: "XNAS",
      companyName: "Zephyrine Orbital Inc.",
    });
    expect(live.size).toBe(sizeBefore + 1);
    // One patch for the import's one batch; the index was never built again.
    expect(live.stats).toEqual({ patches: 1, rebuilds: 0 });
    // Nothing new committed: the next requests read no change log.
    await t.post("/v1/search", { query: "ZPHO" });
    expect(live.stats.patches).toBe(1);
  });
});

describe("an empty store", () => {
  let empty: string;
  let t: TestApp | undefined;
  beforeAll(() => {
    empty = join(dir, "empty.db");
    openSqliteSource(empty).db.close();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("takes the example files from its exchanges on, and the service answers them", async () => {
    const saved = store;
    store = empty;
    try {
      const bad = await run([
        "exchanges",
        file("x.csv", "code,name,country,currency,timezone\nXBAD,Bad,US,USD,Mars/Olympus\nXBAD2,Bad,US,GBp,UTC\n"),
      ]);
      expect(bad.report.slice(1)).toEqual([
        "x.csv,2,timezone,Mars/Olympus,not an IANA time zone",
        "x.csv,3,currency,GBp,an exchange's currency is a major unit",
      ]);
      for (const kind of ["exchanges", "securities", "daily-bars", "fx", "quotes"]) {
        const r = await run([kind, join(EXAMPLES, `${kind}.csv`)]);
        expect({ kind, code: r.code, report: r.report }).toEqual({ kind, code: 0, report: [] });
      }
      expect((await run(["exchanges", join(EXAMPLES, "exchanges.csv")])).err).toContain(
        "exchanges: 0 inserted, 0 changed, 3 unchanged, 0 rejected",
      );
    } finally {
      store = saved;
    }
    t = await createTestApp({ storePath: empty, ownIndex: true });
    const candle = await t.post("/v1/candle", {
      symbol: "ACME",
      resolution: "D",
      from: "2026-11-16",
      to: "2026-11-20",
    });
    expect(candle.status).toBe(200);
    expect(candle.body.c).toEqual([103.1, 102.6, 100.4, 101.5, 104.8]);
    const quote = await t.post("/v1/quote", { symbol: "ACME" });
    expect(quote.status).toBe(200);
    expect(quote.body).toMatchObject({ c: 104.8, exchange: "XNAS" });
    // The docs' walk goes on with a split: the bars before its day answer halved.
    store = empty;
    try {
      expect((await run(["splits", join(EXAMPLES, "splits.csv")])).err).toContain(
        "splits: 1 inserted, 0 changed, 0 unchanged, 0 rejected",
      );
    } finally {
      store = saved;
    }
    const split = await t.post("/v1/candle", { symbol: "ACME", resolution: "D", from: "2026-11-16", to: "2026-11-20" });
    expect(split.body.c).toEqual([51.55, 51.3, 100.4, 101.5, 104.8]);
    const search = await t.post("/v1/search", { query: "Nordlicht" });
    expect(search.status).toBe(200);
    expect(JSON.stringify(search.body)).toContain("NORD");
  });
});

describe("the command line", () => {
  it("refuses a bad command line with exit 1 before opening the store", async () => {
    const cases: [string[], RegExp][] = [
      [[], /a kind is required/],
      [["bonds", "x.csv"], /unknown kind "bonds"/],
      [["fx"], /at least one file is required/],
      [["fx", join(dir, "missing.csv")], /missing\.csv: no such file/],
      [["fx", join(EXAMPLES, "fx.csv"), "--max-errors", "0"], /--max-errors: expected a positive whole number/],
      [["daily-bars", join(EXAMPLES, "daily-bars.csv"), "--prices", "raw"], /--prices goes with --symbol/],
      [["fx", join(EXAMPLES, "fx.csv"), "--symbol", "X"], /--symbol is for daily-bars/],
    ];
    for (const [args, message] of cases) {
      let opened = false;
      const err: string[] = [];
      const code = await main(args, {
        openSink: async () => {
          opened = true;
          throw new Error("not expected");
        },
        out: { log: (l) => err.push(l), error: (l) => err.push(l) },
        tty: false,
      });
      expect({ args, code, opened }).toEqual({ args, code: 1, opened: false });
      expect(err.join("\n")).toMatch(message);
    }
  });

  it("fails a file whose columns fit no format of its kind, writing nothing", async () => {
    const r = await run(["fx", file("odd.csv", "when,rate\n2026-11-20,1\n")]);
    expect(r.code).toBe(1);
    expect(r.err.join("\n")).toMatch(
      /fx: expected the columns currency,day,per_usd \(missing currency, day, per_usd\)/,
    );
  });
});

describe("gateway mode", () => {
  it("is refused with a clear message", async () => {
    const config = loadConfig({
      MDG_DATA_SOURCE: "upstream",
      MDG_UPSTREAM_URL: "http://127.0.0.1:9",
      MDG_UPSTREAM_API_KEY: "k".repeat(32),
      NODE_ENV: "test",
    });
    await expect(openConfiguredSink(config)).rejects.toThrow(/gateway mode\) has no store of its own to import into/);
  });
});
