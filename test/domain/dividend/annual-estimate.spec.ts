import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";
import {
  dayText,
  dividendPayer,
  perUsd,
  storedDividends,
  type SampleListing,
  type StoredDividend,
} from "../../helpers/stock-samples";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const DAY_MS = 86_400_000;
const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
const known = (d: StoredDividend) =>
  d.exDate <= TEST_ANCHOR || d.declarationDate == null || d.declarationDate <= TEST_ANCHOR;

const TYPES = ["stock", "etf", "fund"] as const;
/** The largest payer of each type (funds named by ISIN, as their clients do). */
const payer = (type: string) => dividendPayer(t.source.db, type);
const ref = (s: SampleListing) => (s.type === "fund" ? { isin: s.isin } : { symbol: s.symbol });

describe.each(["v0", "v1"])("POST /%s/dividends/annual", (v) => {
  it.each(TYPES)("sums dividends per calendar year with counts and growth for a %s", async (type) => {
    const s = payer(type);
    const res = await t.post(`/${v}/dividends/annual`, ref(s));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        "symbol",
        "isin",
        "currency",
        "frequency",
        "years",
        "latestDividend",
        "forwardAnnualDividend",
        "forwardYield",
        "price",
        "priceCurrency",
      ].sort(),
    );
    expect(res.body).toMatchObject({ symbol: s.symbol, isin: s.isin, price: s.c, priceCurrency: s.currency });

    const rows = storedDividends(t.source.db, s.securityId).filter(known);
    const past = rows.filter((d) => d.exDate <= TEST_ANCHOR);
    const first = Number(past[0]!.exDate.slice(0, 4));
    const thisYear = Number(TEST_ANCHOR.slice(0, 4));
    expect(res.body.years.map((y: { year: number }) => y.year)).toEqual(
      Array.from({ length: thisYear - first + 1 }, (_, i) => first + i),
    );
    let prev: number | null = null;
    for (const y of res.body.years) {
      const inYear = past.filter((d) => d.exDate.startsWith(`${y.year}-`));
      const adjusted = inYear.reduce((a, d) => a + d.adjustedAmount, 0);
      expect(y.count).toBe(inYear.length);
      expect(y.amount).toBeCloseTo(
        inYear.reduce((a, d) => a + d.amount, 0),
        5,
      );
      expect(y.adjustedAmount).toBeCloseTo(adjusted, 5);
      expect(y.complete).toBe(y.year < thisYear);
      if (prev == null || prev === 0) expect(y.growth).toBeNull();
      else expect(y.growth).toBeCloseTo((adjusted / prev - 1) * 100, 2);
      prev = adjusted;
    }

    // Forward: the latest known dividend (announced first) × its frequency; yield at the latest price.
    const latest = rows[rows.length - 1]!;
    expect(res.body.latestDividend).toEqual({
      date: latest.exDate,
      recordDate: latest.recordDate,
      payDate: latest.payDate,
      declarationDate: latest.declarationDate,
      amount: latest.amount,
      adjustedAmount: latest.adjustedAmount,
      currency: latest.currency,
    });
    expect(res.body.currency).toBe(latest.currency);
    expect(res.body.frequency).toBe(latest.frequency);
    const forward = latest.adjustedAmount * latest.frequency;
    expect(res.body.forwardAnnualDividend).toBeCloseTo(forward, 5);
    const day = dayText(s.t);
    const fx = perUsd(t.source.db, s.currency, day) / perUsd(t.source.db, latest.currency, day);
    expect(res.body.forwardYield).toBeCloseTo(((forward * fx) / s.c) * 100, 3);
  });

  it("answers a stock by symbol or ISIN alike", async () => {
    const s = payer("stock");
    const a = await t.post(`/${v}/dividends/annual`, { symbol: s.symbol });
    const b = await t.post(`/${v}/dividends/annual`, { isin: s.isin });
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
  });

  // A known security that never paid answers 200 with an empty table: test/http/empty-answers.spec.ts.
  it("answers 404 NOT_FOUND for an unknown symbol or ISIN", async () => {
    expectErrorBody(await t.post(`/${v}/dividends/annual`, { symbol: "NOPE.NOPE" }), 404, "NOT_FOUND");
    expectErrorBody(await t.post(`/${v}/dividends/annual`, { isin: "XS0000000009" }), 404, "NOT_FOUND");
  });

  it("answers 404 INVALID_ARGUMENT for a malformed ISIN or a missing identifier", async () => {
    expectErrorBody(await t.post(`/${v}/dividends/annual`, { isin: "US0378331006" }), 404, "INVALID_ARGUMENT");
    expectErrorBody(await t.post(`/${v}/dividends/annual`, {}), 404, "INVALID_ARGUMENT");
  });
});

/**
 * The documented method, written again here from its description: announced
 * rows in (today, today + 12 months]; then from the latest known dividend, one
 * payment every 12/frequency months on the same day of the month (clamped to
 * the month's end, moved off weekends to Monday), amount = its adjusted
 * amount, pay date at the median pay lag of the last four dividends.
 */
