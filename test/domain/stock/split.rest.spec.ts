import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";
import { GATEWAY_KEY, gatewayPerSuite } from "../../helpers/gateway";
import { gql } from "../../helpers/graphql";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/**
 * The Bavest Python SDK's `Split` model (bavest/finance/models/v0/stock/split/split.py at Bavest/python-sdk
 * d6e4d7ab211b5a57e7bf491bed4493452c8552a8), every field with the type it declares.
 */
const SPLIT_MODEL = { event: "str", splits: "List[SplitsItem]" } as const;
const SPLITS_ITEM_MODEL = { date: "str", symbol: "str", fromFactor: "int", toFactor: "int" } as const;

function expectSplitModel(body: Record<string, unknown>) {
  expect(Object.keys(body).sort()).toEqual(Object.keys(SPLIT_MODEL).sort());
  expect(typeof body.event).toBe("string");
  expect(Array.isArray(body.splits)).toBe(true);
  for (const item of body.splits as Record<string, unknown>[]) {
    expect(Object.keys(item).sort()).toEqual(Object.keys(SPLITS_ITEM_MODEL).sort());
    for (const [key, type] of Object.entries(SPLITS_ITEM_MODEL)) {
      const value = item[key];
      if (type === "int") expect({ key, int: Number.isInteger(value) }).toEqual({ key, int: true });
      else expect({ key, type: typeof value }).toEqual({ key, type: "string" });
    }
  }
}

interface StoredSplit {
  securityId: number;
  symbol: string;
  isin: string;
  day: string;
  numerator: number;
  denominator: number;
}

/** A stock with a stored split on or before the test clock's day (the latest such split). */
function splitter(): StoredSplit {
  const row = t.source.db
    .prepare(
      `SELECT sp.security_id AS securityId, l.symbol, s.isin, sp.day, sp.numerator, sp.denominator
       FROM splits sp JOIN securities s ON s.id = sp.security_id AND s.type = 'stock'
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       WHERE sp.day <= ? AND s.isin IS NOT NULL ORDER BY sp.day DESC LIMIT 1`,
    )
    .get(TEST_ANCHOR) as StoredSplit | undefined;
  if (!row) throw new Error("the test store holds no stock split");
  return row;
}

function storedSplits(securityId: number, from: string, to: string): StoredSplit[] {
  return t.source.db
    .prepare(
      `SELECT security_id AS securityId, day, numerator, denominator FROM splits
       WHERE security_id = ? AND day BETWEEN ? AND ? ORDER BY day`,
    )
    .all(securityId, from, to) as StoredSplit[];
}

/** The contract's items of stored whole-number ratios: shares before (the denominator) to shares after. */
function expectedItems(symbol: string, rows: StoredSplit[]) {
  for (const r of rows) expect([r.numerator, r.denominator].every(Number.isInteger)).toBe(true);
  return rows.map((r) => ({ date: r.day, symbol, fromFactor: r.denominator, toFactor: r.numerator }));
}

const unix = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;
/** What Python's `datetime.timestamp()` gives for an instant of that day: float seconds. */
const pythonSeconds = (day: string, hour: number) => unix(day) + hour * 3600 + 0.123456;
/** What Dart's `millisecondsSinceEpoch.toString()` gives for an instant of that day. */
const dartMillis = (day: string, hour: number) => String((unix(day) + hour * 3600) * 1000 + 789);

const addDays = (day: string, n: number) => new Date((unix(day) + n * 86_400) * 1000).toISOString().slice(0, 10);

