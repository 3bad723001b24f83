import { fixedClock } from "../../../src/platform/clock";
import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";
import {
  dayText,
  perUsd,
  stockReportingInOtherCurrency,
  stockWithQuarters,
  type SampleListing,
} from "../../helpers/stock-samples";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface Quarter {
  periodEnd: string;
  reportedDate: string;
  currency: string;
  [k: string]: number | string;
}

function storedQuarters(securityId: number, asOf = TEST_ANCHOR): Quarter[] {
  const rows = t.source.db
    .prepare(`SELECT * FROM quarterly_financials WHERE security_id = ? AND reported_date <= ? ORDER BY period_end`)
    .all(securityId, asOf) as Record<string, number | string>[];
  // snake_case columns to the API's camelCase
  return rows.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), v]),
    ),
  ) as Quarter[];
}

const FLOWS = [
  "revenue",
  "costOfRevenue",
  "grossProfit",
  "operatingIncome",
  "netIncome",
  "eps",
  "operatingCashFlow",
  "capex",
  "freeCashFlow",
  "dividendsPaid",
];
const BALANCE = ["totalAssets", "totalLiabilities", "totalEquity", "cash", "totalDebt", "sharesOutstanding"];

/** The parts of a TTM answer that expectTtm reads. */
interface TtmBody {
  quarters: Quarter[];
  ttm: Record<string, number>;
  balanceSheet: Record<string, number>;
  price: { c: number; currency: string; t: number; fxRate: number };
  ratios: Record<string, number | null>;
}

/** Checks the answer against the stored quarters, with every figure recomputed here. */
function expectTtm(body: TtmBody, s: SampleListing) {
  const last4 = storedQuarters(s.securityId).slice(-4);
  expect(last4).toHaveLength(4);
  const latest = last4[3]!;
  expect(body).toMatchObject({ symbol: s.symbol, currency: latest.currency, asOf: latest.periodEnd });
  expect(body.quarters.map((q: Quarter) => q.periodEnd)).toEqual(last4.map((q) => q.periodEnd));
  const sum = (f: string) => last4.reduce((acc, q) => acc + (q[f] as number), 0);
  for (const f of FLOWS) expect(body.ttm[f]).toBeCloseTo(sum(f), f === "eps" ? 5 : 2);
  for (const f of BALANCE) expect(body.balanceSheet[f]).toBe(latest[f]);

  const day = dayText(s.t);
  const fx = perUsd(t.source.db, latest.currency, day) / perUsd(t.source.db, s.currency, day);
  const price = s.c * fx;
  expect(body.price).toMatchObject({ c: s.c, currency: s.currency, t: s.t });
  expect(body.price.fxRate).toBeCloseTo(fx, 7);
  const pct = (a: number, b: number) => (a / b) * 100;
  const r = body.ratios;
  expect(r.grossMargin).toBeCloseTo(pct(sum("grossProfit"), sum("revenue")), 3);
  expect(r.operatingMargin).toBeCloseTo(pct(sum("operatingIncome"), sum("revenue")), 3);
  expect(r.netMargin).toBeCloseTo(pct(sum("netIncome"), sum("revenue")), 3);
  if ((latest.totalEquity as number) > 0) {
    expect(r.returnOnEquity).toBeCloseTo(pct(sum("netIncome"), latest.totalEquity as number), 3);
    expect(r.debtToEquity).toBeCloseTo((latest.totalDebt as number) / (latest.totalEquity as number), 3);
  }
  expect(r.returnOnAssets).toBeCloseTo(pct(sum("netIncome"), latest.totalAssets as number), 3);
  if (sum("eps") > 0) expect(r.peRatio).toBeCloseTo(price / sum("eps"), 2);
  else expect(r.peRatio).toBeNull();
  expect(r.psRatio).toBeCloseTo((price * (latest.sharesOutstanding as number)) / sum("revenue"), 2);
}

describe.each(["v0", "v1"])("POST /%s/stock/financials/ttm", (v) => {
  it("sums the last four reported quarters, takes the latest balance sheet and derives the ratios", async () => {
    const s = stockWithQuarters(t.source.db, 8);
    const res = await t.post(`/${v}/stock/financials/ttm`, { symbol: s.symbol });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      "asOf",
      "balanceSheet",
      "currency",
      "price",
      "quarters",
      "ratios",
      "symbol",
      "ttm",
    ]);
    expect(res.body.quarters).toHaveLength(4);
    expectTtm(res.body, s);
  });

  it("converts the price into the reporting currency for P/E and P/S", async () => {
    const s = stockReportingInOtherCurrency(t.source.db);
    if (!s) return; // the sample store has no such listing at this scale
    const res = await t.post(`/${v}/stock/financials/ttm`, { symbol: s.symbol });
    expect(res.status).toBe(200);
    expect(res.body.price.fxRate).not.toBe(1);
    expectTtm(res.body, s);
  });

  it("takes only quarters reported by the clock's day: fewer than four answer them with null figures", async () => {
    const s = stockWithQuarters(t.source.db, 4);
    const q = storedQuarters(s.securityId);
    // The day before the fourth quarter was reported, only three were.
    const before = new Date(Date.parse(`${q[3]!.reportedDate}T00:00:00Z`) - 86_400_000).toISOString();
    const early = await createTestApp({ clock: fixedClock(before) });
    try {
      const res = await early.post(`/${v}/stock/financials/ttm`, { symbol: s.symbol });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ symbol: s.symbol, ttm: null, balanceSheet: null, ratios: null, price: null });
      const three = q.slice(0, 3);
      expect(res.body.quarters.map((x: { periodEnd: string }) => x.periodEnd)).toEqual(three.map((x) => x.periodEnd));
      expect(res.body.asOf).toBe(three[2]!.periodEnd);
    } finally {
      await early.close();
    }
  });

  it("answers 404 NOT_FOUND for an ETF and an unknown symbol", async () => {
    const etf = t.source.db
      .prepare(`SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id WHERE s.type = 'etf' LIMIT 1`)
      .get() as {
      symbol: string;
    };
    expectErrorBody(await t.post(`/${v}/stock/financials/ttm`, { symbol: etf.symbol }), 404, "NOT_FOUND");
    expectErrorBody(await t.post(`/${v}/stock/financials/ttm`, { symbol: "NOPE.NOPE" }), 404, "NOT_FOUND");
  });

  it("answers 404 INVALID_ARGUMENT for a missing or ill-typed symbol", async () => {
    expectErrorBody(await t.post(`/${v}/stock/financials/ttm`, {}), 404, "INVALID_ARGUMENT");
    expectErrorBody(await t.post(`/${v}/stock/financials/ttm`, { symbol: 42 }), 404, "INVALID_ARGUMENT");
  });

  it("needs the stock scope", async () => {
    const dividendOnly = await t.apiKeys.create({ name: "ttm-dividend-only", scopes: ["dividend"] });
    const s = stockWithQuarters(t.source.db, 4);
    expectErrorBody(
      await t.post(`/${v}/stock/financials/ttm`, { symbol: s.symbol }, dividendOnly.key),
      403,
      "FORBIDDEN",
    );
  });
});
