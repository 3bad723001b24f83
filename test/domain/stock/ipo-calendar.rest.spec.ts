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
 * The Bavest Python SDK's `IpoCalendar` model (bavest/finance/models/v0/stock/calendar/ipo/ipo.py at
 * Bavest/python-sdk d6e4d7ab211b5a57e7bf491bed4493452c8552a8), every field with the type it declares; pydantic
 * ignores the answer's one key more, `currency`.
 */
const IPO_CALENDAR_MODEL = { ipoCalendar: "List[IpoCalendarItem]" } as const;
const IPO_CALENDAR_ITEM_MODEL = {
  date: "str",
  exchange: "str",
  name: "str",
  numberOfShares: "float",
  price: "float",
  status: "str",
  symbol: "str",
  totalSharesValue: "float",
} as const;
const PYTHON_TYPE = { str: "string", float: "number" } as const;

function expectIpoModel(body: Record<string, unknown>) {
  expect(Object.keys(body).sort()).toEqual(Object.keys(IPO_CALENDAR_MODEL).sort());
  expect(Array.isArray(body.ipoCalendar)).toBe(true);
  for (const item of body.ipoCalendar as Record<string, unknown>[]) {
    expect(Object.keys(item).sort()).toEqual([...Object.keys(IPO_CALENDAR_ITEM_MODEL), "currency"].sort());
    // Every field required and not null in the Python model: the store's rows hold all of them.
    for (const [key, type] of Object.entries(IPO_CALENDAR_ITEM_MODEL))
      expect({ key, type: typeof item[key] }).toEqual({ key, type: PYTHON_TYPE[type] });
    expect(typeof item.currency).toBe("string");
  }
}

interface Expected {
  date: string;
  exchange: string;
  name: string;
  numberOfShares: number;
  price: number;
  status: string;
  symbol: string;
  totalSharesValue: number;
  currency: string;
}

/** The store's IPOs in [from, to], read from the tables themselves, by day then symbol. */
function expectedRows(from: string, to: string): Expected[] {
  const rows = t.source.db
    .prepare(
      `SELECT i.day, i.exchange, s.name, i.shares_offered AS shares, i.offer_price AS price, i.status, l.symbol,
         i.currency
       FROM ipos i JOIN securities s ON s.id = i.security_id
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1 WHERE i.day BETWEEN ? AND ?`,
    )
    .all(from, to) as {
    day: string;
    exchange: string;
    name: string;
    shares: number;
    price: number;
    status: string;
    symbol: string;
    currency: string;
  }[];
  rows.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.symbol < b.symbol ? -1 : 1));
  return rows.map((r) => ({
    date: r.day,
    exchange: r.exchange,
    name: r.name,
    numberOfShares: r.shares,
    price: r.price,
    status: r.status,
    symbol: r.symbol,
    totalSharesValue: Math.round(r.shares * r.price * 100) / 100,
    currency: r.currency,
  }));
}

const unix = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;
/** What Python's `datetime.timestamp()` gives for an instant of that day: float seconds. */
const pythonSeconds = (day: string, hour: number) => unix(day) + hour * 3600 + 0.123456;
/** What the Dart client's ipos() posts: whole seconds, as numbers. */
const dartSeconds = (day: string, hour: number) => unix(day) + hour * 3600;
const addDays = (day: string, n: number) => new Date((unix(day) + n * 86_400) * 1000).toISOString().slice(0, 10);

/** The latest IPO the store holds as priced, with its offering. */
function aPricedIpo(): { day: string; symbol: string; shares: number; price: number } {
  return t.source.db
    .prepare(
      `SELECT i.day, l.symbol, i.shares_offered AS shares, i.offer_price AS price FROM ipos i
       JOIN listings l ON l.security_id = i.security_id AND l.is_primary = 1
       WHERE i.status = 'priced' ORDER BY i.day DESC, i.security_id LIMIT 1`,
    )
    .get() as { day: string; symbol: string; shares: number; price: number };
}

