import { aggregateBars, parseResolution, periodEnd, periodStart } from "../../../src/domain/candle/candle.service";
import type { BarRow } from "../../../src/domain/ports/source.types";

const at = (iso: string) => Date.parse(iso) / 1000;
const bar = (iso: string, o: number, h: number, l: number, c: number, v: number): BarRow => ({
  t: at(iso),
  o,
  h,
  l,
  c,
  v,
});

describe("candle periods", () => {
  it("starts a W period on Monday 00:00 UTC of the ISO week", () => {
    // 2026-11-18 is a Wednesday; 2026-11-22 a Sunday; 2026-11-16 the Monday of both.
    expect(periodStart(at("2026-11-18T15:30:00Z"), "W")).toBe(at("2026-11-16T00:00:00Z"));
    expect(periodStart(at("2026-11-22T23:59:59Z"), "W")).toBe(at("2026-11-16T00:00:00Z"));
    expect(periodStart(at("2026-11-16T00:00:00Z"), "W")).toBe(at("2026-11-16T00:00:00Z"));
    expect(periodEnd(at("2026-11-18T00:00:00Z"), "W")).toBe(at("2026-11-23T00:00:00Z") - 1);
  });

  it("starts an M period on the 1st 00:00 UTC and ends at the month's last second", () => {
    expect(periodStart(at("2024-02-29T12:00:00Z"), "M")).toBe(at("2024-02-01T00:00:00Z"));
    expect(periodEnd(at("2024-02-10T00:00:00Z"), "M")).toBe(at("2024-03-01T00:00:00Z") - 1);
    expect(periodEnd(at("2026-12-31T10:00:00Z"), "M")).toBe(at("2027-01-01T00:00:00Z") - 1);
  });

  it("buckets intraday resolutions on whole minutes of the UTC day", () => {
    expect(periodStart(at("2026-11-20T14:37:00Z"), "15")).toBe(at("2026-11-20T14:30:00Z"));
    expect(periodStart(at("2026-11-20T14:37:00Z"), "60")).toBe(at("2026-11-20T14:00:00Z"));
    expect(periodEnd(at("2026-11-20T14:37:00Z"), "30")).toBe(at("2026-11-20T15:00:00Z") - 1);
    expect(periodStart(at("2026-11-20T14:37:10Z"), "D")).toBe(at("2026-11-20T00:00:00Z"));
  });

  it("aggregates open of the first, close of the last, max high, min low, summed volume", () => {
    const bars = [
      bar("2026-11-16T00:00:00Z", 10, 12, 9, 11, 100),
      bar("2026-11-17T00:00:00Z", 11, 15, 10, 14, 200),
      bar("2026-11-18T00:00:00Z", 14, 14.5, 8, 9, 50),
      bar("2026-11-23T00:00:00Z", 9, 10, 8.5, 9.5, 10),
    ];
    expect(aggregateBars(bars, "W")).toEqual([
      { t: at("2026-11-16T00:00:00Z"), o: 10, h: 15, l: 8, c: 9, v: 350 },
      { t: at("2026-11-23T00:00:00Z"), o: 9, h: 10, l: 8.5, c: 9.5, v: 10 },
    ]);
    expect(aggregateBars(bars, "M")).toEqual([{ t: at("2026-11-01T00:00:00Z"), o: 10, h: 15, l: 8, c: 9.5, v: 360 }]);
    // The input is left as it was.
    expect(bars[0]).toEqual(bar("2026-11-16T00:00:00Z", 10, 12, 9, 11, 100));
  });

  it("reads resolutions case-insensitively, defaults to D and refuses others as INVALID_ARGUMENT", () => {
    expect(parseResolution(undefined)).toBe("D");
    expect(parseResolution("w")).toBe("W");
    expect(parseResolution(" 15 ")).toBe("15");
    for (const bad of ["2", "H", "1D", "minute"]) {
      expect(() => parseResolution(bad)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    }
  });
});
