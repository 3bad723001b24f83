import {
  day,
  dayUnix,
  finite,
  plainDay,
  plainDecimal,
  RowError,
} from "../../../src/application/import/import.validate";

/** The reason a cell is rejected with, or its value. */
function check<T>(f: (values: Record<string, unknown>, column: string) => T, cell: unknown): T | string {
  try {
    return f({ x: cell }, "x");
  } catch (e) {
    if (e instanceof RowError) return `rejected: ${e.message}`;
    throw e;
  }
}

describe("numbers", () => {
  it.each([
    ["1", 1],
    [" -2.5 ", -2.5],
    ["+.5", 0.5],
    ["5.", 5],
    ["1E-2", 0.01],
    ["007", 7],
    [12.25, 12.25],
  ])("takes %j as %p", (cell, n) => {
    expect(check(finite, cell)).toBe(n);
  });

  it.each([
    ["", "rejected: required"],
    ["   ", "rejected: required"],
    [null, "rejected: required"],
    ["0x1F", "rejected: not a finite number"],
    ["0b1", "rejected: not a finite number"],
    ["0o7", "rejected: not a finite number"],
    ["Infinity", "rejected: not a finite number"],
    ["1e999", "rejected: not a finite number"],
    ["1,5", "rejected: not a finite number"],
    ["1_000", "rejected: not a finite number"],
    ["NaN", "rejected: not a finite number"],
    ["\u00a0", "rejected: required"],
  ])("rejects %j", (cell, reason) => {
    expect(check(finite, cell)).toBe(reason);
  });
});

describe("days", () => {
  it.each([
    ["2024-02-29", "2024-02-29", Date.UTC(2024, 1, 29) / 1000],
    ["2000-02-29", "2000-02-29", Date.UTC(2000, 1, 29) / 1000],
    ["1969-12-31", "1969-12-31", -86_400],
    ["0050-01-01", "0050-01-01", Date.parse("0050-01-01T00:00:00Z") / 1000],
    ["1700000000", "2023-11-14", Date.UTC(2023, 10, 14) / 1000],
  ])("takes %j as %j", (cell, iso, t) => {
    expect(check(day, cell)).toBe(iso);
    expect(check(dayUnix, cell)).toBe(t);
  });

  it.each([
    ["2023-02-29", "rejected: not a calendar day"],
    ["1900-02-29", "rejected: not a calendar day"],
    ["2024-04-31", "rejected: not a calendar day"],
    ["2024-13-01", "rejected: not a calendar day"],
    ["2024-00-10", "rejected: not a calendar day"],
    ["2024-01-00", "rejected: not a calendar day"],
    ["24-01-01", "rejected: expected an ISO date (YYYY-MM-DD) or Unix seconds"],
    ["", "rejected: required"],
  ])("rejects %j", (cell, reason) => {
    expect(check(day, cell)).toBe(reason);
    expect(check(dayUnix, cell)).toBe(reason);
  });
});

describe("plain decimals and days, read from a line in place", () => {
  it("read a plain decimal of up to 15 digits as the same double as Number(), and leave anything else", () => {
    let seed = 20261127;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (let i = 0; i < 20_000; i++) {
      const digits = String(next()) + String(next());
      const whole = digits.slice(0, 1 + (next() % 9));
      const fraction = digits.slice(whole.length, whole.length + (next() % 7));
      const text = fraction === "" ? whole : `${whole}.${fraction}`;
      const line = `X,${text},Y`;
      expect([text, plainDecimal(line, 2, 2 + text.length)]).toEqual([text, Number(text)]);
    }
    expect(plainDecimal("0.30000000000001", 0, 16)).toBe(0.30000000000001);
    expect(plainDecimal("999999999999999", 0, 15)).toBe(999999999999999);
    for (const text of ["", ".5", "5.", "1.2.3", "-1", "+1", "1e2", " 1", "0x10", "1234567890123456", "Infinity"]) {
      expect([text, plainDecimal(text, 0, text.length)]).toEqual([text, Number.NaN]);
    }
  });

  it("read a calendar day YYYY-MM-DD as dayUnix does, and leave anything else", () => {
    for (const text of ["1990-01-01", "2000-02-29", "2024-12-31", "1970-01-01", "9999-12-31", "0100-03-01"]) {
      expect(plainDay(`S,${text},1`, 2, 12)).toBe(dayUnix({ d: text }, "d"));
    }
    for (const text of [
      "1900-02-29",
      "2023-02-29",
      "2010-13-01",
      "2010-00-10",
      "2010-01-32",
      "2010-1-10",
      "0099-01-01",
    ]) {
      expect([text, plainDay(text, 0, text.length)]).toEqual([text, Number.NaN]);
    }
    expect(plainDay("2010-01-1x", 0, 10)).toBeNaN();
    expect(plainDay("2010/01/10", 0, 10)).toBeNaN();
  });
});
