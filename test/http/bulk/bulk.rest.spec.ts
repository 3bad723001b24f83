import { fixedClock } from "../../../src/platform/clock";
import type { ApiVersion, RouteEntry } from "../../../src/http/rest/rest.route";
import { ROUTES } from "../../../src/http/rest/rest.routes";
import { isRemoved } from "../../../src/http/rest/rest.versions";
import { createTestApp, type TestApp } from "../../helpers/app";
import { primarySymbols } from "../../helpers/stock-samples";
import { BOOTSTRAP_KEY, TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const primary = (type: string, n: number, where = "") => primarySymbols(t.source.db, type, n, where);

/** Symbols of every kind, so each endpoint sees items it answers and items it refuses. */
const mixedSymbols = () => [
  ...primary("stock", 2),
  ...primary("stock", 1, "AND EXISTS (SELECT 1 FROM dividends d WHERE d.security_id = s.id)"),
  ...primary("etf", 2),
  ...primary("fund", 1),
  "BTC-USD",
  "NO-SUCH-SYMBOL",
];

/** What a bulk item carries, and what a direct call answers, compared without the request id. */
function comparable(status: number, body: Record<string, unknown>) {
  if (status === 200) return { status, data: body };
  const { requestId: _ignored, ...error } = body;
  return { status, error };
}

const bulk = (v: string, body: unknown, key?: string | null) => t.post(`/${v}/bulk`, body, key);

/** Params that make the dated endpoints answer data of the test store's range, and those an endpoint needs. */
const PARAMS: Record<string, Record<string, unknown>> = {
  "stock/financials": { statement: "INCOME", freq: "QUARTERLY" },
  candle: { resolution: "D", from: "2026-09-01", to: TEST_ANCHOR },
  "stock/candle": { resolution: "D", from: "2026-09-01", to: TEST_ANCHOR },
  "etf/metrics": { resolution: "W", from: "2026-01-01", to: TEST_ANCHOR },
};

const SINGLE = ROUTES.filter((r) => r.singleSecurity);

describe("bulk answers each item exactly as the named endpoint would", () => {
  it("covers every single-security entry of the route table", () => {
    expect(SINGLE.length).toBeGreaterThanOrEqual(15);
  });

  const cases: [ApiVersion, RouteEntry][] = (["v0", "v1"] as const).flatMap((v) =>
    SINGLE.map((r) => [v, r] as [ApiVersion, RouteEntry]),
  );
  it.each(cases.map(([v, r]) => [v, r.path, r] as const))("/%s/bulk of %s", async (v, path, entry) => {
    const symbols = mixedSymbols();
    const params = PARAMS[path] ?? {};
    const removed = isRemoved(entry.removedOn, v, t.deps.clock.now());
    const absent = !entry.versions.includes(v) && !entry.removedOn;
    const res = await bulk(v, { endpoint: path, symbols: symbols.map((symbol) => ({ symbol })), params });
    if (removed) {
      expectErrorBody(res, 404, "ENDPOINT_REMOVED");
      return;
    }
    if (absent) {
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      return;
    }
    expect(res.status).toBe(200);
    expect(res.body.endpoint).toBe(path);
    expect(res.body.results.map((r: { symbol: string }) => r.symbol)).toEqual(symbols);
    let ok = 0;
    for (const [i, symbol] of symbols.entries()) {
      const direct = await t.post(`/${v}/${path}`, { ...params, symbol });
      const item = res.body.results[i];
      const got = item.statusCode === 200 ? comparable(200, item.data) : comparable(item.statusCode, item.error);
      expect({ symbol, ...got }).toEqual({ symbol, ...comparable(direct.status, direct.body) });
      if (item.statusCode === 200) ok++;
      else expect(item.error.requestId).toBe(res.headers["x-request-id"]);
    }
    // Every endpoint answers at least one of the kinds offered; the unknown symbol never. One only gateway mode
    // serves answers none over the store: each item is its NOT_AVAILABLE, as the direct call.
    if (entry.gatewayOnly) {
      expect(ok).toBe(0);
      expect(new Set(res.body.results.map((r: { error: { code: string } }) => r.error.code))).toEqual(
        new Set(["NOT_AVAILABLE"]),
      );
      return;
    }
    expect(ok).toBeGreaterThan(0);
    expect(res.body.results.at(-1).statusCode).toBe(404);
  });
});

describe("bulk of a removed endpoint before its removal day", () => {
  it("answers stock/candle items on /v0 while it exists, and ENDPOINT_REMOVED on /v1", async () => {
    const before = await createTestApp({ clock: fixedClock("2024-12-31T12:00:00Z") });
    try {
      const [stock] = primary("stock", 1);
      const params = { resolution: "D", from: "2024-12-01", to: "2024-12-31" };
      const res = await before.post("/v0/bulk", { endpoint: "stock/candle", symbols: [{ symbol: stock }], params });
      const direct = await before.post("/v0/stock/candle", { ...params, symbol: stock });
      expect(direct.status).toBe(200);
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual([{ symbol: stock, statusCode: 200, data: direct.body }]);
      expectErrorBody(
        await before.post("/v1/bulk", { endpoint: "stock/candle", symbols: [{ symbol: stock }], params }),
        404,
        "ENDPOINT_REMOVED",
      );
    } finally {
      await before.close();
    }
  });
});

describe.each(["v0", "v1"])("/%s/bulk", (v) => {
  it("answers the sample request: etf/profile with accept text/plain", async () => {
    const etfs = primary("etf", 2);
    const res = await t.http
      .post(`/${v}/bulk`)
      .set("x-api-key", BOOTSTRAP_KEY)
      .set("content-type", "application/json")
      .set("accept", "text/plain")
      .send(
        JSON.stringify({
          symbols: etfs.map((symbol) => ({ symbol })),
          endpoint: "etf/profile",
          params: { resolution: "D" },
        }),
      );
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body.endpoint).toBe("etf/profile");
    expect(res.body.results.map((r: { symbol: string; statusCode: number }) => [r.symbol, r.statusCode])).toEqual(
      etfs.map((s) => [s, 200]),
    );
    expect(Object.keys(res.body.results[0].data)).toEqual(["symbol", "profile"]);
  });

  it("reads a text/plain body too", async () => {
    const res = await t.http
      .post(`/${v}/bulk`)
      .set("x-api-key", BOOTSTRAP_KEY)
      .set("content-type", "text/plain")
      .set("accept", "text/plain")
      .send(JSON.stringify({ symbols: [{ symbol: "BTC-USD" }], endpoint: "crypto/price" }));
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ symbol: "BTC-USD", statusCode: 200, data: { symbol: "BTC-USD" } });
  });

  it("keeps request order with good, unknown and malformed symbols, each with its own status", async () => {
    const [a, b] = primary("etf", 2);
    const [stock] = primary("stock", 1);
    const symbols = [
      { symbol: a },
      { symbol: "NO-SUCH-ETF" },
      { symbol: "" },
      { symbol: 42 },
      {},
      "BARE",
      null,
      { symbol: stock },
      { symbol: b },
    ];
    const res = await bulk(v, { endpoint: "etf/profile", symbols });
    expect(res.status).toBe(200);
    const summary = res.body.results.map((r: { symbol: unknown; statusCode: number; error?: { code: string } }) => [
      r.symbol,
      r.statusCode,
      r.error?.code ?? null,
    ]);
    expect(summary).toEqual([
      [a, 200, null],
      ["NO-SUCH-ETF", 404, "NOT_FOUND"],
      ["", 404, "INVALID_ARGUMENT"],
      [null, 404, "INVALID_ARGUMENT"],
      [null, 404, "INVALID_ARGUMENT"],
      [null, 404, "INVALID_ARGUMENT"],
      [null, 404, "INVALID_ARGUMENT"],
      [stock, 404, "NOT_FOUND"],
      [b, 200, null],
    ]);
    const bad = res.body.results[2].error;
    expect(bad).toMatchObject({
      statusCode: 404,
      error: "Not Found",
      code: "INVALID_ARGUMENT",
      requestId: res.headers["x-request-id"],
    });
    expect(bad.details).toEqual([{ field: "symbol", issue: expect.any(String) }]);
  });

  it("gives an item with bad params its own 404 (a bad resolution) without failing the others", async () => {
    const [stock] = primary("stock", 1);
    const res = await bulk(v, {
      endpoint: "candle",
      symbols: [{ symbol: stock }, { symbol: "BTC-USD" }],
      params: { resolution: "7" },
    });
    expect(res.status).toBe(200);
    const direct = await t.post(`/${v}/candle`, { symbol: stock, resolution: "7" });
    expectErrorBody(direct, 404, "INVALID_ARGUMENT");
    expect(
      res.body.results.map((r: { statusCode: number; error: { code: string } }) => [r.statusCode, r.error.code]),
    ).toEqual([
      [404, "INVALID_ARGUMENT"],
      [404, "INVALID_ARGUMENT"],
    ]);
    expect(res.body.results[0].error.message).toBe(direct.body.message);
  });

  it("answers every count from 1 to 9 with exactly its items (one document size serves smaller counts)", async () => {
    const etfs = primary("etf", 9);
    for (const n of [5, 1, 9, 3, 8, 2, 7, 4, 6]) {
      const symbols = etfs.slice(0, n);
      const res = await bulk(v, { endpoint: "etf/profile", symbols: symbols.map((symbol) => ({ symbol })) });
      expect(res.status).toBe(200);
      expect(
        res.body.results.map((r: { symbol: string; statusCode: number; data: { symbol: string } }) => [
          r.symbol,
          r.statusCode,
          r.data.symbol,
        ]),
      ).toEqual(symbols.map((s) => [s, 200, s]));
    }
  });

  it("lets each item's symbol win over a symbol in params", async () => {
    const res = await bulk(v, {
      endpoint: "crypto/price",
      symbols: [{ symbol: "ETH-USD" }],
      params: { symbol: "BTC-USD" },
    });
    expect(res.body.results[0].data.symbol).toBe("ETH-USD");
  });

  it("accepts the endpoint with or without version prefix and slashes", async () => {
    for (const endpoint of [
      "crypto/price",
      "/crypto/price",
      "/v0/crypto/price",
      "v1/crypto/price/",
      "/V1/Crypto/Price",
    ]) {
      const res = await bulk(v, { endpoint, symbols: [{ symbol: "BTC-USD" }] });
      expect({ endpoint, status: res.status, named: res.body.endpoint }).toEqual({
        endpoint,
        status: 200,
        named: "crypto/price",
      });
    }
  });

  it("answers 404 INVALID_ARGUMENT for an unknown or non-single-security endpoint", async () => {
    for (const endpoint of [
      "nope",
      "search/aggregated",
      "list/stocks",
      "calendar/dividends",
      "bulk",
      "index/constituents/x",
      "",
    ]) {
      const res = await bulk(v, { endpoint, symbols: [{ symbol: "BTC-USD" }] });
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      expect(res.body.details[0].field).toBe("endpoint");
    }
  });

  it("answers 404 INVALID_ARGUMENT for a malformed envelope", async () => {
    const bodies: unknown[] = [
      { symbols: [{ symbol: "BTC-USD" }] },
      { endpoint: "crypto/price" },
      { endpoint: "crypto/price", symbols: "BTC-USD" },
      { endpoint: "crypto/price", symbols: [] },
      { endpoint: "crypto/price", symbols: [{ symbol: "BTC-USD" }], params: [1] },
      { endpoint: "crypto/price", symbols: [{ symbol: "BTC-USD" }], params: "D" },
      { endpoint: 5, symbols: [{ symbol: "BTC-USD" }] },
      "{not json",
      [],
    ];
    for (const body of bodies) expectErrorBody(await bulk(v, body), 404, "INVALID_ARGUMENT");
  });

  it("takes up to MDG_BULK_MAX_SYMBOLS (100) symbols and answers 101 with 404 INVALID_ARGUMENT", async () => {
    const symbols = Array.from({ length: 100 }, () => ({ symbol: "BTC-USD" }));
    const ok = await bulk(v, { endpoint: "crypto/price", symbols });
    expect(ok.status).toBe(200);
    expect(ok.body.results).toHaveLength(100);
    const res = await bulk(v, { endpoint: "crypto/price", symbols: [...symbols, { symbol: "ETH-USD" }] });
    expectErrorBody(res, 404, "INVALID_ARGUMENT");
    expect(res.body.details).toEqual([{ field: "symbols", issue: "too many" }]);
  });

  it("answers 401 without a valid key, whatever the body", async () => {
    expectErrorBody(
      await bulk(v, { endpoint: "etf/profile", symbols: [{ symbol: "X" }] }, null),
      401,
      "UNAUTHENTICATED",
    );
    expectErrorBody(await bulk(v, "{not json", "wrong-key"), 401, "UNAUTHENTICATED");
  });

  it("answers 403 for a key without the bulk scope, or without the named endpoint's scope", async () => {
    const [etf] = primary("etf", 1);
    const body = { endpoint: "etf/profile", symbols: [{ symbol: etf }] };
    const etfOnly = await t.apiKeys.create({ name: "etf-no-bulk", scopes: ["etf"] });
    const denied = await bulk(v, body, etfOnly.key);
    expectErrorBody(denied, 403, "FORBIDDEN");
    expect(denied.body.message).toContain("bulk");

    const bulkCrypto = await t.apiKeys.create({ name: "bulk-crypto", scopes: ["bulk", "crypto"] });
    const wrongScope = await bulk(v, body, bulkCrypto.key);
    expectErrorBody(wrongScope, 403, "FORBIDDEN");
    expect(wrongScope.body.message).toContain("etf");
    expect((await bulk(v, { endpoint: "crypto/price", symbols: [{ symbol: "BTC-USD" }] }, bulkCrypto.key)).status).toBe(
      200,
    );

    const bulkEtf = await t.apiKeys.create({ name: "bulk-etf", scopes: ["bulk", "etf"] });
    expect((await bulk(v, body, bulkEtf.key)).status).toBe(200);
  });

  it("answers quote items a key may not read with their own 403, as a direct quote would", async () => {
    const [etf] = primary("etf", 1);
    const key = (await t.apiKeys.create({ name: "bulk-crypto-quote", scopes: ["bulk", "crypto"] })).key;
    const res = await bulk(v, { endpoint: "quote", symbols: [{ symbol: "BTC-USD" }, { symbol: etf }] }, key);
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { statusCode: number }) => r.statusCode)).toEqual([200, 403]);
    expect(res.body.results[1].error.code).toBe("FORBIDDEN");
    expect((await t.post(`/${v}/quote`, { symbol: etf }, key)).status).toBe(403);
  });

  it("answers 404 for GET", async () => {
    expectErrorBody(await t.http.get(`/${v}/bulk`).set("x-api-key", BOOTSTRAP_KEY), 404, "NOT_FOUND");
  });
});