function expectedEstimate(rows: StoredDividend[]) {
  const to = (() => {
    const d = new Date(`${TEST_ANCHOR}T00:00:00Z`);
    return new Date(Date.UTC(d.getUTCFullYear() + 1, d.getUTCMonth(), d.getUTCDate())).toISOString().slice(0, 10);
  })();
  const announced = rows
    .filter((d) => d.exDate > TEST_ANCHOR && d.exDate <= to)
    .map((d) => ({ date: d.exDate, adjustedAmount: d.adjustedAmount, status: "announced" }));
  const latest = rows[rows.length - 1]!;
  const months = Math.round(12 / latest.frequency);
  const lags = rows
    .slice(-4)
    .filter((d) => d.payDate)
    .map((d) => (Date.parse(d.payDate!) - Date.parse(d.exDate)) / DAY_MS)
    .sort((a, b) => a - b);
  const lag =
    lags.length % 2 ? lags[lags.length >> 1]! : Math.round((lags[lags.length / 2 - 1]! + lags[lags.length / 2]!) / 2);
  const estimated: { date: string; adjustedAmount: number; status: string; payDate: string }[] = [];
  const [y, m, dd] = latest.exDate.split("-").map(Number) as [number, number, number];
  for (let k = 1; k <= 24; k++) {
    const lastDay = new Date(Date.UTC(y, m - 1 + k * months + 1, 0)).getUTCDate();
    let ex = new Date(Date.UTC(y, m - 1 + k * months, Math.min(dd, lastDay)));
    while (ex.getUTCDay() === 0 || ex.getUTCDay() === 6) ex = new Date(ex.getTime() + DAY_MS);
    const date = ex.toISOString().slice(0, 10);
    if (date > to) break;
    if (date <= TEST_ANCHOR) continue;
    estimated.push({ date, adjustedAmount: latest.adjustedAmount, status: "estimated", payDate: addDays(date, lag) });
  }
  return { to, announced, estimated, latest };
}

describe.each(["v0", "v1"])("dividend estimates on /%s", (v) => {
  it.each(TYPES)("etf/dividend-estimate answers announced then estimated payments for a %s", async (type) => {
    const s = type === "fund" ? payer(type) : dividendPayer(t.source.db, type, { announced: true });
    const res = await t.post(`/${v}/etf/dividend-estimate`, ref(s));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      "currency",
      "dividends",
      "frequency",
      "from",
      "isin",
      "method",
      "symbol",
      "to",
      "total",
    ]);
    const rows = storedDividends(t.source.db, s.securityId).filter(known);
    const e = expectedEstimate(rows);
    expect(res.body).toMatchObject({
      symbol: s.symbol,
      from: addDays(TEST_ANCHOR, 1),
      to: e.to,
      frequency: e.latest.frequency,
      currency: e.latest.currency,
    });
    const got = res.body.dividends as {
      date: string;
      adjustedAmount: number;
      amount: number;
      status: string;
      payDate: string | null;
      declarationDate: string | null;
    }[];
    expect(got.map((d) => ({ date: d.date, adjustedAmount: d.adjustedAmount, status: d.status }))).toEqual([
      ...e.announced,
      ...e.estimated.map(({ date, adjustedAmount, status }) => ({ date, adjustedAmount, status })),
    ]);
    if (type !== "fund") expect(e.announced.length).toBeGreaterThan(0);
    expect(e.estimated.length).toBeGreaterThan(0);
    for (const d of got.filter((x) => x.status === "estimated")) {
      expect(d.declarationDate).toBeNull();
      expect(d.amount).toBe(d.adjustedAmount);
      expect(d.payDate).toBe(e.estimated.find((x) => x.date === d.date)!.payDate);
    }
    expect(res.body.total).toBeCloseTo(
      got.reduce((a, d) => a + d.adjustedAmount, 0),
      6,
    );
    expect(res.body.method).toContain(`latest known ex-date ${e.latest.exDate}`);
  });

  it("stock/dividend-estimate answers the same for a stock, and NOT_FOUND for an ETF", async () => {
    const s = dividendPayer(t.source.db, "stock", { announced: true });
    const a = await t.post(`/${v}/stock/dividend-estimate`, { symbol: s.symbol });
    expect(a.status).toBe(200);
    expect(a.body).toEqual((await t.post(`/${v}/etf/dividend-estimate`, { symbol: s.symbol })).body);
    expectErrorBody(await t.post(`/${v}/stock/dividend-estimate`, { symbol: payer("etf").symbol }), 404, "NOT_FOUND");
  });

  // A known non-payer answers 200 with no rows: test/http/empty-answers.spec.ts.
  it("answers 404 NOT_FOUND for an unknown symbol, INVALID_ARGUMENT without one", async () => {
    expectErrorBody(await t.post(`/${v}/etf/dividend-estimate`, { symbol: "NOPE.NOPE" }), 404, "NOT_FOUND");
    expectErrorBody(await t.post(`/${v}/etf/dividend-estimate`, { symbol: "" }), 404, "INVALID_ARGUMENT");
  });

  it("needs the dividend scope", async () => {
    const etfOnly = await t.apiKeys.create({ name: "estimate-etf-only", scopes: ["etf", "stock"] });
    expectErrorBody(
      await t.post(`/${v}/etf/dividend-estimate`, { symbol: payer("etf").symbol }, etfOnly.key),
      403,
      "FORBIDDEN",
    );
    expectErrorBody(
      await t.post(`/${v}/stock/dividend-estimate`, { symbol: payer("stock").symbol }, etfOnly.key),
      403,
      "FORBIDDEN",
    );
  });
});
