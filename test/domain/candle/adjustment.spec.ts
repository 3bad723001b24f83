import { roundMoney } from "../../../src/domain/fx/fx.service";
import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";
import { gql } from "../../helpers/graphql";
import { dayText, storedBars, unix, type StoredBar } from "../../helpers/stock-samples";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const DAY = 86_400;
const addDays = (day: string, n: number) => dayText(unix(day) + n * DAY);

interface Listing {
  listingId: number;
  securityId: number;
  symbol: string;
  currency: string;
}

interface Split {
  day: string;
  numerator: number;
  denominator: number;
}

/** The stock with the latest stored split on or before the test clock's day whose primary listing stores bars. */
function splitStock(): Listing & { split: Split } {
  const row = t.source.db
    .prepare(
      `SELECT l.id AS listingId, s.id AS securityId, l.symbol, l.currency, sp.day, sp.numerator, sp.denominator
       FROM splits sp JOIN securities s ON s.id = sp.security_id AND s.type = 'stock'
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       WHERE sp.day <= ? AND sp.numerator <> sp.denominator
         AND EXISTS (SELECT 1 FROM daily_bars b WHERE b.listing_id = l.id AND b.t < unixepoch(sp.day) - 20 * 86400)
         AND EXISTS (SELECT 1 FROM daily_bars b WHERE b.listing_id = l.id AND b.t > unixepoch(sp.day) + 20 * 86400)
       ORDER BY sp.day DESC LIMIT 1`,
    )
    .get(TEST_ANCHOR) as (Listing & Split) | undefined;
  if (!row) throw new Error("the test store holds no stock split with stored bars around it");
  const { day, numerator, denominator, ...listing } = row;
  return { ...listing, split: { day, numerator, denominator } };
}

function splitsOf(securityId: number): Split[] {
  return t.source.db
    .prepare(`SELECT day, numerator, denominator FROM splits WHERE security_id = ? ORDER BY day`)
    .all(securityId) as Split[];
}

interface Paid {
  exDate: string;
  adjustedAmount: number;
}

/**
 * A stock paying in its listing's currency whose primary listing stores daily bars around an ex-date within the
 * 90 days before the test clock's day.
 */
function dividendStock(): Listing & { exDate: string } {
  const row = t.source.db
    .prepare(
      `SELECT l.id AS listingId, s.id AS securityId, l.symbol, l.currency, d.ex_date AS exDate
       FROM dividends d JOIN securities s ON s.id = d.security_id AND s.type = 'stock'
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1 AND l.currency = d.currency
       WHERE d.ex_date BETWEEN date(?, '-90 days') AND date(?, '-10 days')
         AND EXISTS (SELECT 1 FROM daily_bars b WHERE b.listing_id = l.id AND b.t < unixepoch(d.ex_date) - 20 * 86400)
       ORDER BY s.rank, s.id, d.ex_date LIMIT 1`,
    )
    .get(TEST_ANCHOR, TEST_ANCHOR) as (Listing & { exDate: string }) | undefined;
  if (!row) throw new Error("the test store holds no dividend with stored bars around its ex-date");
  return row;
}

function paidBy(securityId: number): Paid[] {
  return t.source.db
    .prepare(`SELECT ex_date AS exDate, adjusted_amount AS adjustedAmount FROM dividends WHERE security_id = ?`)
    .all(securityId) as Paid[];
}

/** Every stored daily bar of a listing, oldest first. */
const allBars = (listingId: number) => storedBars(t.source.db, "daily_bars", listingId, 0, unix(TEST_ANCHOR) + DAY);

/** The product of the later splits' ratios for a bar's day: what undoes the store's split adjustment. */
function splitRatio(splits: readonly Split[], day: string): number {
  let f = 1;
  for (const s of splits) if (s.day > day) f *= s.numerator / s.denominator;
  return f;
}

/**
 * The backward dividend factor of a bar's day, computed from the stored rows: for each ex-date after the day, on or
 * before the clock's day and the last stored bar, 1 - amount / the close of the last bar before the ex-date.
 */
function dividendFactor(paid: readonly Paid[], bars: readonly StoredBar[], day: string): number {
  const lastDay = dayText(bars[bars.length - 1]!.t);
  let f = 1;
  for (const d of paid) {
    if (d.exDate <= day || d.exDate > TEST_ANCHOR || d.exDate > lastDay) continue;
    const before = bars.filter((b) => dayText(b.t) < d.exDate).pop();
    if (!before) continue;
    f *= 1 - d.adjustedAmount / before.c;
  }
  return f;
}

type CandleBody = { t: number[]; o: number[]; h: number[]; l: number[]; c: number[]; v: number[]; key: string };

