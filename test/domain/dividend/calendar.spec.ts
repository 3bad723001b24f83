import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY, TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";
import { dividendPayer, unix } from "../../helpers/stock-samples";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const ROW_KEYS = [
  "symbol",
  "date",
  "recordDate",
  "payDate",
  "declarationDate",
  "amount",
  "adjustedAmount",
  "currency",
].sort();
const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

interface CalendarRow {
  symbol: string;
  date: string;
  amount: number;
  adjustedAmount: number;
  currency: string;
}

/** Stored dividends of stocks and ETFs with ex-dates in [from, to], in the calendar's order. */
function storedWindow(from: string, to: string, securityId?: number): CalendarRow[] {
  return t.source.db
    .prepare(
      `SELECT l.symbol, d.ex_date AS date, d.amount, d.adjusted_amount AS adjustedAmount, d.currency
       FROM dividends d JOIN securities s ON s.id = d.security_id JOIN listings l ON l.security_id = s.id
         AND l.is_primary = 1
       WHERE ${securityId ? "s.id = ?" : "s.type IN ('stock', 'etf')"} AND d.ex_date BETWEEN ? AND ?
       ORDER BY d.ex_date, d.security_id`,
    )
    .all(...[...(securityId ? [securityId] : []), from, to]) as CalendarRow[];
}

const pick = (rows: CalendarRow[]) =>
  rows.map((r) => ({
    symbol: r.symbol,
    date: r.date,
    amount: r.amount,
    adjustedAmount: r.adjustedAmount,
    currency: r.currency,
  }));

async function walk(path: string, body: Record<string, unknown>): Promise<CalendarRow[]> {
  const rows: CalendarRow[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const res = await t.post(path, cursor ? { ...body, cursor } : body);
    expect(res.status).toBe(200);
    rows.push(...res.body.dividends);
    cursor = res.body.nextCursor;
    if (!cursor) return rows;
  }
  throw new Error("too many pages");
}

describe.each(["v0", "v1"])("POST /%s/calendar/dividends", (v) => {
  it("answers 200 with upcoming dividends to a request with no body and no content type", async () => {
    const res = await t.http.post(`/${v}/calendar/dividends`).set("x-api-key", BOOTSTRAP_KEY);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(["dividends", "from", "nextCursor", "to"]);
    expect(res.body).toMatchObject({ from: TEST_ANCHOR, to: addDays(TEST_ANCHOR, 90) });
    const expected = storedWindow(TEST_ANCHOR, addDays(TEST_ANCHOR, 90));
    expect(expected.length).toBeGreaterThan(0);
    expect(pick(res.body.dividends)).toEqual(pick(expected.slice(0, 100)));
    for (const row of res.body.dividends) expect(Object.keys(row).sort()).toEqual(ROW_KEYS);
    expect(res.body.dividends.some((d: CalendarRow) => d.date > TEST_ANCHOR)).toBe(true);
  });

  it("answers the same to an empty JSON body", async () => {
    const a = await t.post(`/${v}/calendar/dividends`, {});
    const b = await t.http.post(`/${v}/calendar/dividends`).set("x-api-key", BOOTSTRAP_KEY);
    expect(a.status).toBe(200);
    expect(a.body).toEqual(b.body);
  });

  it("pages through a window with limit and cursor, sorted by ex-date, every row once", async () => {
    const from = addDays(TEST_ANCHOR, -60);
    const to = addDays(TEST_ANCHOR, 30);
    const rows = await walk(`/${v}/calendar/dividends`, { from, to, limit: 7 });
    expect(pick(rows)).toEqual(pick(storedWindow(from, to)));
    expect(rows.length).toBeGreaterThan(7);
    const dates = rows.map((r) => r.date);
    expect([...dates].sort()).toEqual(dates);
  });

  it.each(["stock", "etf", "fund"])("accepts dates as Unix seconds and filters by one %s", async (type) => {
    const s = dividendPayer(t.source.db, type);
    const from = addDays(TEST_ANCHOR, -3 * 365);
    const res = await t.post(`/${v}/calendar/dividends`, {
      from: unix(from),
      to: unix(`${TEST_ANCHOR}T18:00:00Z`) + 90 * 86_400,
      ...(type === "fund" ? { isin: s.isin } : { symbol: s.symbol }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ from, to: addDays(TEST_ANCHOR, 90) });
    expect(pick(res.body.dividends)).toEqual(pick(storedWindow(from, addDays(TEST_ANCHOR, 90), s.securityId)));
    expect(new Set(res.body.dividends.map((d: CalendarRow) => d.symbol))).toEqual(new Set([s.symbol]));
  });

  it("answers 200 with an empty list for a window with no dividends", async () => {
    const res = await t.post(`/${v}/calendar/dividends`, { from: "1990-01-01", to: "1990-01-31" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ from: "1990-01-01", to: "1990-01-31", dividends: [], nextCursor: null });
  });

  it.each([
    [{ from: "2026-02-30" }, "from"],
    [{ from: "20261120" }, "from"],
    [{ to: "next week" }, "to"],
    [{ to: 1_763_650_000_000 }, "to"],
    [{ limit: 0 }, "limit"],
    [{ limit: "ten" }, "limit"],
    [{ cursor: "bm9wZQ" }, "cursor"],
  ])("answers 404 INVALID_ARGUMENT for %j", async (body, field) => {
    const res = await t.post(`/${v}/calendar/dividends`, body);
    expectErrorBody(res, 404, "INVALID_ARGUMENT");
    expect(res.body.message.startsWith(`${field}:`)).toBe(true);
  });

  it("answers 404 INVALID_ARGUMENT for from after to, NOT_FOUND for an unknown symbol", async () => {
    expectErrorBody(
      await t.post(`/${v}/calendar/dividends`, { from: "2026-12-01", to: "2026-11-01" }),
      404,
      "INVALID_ARGUMENT",
    );
    expectErrorBody(await t.post(`/${v}/calendar/dividends`, { symbol: "NOPE.NOPE" }), 404, "NOT_FOUND");
  });

  it("needs the dividend scope", async () => {
    const stockOnly = await t.apiKeys.create({ name: "calendar-stock-only", scopes: ["stock"] });
    expectErrorBody(await t.http.post(`/${v}/calendar/dividends`).set("x-api-key", stockOnly.key), 403, "FORBIDDEN");
    expectErrorBody(await t.http.post(`/${v}/calendar/dividends`), 401, "UNAUTHENTICATED");
  });
});
