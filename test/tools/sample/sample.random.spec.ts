import {
  addWeekdays,
  addYears,
  formatDay,
  isWeekday,
  parseDay,
  weekday,
} from "../../../src/sources/sample/sample.calendar";
import { allocateWeightUnits, priceDecimals, WEIGHT_UNITS_TOTAL } from "../../../src/sources/sample/sample.numbers";
import { Random } from "../../../src/sources/sample/sample.random";

describe("sample random streams", () => {
  it("repeats a stream for the same seed and label", () => {
    const a = Random.fromSeed(42, "x");
    const b = Random.fromSeed(42, "x");
    for (let i = 0; i < 1000; i++) expect(a.next()).toBe(b.next());
  });

  it("derives forks from names, not from how much the parent has drawn", () => {
    const a = Random.fromSeed(42, "x");
    const b = Random.fromSeed(42, "x");
    for (let i = 0; i < 10; i++) b.next();
    expect(a.fork("child").next()).toBe(b.fork("child").next());
    expect(a.fork("child").next()).not.toBe(a.fork("other").next());
  });

  it("draws within range with plausible moments", () => {
    const r = Random.fromSeed(1, "moments");
    let sum = 0;
    let sq = 0;
    let lo = 1;
    let hi = 0;
    const n = 200_000;
    for (let i = 0; i < n; i++) {
      const u = r.next();
      if (u < lo) lo = u;
      if (u > hi) hi = u;
      const z = r.normal();
      sum += z;
      sq += z * z;
    }
    expect(lo).toBeGreaterThanOrEqual(0);
    expect(hi).toBeLessThan(1);
    expect(Math.abs(sum / n)).toBeLessThan(0.01);
    expect(Math.abs(sq / n - 1)).toBeLessThan(0.02);
  });
});

describe("sample calendar and numbers", () => {
  it("round-trips days and knows weekdays", () => {
    const d = parseDay("2026-11-20");
    expect(formatDay(d)).toBe("2026-11-20");
    expect(weekday(d)).toBe(5);
    expect(isWeekday(d + 1)).toBe(false);
    expect(formatDay(addWeekdays(d, 1))).toBe("2026-11-23");
    expect(formatDay(addYears(parseDay("2024-02-29"), -1))).toBe("2023-02-28");
    expect(() => parseDay("2026-02-30")).toThrow();
  });

  it("splits weights into exact units with the remainder on the largest", () => {
    const w = allocateWeightUnits([3, 1, 1, 1e-9]);
    expect(w.reduce((a, b) => a + b, 0)).toBe(WEIGHT_UNITS_TOTAL);
    expect(Math.min(...w)).toBeGreaterThanOrEqual(1);
    expect(w[0]).toBe(Math.max(...w));
  });

  it("keeps three significant digits for cheap prices", () => {
    expect(priceDecimals(150, 2)).toBe(2);
    expect(priceDecimals(2500, 0)).toBe(0);
    expect(priceDecimals(0.00002, 2)).toBe(8);
  });
});