describe.each(["v0", "v1"])("POST /%s/stock/split", (v) => {
  it("answers what client.stock.split(symbol, frm, to) posts (float seconds), in the SDK model's keys", async () => {
    const s = splitter();
    const [from, to] = [addDays(s.day, -400), addDays(s.day, 1)];
    const res = await t.post(`/${v}/stock/split`, {
      symbol: s.symbol,
      from: pythonSeconds(from, 9),
      to: pythonSeconds(to, 23),
    });
    expect(res.status).toBe(200);
    expectSplitModel(res.body);
    const items = expectedItems(s.symbol, storedSplits(s.securityId, from, to));
    expect(items.length).toBeGreaterThan(0);
    expect(res.body).toEqual({ event: "split", splits: items });
  });

  it("answers what the Dart client posts (milliseconds in strings) alike, by symbol and by ISIN", async () => {
    const s = splitter();
    const [from, to] = [addDays(s.day, -365), s.day];
    const python = await t.post(`/${v}/stock/split`, {
      symbol: s.symbol,
      from: pythonSeconds(from, 0),
      to: pythonSeconds(to, 0),
    });
    const dart = await t.post(`/${v}/stock/split`, {
      symbol: s.symbol,
      from: dartMillis(from, 0),
      to: dartMillis(to, 0),
    });
    expect(dart.status).toBe(200);
    expect(dart.body).toEqual(python.body);
    expect(dart.body.splits.map((x: { date: string }) => x.date)).toContain(s.day);
    const byIsin = await t.post(`/${v}/stock/split`, {
      isin: s.isin,
      from: dartMillis(from, 0),
      to: dartMillis(to, 0),
    });
    expect(byIsin.body).toEqual(python.body);
  });

  it("answers every stored split to today without from and to, and none in a range without one", async () => {
    const s = splitter();
    const all = await t.post(`/${v}/stock/split`, { symbol: s.symbol });
    expect(all.body).toEqual({
      event: "split",
      splits: expectedItems(s.symbol, storedSplits(s.securityId, "0000-00-00", TEST_ANCHOR)),
    });
    const after = await t.post(`/${v}/stock/split`, { symbol: s.symbol, from: addDays(s.day, 1), to: TEST_ANCHOR });
    expect(after.body).toEqual({
      event: "split",
      splits: expectedItems(s.symbol, storedSplits(s.securityId, addDays(s.day, 1), TEST_ANCHOR)),
    });
    expect(after.body.splits.map((x: { date: string }) => x.date)).not.toContain(s.day);
  });

  it("answers an empty list for a stock that never split", async () => {
    const none = t.source.db
      .prepare(
        `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
         WHERE s.type = 'stock' AND NOT EXISTS (SELECT 1 FROM splits sp WHERE sp.security_id = s.id) LIMIT 1`,
      )
      .get() as { symbol: string };
    const res = await t.post(`/${v}/stock/split`, { symbol: none.symbol, from: 0, to: pythonSeconds(TEST_ANCHOR, 1) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ event: "split", splits: [] });
  });

  it("answers 404 INVALID_ARGUMENT for milliseconds as a number, ten digits in a string, from after to", async () => {
    const s = splitter();
    const ms = (unix(s.day) + 1) * 1000;
    for (const body of [
      { symbol: s.symbol, from: ms },
      { symbol: s.symbol, from: String(unix(s.day)) },
      { symbol: s.symbol, from: "2026-11-20", to: "2026-01-01" },
    ]) {
      const res = await t.post(`/${v}/stock/split`, body);
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      expect(res.body.details[0].field).toBe("from");
    }
  });

  it("answers 404 NOT_FOUND for an ETF and an unknown symbol", async () => {
    const etf = t.source.db
      .prepare(`SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id WHERE s.type = 'etf'`)
      .get() as { symbol: string };
    expectErrorBody(await t.post(`/${v}/stock/split`, { symbol: etf.symbol }), 404, "NOT_FOUND");
    expectErrorBody(await t.post(`/${v}/stock/split`, { symbol: "NOPE-NOT-A-SYMBOL" }), 404, "NOT_FOUND");
  });

  it("needs the stock scope, and a key", async () => {
    const s = splitter();
    const dividendOnly = await t.apiKeys.create({ name: `split-dividend-${v}`, scopes: ["dividend"] });
    expectErrorBody(await t.post(`/${v}/stock/split`, { symbol: s.symbol }, dividendOnly.key), 403, "FORBIDDEN");
    expectErrorBody(await t.post(`/${v}/stock/split`, { symbol: s.symbol }, null), 401, "UNAUTHENTICATED");
  });

  it("answers GET with days or seconds in the query string as POST", async () => {
    const s = splitter();
    const [from, to] = [addDays(s.day, -30), addDays(s.day, 30)];
    const post = await t.post(`/${v}/stock/split`, { symbol: s.symbol, from, to });
    for (const q of [`from=${from}&to=${to}`, `from=${pythonSeconds(from, 1)}&to=${pythonSeconds(to, 1)}`]) {
      const res = await t.http
        .get(`/${v}/stock/split?symbol=${encodeURIComponent(s.symbol)}&${q}`)
        .set("x-api-key", "test-bootstrap-key-0123456789");
      expect(res.status).toBe(200);
      expect(res.body).toEqual(post.body);
    }
  });

  it("answers through bulk, with the SDK's float seconds as params", async () => {
    const s = splitter();
    const params = { from: pythonSeconds(addDays(s.day, -1), 0), to: pythonSeconds(addDays(s.day, 1), 0) };
    const res = await t.post(`/${v}/bulk`, {
      endpoint: "stock/split",
      symbols: [{ symbol: s.symbol }, { symbol: "NOPE-NOT-A-SYMBOL" }],
      params,
    });
    expect(res.status).toBe(200);
    const results = res.body.results as { statusCode: number; data?: unknown }[];
    expect(results.map((r) => r.statusCode)).toEqual([200, 404]);
    expect(results[0]!.data).toEqual((await t.post(`/${v}/stock/split`, { symbol: s.symbol, ...params })).body);
  });
});