describe.each(["v0", "v1"])("POST /%s/calender/ipo", (v) => {
  it("answers what client.calendaripo(frm, to) posts (float seconds) in the SDK model's keys and types", async () => {
    const ipo = aPricedIpo();
    const [from, to] = [addDays(ipo.day, -80), ipo.day];
    const res = await t.post(`/${v}/calender/ipo`, { from: pythonSeconds(from, 9), to: pythonSeconds(to, 23) });
    expect(res.status).toBe(200);
    expectIpoModel(res.body);
    const expected = expectedRows(from, to);
    expect(expected.length).toBeGreaterThan(0);
    expect(res.body).toEqual({ ipoCalendar: expected });
    expect(res.body.ipoCalendar.at(-1)).toMatchObject({ date: ipo.day, symbol: ipo.symbol, status: "priced" });
  });

  it("answers what the Dart client's ipos() posts (integer seconds) as the Python SDK's float seconds", async () => {
    const [from, to] = [TEST_ANCHOR, addDays(TEST_ANCHOR, 30)];
    const dart = await t.post(`/${v}/calender/ipo`, { from: dartSeconds(from, 14), to: dartSeconds(to, 14) });
    const python = await t.post(`/${v}/calender/ipo`, { from: pythonSeconds(from, 14), to: pythonSeconds(to, 14) });
    expect(dart.status).toBe(200);
    expectIpoModel(dart.body);
    expect(dart.body).toEqual(python.body);
    // The sample's upcoming IPOs: securities that exist, whose IPO day is ahead.
    const expected = expectedRows(from, to);
    expect(expected.length).toBeGreaterThan(0);
    for (const e of expected) expect(e.status).toBe("expected");
    expect(dart.body.ipoCalendar).toEqual(expected);
  });

  it("multiplies shares by price (hand-checked), at a price the listing's first daily bar opened near", async () => {
    const ipo = aPricedIpo();
    const res = await t.post(`/${v}/calender/ipo`, { from: ipo.day, to: ipo.day });
    const row = (res.body.ipoCalendar as Expected[]).find((e) => e.symbol === ipo.symbol)!;
    expect(row).toMatchObject({ numberOfShares: ipo.shares, price: ipo.price });
    expect(Math.abs(row.totalSharesValue - ipo.shares * ipo.price)).toBeLessThan(0.01);
    // The test store (seed 7, anchor 2026-11-20): DYN's 12,285,000 shares at 111.31 are 1,367,443,350.00.
    const dyn = await t.post(`/${v}/calender/ipo`, { from: "2026-02-25", to: "2026-02-25" });
    expect(dyn.body.ipoCalendar).toContainEqual(
      expect.objectContaining({
        symbol: "DYN",
        numberOfShares: 12_285_000,
        price: 111.31,
        totalSharesValue: 1_367_443_350,
      }),
    );
    const candle = await t.post("/v1/candle", {
      symbol: ipo.symbol,
      from: ipo.day,
      to: addDays(ipo.day, 10),
      resolution: "D",
      adjustment: "none",
    });
    expect(candle.status).toBe(200);
    expect(new Date((candle.body.t[0] as number) * 1000).toISOString().slice(0, 10) >= ipo.day).toBe(true);
    // The first day's move from the offer price: -10 % to +40 % (the generator's draw), to the cent.
    const move = (candle.body.o[0] as number) / ipo.price;
    expect(move).toBeGreaterThan(0.89);
    expect(move).toBeLessThan(1.41);
  });

  it("holds the window's bounds: both days included, the days beside them not", async () => {
    const ipo = aPricedIpo();
    const one = await t.post(`/${v}/calender/ipo`, { from: ipo.day, to: ipo.day });
    expect(one.body.ipoCalendar).toEqual(expectedRows(ipo.day, ipo.day));
    const after = await t.post(`/${v}/calender/ipo`, { from: addDays(ipo.day, 1), to: addDays(ipo.day, 5) });
    for (const e of after.body.ipoCalendar as Expected[]) expect(e.date > ipo.day).toBe(true);
    expect(after.body.ipoCalendar).toEqual(expectedRows(addDays(ipo.day, 1), addDays(ipo.day, 5)));
  });

  it("answers from today without from, and to 30 days after from without to", async () => {
    const none = await t.post(`/${v}/calender/ipo`, {});
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ ipoCalendar: expectedRows(TEST_ANCHOR, addDays(TEST_ANCHOR, 30)) });
    const ipo = aPricedIpo();
    const short = await t.post(`/${v}/calender/ipo`, { from: addDays(ipo.day, -30) });
    expect(short.body).toEqual({ ipoCalendar: expectedRows(addDays(ipo.day, -30), ipo.day) });
  });

  it("answers 404 INVALID_ARGUMENT for a bad day, from after to, a window over 92 days, ms as a number", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ from: "2026-13-01" }, "from"],
      [{ from: "yesterday" }, "from"],
      [{ to: true }, "to"],
      [{ from: TEST_ANCHOR, to: addDays(TEST_ANCHOR, -1) }, "from"],
      [{ from: TEST_ANCHOR, to: addDays(TEST_ANCHOR, 92) }, "to"],
      [{ from: unix(TEST_ANCHOR) * 1000 }, "from"],
      [{ from: "1763596800" }, "from"],
    ];
    for (const [body, field] of cases) {
      const res = await t.post(`/${v}/calender/ipo`, body);
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      expect({ body, field: res.body.details[0].field }).toEqual({ body, field });
    }
    const edge = await t.post(`/${v}/calender/ipo`, { from: TEST_ANCHOR, to: addDays(TEST_ANCHOR, 91) });
    expect(edge.status).toBe(200);
  });

  it("needs the stock scope, and a key; answers GET as POST", async () => {
    const dividendOnly = await t.apiKeys.create({ name: `ipo-dividend-${v}`, scopes: ["dividend"] });
    expectErrorBody(await t.post(`/${v}/calender/ipo`, {}, dividendOnly.key), 403, "FORBIDDEN");
    expectErrorBody(await t.post(`/${v}/calender/ipo`, {}, null), 401, "UNAUTHENTICATED");
    const ipo = aPricedIpo();
    const post = await t.post(`/${v}/calender/ipo`, { from: addDays(ipo.day, -20), to: ipo.day });
    const get = await t.http
      .get(`/${v}/calender/ipo?from=${unix(addDays(ipo.day, -20))}&to=${ipo.day}`)
      .set("x-api-key", BOOTSTRAP_KEY);
    expect(get.status).toBe(200);
    expect(get.body).toEqual(post.body);
  });
});

