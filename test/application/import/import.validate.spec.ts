import { day, dayUnix, finite, RowError } from "../../../src/application/import/import.validate";

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
