import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY, TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";
import { GATEWAY_KEY, gatewayPerSuite } from "../../helpers/gateway";
import { gql } from "../../helpers/graphql";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/**
 * The Bavest Python SDK's `EarningsConfirmed` model (bavest/finance/models/v0/stock/calendar/earnings/earnings.py at
 * Bavest/python-sdk d6e4d7ab211b5a57e7bf491bed4493452c8552a8), every field with the type it declares.
 */
const EARNINGS_CONFIRMED_MODEL = { event: "str", earningsConfirmed: "List[EarningsConfirmedItem]" } as const;
const EARNINGS_CONFIRMED_ITEM_MODEL = {
  date: "str",
  symbol: "str",
  exchange: "str",
  time: "str",
  title: "str",
  when: "str",
  publicationDate: "str",
  url: "str",
} as const;
/** The model's `str` fields the store holds nothing for: null, as docs/contract.md section 4 says. */
const NOT_HELD = new Set(["time", "when", "url"]);

function expectEarningsModel(body: Record<string, unknown>) {
  expect(Object.keys(body).sort()).toEqual(Object.keys(EARNINGS_CONFIRMED_MODEL).sort());
  expect(typeof body.event).toBe("string");
  expect(Array.isArray(body.earningsConfirmed)).toBe(true);
  for (const item of body.earningsConfirmed as Record<string, unknown>[]) {
    expect(Object.keys(item).sort()).toEqual(Object.keys(EARNINGS_CONFIRMED_ITEM_MODEL).sort());
    for (const [key, type] of Object.entries(EARNINGS_CONFIRMED_ITEM_MODEL)) {
      expect(type).toBe("str");
      const value = item[key];
      if (NOT_HELD.has(key)) expect({ key, value }).toEqual({ key, value: null });
      else if (key === "publicationDate") expect(value === null || typeof value === "string").toBe(true);
      else expect({ key, type: typeof value }).toEqual({ key, type: "string" });
    }
  }
}

interface Expected {
  date: string;
  symbol: string;
  exchange: string;
  time: null;
  title: string;
  when: null;
  publicationDate: string | null;
  url: null;
}

/** The store's earnings dates in [from, to], computed here from the tables themselves. */
function expectedRows(from: string, to: string): Expected[] {
  const rows = t.source.db
    .prepare(
      `SELECT s.id, s.name, l.symbol, l.exchange, f.reported_date AS day, f.fiscal_year AS fy, f.fiscal_quarter AS fq
       FROM quarterly_financials f JOIN securities s ON s.id = f.security_id
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1 WHERE f.reported_date BETWEEN ? AND ?
       UNION ALL
       SELECT s.id, s.name, l.symbol, l.exchange, s.next_earnings_date, NULL, NULL FROM securities s
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       WHERE s.type = 'stock' AND s.next_earnings_date BETWEEN ? AND ?
         AND s.next_earnings_date NOT IN (SELECT reported_date FROM quarterly_financials WHERE security_id = s.id)`,
    )
    .all(from, to, from, to) as {
    id: number;
    name: string;
    symbol: string;
    exchange: string;
    day: string;
    fy: number | null;
    fq: number | null;
  }[];
  rows.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.id - b.id || (a.fy ?? 0) - (b.fy ?? 0)));
  return rows.map((r) => ({
    date: r.day,
    symbol: r.symbol,
    exchange: r.exchange,
    time: null,
    title: r.fy == null ? `${r.name} earnings` : `${r.name} Q${r.fq} ${r.fy} earnings`,
    when: null,
    publicationDate: r.fy == null ? null : r.day,
    url: null,
  }));
}

const unix = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;
/** What Python's `datetime.timestamp()` gives for an instant of that day: float seconds. */
const pythonSeconds = (day: string, hour: number) => unix(day) + hour * 3600 + 0.123456;
/** Milliseconds in a string, as the Dart client sends its times. */
const dartMillis = (day: string, hour: number) => String((unix(day) + hour * 3600) * 1000 + 789);
const addDays = (day: string, n: number) => new Date((unix(day) + n * 86_400) * 1000).toISOString().slice(0, 10);

/** The latest day on or before the anchor on which some quarter was reported. */
function aReportDay(): string {
  return t.source.db
    .prepare(`SELECT max(reported_date) FROM quarterly_financials WHERE reported_date <= ?`)
    .pluck()
    .get(TEST_ANCHOR) as string;
}

/** The earliest next earnings date the store holds. */
function aNextEarningsDay(): string {
  return t.source.db
    .prepare(`SELECT min(next_earnings_date) FROM securities WHERE type = 'stock' AND next_earnings_date IS NOT NULL`)
    .pluck()
    .get() as string;
}