async function candle(body: Record<string, unknown>, v = "v1"): Promise<CandleBody> {
  const res = await t.post(`/${v}/candle`, body);
  expect(res.status).toBe(200);
  expect(res.body.s).toBe("ok");
  return res.body as CandleBody;
}

describe("candle adjustment around a stored split", () => {
  it.each(["v0", "v1"])(
    "/%s: none shows the split's jump in prices and volumes; splits (the default) is continuous",
    async (v) => {
      const s = splitStock();
      const ratio = s.split.numerator / s.split.denominator;
      const from = addDays(s.split.day, -20);
      const to = addDays(s.split.day, 20);
      const range = { symbol: s.symbol, from, to, resolution: "D" };
      const [splits, none] = [
        await candle({ ...range, adjustment: "splits" }, v),
        await candle({ ...range, adjustment: "none" }, v),
      ];

      const stored = storedBars(t.source.db, "daily_bars", s.listingId, unix(from), unix(to) + DAY - 1);
      const all = splitsOf(s.securityId);
      expect(stored.length).toBeGreaterThan(20);
      expect(splits.t).toEqual(stored.map((b) => b.t));
      expect(none.t).toEqual(splits.t);
      expect(splits.c).toEqual(stored.map((b) => b.c));
      expect(splits.v).toEqual(stored.map((b) => b.v));
      stored.forEach((b, i) => {
        const f = splitRatio(all, dayText(b.t));
        for (const k of ["o", "h", "l", "c"] as const) expect(none[k][i]).toBe(roundMoney(b[k] * f, s.currency));
        expect(none.v[i]).toBeCloseTo(b.v / f, 3);
      });

      // The split's day: the first bar on the new shares.
      const at = stored.findIndex((b) => dayText(b.t) >= s.split.day);
      expect(at).toBeGreaterThan(0);
      const beforeRatio = splitRatio(all, dayText(stored[at - 1]!.t));
      expect(beforeRatio / splitRatio(all, dayText(stored[at]!.t))).toBeCloseTo(ratio, 9);
      // As traded, the close falls by about the ratio at the split; the volume rises by it.
      const jump = none.c[at - 1]! / none.c[at]!;
      expect(jump).toBeGreaterThan(ratio * 0.8);
      expect(jump).toBeLessThan(ratio * 1.25);
      expect(none.v[at - 1]! * beforeRatio).toBeCloseTo(splits.v[at - 1]!, 2);
      // Split-adjusted, every day's move is a normal daily move, the split's day included.
      for (let i = 1; i < splits.c.length; i++) {
        const move = splits.c[i]! / splits.c[i - 1]!;
        expect({ day: dayText(splits.t[i]!), within: move > 0.8 && move < 1.25 }).toEqual({
          day: dayText(splits.t[i]!),
          within: true,
        });
      }
      // On and after the split, none and splits agree (no later split of this stock).
      expect(none.c.slice(at)).toEqual(splits.c.slice(at));
      expect(none.v.slice(at)).toEqual(splits.v.slice(at));
      // The series names its adjustment; the default's name is unchanged.
      expect(none.key).toBe(`${s.symbol}:D:${s.currency}:none`);
      expect(splits.key).toBe(`${s.symbol}:D:${s.currency}`);
    },
  );

  it("answers the default byte for byte as splits, by POST and by GET", async () => {
    const s = splitStock();
    const range = { symbol: s.symbol, from: addDays(s.split.day, -20), to: addDays(s.split.day, 20) };
    const plain = await t.post("/v1/candle", range);
    const named = await t.post("/v1/candle", { ...range, adjustment: "splits" });
    const upper = await t.post("/v1/candle", { ...range, adjustment: " SPLITS " });
    expect(plain.status).toBe(200);
    expect(named.text).toBe(plain.text);
    expect(upper.text).toBe(plain.text);
    const query = new URLSearchParams({ ...range, adjustment: "none" }).toString();
    const get = await t.http.get(`/v1/candle?${query}`).set("x-api-key", "test-bootstrap-key-0123456789");
    const post = await t.post("/v1/candle", { ...range, adjustment: "none" });
    expect(get.status).toBe(200);
    expect(get.text).toBe(post.text);
    expect(get.text).not.toBe(plain.text);
  });

  it("aggregates W bars from the adjusted daily bars", async () => {
    const s = splitStock();
    const range = { symbol: s.symbol, from: addDays(s.split.day, -30), to: addDays(s.split.day, 30) };
    const weekly = await candle({ ...range, resolution: "W", adjustment: "none" });
    // The weeks' days: the range moved out to whole weeks.
    const wide = (await t.post("/v1/candle", { ...range, resolution: "W" })).body as { from: number; to: number };
    const daily = await candle({ symbol: s.symbol, from: wide.from, to: wide.to, resolution: "D", adjustment: "none" });
    expect(weekly.t.length).toBeGreaterThan(6);
    // Each week: the first day's open, the last day's close, the highest high, the lowest low, the days' volumes.
    weekly.t.forEach((wt, i) => {
      const days = daily.t.map((dt, j) => [dt, j] as const).filter(([dt]) => dt >= wt && dt < wt + 7 * DAY);
      const js = days.map(([, j]) => j);
      expect(weekly.o[i]).toBe(daily.o[js[0]!]);
      expect(weekly.c[i]).toBe(daily.c[js[js.length - 1]!]);
      expect(weekly.h[i]).toBe(Math.max(...js.map((j) => daily.h[j]!)));
      expect(weekly.l[i]).toBe(Math.min(...js.map((j) => daily.l[j]!)));
      expect(weekly.v[i]).toBeCloseTo(
        js.reduce((sum, j) => sum + daily.v[j]!, 0),
        2,
      );
    });
  });
});

