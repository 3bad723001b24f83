import {
  correlation,
  drawdowns,
  kurtosis,
  performanceStats,
  riskReturnRatio,
  skew,
  valueSeries,
  type PositionBars,
} from "../../../src/domain/portfolio/portfolio.maths";

const DAY = 86_400;
/** 2025-01-06, a Monday. */
const T0 = Date.UTC(2025, 0, 6) / 1000;
const days = (n: number, from = 0) => Float64Array.from({ length: n }, (_, i) => T0 + (from + i) * DAY);

function position(symbol: string, amount: number, closes: number[], from = 0): PositionBars {
  const c = Float64Array.from(closes);
  return { symbol, amount, t: days(closes.length, from), o: c, h: c, l: c, c, v: new Float64Array(closes.length) };
}

describe("portfolio maths on a small series, checked by hand", () => {
  // Daily returns +10 %, -10 %, +10 %, -10 %.
  const t = days(5);
  const v = Float64Array.from([100, 110, 99, 108.9, 98.01]);
  const s = performanceStats(t, v, 0);

  it("answers total return, drawdown, best and worst day", () => {
    expect(s.totalReturn).toBeCloseTo(-0.0199, 12);
    expect(s.maxDrawdown).toBeCloseTo(98.01 / 110 - 1, 12);
    expect(s.bestDay).toBeCloseTo(0.1, 12);
    expect(s.worstDay).toBeCloseTo(-0.1, 12);
  });

  it("answers the moments of the daily returns: mean 0, volatility, skew 0, excess kurtosis -6", () => {
    expect(s.dailyMean).toBeCloseTo(0, 12);
    // Sample standard deviation sqrt(4 × 0.01 / 3), annualised by sqrt(252).
    expect(s.dailyVolume).toBeCloseTo(Math.sqrt(0.04 / 3) * Math.sqrt(252), 10);
    expect(s.dailySkew).toBeCloseTo(0, 12);
    expect(s.dailyKurt).toBeCloseTo(-6, 10);
    expect(s.dailySharpe).toBeCloseTo(0, 12);
    expect(s.dailySortino).toBeCloseTo(0, 12);
  });

  it("answers 0 for the figures a five-day range is too short for", () => {
    expect([s.oneYear, s.threeYear, s.threeMonth, s.yearlyVol, s.twelveMonthWinPerc]).toEqual([0, 0, 0, 0, 0]);
  });

  it("reads drawdowns from peak to recovery", () => {
    // 100 -> 110 (peak) -> 99 -> 121 (recovered): one drawdown of -10 %, two days long.
    const d = drawdowns(days(4), Float64Array.from([100, 110, 99, 121]));
    expect(d).toEqual([{ depth: expect.closeTo(-0.1, 12) as number, days: 2 }]);
    const st = performanceStats(days(4), Float64Array.from([100, 110, 99, 121]), 0);
    expect(st.avgDrawdown).toBeCloseTo(-0.1, 12);
    expect(st.avgDrawdownDays).toBe(2);
    expect(st.calmar / (st.cagr / 0.1)).toBeCloseTo(1, 10);
  });

  it("computes skew, kurtosis, risk-return ratio and correlation as pandas and numpy do", () => {
    // By the central moments (m2 = 12.5, m3 = 45, m4 = 348.5): G1 = g1 × sqrt(n(n - 1)) / (n - 2) and
    // G2 = ((n + 1) g2 + 6)(n - 1) / ((n - 2)(n - 3)), the bias-corrected forms pandas answers.
    const g1 = 45 / 12.5 ** 1.5;
    const g2 = 348.5 / 12.5 ** 2 - 3;
    const xs = [1, 2, 3, 10];
    const m = 4;
    const sd = Math.sqrt(((1 - m) ** 2 + (2 - m) ** 2 + (3 - m) ** 2 + (10 - m) ** 2) / 3);
    const z = xs.map((x) => (x - m) / sd);
    expect(skew(xs)).toBeCloseTo((4 / (3 * 2)) * z.reduce((a, b) => a + b ** 3, 0), 12);
    expect(skew(xs)).toBeCloseTo((g1 * Math.sqrt(12)) / 2, 12);
    expect(skew(xs)).toBeCloseTo(1.7636, 4);
    expect(kurtosis(xs)).toBeCloseTo(((5 * g2 + 6) * 3) / 2, 12);
    expect(kurtosis(xs)).toBeCloseTo(3.228, 3);
    expect(riskReturnRatio(Float64Array.from([0.1, -0.1, 0.2, Number.NaN]))).toBeCloseTo(
      0.2 / 3 / Math.sqrt(0.0233333333333),
      8,
    );
    const f = (xs: number[]) => Float64Array.from(xs);
    expect(correlation(f([1, 2, 3]), f([2, 4, 6]))).toBeCloseTo(1, 12);
    expect(correlation(f([1, 2, 3, Number.NaN]), f([3, 2, 1, 7]))).toBeCloseTo(-1, 12);
    // (1, 1), (2, 3), (3, 2): covariance 0.5 over variances 1 and 1.
    expect(correlation(f([1, 2, 3]), f([1, 3, 2]))).toBeCloseTo(0.5, 12);
  });
});

describe("valueSeries", () => {
  it("adds a later purchase's value but not its return (time-weighted)", () => {
    const s = valueSeries([position("A", 1, [10, 11, 12]), position("B", 1, [20, 20], 1)]);
    expect(s.c).toEqual([10, 31, 32]);
    expect(Array.from(s.index)).toEqual([1, expect.closeTo(1.1, 12), expect.closeTo((1.1 * 32) / 31, 12)]);
    expect(Array.from(s.returns[1]!)).toEqual([Number.NaN, Number.NaN, 0]);
  });

  it("keeps a position's last close on a day its market is shut", () => {
    const a = position("A", 2, [10, 12]);
    const b = position("B", 1, [5, 6, 7]);
    const s = valueSeries([a, b]);
    expect(s.c).toEqual([25, 30, 31]);
    expect(s.o[2]).toBe(31);
  });

  it("is one security's closes over its first for a portfolio of one", () => {
    const s = valueSeries([position("A", 3, [10, 12, 9])]);
    expect(Array.from(s.index)).toEqual([1, expect.closeTo(1.2, 12), expect.closeTo(0.9, 12)]);
  });
});
