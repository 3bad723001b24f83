import {
  computeColumns,
  computeMetrics,
  convertCloses,
  convertColumns,
  dayOfUnix,
  maxDrawdown,
  periodKey,
  samplePeriods,
  type PricePoint,
} from "../../../src/domain/etf/etf.metrics";

const DAY = 86_400;
const unix = (date: string) => Date.parse(`${date}T00:00:00Z`) / 1000;
const series = (rows: [string, number][]): PricePoint[] =>
  rows.map(([date, value]) => ({ t: unix(date), date, value }));

/** Written out independently of the service: plain loops, no shared helpers. */
function simpleReturns(values: number[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < values.length; i++) out.push(values[i]! / values[i - 1]! - 1);
  return out;
}
function stdevSample(xs: number[]): number {
  let sum = 0;
  for (const x of xs) sum += x;
  const m = sum / xs.length;
  let sq = 0;
  for (const x of xs) sq += (x - m) * (x - m);
  return Math.sqrt(sq / (xs.length - 1));
}
function average(xs: number[]): number {
  let sum = 0;
  for (const x of xs) sum += x;
  return sum / xs.length;
}

// Two weeks of trading days, 2024-01-01 is a Monday; a 105 → 99 drawdown recovered at 108.
const TWO_WEEKS: [string, number][] = [
  ["2024-01-01", 100],
  ["2024-01-02", 102],
  ["2024-01-03", 101],
  ["2024-01-04", 105],
  ["2024-01-05", 103],
  ["2024-01-08", 99],
  ["2024-01-09", 104],
  ["2024-01-10", 108],
  ["2024-01-11", 107],
  ["2024-01-12", 110],
];
const values = TWO_WEEKS.map(([, v]) => v);

describe("computeMetrics at resolution D", () => {
  const m = computeMetrics(series(TWO_WEEKS), "D", 2);
  const r = simpleReturns(values);

  it("answers start, end and total return", () => {
    expect(m.startDate).toBe("2024-01-01");
    expect(m.endDate).toBe("2024-01-12");
    expect(m.startValue).toBe(100);
    expect(m.endValue).toBe(110);
    expect(m.totalReturn).toBeCloseTo(10, 9);
  });

  it("annualises volatility as the sample stdev of daily simple returns × sqrt(252)", () => {
    expect(m.annualisedVolatility).toBeCloseTo(stdevSample(r) * Math.sqrt(252) * 100, 9);
  });

  it("annualises the return over calendar days (365.25 a year)", () => {
    expect(m.annualisedReturn).toBeCloseTo((Math.pow(1.1, 365.25 / 11) - 1) * 100, 9);
  });

  it("computes Sharpe with the risk-free rate", () => {
    const expected = (average(r) * 252 - 0.02) / (stdevSample(r) * Math.sqrt(252));
    expect(m.sharpeRatio).toBeCloseTo(expected, 9);
  });

  it("finds the maximum drawdown with its peak, trough and recovery days", () => {
    expect(m.maxDrawdown.value).toBeCloseTo((99 / 105 - 1) * 100, 9);
    expect(m.maxDrawdown).toMatchObject({
      peakDate: "2024-01-04",
      troughDate: "2024-01-08",
      recoveryDate: "2024-01-10",
    });
  });

  it("names the best and worst day", () => {
    // 99 → 104 is the best day, 103 → 99 the worst.
    expect(m.bestPeriod!.date).toBe("2024-01-09");
    expect(m.bestPeriod!.periodReturn).toBeCloseTo((104 / 99 - 1) * 100, 9);
    expect(m.worstPeriod!.date).toBe("2024-01-08");
    expect(m.worstPeriod!.periodReturn).toBeCloseTo((99 / 103 - 1) * 100, 9);
  });

  it("answers the cumulative return of every close", () => {
    expect(m.series).toHaveLength(10);
    expect(m.series[0]).toMatchObject({ date: "2024-01-01", periodReturn: null, cumulativeReturn: 0 });
    m.series.forEach((p, i) => expect(p.cumulativeReturn).toBeCloseTo((values[i]! / 100 - 1) * 100, 9));
  });
});

