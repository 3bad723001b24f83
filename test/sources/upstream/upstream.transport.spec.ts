import { canonicalJson, requestKey, splitVersion } from "../../../src/sources/upstream/upstream.keys";
import { parseRetryAfter } from "../../../src/sources/upstream/upstream.transport";

describe("Retry-After", () => {
  const now = Date.parse("2026-11-20T15:00:00Z");

  it("reads seconds and HTTP dates, in ms from now", () => {
    expect(parseRetryAfter("3", now)).toBe(3_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Fri, 20 Nov 2026 15:00:07 GMT", now)).toBe(7_000);
    expect(parseRetryAfter("Fri, 20 Nov 2026 14:00:00 GMT", now)).toBe(0);
  });

  it("ignores what it cannot read", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-5", now)).toBeUndefined();
  });
});

describe("request keys", () => {
  it("are the same whatever the body's key order, at any depth, and differ by path", () => {
    const a = requestKey({ path: "/v0/candle", body: { symbol: "X", range: { from: 1, to: 2 }, skip: undefined } });
    const b = requestKey({ path: "/v0/candle", body: { range: { to: 2, from: 1 }, symbol: "X" } });
    expect(a).toBe(b);
    expect(requestKey({ path: "/v1/candle", body: { symbol: "X", range: { from: 1, to: 2 } } })).not.toBe(a);
    expect(canonicalJson([{ b: 1, a: [2, { d: 3, c: 4 }] }])).toBe('[{"a":[2,{"c":4,"d":3}],"b":1}]');
  });

  it("split a versioned path into the version and the endpoint bulk names", () => {
    expect(splitVersion("/v0/etf/profile")).toEqual({ version: "v0", endpoint: "etf/profile" });
    expect(splitVersion("/v1/quote")).toEqual({ version: "v1", endpoint: "quote" });
    expect(splitVersion("/v2/quote")).toBeNull();
    expect(splitVersion("/quote")).toBeNull();
  });
});
