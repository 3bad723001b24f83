import Database from "better-sqlite3";
import { TEST_ANCHOR, TEST_STORE_PATH } from "../../helpers/constants";
import { formatDay, parseDay } from "../../../src/sources/sample/sample.calendar";
import { exchange } from "../../../src/sources/sample/sample.markets";
import { BarSimulator, type RowWriter } from "../../../src/sources/sample/sample.prices";
import type { SqlValue } from "../../../src/tools/sample/sample.model";
import { Random } from "../../../src/sources/sample/sample.random";
import { SeriesCalendar, toSeriesRow } from "../../../src/sources/sample/sample.series";
import { easter, holidaysOf, isTradingDay, sessionOn } from "../../../src/sources/sample/sample.sessions";

/** The sample keeps market hours: sessions in each exchange's time zone, holidays, a clock it never passes. */

const ANCHOR_T = Date.parse(`${TEST_ANCHOR}T00:00:00Z`) / 1000;
const DAY = 86_400;
const utc = (t: number) => new Date(t * 1000).toISOString().slice(11, 16);
const dayOf = (t: number) => formatDay(Math.floor(t / DAY));

let db: Database.Database;
beforeAll(() => {
  db = new Database(TEST_STORE_PATH, { readonly: true });
});
afterAll(() => db.close());

const all = <T>(sql: string, ...params: unknown[]): T[] => db.prepare(sql).all(...params) as T[];

/** A US primary listing with stored 5-minute bars. */
function usIntradayListing(): { id: number; exchange: string } {
  const [row] = all<{ id: number; exchange: string }>(
    `SELECT l.id, l.exchange FROM listings l WHERE l.exchange IN ('XNYS', 'XNAS')
       AND EXISTS (SELECT 1 FROM intraday_bars b WHERE b.listing_id = l.id) ORDER BY l.id LIMIT 1`,
  );
  if (!row) throw new Error("the test store has no US listing with 5-minute bars");
  return row;
}

describe("sessions", () => {
  it("open a US exchange's first 5-minute bar at 14:30 UTC in January and 13:30 UTC in July", () => {
    const nyse = exchange("XNYS");
    const january = sessionOn(nyse, parseDay("2026-01-15"));
    const july = sessionOn(nyse, parseDay("2026-07-15"));
    expect(january && [utc(january.open), utc(january.close)]).toEqual(["14:30", "21:00"]);
    expect(july && [utc(july.open), utc(july.close)]).toEqual(["13:30", "20:00"]);
  });

  it("follow each exchange's own daylight saving dates (Europe changes a week after the US in March)", () => {
    const xetra = exchange("XETR");
    const nyse = exchange("XNYS");
    // 2026-03-09 to 03-27: New York on summer time, Frankfurt not yet.
    expect(utc((sessionOn(nyse, parseDay("2026-03-16")) as { open: number }).open)).toBe("13:30");
    expect(utc((sessionOn(xetra, parseDay("2026-03-16")) as { open: number }).open)).toBe("08:00");
    expect(utc((sessionOn(xetra, parseDay("2026-03-30")) as { open: number }).open)).toBe("07:00");
    // Sydney is on summer time in January: its session opens the UTC day before.
    const sydney = sessionOn(exchange("XASX"), parseDay("2026-01-15")) as { open: number };
    expect([dayOf(sydney.open), utc(sydney.open)]).toEqual(["2026-01-14", "23:00"]);
  });

  it("are closed on weekends and holidays, crypto trades every day", () => {
    const nyse = exchange("XNYS");
    for (const day of ["2025-12-25", "2026-01-01", "2026-07-03", "2026-11-26", "2026-04-03", "2026-01-17"])
      expect([day, sessionOn(nyse, parseDay(day))]).toEqual([day, null]);
    expect(sessionOn(nyse, parseDay("2026-07-02"))).not.toBeNull();
    expect(isTradingDay(exchange("CRYPTO"), parseDay("2025-12-25"))).toBe(true);
    expect(isTradingDay(exchange("XETR"), parseDay("2026-04-06"))).toBe(false);
    expect(isTradingDay(exchange("XNYS"), parseDay("2026-04-06"))).toBe(true);
  });

  it("compute the US holidays with their observed days", () => {
    expect(formatDay(easter(2026))).toBe("2026-04-05");
    expect([...holidaysOf("US", 2026)].sort((a, b) => a - b).map(formatDay)).toEqual([
      "2026-01-01",
      "2026-01-19",
      "2026-02-16",
      "2026-04-03",
      "2026-05-25",
      "2026-06-19",
      "2026-07-03",
      "2026-09-07",
      "2026-11-26",
      "2026-12-25",
    ]);
    // New Year's Day 2022 was a Saturday: no holiday on Friday 2021-12-31; Christmas 2021 was kept on the 24th.
    expect([...holidaysOf("US", 2021)].map(formatDay)).toContain("2021-12-24");
    expect([...holidaysOf("US", 2021)].map(formatDay)).not.toContain("2021-12-31");
  });
});

