import { computeTtm } from "../../../src/domain/stock/stock.service";
import type { QuarterlyFinancialsRow } from "../../../src/domain/ports/source.types";

function quarter(i: number, over: Partial<QuarterlyFinancialsRow> = {}): QuarterlyFinancialsRow {
  return {
    periodEnd: `2026-0${i}-28`,
    fiscalYear: 2026,
    fiscalQuarter: i,
    reportedDate: `2026-0${i + 1}-10`,
    currency: "USD",
    revenue: 100 * i,
    costOfRevenue: 40 * i,
    grossProfit: 60 * i,
    operatingIncome: 20 * i,
    netIncome: 10 * i,
    eps: 0.1 * i,
    totalAssets: 1000 * i,
    totalLiabilities: 600 * i,
    totalEquity: 400 * i,
    cash: 50 * i,
    totalDebt: 200 * i,
    sharesOutstanding: 100,
    operatingCashFlow: 15 * i,
    capex: -5 * i,
    freeCashFlow: 10 * i,
    dividendsPaid: -2 * i,
    currentAssets: null,
    currentLiabilities: null,
    inventory: null,
    accountsReceivable: null,
    accountsPayable: null,
    depreciationAmortization: null,
    stockBasedCompensation: null,
    ...over,
  };
}

describe("TTM arithmetic", () => {
  it("sums flows of the last four quarters and takes the balance sheet of the latest", () => {
    const r = computeTtm([quarter(1), quarter(2), quarter(3), quarter(4), quarter(5)], 20);
    // Quarters 2..5: revenue 1400, gross 840, operating 280, net 140, EPS 1.4.
    expect(r.used.map((q) => q.fiscalQuarter)).toEqual([2, 3, 4, 5]);
    expect(r.ttm).toEqual({
      revenue: 1400,
      costOfRevenue: 560,
      grossProfit: 840,
      operatingIncome: 280,
      netIncome: 140,
      eps: 1.4,
      operatingCashFlow: 210,
      capex: -70,
      freeCashFlow: 140,
      dividendsPaid: -28,
    });
    expect(r.balanceSheet).toEqual({
      totalAssets: 5000,
      totalLiabilities: 3000,
      totalEquity: 2000,
      cash: 250,
      totalDebt: 1000,
      sharesOutstanding: 100,
    });
    expect(r.ratios).toEqual({
      grossMargin: 60,
      operatingMargin: 20,
      netMargin: 10,
      returnOnEquity: 7,
      returnOnAssets: 2.8,
      debtToEquity: 0.5,
      peRatio: 14.2857,
      psRatio: 1.4286,
    });
    expect(r.marketCapitalization).toBe(2000);
  });

  it("answers null ratios where the denominator is not positive", () => {
    const r = computeTtm(
      [1, 2, 3, 4].map((i) => quarter(i, { eps: -0.5, totalEquity: -10 })),
      20,
    );
    expect(r.ratios.peRatio).toBeNull();
    expect(r.ratios.returnOnEquity).toBeNull();
    expect(r.ratios.debtToEquity).toBeNull();
  });
});