describe("candle adjustment for dividends (all)", () => {
  it.each(["v0", "v1"])(
    "/%s: equals splits on the last bar and is lower before an ex-date by the dividend factor",
    async (v) => {
      const s = dividendStock();
      const from = addDays(s.exDate, -20);
      const range = { symbol: s.symbol, from, to: TEST_ANCHOR, resolution: "D" };
      const [splits, all] = [await candle({ ...range }, v), await candle({ ...range, adjustment: "all" }, v)];
      const bars = allBars(s.listingId);
      const paid = paidBy(s.securityId);
      expect(all.t).toEqual(splits.t);
      const last = all.t.length - 1;
      expect(all.c[last]).toBe(splits.c[last]);
      expect(all.o[last]).toBe(splits.o[last]);
      expect(all.v).toEqual(splits.v);
      expect(all.key).toBe(`${s.symbol}:D:${s.currency}:all`);

      const ex = all.t.findIndex((x) => dayText(x) >= s.exDate);
      expect(ex).toBeGreaterThan(0);
      const before = bars.filter((b) => dayText(b.t) < s.exDate).pop()!;
      const amount = paid.find((d) => d.exDate === s.exDate)!.adjustedAmount;
      const factor = 1 - amount / before.c;
      expect(factor).toBeLessThan(1);
      expect(factor).toBeGreaterThan(0.8);
      all.t.forEach((x, i) => {
        const f = dividendFactor(paid, bars, dayText(x));
        for (const k of ["o", "h", "l", "c"] as const)
          expect(all[k][i]).toBe(roundMoney(splits[k][i]! * f, s.currency));
      });
      // Before the ex-date by at least that dividend's factor (and any later ex-date's): lower, by the factor.
      expect(all.c[ex - 1]!).toBeLessThan(splits.c[ex - 1]!);
      expect(all.c[ex - 1]! / splits.c[ex - 1]!).toBeCloseTo(dividendFactor(paid, bars, dayText(all.t[ex - 1]!)), 3);
      expect(dividendFactor(paid, bars, dayText(all.t[ex - 1]!))).toBeLessThanOrEqual(factor + 1e-12);
    },
  );

  it("adjusts a split stock for both: none undoes the splits, all keeps them and adds the dividends", async () => {
    const s = splitStock();
    const range = { symbol: s.symbol, from: addDays(s.split.day, -120), to: TEST_ANCHOR };
    const [splits, all] = [await candle(range), await candle({ ...range, adjustment: "all" })];
    const bars = allBars(s.listingId);
    const paid = paidBy(s.securityId);
    const factors = all.t.map((x) => dividendFactor(paid, bars, dayText(x)));
    expect(factors.some((f) => f < 1)).toBe(true);
    all.t.forEach((_, i) => expect(all.c[i]).toBe(roundMoney(splits.c[i]! * factors[i]!, s.currency)));
    expect(all.c[all.c.length - 1]).toBe(splits.c[splits.c.length - 1]);
  });
});