describe("computeMetrics at resolution W", () => {
  // Starts on a Wednesday: the first week is partial; the last close of each ISO week ends its period.
  const rows: [string, number][] = [
    ["2024-01-03", 50],
    ["2024-01-05", 52],
    ["2024-01-08", 51],
    ["2024-01-12", 49],
    ["2024-01-15", 53],
    ["2024-01-17", 55],
    ["2024-01-22", 54],
  ];
  const m = computeMetrics(series(rows), "W", 0);
  const weekly = [50, 52, 49, 55, 54];

  it("samples the first close and the last close of each ISO week", () => {
    expect(m.series.map((p) => p.date)).toEqual(["2024-01-03", "2024-01-05", "2024-01-12", "2024-01-17", "2024-01-22"]);
  });

  it("annualises volatility with sqrt(52) and Sharpe with 52 periods", () => {
    const r = simpleReturns(weekly);
    expect(m.annualisedVolatility).toBeCloseTo(stdevSample(r) * Math.sqrt(52) * 100, 9);
    expect(m.sharpeRatio).toBeCloseTo((average(r) * 52) / (stdevSample(r) * Math.sqrt(52)), 9);
    expect(m.series.map((p) => p.cumulativeReturn)).toEqual(weekly.map((v) => (v / 50 - 1) * 100));
  });

  it("still measures drawdown on every daily close", () => {
    expect(m.maxDrawdown.value).toBeCloseTo((49 / 52 - 1) * 100, 9);
    expect(m.maxDrawdown).toMatchObject({
      peakDate: "2024-01-05",
      troughDate: "2024-01-12",
      recoveryDate: "2024-01-15",
    });
  });
});

describe("computeMetrics at resolution M", () => {
  const rows: [string, number][] = [
    ["2024-01-31", 10],
    ["2024-02-01", 11],
    ["2024-02-29", 12],
    ["2024-03-15", 9],
    ["2024-03-28", 9.5],
    ["2024-04-02", 10.5],
  ];
  const m = computeMetrics(series(rows), "M", 1.5);
  const monthly = [10, 12, 9.5, 10.5];

  it("samples month ends and annualises with 12 periods", () => {
    // 2024-01-31 is both the start and its month's last close: it is not repeated.
    expect(m.series.map((p) => p.date)).toEqual(["2024-01-31", "2024-02-29", "2024-03-28", "2024-04-02"]);
    const r = simpleReturns(monthly);
    expect(m.annualisedVolatility).toBeCloseTo(stdevSample(r) * Math.sqrt(12) * 100, 9);
    expect(m.sharpeRatio).toBeCloseTo((average(r) * 12 - 0.015) / (stdevSample(r) * Math.sqrt(12)), 9);
    expect(m.totalReturn).toBeCloseTo(5, 9);
    expect(m.bestPeriod).toEqual({ date: "2024-02-29", periodReturn: (12 / 10 - 1) * 100 });
    expect(m.worstPeriod).toEqual({ date: "2024-03-28", periodReturn: (9.5 / 12 - 1) * 100 });
  });

  it("leaves a drawdown that is not recovered without a recovery day", () => {
    expect(m.maxDrawdown).toEqual({
      value: (9 / 12 - 1) * 100,
      peakDate: "2024-02-29",
      troughDate: "2024-03-15",
      recoveryDate: null,
    });
  });
});

describe("edge cases", () => {
  it("answers a single close with no period statistics", () => {
    const m = computeMetrics(series([["2024-05-06", 20]]), "D", 0);
    expect(m).toMatchObject({
      totalReturn: 0,
      annualisedReturn: null,
      annualisedVolatility: null,
      sharpeRatio: null,
      bestPeriod: null,
      worstPeriod: null,
      maxDrawdown: { value: 0, peakDate: null, troughDate: null, recoveryDate: null },
    });
    expect(m.series).toHaveLength(1);
  });

  it("has no Sharpe ratio when the returns do not vary", () => {
    const m = computeMetrics(
      series([
        ["2024-05-06", 20],
        ["2024-05-07", 20],
        ["2024-05-08", 20],
      ]),
      "D",
      0,
    );
    expect(m.annualisedVolatility).toBe(0);
    expect(m.sharpeRatio).toBeNull();
  });

  it("reports no drawdown for a series that only rises", () => {
    expect(
      maxDrawdown(
        series([
          ["2024-01-01", 1],
          ["2024-01-02", 2],
          ["2024-01-03", 3],
        ]),
      ),
    ).toEqual({
      value: 0,
      peakDate: null,
      troughDate: null,
      recoveryDate: null,
    });
  });

  it("keys weeks by their Monday and months by YYYY-MM", () => {
    expect(periodKey("2024-01-07", "W")).toBe("2024-01-01"); // a Sunday belongs to the week before
    expect(periodKey("2024-01-08", "W")).toBe("2024-01-08");
    expect(periodKey("2024-12-31", "M")).toBe("2024-12");
    expect(samplePeriods([], "W")).toEqual([]);
  });
});

