import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp } from "../../helpers/app";
import { TEST_ANCHOR, TEST_STORE_PATH } from "../../helpers/constants";
import { openSqliteSource } from "../../../src/sources/sqlite/sqlite.source";
import { parseDay } from "../../../src/sources/sample/sample.calendar";
import {
  SERIES_META_KEY,
  SeriesCalendar,
  SeriesSynthesizer,
  toSeriesRow,
} from "../../../src/sources/sample/sample.series";

/**
 * The sample computes the daily bars it does not store (docs/sample.md "The sample
 * store"): a computed bar is the stored one, and only the generated sample
 * ever computes one.
 */

const ANCHOR_T = Date.parse(`${TEST_ANCHOR}T00:00:00Z`) / 1000;
const YEAR = 365 * 86_400;

let dir: string;
let db: Database.Database;

function copyOfStore(name: string): string {
  const file = join(dir, name);
  db.exec(`VACUUM INTO '${file.replace(/'/g, "''")}'`);
  return file;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mdg-series-"));
  db = new Database(TEST_STORE_PATH, { readonly: true });
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function meta(): Map<string, string> {
  const rows = db.prepare("SELECT key, value FROM meta").all() as { key: string; value: string }[];
  return new Map(rows.map((r) => [r.key, r.value]));
}

describe("computed daily paths", () => {
  it("equal the stored bars of every kind of stored path, bar for bar", () => {
    const m = meta();
    const synth = new SeriesSynthesizer(
      new SeriesCalendar(
        Number(m.get("seed")),
        parseDay(m.get("history_start") as string),
        parseDay(m.get("anchor_date") as string),
      ),
    );
    // Two of each kind: exchange OHLC and crypto, each with and without 5-minute bars; fund NAV.
    const rows = db
      .prepare(
        `SELECT * FROM (SELECT s.*,
           row_number() OVER (PARTITION BY style, market, intraday_bars > 0 ORDER BY listing_id) AS n
           FROM sample_series s WHERE stored = 1 AND style != 'fx') WHERE n <= 2`,
      )
      .all() as Record<string, unknown>[];
    expect(new Set(rows.map((r) => `${r.style}/${r.market}/${(r.intraday_bars as number) > 0}`)).size).toBe(5);
    for (const r of rows) {
      const { series, quote } = synth.run(toSeriesRow(r));
      const stored = db
        .prepare("SELECT t, o, h, l, c, v FROM daily_bars WHERE listing_id = ? ORDER BY t")
        .all(r.listing_id) as { t: number; o: number; h: number; l: number; c: number; v: number }[];
      expect(series.t.length).toBe(stored.length);
      const computed = stored.map((_, i) => ({
        t: series.t[i],
        o: series.o[i],
        h: series.h[i],
        l: series.l[i],
        c: series.c[i],
        v: series.v[i],
      }));
      expect(computed).toEqual(stored);
      const q = db.prepare("SELECT c, o, h, l, pc, v FROM quotes WHERE listing_id = ?").get(r.listing_id);
      expect({ c: quote.c, o: quote.o, h: quote.h, l: quote.l, pc: quote.pc, v: quote.v }).toEqual(q);
    }
  });

  it("end in their listing's quote, for every path not stored (those the build ran in its helper thread too)", () => {
    const m = meta();
    const synth = new SeriesSynthesizer(
      new SeriesCalendar(
        Number(m.get("seed")),
        parseDay(m.get("history_start") as string),
        parseDay(m.get("anchor_date") as string),
      ),
    );
    const rows = db.prepare("SELECT * FROM sample_series WHERE stored = 0 ORDER BY listing_id").all() as Record<
      string,
      unknown
    >[];
    expect(rows.length).toBeGreaterThan(1000);
    const quoteOf = db.prepare("SELECT t, c, o, h, l, pc, v, ma50, ma200, avg_volume FROM quotes WHERE listing_id = ?");
    const mismatched: unknown[] = [];
    for (const r of rows) {
      const { quote } = synth.run(toSeriesRow(r));
      const expected = {
        t: Math.min(quote.t, ANCHOR_T),
        c: quote.c,
        o: quote.o,
        h: quote.h,
        l: quote.l,
        pc: quote.pc,
        v: quote.v,
        ma50: quote.ma50,
        ma200: quote.ma200,
        avg_volume: quote.avgVolume,
      };
      const stored = quoteOf.get(r.listing_id) as typeof expected;
      if (JSON.stringify(stored) !== JSON.stringify(expected)) mismatched.push({ id: r.listing_id, stored, expected });
    }
    expect(mismatched.slice(0, 3)).toEqual([]);
  });

  it("answer a candle exactly as the stored rows did", async () => {
    const listing = db
      .prepare(
        `SELECT l.id, l.symbol FROM sample_series s JOIN listings l ON l.id = s.listing_id
         WHERE s.stored = 1 AND s.style = 'ohlc' AND s.intraday_bars = 0 AND l.is_primary = 1 ORDER BY l.id LIMIT 1`,
      )
      .get() as { id: number; symbol: string };
    const file = copyOfStore("computed.db");
    const w = new Database(file);
    // The same listing, its rows dropped and its path marked computed.
    w.prepare("DELETE FROM daily_bars WHERE listing_id = ?").run(listing.id);
    w.prepare("UPDATE sample_series SET stored = 0 WHERE listing_id = ?").run(listing.id);
    w.close();
    const asks = [
      { symbol: listing.symbol },
      { symbol: listing.symbol, from: ANCHOR_T - 3 * YEAR, to: ANCHOR_T, resolution: "W" },
      { symbol: listing.symbol, from: ANCHOR_T - 12 * YEAR, to: ANCHOR_T, resolution: "M" },
    ];
    const stored = await createTestApp();
    const computed = await createTestApp({ storePath: file });
    try {
      for (const body of asks) {
        const a = await stored.post("/v1/candle", body);
        const b = await computed.post("/v1/candle", body);
        expect(a.status).toBe(200);
        expect(a.body.s).toBe("ok");
        expect(b.status).toBe(200);
        expect(b.body).toEqual(a.body);
      }
      const m1 = await stored.post("/v1/quote", { symbol: listing.symbol });
      const m2 = await computed.post("/v1/quote", { symbol: listing.symbol });
      expect(m2.body).toEqual({ ...m1.body });
      expect(computed.source.sampleSeries.computed).toBeGreaterThan(0);
    } finally {
      await stored.close();
      await computed.close();
    }
  });

  it("are never computed on a store without the generator's meta row", async () => {
    const listing = db
      .prepare("SELECT listing_id AS id FROM sample_series WHERE stored = 0 ORDER BY listing_id LIMIT 1")
      .get() as { id: number };
    const withRow = openSqliteSource(TEST_STORE_PATH, { readonly: true });
    const file = copyOfStore("own.db");
    const w = new Database(file);
    w.prepare("DELETE FROM meta WHERE key = ?").run(SERIES_META_KEY);
    w.close();
    const own = openSqliteSource(file, { readonly: true });
    try {
      const key = [{ listingId: listing.id, from: 0, to: ANCHOR_T }];
      const [bars] = await withRow.getDailyBars(key);
      expect(bars!.length).toBeGreaterThan(400);
      const [none] = await own.getDailyBars(key);
      expect(none).toEqual([]);
      const [coverage] = await own.getBarCoverage([listing.id]);
      expect(coverage).toEqual({ dailyFrom: null, dailyTo: null, intradayFrom: null, intradayTo: null });
      expect(own.sampleSeries.computed).toBe(0);
      expect(own.sampleSeries.enabled()).toBe(false);
    } finally {
      await withRow.close();
      await own.close();
    }
  });
});