describe("the same numbers on every door", () => {
  it("GraphQL's candle and Stock.candles answer what REST answers", async () => {
    const s = splitStock();
    const from = unix(addDays(s.split.day, -20));
    const to = unix(addDays(s.split.day, 20));
    for (const [gqlValue, restValue] of [
      ["NONE", "none"],
      ["ALL", "all"],
      ["SPLITS", "splits"],
    ] as const) {
      const rest = await candle({ symbol: s.symbol, from, to, adjustment: restValue });
      const res = await gql(
        t,
        `query($s: String!, $f: Int!, $t: Int!, $a: CandleAdjustment) {
          candle(symbol: $s, from: $f, to: $t, adjustment: $a) { t o h l c v key }
          stock(symbol: $s) { candles(from: $f, to: $t, adjustment: $a) { t o h l c v key } }
        }`,
        { s: s.symbol, f: from, t: to, a: gqlValue },
      );
      expect(res.status).toBe(200);
      expect(res.body.errors).toBeUndefined();
      const want = { t: rest.t, o: rest.o, h: rest.h, l: rest.l, c: rest.c, v: rest.v, key: rest.key };
      expect(res.body.data.candle).toEqual(want);
      expect(res.body.data.stock.candles).toEqual(want);
    }
    // Without the argument: SPLITS.
    const plain = await gql(
      t,
      `query($s: String!, $f: Int!, $t: Int!) { candle(symbol: $s, from: $f, to: $t) { c } }`,
      {
        s: s.symbol,
        f: from,
        t: to,
      },
    );
    expect(plain.body.data.candle.c).toEqual((await candle({ symbol: s.symbol, from, to })).c);
  });

  it("bulk answers each item as the direct call, and costs the same store queries for 2 and 4 items", async () => {
    const split = splitStock();
    const payer = dividendStock();
    const params = { from: addDays(split.split.day, -20), to: TEST_ANCHOR, resolution: "D" };
    for (const adjustment of ["none", "all"]) {
      const res = await t.post("/v1/bulk", {
        endpoint: "candle",
        symbols: [{ symbol: split.symbol }, { symbol: payer.symbol }],
        params: { ...params, adjustment },
      });
      expect(res.status).toBe(200);
      for (const [i, symbol] of [split.symbol, payer.symbol].entries()) {
        const direct = await t.post("/v1/candle", { symbol, ...params, adjustment });
        expect(res.body.results[i]).toEqual({ symbol, statusCode: 200, data: direct.body });
      }
    }
    const others = t.source.db
      .prepare(
        `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
         WHERE s.type = 'stock' AND EXISTS (SELECT 1 FROM dividends d WHERE d.security_id = s.id)
         AND EXISTS (SELECT 1 FROM daily_bars b WHERE b.listing_id = l.id) AND l.symbol NOT IN (?, ?)
         ORDER BY s.rank, s.id LIMIT 2`,
      )
      .all(split.symbol, payer.symbol) as { symbol: string }[];
    expect(others).toHaveLength(2);
    const symbols = [split.symbol, payer.symbol, ...others.map((o) => o.symbol)];
    for (const adjustment of ["none", "all"]) {
      const counts: number[] = [];
      for (const n of [2, 4]) {
        const { result, queries } = await t.countQueries(() =>
          t.post("/v1/bulk", {
            endpoint: "candle",
            symbols: symbols.slice(0, n).map((symbol) => ({ symbol })),
            params: { ...params, adjustment },
          }),
        );
        expect(result.body.results.map((r: { statusCode: number }) => r.statusCode)).toEqual(Array(n).fill(200));
        counts.push(queries);
      }
      expect({ adjustment, counts }).toEqual({ adjustment, counts: [counts[0], counts[0]] });
    }
  });
});

describe("a value that is not an adjustment", () => {
  it.each(["v0", "v1"])("/%s: answers 404 INVALID_ARGUMENT naming the field, by POST and by GET", async (v) => {
    const s = splitStock();
    for (const adjustment of ["dividends", "", "split"]) {
      const res = await t.post(`/${v}/candle`, { symbol: s.symbol, adjustment });
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      expect(res.body.message).toBe("adjustment: expected one of splits, all, none");
      expect(res.body.details).toEqual([{ field: "adjustment", issue: "expected one of splits, all, none" }]);
    }
    for (const adjustment of [3, true, ["all"]]) {
      const res = await t.post(`/${v}/candle`, { symbol: s.symbol, adjustment });
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(["adjustment"]);
    }
    const get = await t.http
      .get(`/${v}/candle?symbol=${s.symbol}&adjustment=total`)
      .set("x-api-key", "test-bootstrap-key-0123456789");
    expectErrorBody(get, 404, "INVALID_ARGUMENT");
    expect(get.headers["cache-control"]).toBe("no-store");
  });

  it("fails each bulk item alone with the same error", async () => {
    const s = splitStock();
    const res = await t.post("/v1/bulk", {
      endpoint: "candle",
      symbols: [{ symbol: s.symbol }],
      params: { adjustment: "total" },
    });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({
      symbol: s.symbol,
      statusCode: 404,
      error: { code: "INVALID_ARGUMENT", message: "adjustment: expected one of splits, all, none" },
    });
  });

  it("is refused by GraphQL's enum, as a literal and as a variable", async () => {
    const s = splitStock();
    const literal = await gql(t, `{ candle(symbol: "${s.symbol}", adjustment: TOTAL) { c } }`);
    expect(literal.status).toBe(400);
    expect(literal.body.errors[0].extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");
    const variable = await gql(
      t,
      `query($a: CandleAdjustment) { candle(symbol: "${s.symbol}", adjustment: $a) { c } }`,
      {
        a: "splits",
      },
    );
    expect(variable.status).toBe(400);
    expect(variable.body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
  });
});