describe("the sample's bars", () => {
  it("follow the sessions on the last ten days of 5-minute bars", () => {
    const l = usIntradayListing();
    const hours = exchange(l.exchange);
    const days = all<{ day: number; first: number; last: number; n: number }>(
      `SELECT t / 86400 AS day, min(t) AS first, max(t) AS last, count(*) AS n
         FROM intraday_bars WHERE listing_id = ? GROUP BY t / 86400 ORDER BY day`,
      l.id,
    );
    expect(days).toHaveLength(10);
    for (const d of days) {
      const s = sessionOn(hours, d.day);
      expect(s).not.toBeNull();
      expect({ day: formatDay(d.day), first: d.first, last: d.last + 300, n: d.n }).toEqual({
        day: formatDay(d.day),
        first: s?.open,
        last: s?.close,
        n: 78,
      });
    }
    // November after the clocks changed: winter hours.
    expect(utc(days[days.length - 1]!.first)).toBe("14:30");
  });

  it("have no daily bar on an exchange holiday of a NYSE listing, over the store's whole range", () => {
    const [l] = all<{ id: number }>(
      `SELECT l.id FROM listings l JOIN securities s ON s.id = l.security_id
         WHERE l.exchange = 'XNYS' AND s.type = 'etf' AND EXISTS (SELECT 1 FROM daily_bars b WHERE b.listing_id = l.id)
         ORDER BY l.id LIMIT 1`,
    );
    if (!l) throw new Error("the test store has no NYSE ETF with stored bars");
    const bars = new Set(all<{ t: number }>("SELECT t FROM daily_bars WHERE listing_id = ?", l.id).map((b) => b.t));
    const first = Math.min(...bars) / DAY;
    const last = Math.max(...bars) / DAY;
    const holidays: string[] = [];
    let onHoliday = 0;
    for (let y = new Date(first * DAY * 1000).getUTCFullYear(); y <= new Date(last * DAY * 1000).getUTCFullYear(); y++)
      for (const d of holidaysOf("US", y)) {
        if (d < first || d > last) continue;
        holidays.push(formatDay(d));
        if (bars.has(d * DAY)) onHoliday++;
      }
    expect(holidays.length).toBeGreaterThan(90);
    expect(holidays).toEqual(expect.arrayContaining(["2025-12-25", "2026-01-01", "2026-07-03"]));
    expect(onHoliday).toBe(0);
    // The days around them trade.
    for (const day of ["2025-12-24", "2025-12-26", "2026-01-02", "2026-07-02"])
      expect(bars.has(parseDay(day) * DAY)).toBe(true);
  });

  it("have no 5-minute bar on a holiday among the last ten days (Thanksgiving)", () => {
    const row = toSeriesRow(
      db.prepare("SELECT * FROM sample_series WHERE listing_id = ?").get(usIntradayListing().id) as Record<
        string,
        unknown
      >,
    );
    const anchor = parseDay("2026-11-30");
    const calendar = new SeriesCalendar(7, parseDay("2016-11-30"), anchor);
    const spec = calendar.spec({ ...row, firstDay: parseDay("2025-11-30"), lastDay: anchor - 1 });
    const times: number[] = [];
    const collect: RowWriter = { write: (values: readonly SqlValue[]) => times.push(values[1] as number) };
    const daily: number[] = [];
    new BarSimulator(calendar.allDays.length, null).run(
      spec,
      Random.fromSeed(7, "bars").fork(spec.stream),
      { write: (values) => daily.push(values[1] as number) },
      collect,
    );
    const days = [...new Set(times.map(dayOf))];
    expect(days).not.toContain("2026-11-26");
    expect(days).toEqual(expect.arrayContaining(["2026-11-25", "2026-11-27"]));
    expect(days).toHaveLength(9);
    expect(daily.map(dayOf)).not.toContain("2026-11-26");
    expect(daily.map(dayOf)).not.toContain("2025-12-25");
  });

  it("are never timestamped after the sample's clock (00:00 UTC of the anchor day)", () => {
    for (const table of ["daily_bars", "intraday_bars", "quotes"]) {
      const max = db.prepare(`SELECT max(t) FROM ${table}`).pluck().get() as number;
      expect({ table, late: max > ANCHOR_T }).toEqual({ table, late: false });
    }
    const crypto = db
      .prepare(
        `SELECT max(b.t) FROM intraday_bars b JOIN listings l ON l.id = b.listing_id WHERE l.exchange = 'CRYPTO'`,
      )
      .pluck()
      .get() as number;
    expect(crypto).toBe(ANCHOR_T - 300);
  });

  it("are on the instrument's tick: cents for a US stock, forex in at most five decimals", () => {
    const l = usIntradayListing();
    const prices = [
      ...all<{ o: number; h: number; l: number; c: number }>(
        "SELECT o, h, l, c FROM daily_bars WHERE listing_id = ? ORDER BY t DESC LIMIT 150",
        l.id,
      ),
      ...all<{ o: number; h: number; l: number; c: number }>(
        "SELECT o, h, l, c FROM intraday_bars WHERE listing_id = ? ORDER BY t DESC LIMIT 150",
        l.id,
      ),
      ...all<{ o: number; h: number; l: number; c: number }>(
        "SELECT o, h, l, c FROM quotes WHERE listing_id = ?",
        l.id,
      ),
    ].flatMap((b) => [b.o, b.h, b.l, b.c]);
    expect(prices.length).toBeGreaterThan(1000);
    const offTick = prices.filter((p) => Math.abs(p * 100 - Math.round(p * 100)) > 1e-9);
    expect(offTick).toEqual([]);
    const fx = all<{ c: number }>(
      `SELECT b.c FROM daily_bars b JOIN listings l ON l.id = b.listing_id
         WHERE l.symbol = 'EURUSD' ORDER BY b.t DESC LIMIT 300`,
    ).map((b) => b.c);
    expect(fx.length).toBe(300);
    expect(fx.filter((p) => Math.abs(p * 1e5 - Math.round(p * 1e5)) > 1e-6)).toEqual([]);
  });

  it("name real crypto assets by their real names", () => {
    const name = db
      .prepare("SELECT s.name FROM securities s JOIN listings l ON l.security_id = s.id WHERE l.symbol = 'TON-USD'")
      .pluck()
      .get();
    expect(name).toBe("Toncoin");
  });
});