describe("convertCloses", () => {
  // EUR closes into GBP; the series are units per USD, with holes on 2024-03-02 (GBP) and 2024-03-03 (both).
  const closes = [
    { t: unix("2024-03-01"), c: 100 },
    { t: unix("2024-03-02"), c: 104 },
    { t: unix("2024-03-03"), c: 98 },
    { t: unix("2024-03-04"), c: 103 },
  ];
  const eur = [
    { day: "2024-02-28", perUsd: 0.91 },
    { day: "2024-03-01", perUsd: 0.92 },
    { day: "2024-03-02", perUsd: 0.93 },
    { day: "2024-03-04", perUsd: 0.9 },
  ];
  const gbp = [
    { day: "2024-02-29", perUsd: 0.78 },
    { day: "2024-03-01", perUsd: 0.79 },
    { day: "2024-03-04", perUsd: 0.8 },
  ];

  it("multiplies by to/from per-USD rates, using the last known rate on a missing day", () => {
    const { points, filledDays } = convertCloses(closes, eur, gbp);
    const expected = [(100 * 0.79) / 0.92, (104 * 0.79) / 0.93, (98 * 0.79) / 0.93, (103 * 0.8) / 0.9];
    points.forEach((p, i) => expect(p.value).toBeCloseTo(expected[i]!, 9));
    expect(points.map((p) => p.date)).toEqual(["2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04"]);
    expect(filledDays).toEqual(["2024-03-02", "2024-03-03"]);

    const m = computeMetrics(points, "D", 0);
    expect(m.totalReturn).toBeCloseTo((expected[3]! / expected[0]! - 1) * 100, 9);
    const r = simpleReturns(expected);
    expect(m.annualisedVolatility).toBeCloseTo(stdevSample(r) * Math.sqrt(252) * 100, 9);
    expect(m.maxDrawdown.value).toBeCloseTo((expected[2]! / expected[1]! - 1) * 100, 9);
    expect(m.sharpeRatio).toBeCloseTo((average(r) * 252) / (stdevSample(r) * Math.sqrt(252)), 9);
  });

  it("treats USD as the constant 1", () => {
    const { points, filledDays } = convertCloses(closes.slice(0, 1), "usd", gbp);
    expect(points[0]!.value).toBeCloseTo(100 * 0.79, 9);
    expect(filledDays).toEqual([]);
  });

  it("answers NOT_FOUND when no rate exists on or before a day", () => {
    expect(() => convertCloses([{ t: unix("2024-02-01"), c: 1 }], eur, gbp)).toThrow(
      expect.objectContaining({ code: "NOT_FOUND" }),
    );
  });

  it("uses days, not instants: a bar at 00:00 UTC takes that day's rate", () => {
    const { points } = convertCloses([{ t: unix("2024-03-04") + DAY - 1, c: 10 }], eur, gbp);
    expect(points[0]!.value).toBeCloseTo((10 * 0.8) / 0.9, 9);
  });
});

describe("the column functions the worker calls", () => {
  const t = Float64Array.from(TWO_WEEKS, ([date]) => unix(date));
  const v = Float64Array.from(values);

  it("sample the last close of each ISO week as indexes, with returns beside them", () => {
    const m = computeColumns(t, v, "W", 0);
    // 2024-01-01 starts; 2024-01-05 and 2024-01-12 end the two weeks.
    expect(Array.from(m.sampled)).toEqual([0, 4, 9]);
    expect(Number.isNaN(m.periodReturn[0])).toBe(true);
    expect(Array.from(m.periodReturn.subarray(1))).toEqual([(103 / 100 - 1) * 100, (110 / 103 - 1) * 100]);
    expect(Array.from(m.cumulativeReturn)).toEqual([0, (103 / 100 - 1) * 100, (110 / 100 - 1) * 100]);
    const r = simpleReturns([100, 103, 110]);
    expect(m.scalars.annualisedVolatility).toBeCloseTo(stdevSample(r) * Math.sqrt(52) * 100, 9);
    expect(m.scalars.maxDrawdown).toMatchObject({ peakDate: "2024-01-04", troughDate: "2024-01-08" });
    expect(m.scalars.bestPeriod).toEqual({ date: "2024-01-12", periodReturn: (110 / 103 - 1) * 100 });
  });

  it("convert with day numbers and name the closes whose rate was borrowed by index", () => {
    const days = (ds: string[]) => Int32Array.from(ds, (d) => unix(d) / DAY);
    const from = { days: days(["2024-01-01", "2024-01-03"]), perUsd: Float64Array.from([0.9, 0.8]) };
    const { values: converted, filled } = convertColumns(t.subarray(0, 3), v.subarray(0, 3), from, "usd", {
      from: "EUR",
      to: "USD",
    });
    expect(Array.from(converted)).toEqual([100 / 0.9, 102 / 0.9, 101 / 0.8]);
    expect(filled).toEqual([1]);
  });
});

describe("dayOfUnix", () => {
  it("names the UTC day of any instant as Date does, before 1970 and after the days it keeps names of", () => {
    const instants = [0, 59, DAY - 1, DAY, unix("2016-01-01") + 12 * 3600, unix("2026-11-20"), unix("2149-06-05")];
    instants.push(unix("2149-06-06") + 1, unix("2400-02-29"), -1, -DAY - 1, unix("1900-03-01"));
    for (const t of instants) expect(dayOfUnix(t)).toBe(new Date(t * 1000).toISOString().slice(0, 10));
    expect(() => dayOfUnix(Number.NaN)).toThrow(RangeError);
  });
});
