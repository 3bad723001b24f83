import { roundMoney } from "../../../src/domain/fx/fx.service";
import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";
import { gql } from "../../helpers/graphql";
import { dayText, dividendPayer, perUsd, stockWithQuarters, storedDividends } from "../../helpers/stock-samples";

/** `currency` on TTM financials and annual dividends: every money figure converted at its own day's rate. */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** Units of `to` per unit of `from` on `day` (the last stored rate on or before it). */
const rate = (from: string, to: string, day: string) => perUsd(t.source.db, to, day) / perUsd(t.source.db, from, day);
const other = (currency: string) => (currency === "EUR" ? "GBP" : "EUR");

const QUARTER_MONEY = [
  "revenue",
  "costOfRevenue",
  "grossProfit",
  "operatingIncome",
  "netIncome",
  "operatingCashFlow",
  "capex",
  "freeCashFlow",
  "dividendsPaid",
  "totalAssets",
  "totalLiabilities",
  "totalEquity",
  "cash",
  "totalDebt",
];

type Row = Record<string, number | string>;

describe("stock/financials/ttm with currency", () => {
  it("converts each quarter at its period end's rate, sums the converted ones, and names the currency", async () => {
    const s = stockWithQuarters(t.source.db, 4);
    const own = await t.post("/v1/stock/financials/ttm", { symbol: s.symbol });
    expect(own.status).toBe(200);
    const reporting = own.body.currency as string;
    const target = other(reporting);
    const res = await t.post("/v1/stock/financials/ttm", { symbol: s.symbol, currency: target.toLowerCase() });
    expect(res.status).toBe(200);
    expect(res.body.currency).toBe(target);
    expect(res.body.quarters).toHaveLength(4);
    (res.body.quarters as Row[]).forEach((q, i) => {
      const mine = own.body.quarters[i] as Row;
      const fx = rate(reporting, target, mine.periodEnd as string);
      for (const f of QUARTER_MONEY) expect([f, q[f]]).toEqual([f, roundMoney((mine[f] as number) * fx, target)]);
      expect(q.eps).toBeCloseTo((mine.eps as number) * fx, 6);
      expect(q.sharesOutstanding).toBe(mine.sharesOutstanding);
      expect(q.periodEnd).toBe(mine.periodEnd);
    });
    const sum = (f: string) => (res.body.quarters as Row[]).reduce((a, q) => a + (q[f] as number), 0);
    expect(res.body.ttm.revenue).toBeCloseTo(sum("revenue"), 4);
    expect(res.body.ttm.netIncome).toBeCloseTo(sum("netIncome"), 4);
    expect(res.body.balanceSheet.totalAssets).toBe(res.body.quarters[3].totalAssets);
    expect(res.body.balanceSheet.sharesOutstanding).toBe(own.body.balanceSheet.sharesOutstanding);
    // Ratios are not money: the same in any currency.
    expect(res.body.ratios).toEqual(own.body.ratios);
    if (own.body.price) {
      const fx = rate(s.currency, target, dayText(s.t));
      expect(res.body.price.c).toBe(own.body.price.c);
      expect(res.body.price.fxRate).toBeCloseTo(fx, 7);
      expect(res.body.price.inReportingCurrency).toBe(roundMoney(s.c * fx, target));
    }
  });

  it("answers as before without currency or with the reporting currency itself", async () => {
    const s = stockWithQuarters(t.source.db, 4);
    const own = await t.post("/v1/stock/financials/ttm", { symbol: s.symbol });
    const same = await t.post("/v1/stock/financials/ttm", { symbol: s.symbol, currency: own.body.currency });
    expect(same.body).toEqual(own.body);
  });

  it("refuses a currency that is not ISO 4217", async () => {
    const s = stockWithQuarters(t.source.db, 4);
    const res = await t.post("/v1/stock/financials/ttm", { symbol: s.symbol, currency: "XYZ" });
    expectErrorBody(res, 404, "INVALID_ARGUMENT");
    expect(res.body.details[0].field).toBe("currency");
  });
});

describe("dividends/annual with currency", () => {
  it("converts each dividend at its ex-date's rate and the price at its day's, and names the currency", async () => {
    const s = dividendPayer(t.source.db, "stock");
    const own = await t.post("/v1/dividends/annual", { symbol: s.symbol });
    expect(own.status).toBe(200);
    const paidIn = own.body.currency as string;
    const target = other(paidIn);
    const res = await t.post("/v1/dividends/annual", { symbol: s.symbol, currency: target });
    expect(res.status).toBe(200);
    expect({ currency: res.body.currency, priceCurrency: res.body.priceCurrency }).toEqual({
      currency: target,
      priceCurrency: target,
    });
    const latest = own.body.latestDividend as Row;
    const fx = rate(paidIn, target, latest.date as string);
    expect(res.body.latestDividend).toMatchObject({
      date: latest.date,
      currency: target,
      amount: roundMoney((latest.amount as number) * fx, target),
      adjustedAmount: roundMoney((latest.adjustedAmount as number) * fx, target),
    });
    expect(res.body.price).toBe(roundMoney(s.c * rate(s.currency, target, dayText(s.t)), target));
    // Each year sums its dividends converted one by one.
    const past = storedDividends(t.source.db, s.securityId).filter((d) => d.exDate <= TEST_ANCHOR);
    for (const y of res.body.years as { year: number; amount: number; count: number }[]) {
      const inYear = past.filter((d) => Number(d.exDate.slice(0, 4)) === y.year);
      const expected = inYear.reduce(
        (a, d) => a + roundMoney(d.amount * rate(d.currency, target, d.exDate), target),
        0,
      );
      expect([y.year, y.count]).toEqual([y.year, inYear.length]);
      expect(y.amount).toBeCloseTo(expected, 6);
    }
    // The yield is a ratio: the same in any currency.
    expect(res.body.forwardYield).toBe(own.body.forwardYield);
    expect(res.body.frequency).toBe(own.body.frequency);
  });

  it("is the same through GraphQL, on the query and on the stock", async () => {
    const s = dividendPayer(t.source.db, "stock");
    const rest = await t.post("/v1/dividends/annual", { symbol: s.symbol, currency: "JPY" });
    const ttm = await t.post("/v1/stock/financials/ttm", { symbol: s.symbol, currency: "JPY" });
    const res = await gql(
      t,
      `query($s: String!) {
        annualDividends(symbol: $s, currency: "JPY") { currency forwardAnnualDividend price }
        stock(symbol: $s) {
          annualDividends(currency: "JPY") { currency forwardAnnualDividend }
          financialsTtm(currency: "JPY") { currency ttm { revenue } }
        }
      }`,
      { s: s.symbol },
    );
    expect(res.body.errors).toBeUndefined();
    const d = res.body.data;
    expect(d.annualDividends).toEqual({
      currency: "JPY",
      forwardAnnualDividend: rest.body.forwardAnnualDividend,
      price: rest.body.price,
    });
    expect(d.stock.annualDividends.forwardAnnualDividend).toBe(rest.body.forwardAnnualDividend);
    expect(d.stock.financialsTtm.currency).toBe("JPY");
    expect(d.stock.financialsTtm.ttm?.revenue ?? null).toBe(ttm.body.ttm?.revenue ?? null);
    // Yen has no minor unit: a converted price of a yen or more is whole.
    if (rest.body.price >= 1) expect(Number.isInteger(rest.body.price)).toBe(true);
  });
});