describe("bulk versions", () => {
  it("/v1/bulk of etf/holdings has no cusip; /v0 keeps it", async () => {
    const [etf] = primary("etf", 1);
    const body = { endpoint: "etf/holdings", symbols: [{ symbol: etf }] };
    const v0 = await bulk("v0", body);
    const v1 = await bulk("v1", body);
    const h0 = v0.body.results[0].data.holdings;
    const h1 = v1.body.results[0].data.holdings;
    expect(h0.length).toBeGreaterThan(0);
    expect(h0.every((h: object) => "cusip" in h)).toBe(true);
    expect(h1.some((h: object) => "cusip" in h)).toBe(false);
  });

  it("/v0/bulk carries the deprecation headers pointing to /v1/bulk", async () => {
    const res = await bulk("v0", { endpoint: "crypto/price", symbols: [{ symbol: "BTC-USD" }] });
    expect(res.headers.deprecation).toBe("@1735689599");
    expect(res.headers.link).toBe('</v1/bulk>; rel="successor-version"');
    expect(
      (await bulk("v1", { endpoint: "crypto/price", symbols: [{ symbol: "BTC-USD" }] })).headers.deprecation,
    ).toBeUndefined();
  });

  it("the limit is configurable (MDG_BULK_MAX_SYMBOLS)", async () => {
    const small = await createTestApp({ env: { MDG_BULK_MAX_SYMBOLS: "2" } });
    try {
      const body = (n: number) => ({
        endpoint: "crypto/price",
        symbols: Array.from({ length: n }, () => ({ symbol: "BTC-USD" })),
      });
      expect((await small.post("/v1/bulk", body(2))).status).toBe(200);
      expectErrorBody(await small.post("/v1/bulk", body(3)), 404, "INVALID_ARGUMENT");
    } finally {
      await small.close();
    }
  });
});

