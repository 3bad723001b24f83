import {
  dividendEvents,
  parseAdjustment,
  productAfter,
  splitEvents,
} from "../../../src/domain/candle/candle.adjustment";
import { CandleAdjustment } from "../../../src/domain/candle/candle.types";
import { InvalidArgumentError } from "../../../src/platform/errors";

const unix = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;
const bar = (day: string, c: number) => ({ t: unix(day), o: c, h: c, l: c, c, v: 1 });

describe("productAfter", () => {
  it("multiplies the factors of the events strictly after a day, in any order of events", () => {
    const f = productAfter([
      { day: "2024-06-10", factor: 3 },
      { day: "2020-01-02", factor: 2 },
    ]);
    expect(f("2019-12-31")).toBe(6);
    expect(f("2020-01-01")).toBe(6);
    // An event's own day is on the new basis.
    expect(f("2020-01-02")).toBe(3);
    expect(f("2024-06-09")).toBe(3);
    expect(f("2024-06-10")).toBe(1);
    expect(f("2030-01-01")).toBe(1);
    expect(productAfter([])("2024-01-01")).toBe(1);
  });
});

describe("splitEvents", () => {
  it("turns a 4-for-1 into a factor of 4 and a 1-for-10 reverse split into 0.1", () => {
    expect(
      splitEvents([
        { day: "2024-01-02", numerator: 4, denominator: 1 },
        { day: "2025-01-02", numerator: 1, denominator: 10 },
      ]),
    ).toEqual([
      { day: "2024-01-02", factor: 4 },
      { day: "2025-01-02", factor: 0.1 },
    ]);
  });
});

describe("dividendEvents", () => {
  const closes = [bar("2026-03-02", 50), bar("2026-03-03", 40), bar("2026-03-05", 41), bar("2026-03-20", 42)];

  it("divides by the close of the last bar before the ex-date", () => {
    expect(dividendEvents([{ exDate: "2026-03-05", amount: 2 }], closes)).toEqual([
      { day: "2026-03-05", factor: 1 - 2 / 40 },
    ]);
    // An ex-date without a bar of its own (a holiday) takes the last close before it too.
    expect(dividendEvents([{ exDate: "2026-03-04", amount: 2 }], closes)).toEqual([
      { day: "2026-03-04", factor: 1 - 2 / 40 },
    ]);
  });

  it("adjusts nothing past the last bar, without a close in the 14 days before, or for an amount out of range", () => {
    expect(dividendEvents([{ exDate: "2026-03-21", amount: 1 }], closes)).toEqual([]);
    expect(dividendEvents([{ exDate: "2026-03-02", amount: 1 }], closes)).toEqual([]);
    expect(
      dividendEvents([{ exDate: "2026-03-20", amount: 1 }], [bar("2026-03-01", 30), bar("2026-03-20", 30)]),
    ).toEqual([]);
    expect(dividendEvents([{ exDate: "2026-03-05", amount: 40 }], closes)).toEqual([]);
    expect(dividendEvents([{ exDate: "2026-03-05", amount: 0 }], closes)).toEqual([]);
    expect(dividendEvents([{ exDate: "2026-03-05", amount: 1 }], [])).toEqual([]);
  });
});

describe("parseAdjustment", () => {
  it("reads the three values in any case, absent as splits, and refuses anything else naming the field", () => {
    expect(parseAdjustment(undefined)).toBe(CandleAdjustment.SPLITS);
    expect(parseAdjustment(null)).toBe(CandleAdjustment.SPLITS);
    expect(parseAdjustment(" All ")).toBe(CandleAdjustment.ALL);
    expect(parseAdjustment("none")).toBe(CandleAdjustment.NONE);
    expect(() => parseAdjustment("dividends")).toThrow(InvalidArgumentError);
    expect(() => parseAdjustment("")).toThrow(/^adjustment: "" is not one of splits, all, none$/);
  });
});