describe("GraphQL Query.ipoCalendar", () => {
  it("answers the offerings REST answers, and needs the stock scope", async () => {
    // Two months of the test store's IPOs, three of them on one day (ordered by symbol).
    const [from, to] = ["2025-02-01", "2025-03-31"];
    const query = `query ($f: String, $t: String) {
      ipoCalendar(from: $f, to: $t) {
        date symbol name exchange numberOfShares price currency totalSharesValue status
      }
    }`;
    const res = await gql(t, query, { f: from, t: to });
    const rest = await t.post("/v1/calender/ipo", { from, to });
    expect(res.body.data.ipoCalendar).toEqual(rest.body.ipoCalendar);
    expect(res.body.data.ipoCalendar).toEqual(expectedRows(from, to));
    expect(res.body.data.ipoCalendar.length).toBeGreaterThan(3);
    const dividendOnly = await t.apiKeys.create({ name: "ipo-graphql-dividend", scopes: ["dividend"] });
    const denied = await gql(t, query, { f: from, t: to }, dividendOnly.key);
    expect(denied.body.errors[0].extensions.code).toBe("FORBIDDEN");
  });
});

describe("gateway mode", () => {
  const gw = gatewayPerSuite();

  it("answers what the upstream answers, for float and integer seconds", async () => {
    const ipo = aPricedIpo();
    const [from, to] = [addDays(ipo.day, -80), ipo.day];
    const direct = await gw.upstream.app.post("/v1/calender/ipo", { from, to });
    expect(direct.body.ipoCalendar.length).toBeGreaterThan(0);
    for (const v of ["v0", "v1"]) {
      for (const body of [
        { from: pythonSeconds(from, 3), to: pythonSeconds(to, 3) },
        { from: dartSeconds(from, 3), to: dartSeconds(to, 3) },
      ]) {
        const res = await gw.gateway.post(`/${v}/calender/ipo`, body, GATEWAY_KEY);
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: direct.body });
      }
    }
  });
});
