import { roundMoney } from "../../../src/domain/fx/fx.service";
import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";
import {
  dayText,
  perUsd,
  storedBars,
  unix,
  withDailyBars,
  withIntradayBars,
  withoutIntradayBars,
  type StoredBar,
} from "../../helpers/stock-samples";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const CANDLE_KEYS = ["symbol", "s", "t", "o", "h", "l", "c", "v", "from", "to", "resolution", "key", "currency"].sort();
const DAY = 86_400;

/**
 * Independent aggregation: groups by a key of the bar's UTC date; open first, close last, max high, min low, summed
 * volume.
 */
function groupBars(bars: StoredBar[], keyOf: (t: number) => number): StoredBar[] {
  const out = new Map<number, StoredBar>();
  for (const b of bars) {
    const k = keyOf(b.t);
    const cur = out.get(k);
    if (!cur) out.set(k, { t: k, o: b.o, h: b.h, l: b.l, c: b.c, v: b.v });
    else out.set(k, { t: k, o: cur.o, h: Math.max(cur.h, b.h), l: Math.min(cur.l, b.l), c: b.c, v: cur.v + b.v });
  }
  return [...out.values()];
}

const mondayOf = (t: number) => {
  const d = new Date(t * 1000);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) / 1000;
  return midnight - ((d.getUTCDay() + 6) % 7) * DAY;
};
const firstOfMonth = (t: number) => {
  const d = new Date(t * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
};

function expectBars(body: Record<string, number[]>, bars: StoredBar[], digits = 9) {
  expect(body.t).toEqual(bars.map((b) => b.t));
  for (const f of ["o", "h", "l", "c", "v"] as const) {
    expect(body[f]).toHaveLength(bars.length);
    bars.forEach((b, i) => expect(body[f]![i]).toBeCloseTo(b[f], digits));
  }
}

describe.each(["v0", "v1"])("POST /%s/candle", (v) => {
  it.each(["stock", "etf", "fund", "crypto", "forex"])(
    "answers the contract's shape with the stored daily bars of a %s",
    async (type) => {
      const s = withDailyBars(t.source.db, type);
      const from = unix("2026-08-03");
      const to = unix(`${TEST_ANCHOR}T15:00:00Z`);
      const res = await t.post(`/${v}/candle`, { symbol: s.symbol, from, to, resolution: "D" });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(CANDLE_KEYS);
      expect(res.body).toMatchObject({
        symbol: s.symbol,
        s: "ok",
        resolution: "D",
        key: `${s.symbol}:D:${s.currency}`,
        currency: s.currency,
        from,
        to: unix(TEST_ANCHOR) + DAY - 1,
      });
      const stored = storedBars(t.source.db, "daily_bars", s.listingId, from, to);
      expect(stored.length).toBeGreaterThan(30);
      expectBars(res.body, stored);
    },
  );

  it("names a fund by ISIN", async () => {
    const s = withDailyBars(t.source.db, "fund");
    const res = await t.post(`/${v}/candle`, { isin: s.isin, from: "2026-10-01", to: TEST_ANCHOR });
    expect(res.status).toBe(200);
    expect(res.body.symbol).toBe(s.symbol);
    expectBars(res.body, storedBars(t.source.db, "daily_bars", s.listingId, unix("2026-10-01"), unix(TEST_ANCHOR)));
  });

  it("aggregates W bars by ISO week from Monday, the range widened to whole weeks", async () => {
    const s = withDailyBars(t.source.db, "stock");
    // A Wednesday to a Wednesday: the first and last weeks are answered whole.
    const from = unix("2026-01-07");
    const to = unix("2026-11-18T12:00:00Z");
    const res = await t.post(`/${v}/candle`, { symbol: s.symbol, from, to, resolution: "W" });
    expect(res.status).toBe(200);
    expect(res.body.from).toBe(unix("2026-01-05"));
    expect(res.body.to).toBe(unix("2026-11-23") - 1);
    const daily = storedBars(t.source.db, "daily_bars", s.listingId, unix("2026-01-05"), unix("2026-11-23") - 1);
    const weeks = groupBars(daily, mondayOf);
    expect(weeks.length).toBeGreaterThan(40);
    expectBars(res.body, weeks);
    for (const wt of res.body.t as number[]) expect(new Date(wt * 1000).getUTCDay()).toBe(1);
  });

  it("aggregates M bars by calendar month, t the 1st 00:00 UTC", async () => {
    const s = withDailyBars(t.source.db, "crypto");
    const res = await t.post(`/${v}/candle`, {
      symbol: s.symbol,
      from: "2023-03-15",
      to: TEST_ANCHOR,
      resolution: "m",
    });
    expect(res.status).toBe(200);
    expect(res.body.resolution).toBe("M");
    const daily = storedBars(t.source.db, "daily_bars", s.listingId, unix("2023-03-01"), unix("2026-12-01") - 1);
    const months = groupBars(daily, firstOfMonth);
    expect(months).toHaveLength(45);
    expectBars(res.body, months);
  });

  it("answers stored 5-minute bars and aggregates them to 15, 30 and 60 minutes", async () => {
    const s = withIntradayBars(t.source.db, "stock");
    const last = (
      t.source.db.prepare(`SELECT max(t) AS t FROM intraday_bars WHERE listing_id = ?`).get(s.listingId) as {
        t: number;
      }
    ).t;
    const from = Math.floor(last / DAY) * DAY - 3 * DAY;
    const to = last;
    const five = storedBars(t.source.db, "intraday_bars", s.listingId, from, to + 299);
    const r5 = await t.post(`/${v}/candle`, { symbol: s.symbol, from, to, resolution: "5" });
    expect(r5.status).toBe(200);
    expectBars(r5.body, five);
    for (const minutes of [15, 30, 60]) {
      const res = await t.post(`/${v}/candle`, { symbol: s.symbol, from, to, resolution: minutes });
      expect(res.status).toBe(200);
      expect(res.body.resolution).toBe(String(minutes));
      const size = minutes * 60;
      const stored = storedBars(
        t.source.db,
        "intraday_bars",
        s.listingId,
        from,
        Math.floor(to / size) * size + size - 1,
      );
      expectBars(
        res.body,
        groupBars(stored, (bt) => bt - (bt % size)),
      );
    }
  });

  it("answers crypto intraday bars too", async () => {
    const s = withIntradayBars(t.source.db, "crypto");
    const res = await t.post(`/${v}/candle`, { symbol: s.symbol, resolution: "60" });
    expect(res.status).toBe(200);
    expect(res.body.t.length).toBeGreaterThan(24);
  });

  it("converts prices with the FX rate of each bar's day and keeps volumes", async () => {
    const s = withDailyBars(t.source.db, "stock");
    const target = s.currency === "EUR" ? "USD" : "EUR";
    const from = unix("2026-10-01");
    const to = unix(TEST_ANCHOR);
    const res = await t.post(`/${v}/candle`, { symbol: s.symbol, from, to, currency: target.toLowerCase() });
    expect(res.status).toBe(200);
    expect(res.body.currency).toBe(target);
    const stored = storedBars(t.source.db, "daily_bars", s.listingId, from, to);
    const converted = stored.map((b) => {
      const day = dayText(b.t);
      const f = perUsd(t.source.db, target, day) / perUsd(t.source.db, s.currency, day);
      // Converted money is rounded to the target currency's minor unit (docs/contract.md: prices on tick).
      const m = (x: number) => roundMoney(x * f, target);
      return { t: b.t, o: m(b.o), h: m(b.h), l: m(b.l), c: m(b.c), v: b.v };
    });
    expectBars(res.body, converted, 9);
  });

  it("defaults to D over the year before now when only the symbol is sent", async () => {
    const s = withDailyBars(t.source.db, "etf");
    const res = await t.post(`/${v}/candle`, { symbol: s.symbol });
    expect(res.status).toBe(200);
    expect(res.body.resolution).toBe("D");
    expect(res.body.to).toBe(unix(TEST_ANCHOR) + DAY - 1);
    expect(res.body.from).toBe(unix(TEST_ANCHOR) - 365 * DAY);
  });

  describe("the five-status rule", () => {
    const stock = () => withDailyBars(t.source.db, "stock");

    it.each([
      [{ resolution: "2" }, "resolution"],
      [{ resolution: "H" }, "resolution"],
      [{ resolution: true }, "resolution"],
      [{ from: "2026-13-45" }, "from"],
      [{ from: "yesterday" }, "from"],
      [{ to: 1_763_650_000_000 }, "to"],
      [{ from: -5 }, "from"],
      [{ from: 1.5 }, "from"],
      [{ currency: "XYZ" }, "currency"],
    ])("answers 404 INVALID_ARGUMENT for %j", async (extra, field) => {
      const res = await t.post(`/${v}/candle`, {
        symbol: stock().symbol,
        from: "2026-10-01",
        to: TEST_ANCHOR,
        ...extra,
      });
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      expect(res.body.message.startsWith(`${field}:`)).toBe(true);
    });

    it("answers 404 INVALID_ARGUMENT for from after to", async () => {
      const res = await t.post(`/${v}/candle`, {
        symbol: stock().symbol,
        from: unix(TEST_ANCHOR),
        to: unix("2026-01-01"),
      });
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      expect(res.body.message).toContain("after");
    });

    it("answers 404 INVALID_ARGUMENT past the range caps", async () => {
      const s = stock();
      expectErrorBody(
        await t.post(`/${v}/candle`, { symbol: s.symbol, from: "1990-01-01", to: TEST_ANCHOR, resolution: "D" }),
        404,
        "INVALID_ARGUMENT",
      );
      const res = await t.post(`/${v}/candle`, {
        symbol: s.symbol,
        from: "2026-09-01",
        to: TEST_ANCHOR,
        resolution: "15",
      });
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      expect(res.body.message).toContain("31 days");
      // W and M reach further than D.
      expect(
        (await t.post(`/${v}/candle`, { symbol: s.symbol, from: "1990-01-01", to: TEST_ANCHOR, resolution: "M" }))
          .status,
      ).toBe(200);
    });

    it("answers 404 INVALID_ARGUMENT without a symbol, NOT_FOUND for an unknown one", async () => {
      expectErrorBody(await t.post(`/${v}/candle`, { from: "2026-10-01" }), 404, "INVALID_ARGUMENT");
      const res = await t.post(`/${v}/candle`, { symbol: "NOPE.NOPE", from: "2026-10-01", to: TEST_ANCHOR });
      expectErrorBody(res, 404, "NOT_FOUND");
      expect(res.body.message).toContain("NOPE.NOPE");
    });

    it("answers 200 no_data with every key and empty arrays for a range that holds no bars (a weekend)", async () => {
      // 2026-11-14/15 is a Saturday and Sunday: stocks have no bars.
      const s = stock();
      const res = await t.post(`/${v}/candle`, {
        symbol: s.symbol,
        from: "2026-11-14",
        to: unix("2026-11-15T12:00:00Z"),
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(CANDLE_KEYS);
      expect(res.body).toEqual({
        symbol: s.symbol,
        s: "no_data",
        ...{ t: [], o: [], h: [], l: [], c: [], v: [] },
        from: unix("2026-11-14"),
        to: unix("2026-11-16") - 1,
        resolution: "D",
        key: `${s.symbol}:D:${s.currency}`,
        currency: s.currency,
      });
    });

    it("answers 200 no_data for a range long before the listing's first bar, in any resolution", async () => {
      const s = withDailyBars(t.source.db, "stock");
      for (const resolution of ["D", "W", "M"]) {
        const res = await t.post(`/${v}/candle`, {
          symbol: s.symbol,
          from: "1971-01-04",
          to: "1971-03-01",
          resolution,
        });
        expect({ resolution, status: res.status, s: res.body.s, c: res.body.c, key: res.body.key }).toEqual({
          resolution,
          status: 200,
          s: "no_data",
          c: [],
          key: `${s.symbol}:${resolution}:${s.currency}`,
        });
      }
      // Converted or not, the empty answer names the currency asked for.
      const eur = await t.post(`/${v}/candle`, {
        symbol: s.symbol,
        from: "1971-01-04",
        to: "1971-03-01",
        currency: "EUR",
      });
      expect(eur.body).toMatchObject({ s: "no_data", currency: "EUR", key: `${s.symbol}:D:EUR` });
    });

    it("answers 404 NOT_FOUND for resolution 1, finer than the stored 5-minute bars", async () => {
      const res = await t.post(`/${v}/candle`, {
        symbol: withIntradayBars(t.source.db, "stock").symbol,
        resolution: "1",
      });
      expectErrorBody(res, 404, "NOT_FOUND");
      expect(res.body.message).toContain("finer than the stored data");
    });

    it("answers 200 no_data for intraday bars of a listing that has none", async () => {
      const s = withoutIntradayBars(t.source.db, "etf");
      const res = await t.post(`/${v}/candle`, { symbol: s.symbol, resolution: "60" });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ symbol: s.symbol, s: "no_data", t: [], c: [], resolution: "60" });
    });

    it("needs the scope of the security's type", async () => {
      const cryptoOnly = await t.apiKeys.create({ name: "candle-crypto-only", scopes: ["crypto"] });
      expect(
        (await t.post(`/${v}/candle`, { symbol: withDailyBars(t.source.db, "crypto").symbol }, cryptoOnly.key)).status,
      ).toBe(200);
      expectErrorBody(
        await t.post(`/${v}/candle`, { symbol: withDailyBars(t.source.db, "etf").symbol }, cryptoOnly.key),
        403,
        "FORBIDDEN",
      );
    });
  });
});