describe("bulk costs a constant number of store queries", () => {
  /** 100 symbols of a type; the test store has fewer ETFs and crypto pairs, so they repeat. */
  const hundred = (type: string) => {
    const some = primary(type, 100);
    return Array.from({ length: 100 }, (_, i) => some[i % some.length]!);
  };
  const CASES: [string, () => string[]][] = [
    ["quote", () => hundred("stock")],
    ["etf/profile", () => hundred("etf")],
    ["crypto/price", () => hundred("crypto")],
    ["etf/holdings", () => hundred("etf")],
  ];
  it.each(CASES)("%s: 1, 10 and 100 symbols cost the same, at most 3", async (endpoint, pick) => {
    const all = pick();
    expect(all.length).toBe(100);
    const counts: number[] = [];
    for (const n of [1, 10, 100]) {
      const { result, queries } = await t.countQueries(() =>
        bulk("v1", { endpoint, symbols: all.slice(0, n).map((symbol) => ({ symbol })) }),
      );
      expect(result.status).toBe(200);
      expect(result.body.results.filter((r: { statusCode: number }) => r.statusCode === 200)).toHaveLength(n);
      counts.push(queries);
    }
    expect(counts[0]).toBeLessThanOrEqual(3);
    expect(counts).toEqual([counts[0], counts[0], counts[0]]);
  });

  // Items of every kind (answered, refused, unknown, in other currencies, without data) take different resolver
  // paths, and some paths need a store call only when some item takes them. Whatever paths 100 distinct items
  // take, each data-source method is called at most once: one DataLoader batch for all the items that need it
  // (distinct symbols, because the request's loaders answer a repeated symbol from their cache).
  // An endpoint only gateway mode serves reads nothing of the store (test/domain/relay/relay.rest.spec.ts).
  const current = SINGLE.filter(
    (r) =>
      r.versions.includes("v1") &&
      !isRemoved(r.removedOn, "v1", new Date(`${TEST_ANCHOR}T12:00:00Z`)) &&
      !r.gatewayOnly,
  );
  /** 100 distinct symbols: 40 stocks without dividends, 10 with, 20 ETFs, 10 funds, 10 crypto pairs, 10 unknown. */
  const hundredMixed = () => [
    ...primary("stock", 40, "AND NOT EXISTS (SELECT 1 FROM dividends d WHERE d.security_id = s.id)"),
    ...primary("stock", 10, "AND EXISTS (SELECT 1 FROM dividends d WHERE d.security_id = s.id)"),
    ...primary("etf", 20),
    ...primary("fund", 10),
    ...primary("crypto", 10),
    ...Array.from({ length: 10 }, (_, i) => `NO-SUCH-${i}`),
  ];
  /** `mdg_store_query_duration_seconds_count` by method, from /metrics. */
  const callsByMethod = async () => {
    const text = (await t.http.get("/metrics")).text;
    const out = new Map<string, number>();
    for (const m of text.matchAll(/^mdg_store_query_duration_seconds_count\{method="(\w+)"\} (\d+)$/gm))
      out.set(m[1]!, Number(m[2]));
    return out;
  };
  it.each(current.map((r) => [r.path] as const))(
    "%s: 100 distinct items of every kind call each store method at most once",
    async (path) => {
      const symbols = hundredMixed();
      expect(new Set(symbols).size).toBe(100);
      // From a cold instrument cache, so the instrument lookups are store calls too (every entry makes them).
      t.instrumentCache.clear();
      const before = await callsByMethod();
      const res = await bulk("v1", {
        endpoint: path,
        symbols: symbols.map((symbol) => ({ symbol })),
        params: PARAMS[path] ?? {},
      });
      const after = await callsByMethod();
      expect(res.status).toBe(200);
      expect(res.body.results).toHaveLength(100);
      expect(res.body.results.some((r: { statusCode: number }) => r.statusCode === 200)).toBe(true);
      const calls = Object.fromEntries(
        [...after].map(([method, n]) => [method, n - (before.get(method) ?? 0)]).filter(([, n]) => n !== 0),
      );
      expect(calls.getInstrumentsBySymbols).toBe(1);
      expect(Object.entries(calls).filter(([, n]) => n !== 1)).toEqual([]);
    },
  );
});