describe("GraphQL Stock.splits", () => {
  it("answers the splits REST answers, with days", async () => {
    const s = splitter();
    const res = await gql(
      t,
      `query ($s: String, $f: String, $t: String) {
        stock(symbol: $s) { splits(from: $f, to: $t) { symbol date fromFactor toFactor } }
      }`,
      { s: s.symbol, f: addDays(s.day, -10), t: s.day },
    );
    const rest = await t.post("/v1/stock/split", { symbol: s.symbol, from: addDays(s.day, -10), to: s.day });
    expect(res.body.data.stock.splits).toEqual(rest.body.splits);
    expect(rest.body.splits.length).toBeGreaterThan(0);
  });

  it("refuses the field to a key without the stock scope", async () => {
    const s = splitter();
    const searchOnly = await t.apiKeys.create({ name: "split-search-gql", scopes: ["search"] });
    const res = await gql(
      t,
      `query ($s: String) { stock(symbol: $s) { symbol splits { date } } }`,
      { s: s.symbol },
      searchOnly.key,
    );
    expect(res.body.data.stock).toEqual({ symbol: s.symbol, splits: null });
    expect(res.body.errors[0].extensions.code).toBe("FORBIDDEN");
  });
});

describe("gateway mode", () => {
  const gw = gatewayPerSuite();

  it("answers what the upstream answers, on both doors, for the Python and the Dart forms", async () => {
    const s = splitter();
    const [from, to] = [addDays(s.day, -365), addDays(s.day, 1)];
    const direct = await gw.upstream.app.post("/v1/stock/split", { symbol: s.symbol, from, to });
    expect(direct.body.splits.length).toBeGreaterThan(0);
    for (const v of ["v0", "v1"]) {
      for (const body of [
        { symbol: s.symbol, from: pythonSeconds(from, 3), to: pythonSeconds(to, 3) },
        { isin: s.isin, from: dartMillis(from, 3), to: dartMillis(to, 3) },
      ]) {
        const res = await gw.gateway.post(`/${v}/stock/split`, body, GATEWAY_KEY);
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: direct.body });
      }
    }
  });
});