describe.each(["v0", "v1"])("POST /%s/calender/earnings", (v) => {
  it("answers what client.stock.earnings(frm, to) posts (float seconds) in the SDK model's keys", async () => {
    const day = aReportDay();
    const [from, to] = [addDays(day, -20), day];
    const res = await t.post(`/${v}/calender/earnings`, {
      event: "earnings",
      from: pythonSeconds(from, 9),
      to: pythonSeconds(to, 23),
    });
    expect(res.status).toBe(200);
    expectEarningsModel(res.body);
    const expected = expectedRows(from, to);
    expect(expected.length).toBeGreaterThan(0);
    expect(res.body).toEqual({ event: "earnings", earningsConfirmed: expected });
  });

  it("holds the window's bounds: both days included, the days beside them not", async () => {
    const day = aReportDay();
    const one = await t.post(`/${v}/calender/earnings`, { from: day, to: day });
    const dates = (one.body.earningsConfirmed as { date: string }[]).map((e) => e.date);
    expect(dates.length).toBeGreaterThan(0);
    expect(new Set(dates)).toEqual(new Set([day]));
    const before = await t.post(`/${v}/calender/earnings`, { from: addDays(day, -5), to: addDays(day, -1) });
    const after = await t.post(`/${v}/calender/earnings`, { from: addDays(day, 1), to: addDays(day, 5) });
    for (const e of before.body.earningsConfirmed as { date: string }[]) expect(e.date < day).toBe(true);
    for (const e of after.body.earningsConfirmed as { date: string }[]) expect(e.date > day).toBe(true);
    expect(before.body.earningsConfirmed).toEqual(expectedRows(addDays(day, -5), addDays(day, -1)));
  });

  it("answers milliseconds in strings (the SDKs' other time form) as float seconds", async () => {
    const day = aReportDay();
    const python = await t.post(`/${v}/calender/earnings`, {
      event: "earnings",
      from: pythonSeconds(addDays(day, -3), 0),
      to: pythonSeconds(day, 0),
    });
    const millis = await t.post(`/${v}/calender/earnings`, {
      from: dartMillis(addDays(day, -3), 0),
      to: dartMillis(day, 0),
    });
    expect(millis.status).toBe(200);
    expect(millis.body).toEqual(python.body);
  });

  it("answers a stock's next earnings date ahead, without a publication date", async () => {
    const next = aNextEarningsDay();
    const res = await t.post(`/${v}/calender/earnings`, { from: next, to: addDays(next, 6) });
    expect(res.status).toBe(200);
    expectEarningsModel(res.body);
    const expected = expectedRows(next, addDays(next, 6));
    expect(expected.some((e) => e.publicationDate === null)).toBe(true);
    expect(res.body.earningsConfirmed).toEqual(expected);
  });

  it("answers from today without from, and to 30 days after from without to", async () => {
    const day = aReportDay();
    const within = await t.post(`/${v}/calender/earnings`, { from: addDays(day, -30) });
    expect(within.body.earningsConfirmed).toEqual(expectedRows(addDays(day, -30), day));
    expect((within.body.earningsConfirmed as { date: string }[]).map((e) => e.date)).toContain(day);
    const beyond = await t.post(`/${v}/calender/earnings`, { from: addDays(day, -31), to: addDays(day, -1) });
    const short = await t.post(`/${v}/calender/earnings`, { from: addDays(day, -31) });
    expect(short.body).toEqual(beyond.body);
    const none = await t.post(`/${v}/calender/earnings`, {});
    expect(none.body).toEqual({
      event: "earnings",
      earningsConfirmed: expectedRows(TEST_ANCHOR, addDays(TEST_ANCHOR, 30)),
    });
  });

  it("answers 404 INVALID_ARGUMENT for from after to, a window over 92 days, milliseconds as a number", async () => {
    const day = aReportDay();
    const cases: [Record<string, unknown>, string][] = [
      [{ from: day, to: addDays(day, -1) }, "from"],
      [{ from: day, to: addDays(day, 92) }, "to"],
      [{ from: unix(day) * 1000 }, "from"],
    ];
    for (const [body, field] of cases) {
      const res = await t.post(`/${v}/calender/earnings`, body);
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      expect(res.body.details[0].field).toBe(field);
    }
    expect((await t.post(`/${v}/calender/earnings`, { from: day, to: addDays(day, 91) })).status).toBe(200);
  });

  it("needs the stock scope, and a key; answers GET as POST", async () => {
    const dividendOnly = await t.apiKeys.create({ name: `earnings-dividend-${v}`, scopes: ["dividend"] });
    expectErrorBody(await t.post(`/${v}/calender/earnings`, {}, dividendOnly.key), 403, "FORBIDDEN");
    expectErrorBody(await t.post(`/${v}/calender/earnings`, {}, null), 401, "UNAUTHENTICATED");
    const day = aReportDay();
    const post = await t.post(`/${v}/calender/earnings`, { from: addDays(day, -2), to: day });
    const get = await t.http
      .get(`/${v}/calender/earnings?from=${addDays(day, -2)}&to=${day}`)
      .set("x-api-key", BOOTSTRAP_KEY);
    expect(get.status).toBe(200);
    expect(get.body).toEqual(post.body);
  });
});

describe("GraphQL Query.earningsCalendar", () => {
  it("answers the dates REST answers", async () => {
    const day = aReportDay();
    const res = await gql(
      t,
      `query ($f: String, $t: String) {
        earningsCalendar(from: $f, to: $t) { date symbol exchange title publicationDate }
      }`,
      { f: addDays(day, -2), t: day },
    );
    const rest = await t.post("/v1/calender/earnings", { from: addDays(day, -2), to: day });
    expect(res.body.data.earningsCalendar).toEqual(
      (rest.body.earningsConfirmed as Expected[]).map(({ date, symbol, exchange, title, publicationDate }) => ({
        date,
        symbol,
        exchange,
        title,
        publicationDate,
      })),
    );
  });
});

describe("gateway mode", () => {
  const gw = gatewayPerSuite();

  it("answers what the upstream answers, for float seconds and milliseconds", async () => {
    const day = aReportDay();
    const [from, to] = [addDays(day, -3), day];
    const direct = await gw.upstream.app.post("/v1/calender/earnings", { from, to });
    expect(direct.body.earningsConfirmed.length).toBeGreaterThan(0);
    for (const v of ["v0", "v1"]) {
      for (const body of [
        { event: "earnings", from: pythonSeconds(from, 3), to: pythonSeconds(to, 3) },
        { from: dartMillis(from, 3), to: dartMillis(to, 3) },
      ]) {
        const res = await gw.gateway.post(`/${v}/calender/earnings`, body, GATEWAY_KEY);
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: direct.body });
      }
    }
  });
});
