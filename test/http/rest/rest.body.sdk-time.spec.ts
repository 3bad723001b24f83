import { z } from "zod";
import { parseBody, sdkDayField, sdkTimeField } from "../../../src/http/rest/rest.body";
import { InvalidArgumentError } from "../../../src/platform/errors";

const body = z.object({ from: sdkTimeField, day: sdkDayField.optional() });
const from = (v: unknown) => parseBody(body, { from: v }).from;

/** 2026-11-20 12:34:56.789 UTC, in each form. */
const SECONDS = Date.UTC(2026, 10, 20, 12, 34, 56) / 1000;

describe("the SDKs' instants (sdkTimeField)", () => {
  it("takes integer seconds, Python's float seconds, Dart's millisecond strings and days alike", () => {
    expect(from(SECONDS)).toBe(SECONDS);
    expect(from(SECONDS + 0.789)).toBe(SECONDS);
    expect(from(String(SECONDS * 1000 + 789))).toBe(SECONDS);
    expect(from(` ${SECONDS * 1000} `)).toBe(SECONDS);
    expect(from("2026-11-20")).toBe(Date.UTC(2026, 10, 20) / 1000);
    // 1996: twelve digits of milliseconds (the Dart client's `years: 30`).
    expect(from("820454400000")).toBe(820_454_400);
  });

  it("answers the UTC day of each form (sdkDayField)", () => {
    for (const v of [SECONDS + 0.5, String(SECONDS * 1000), "2026-11-20"])
      expect(parseBody(body, { from: 0, day: v }).day).toBe("2026-11-20");
  });

  it.each([
    ["ten digits in a string (seconds or milliseconds?)", String(SECONDS)],
    ["a day without dashes", "20261120"],
    ["milliseconds as a number", SECONDS * 1000],
    ["a negative number", -1],
    ["an impossible day", "2026-02-30"],
    ["a boolean", true],
    ["text", "yesterday"],
  ])("refuses %s with INVALID_ARGUMENT naming the field", (_what, v) => {
    let error: unknown;
    try {
      from(v);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).message).toMatch(/^from: /);
  });
});
