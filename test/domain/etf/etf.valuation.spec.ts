import { aggregateValuation, holdingValuation, shiftYears } from "../../../src/domain/etf/etf.valuation";
import type { DividendRow, QuarterlyFinancialsRow, SecurityRow } from "../../../src/domain/ports/source.types";

function security(over: Partial<SecurityRow>): SecurityRow {
  return {
    id: 1,
    type: "stock",
    name: "Acme",
    isin: null,
    cusip: null,
    country: "US",
    sector: "Industrials",
    industry: null,
    currency: "USD",
    marketCap: 1e9,
    sharesOutstanding: 1e8,
    isAdr: false,
    isActive: true,
    description: null,
    website: null,
    ipoDate: null,
    nextEarningsDate: null,
    rank: null,
    epsTtm: null,
    netIncomeTtm: null,
    ...over,
  };
}

function quarter(periodEnd: string, netIncome: number, totalEquity: number, currency = "USD"): QuarterlyFinancialsRow {
  return {
    periodEnd,
    fiscalYear: 2024,
    fiscalQuarter: 1,
    reportedDate: periodEnd,
    currency,
    revenue: 0,
    costOfRevenue: 0,
    grossProfit: 0,
    operatingIncome: 0,
    netIncome,
    eps: 0,
    totalAssets: 0,
    totalLiabilities: 0,
    totalEquity,
    cash: 0,
    totalDebt: 0,
    sharesOutstanding: 0,
    operatingCashFlow: 0,
    capex: 0,
    freeCashFlow: 0,
    dividendsPaid: 0,
    currentAssets: null,
    currentLiabilities: null,
    inventory: null,
    accountsReceivable: null,
    accountsPayable: null,
    depreciationAmortization: null,
    stockBasedCompensation: null,
  };
}

function dividend(exDate: string, adjustedAmount: number, currency = "USD"): DividendRow {
  return {
    securityId: 1,
    exDate,
    recordDate: null,
    payDate: null,
    declarationDate: null,
    amount: adjustedAmount,
    adjustedAmount,
    currency,
    frequency: 4,
  };
}

const QUARTERS = [
  quarter("2023-12-31", 1, 1),
  quarter("2024-03-31", 10e6, 300e6),
  quarter("2024-06-30", 20e6, 310e6),
  quarter("2024-09-30", 30e6, 320e6),
  quarter("2024-12-31", 40e6, 400e6),
];

describe("holdingValuation", () => {
  it("derives earnings and book yields from TTM net income and the latest equity", () => {
    const h = holdingValuation(5, security({ marketCap: 2e9 }), QUARTERS, [], 1, "2025-01-15");
    expect(h.earningsYield).toBeCloseTo(100e6 / 2e9, 12);
    expect(h.bookYield).toBeCloseTo(400e6 / 2e9, 12);
    expect(h.dividendYield).toBe(0);
    expect(h.marketCapUsd).toBe(2e9);
  });

  it("counts dividends with an ex-date in the year up to the day, per share × shares / market cap", () => {
    const divs = [
      dividend("2024-01-15", 9),
      dividend("2024-04-15", 0.5),
      dividend("2024-10-15", 0.5),
      dividend("2025-01-15", 0.5),
      dividend("2025-04-15", 0.5),
    ];
    const h = holdingValuation(5, security({ marketCap: 1e9, sharesOutstanding: 1e8 }), [], divs, 1, "2025-01-15");
    expect(h.dividendYield).toBeCloseTo(((1.5 * 1e8) / 1e9) * 100, 12);
    expect(h.earningsYield).toBeNull();
  });

  it("converts market cap into USD with units per USD", () => {
    expect(
      holdingValuation(1, security({ currency: "JPY", marketCap: 1.5e12 }), [], [], 150, "2025-01-15").marketCapUsd,
    ).toBeCloseTo(1e10, 3);
  });

  it("contributes nothing for an unknown security or one without a market cap", () => {
    expect(holdingValuation(3, null, [], [], null, "2025-01-15")).toEqual({
      weight: 3,
      earningsYield: null,
      bookYield: null,
      dividendYield: null,
      marketCapUsd: null,
    });
    expect(holdingValuation(3, security({ marketCap: null }), QUARTERS, [], 1, "2025-01-15").earningsYield).toBeNull();
  });
});

describe("aggregateValuation", () => {
  it("takes weighted harmonic P/E and P/B, a weighted dividend yield and a cap breakdown summing to 100", () => {
    const v = aggregateValuation([
      { weight: 50, earningsYield: 0.05, bookYield: 0.25, dividendYield: 2, marketCapUsd: 50e9 },
      { weight: 30, earningsYield: 0.1, bookYield: 0.5, dividendYield: 4, marketCapUsd: 5e9 },
      { weight: 15, earningsYield: null, bookYield: null, dividendYield: 0, marketCapUsd: 1e9 },
      { weight: 5, earningsYield: null, bookYield: null, dividendYield: null, marketCapUsd: null },
    ]);
    expect(v.peRatio).toBeCloseTo(80 / (50 * 0.05 + 30 * 0.1), 12);
    expect(v.pbRatio).toBeCloseTo(80 / (50 * 0.25 + 30 * 0.5), 12);
    expect(v.dividendYield).toBeCloseTo((50 * 2 + 30 * 4) / 95, 12);
    expect(v.coveredWeight).toBe(95);
    expect(v.marketCapBreakdown).toEqual({ large: 50, mid: 30, small: 15, unclassified: 5 });
  });

  it("answers null ratios when the aggregate earnings are not positive", () => {
    const v = aggregateValuation([
      { weight: 100, earningsYield: -0.02, bookYield: null, dividendYield: null, marketCapUsd: null },
    ]);
    expect(v.peRatio).toBeNull();
    expect(v.pbRatio).toBeNull();
    expect(v.dividendYield).toBeNull();
  });

  it("shifts days by whole years", () => {
    expect(shiftYears("2025-01-15", -1)).toBe("2024-01-15");
    expect(shiftYears("2024-02-29", -1)).toBe("2023-03-01");
  });
});
