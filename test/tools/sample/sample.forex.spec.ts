import * as currencyCodes from "currency-codes";
import { makeDay } from "../../../src/sources/sample/sample.calendar";
import { forexPairs, generateFx } from "../../../src/sources/sample/sample.forex";
import { isoCurrencies, MAJOR_CURRENCIES } from "../../../src/sources/sample/sample.markets";
import { Random } from "../../../src/sources/sample/sample.random";

describe("sample forex", () => {
  const pairs = forexPairs();

  it("quotes all 45 pairs among the majors in market convention", () => {
    const majors = pairs.filter((p) => p.major).map((p) => p.symbol);
    expect(majors).toHaveLength(45);
    for (const symbol of [
      "EURUSD",
      "GBPUSD",
      "AUDUSD",
      "NZDUSD",
      "USDJPY",
      "USDCAD",
      "USDCHF",
      "EURGBP",
      "EURJPY",
      "GBPJPY",
      "AUDNZD",
      "CADJPY",
      "CHFJPY",
      "NOKSEK",
      "EURSEK",
      "USDNOK",
    ]) {
      expect(majors).toContain(symbol);
    }
    for (const wrong of ["USDEUR", "JPYUSD", "GBPEUR", "NZDAUD", "SEKNOK"]) expect(majors).not.toContain(wrong);
  });

  it("names pairs after their ISO 4217 currency names", () => {
    expect(pairs.find((p) => p.symbol === "EURUSD")?.name).toBe("Euro / US Dollar");
    expect(new Set(pairs.map((p) => p.name)).size).toBe(pairs.length);
  });

  it("quotes the dollar against every other circulating currency", () => {
    const others = pairs.filter((p) => !p.major);
    expect(others.every((p) => p.base === "USD")).toBe(true);
    const quoted = new Set(others.map((p) => p.quote));
    for (const code of isoCurrencies()) {
      if (!(MAJOR_CURRENCIES as readonly string[]).includes(code)) expect(quoted.has(code)).toBe(true);
    }
    for (const code of quoted) expect(currencyCodes.code(code)).toBeDefined();
    expect(quoted.has("XAU")).toBe(false);
    expect(quoted.has("XTS")).toBe(false);
    expect(new Set(pairs.map((p) => p.symbol)).size).toBe(pairs.length);
  });

  it("keeps FX levels sensible, flat over weekends, pegs near their peg", () => {
    const first = makeDay(2016, 11, 20);
    const last = makeDay(2026, 11, 20);
    const fx = generateFx(Random.fromSeed(42, "fx"), first, last);
    const eur = fx.perUsdSeries("EUR");
    expect(eur).toHaveLength(last - first + 1);
    for (const v of eur) expect(v).toBeGreaterThan(0.7);
    for (const v of eur) expect(v).toBeLessThan(1.15);
    for (const v of fx.perUsdSeries("JPY")) expect(v).toBeGreaterThan(100);
    for (const v of fx.perUsdSeries("HKD")) expect(Math.abs(v / 7.8 - 1)).toBeLessThan(0.005);
    // 2026-11-21 is a Saturday, 2026-11-20 a Friday.
    expect(fx.perUsd("GBP", makeDay(2026, 11, 21))).toBe(fx.perUsd("GBP", makeDay(2026, 11, 20)));
    expect(fx.rate("EUR", "USD", last)).toBeCloseTo(1 / fx.perUsd("EUR", last), 12);
  });
});
