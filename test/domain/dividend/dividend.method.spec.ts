import {
  addMonths,
  annualTable,
  estimateDividends,
  forwardAnnual,
  isKnownOn,
  onOrAfterWeekday,
} from "../../../src/domain/dividend/dividend.service";
import type { DividendRow } from "../../../src/domain/ports/source.types";

function div(exDate: string, adjustedAmount: number, extra: Partial<DividendRow> = {}): DividendRow {
  return {
    securityId: 1,
    exDate,
    recordDate: null,
    payDate: null,
    declarationDate: null,
    amount: adjustedAmount,
    adjustedAmount,
    currency: "USD",
    frequency: 4,
    ...extra,
  };
}

describe("dividend day arithmetic", () => {
  it("adds months clamped to the month's end and rolls weekends to Monday", () => {
    expect(addMonths("2026-01-31", 1)).toBe("2026-02-28");
    expect(addMonths("2024-01-31", 1)).toBe("2024-02-29");
    expect(addMonths("2026-11-15", 3)).toBe("2027-02-15");
    expect(onOrAfterWeekday("2026-11-21")).toBe("2026-11-23"); // Saturday
    expect(onOrAfterWeekday("2026-11-22")).toBe("2026-11-23"); // Sunday
    expect(onOrAfterWeekday("2026-11-20")).toBe("2026-11-20"); // Friday
  });
});

describe("annual dividends", () => {
  it("sums per calendar year, counts, fills years without payments and compares adjusted sums", () => {
    const rows = [
      div("2023-03-10", 0.5, { amount: 1 }),
      div("2023-09-10", 0.5, { amount: 1 }),
      div("2025-03-10", 0.6),
      div("2025-09-10", 0.6),
      div("2026-03-10", 0.7),
    ];
    expect(annualTable(rows, "2026-11-20")).toEqual([
      { year: 2023, amount: 2, adjustedAmount: 1, count: 2, growth: null, complete: true },
      { year: 2024, amount: 0, adjustedAmount: 0, count: 0, growth: -100, complete: true },
      { year: 2025, amount: 1.2, adjustedAmount: 1.2, count: 2, growth: null, complete: true },
      { year: 2026, amount: 0.7, adjustedAmount: 0.7, count: 1, growth: -41.6667, complete: false },
    ]);
  });

  it("annualises the latest dividend, and answers 0 once a payer stopped", () => {
    expect(forwardAnnual(div("2026-09-01", 0.25), "2026-11-20")).toBe(1);
    expect(forwardAnnual(div("2025-09-01", 0.25), "2026-11-20")).toBe(0);
    // An annual payer is late after two periods, not one.
    expect(forwardAnnual(div("2025-09-01", 2, { frequency: 1 }), "2026-11-20")).toBe(2);
  });
});

describe("dividend estimate", () => {
  const today = "2026-11-20";

  it("keeps announced dividends first, then projects every 12/frequency months from the latest known one", () => {
    const rows = [
      div("2026-02-16", 0.2, { payDate: "2026-03-02", recordDate: "2026-02-17" }),
      div("2026-05-15", 0.2, { payDate: "2026-05-29", recordDate: "2026-05-18" }),
      div("2026-08-14", 0.22, { payDate: "2026-08-28", recordDate: "2026-08-17" }),
      div("2026-12-01", 0.25, { payDate: "2026-12-15", recordDate: "2026-12-02", declarationDate: "2026-11-02" }),
    ];
    const e = estimateDividends(rows, today);
    expect(e.from).toBe("2026-11-21");
    expect(e.to).toBe("2027-11-20");
    expect(e.rows.map((r) => [r.date, r.status, r.adjustedAmount, r.payDate])).toEqual([
      ["2026-12-01", "announced", 0.25, "2026-12-15"],
      ["2027-03-01", "estimated", 0.25, "2027-03-15"],
      ["2027-06-01", "estimated", 0.25, "2027-06-15"],
      ["2027-09-01", "estimated", 0.25, "2027-09-15"],
    ]);
    expect(e.method).toContain("every 3 months");
  });

  it("moves an expected ex-date on a weekend to Monday and skips slots already past", () => {
    // 2026-05-16 + 6 months = 2026-11-16 (past); + 12 months = 2027-05-16, a Sunday.
    const e = estimateDividends([div("2026-05-16", 1, { frequency: 2 })], today);
    expect(e.rows.map((r) => r.date)).toEqual(["2027-05-17", "2027-11-16"]);
    expect(e.rows[0]!.payDate).toBeNull();
  });

  it("estimates nothing for a payer that stopped", () => {
    const e = estimateDividends([div("2025-01-10", 1)], today);
    expect(e.rows).toEqual([]);
  });

  it("projects from the latest paid dividend when none is announced", () => {
    // 2026-11-14 (a Saturday, so Monday 11-16) is already past: the next slots follow.
    const e = estimateDividends([div("2026-08-14", 0.2)], today);
    expect(e.rows.map((r) => [r.date, r.status])).toEqual([
      ["2027-02-15", "estimated"],
      ["2027-05-14", "estimated"],
      ["2027-08-16", "estimated"],
      ["2027-11-15", "estimated"],
    ]);
  });

  it("counts a dividend as known once it went ex or was declared", () => {
    expect(isKnownOn(div("2026-12-01", 1, { declarationDate: "2026-11-25" }), today)).toBe(false);
    expect(isKnownOn(div("2026-12-01", 1, { declarationDate: "2026-11-02" }), today)).toBe(true);
    expect(isKnownOn(div("2026-10-01", 1, { declarationDate: "2026-09-01" }), today)).toBe(true);
  });
});
