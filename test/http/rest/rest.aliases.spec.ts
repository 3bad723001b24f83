import {
  actionTarget,
  aliasValue,
  DART_UNSERVED_ACTIONS,
  FREQ_NAMES,
  RESOLUTION_NAMES,
  STATEMENT_NAMES,
} from "../../../src/http/rest/rest.aliases";
import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_ANCHOR } from "../../helpers/constants";
import { LiveClient, serveLive } from "../../helpers/live";
import { primarySymbols } from "../../helpers/stock-samples";

/**
 * The Bavest SDKs' names, as their sources spell them:
 * - Python (Bavest/python-sdk d6e4d7ab211b5a57e7bf491bed4493452c8552a8, bavest/finance/client/bavest_client.py):
 *   `class Resolution(Enum)`, `class Freq(Enum)`, `class Statement(Enum)`; candles post `resolution.value`,
 *   financials post `freq.name` and `statement.name`;
 * - Dart (Bavest/dart-sdk, lib/client/event/bavest_websocket_event.dart): `enum WebsocketEventAction`'s strings.
 */
const PYTHON_RESOLUTION = { ONE: "1", FIVE: "5", SIXTY: "60", DAILY: "D", WEEKLY: "W", MONTHLY: "M" };
const PYTHON_FREQ = { ANNUAL: "annual", QUARTERLY: "quarterly" };
const PYTHON_STATEMENT = { BALANCE: "bs", INCOME: "ic", CASHFLOW: "cf" };
const DART_ACTIONS = [
  "quote",
  "realtime/candle",
  "stock/profile",
  "stock/metric",
  "stock/dividend",
  "calender/ipo",
  "stock/esg",
  "stock/news",
  "stock/financials",
  "stock/fundamentals",
  "sentiment",
  "split",
  "search",
  "forex",
  "etf/profile",
  "etf/sector",
  "etf/country",
  "etf/holdings",
  "stock/peers",
  "stock/peers/widget",
  "portfolio/allocation",
  "portfolio/region",
  "portfolio/stats",
  "portfolio/price",
  "portfolio/benchmark",
  "portfolio/chart",
  "ping",
];

describe("the alias table", () => {
  it("reads each Python enum's names and values alike, and leaves other values to the field's own check", () => {
    for (const [table, sdk] of [
      [RESOLUTION_NAMES, PYTHON_RESOLUTION],
      [FREQ_NAMES, PYTHON_FREQ],
      [STATEMENT_NAMES, PYTHON_STATEMENT],
    ] as const) {
      expect(table).toEqual(sdk);
      for (const [name, value] of Object.entries(sdk)) {
        expect(aliasValue(table, name)).toBe(value);
        expect(aliasValue(table, name.toLowerCase())).toBe(value);
        expect(aliasValue(table, value)).toBe(value);
      }
    }
    expect(aliasValue(RESOLUTION_NAMES, "15")).toBe("15");
    expect(aliasValue(RESOLUTION_NAMES, "HOURLY")).toBe("HOURLY");
    expect(aliasValue(RESOLUTION_NAMES, 60)).toBe(60);
  });

  it("maps every Dart action name: to our path, to the candle subscription, or to none (listed unserved)", () => {
    const routed = new Set(DART_ACTIONS.filter((a) => a !== "ping"));
    expect(actionTarget("realtime/candle")).toEqual({ kind: "subscribe", channel: "candle" });
    expect(actionTarget("split")).toEqual({ kind: "endpoint", path: "stock/split" });
    expect(actionTarget("forex")).toEqual({ kind: "endpoint", path: "fx/quote" });
    expect(actionTarget("stock/peers/widget")).toEqual({ kind: "endpoint", path: "widgets/stock/peers" });
    expect(actionTarget("/etf/profile/")).toEqual({ kind: "endpoint", path: "etf/profile" });
    for (const unserved of DART_UNSERVED_ACTIONS) expect(routed.has(unserved)).toBe(true);
  });
});

describe("REST reads the aliases where the fields exist", () => {
  let t: TestApp;
  let stock: string;
  beforeAll(async () => {
    t = await createTestApp();
    stock = primarySymbols(t.source.db, "stock", 1)[0]!;
  });
  afterAll(() => t.close());

  const from = Math.floor(Date.parse("2026-09-01T00:00:00Z") / 1000);
  const to = Math.floor(Date.parse(`${TEST_ANCHOR}T00:00:00Z`) / 1000);

  it.each([
    ["DAILY", "D"],
    ["WEEKLY", "W"],
    ["MONTHLY", "M"],
    ["SIXTY", "60"],
    ["FIVE", "5"],
  ])("candle: the Python enum name %s answers what its value %s answers", async (name, value) => {
    // The Python SDK's candle body, with the enum's name where it sends the value; intraday bars over five days.
    const start = /^\d+$/.test(value) ? to - 5 * 86_400 : from;
    const body = (resolution: string) => ({ symbol: stock, from: start, to: to + 86_400, resolution, currency: "EUR" });
    const byValue = await t.post("/v1/candle", body(value));
    const byName = await t.post("/v1/candle", body(name));
    expect(byValue.status).toBe(200);
    expect(byName.status).toBe(200);
    expect(byName.body).toEqual(byValue.body);
    expect(byName.body.resolution).toBe(value);
  });

  it("etf/metrics and the bulk of candles read the names too; an unknown name stays INVALID_ARGUMENT", async () => {
    const etf = primarySymbols(t.source.db, "etf", 1)[0]!;
    const m = (resolution: string) => t.post("/v1/etf/metrics", { symbol: etf, resolution, from: "2026-01-01" });
    expect((await m("MONTHLY")).body).toEqual((await m("M")).body);
    const bulk = (resolution: string) =>
      t.post("/v1/bulk", { endpoint: "candle", symbols: [{ symbol: stock }], params: { resolution, from, to } });
    const [a, b] = [await bulk("WEEKLY"), await bulk("W")];
    expect(a.body.results[0].statusCode).toBe(200);
    expect(a.body.results[0].data).toEqual(b.body.results[0].data);
    const bad = await t.post("/v1/candle", { symbol: stock, resolution: "HOURLY" });
    expect({ status: bad.status, code: bad.body.code }).toEqual({ status: 404, code: "INVALID_ARGUMENT" });
  });

  describe("the WebSocket door resolves the Dart client's action names", () => {
    let served: Awaited<ReturnType<typeof serveLive>>;
    let client: LiveClient;
    beforeAll(async () => {
      served = await serveLive(t);
      client = await LiveClient.open(served.url("/v1"), "test-bootstrap-key-0123456789");
    });
    afterAll(async () => {
      client.ws.close();
      await served.close();
    });

    const withoutRequestId = (body: unknown) =>
      JSON.parse(JSON.stringify(body), (k, v: unknown) => (k === "requestId" ? undefined : v)) as unknown;

    it("split and forex answer as POST stock/split and fx/quote, echoing the action", async () => {
      const split = await client.request({ action: "split", symbol: stock, from: "946684800000", to: "1763596800000" });
      const direct = await t.post("/v1/stock/split", { symbol: stock, from: "946684800000", to: "1763596800000" });
      expect(split).toMatchObject({ action: "split", status: 200 });
      expect(split.data).toEqual(direct.body);
      const forex = await client.request({ action: "forex", from: "EUR", to: "USD" });
      expect(forex).toMatchObject({ action: "forex", status: 200 });
      expect(forex.data).toEqual((await t.post("/v1/fx/quote", { from: "EUR", to: "USD" })).body);
    });

    it("portfolio/stats, portfolio/price and portfolio/chart answer as their POST, with Dart's body", async () => {
      // Dart's Portfolio.toJson(): items with int buy dates, plus currency, from, to and resolution.
      const body = {
        portfolio_items: [{ symbol: stock, amount: 3.0, buy_date: 1_767_225_600 }],
        currency: "EUR",
        from: 1_767_225_600,
        to: 1_779_580_800,
        resolution: "D",
      };
      for (const action of ["portfolio/stats", "portfolio/price", "portfolio/chart"]) {
        const res = await client.request({ action, ...body });
        expect(res).toMatchObject({ action, status: 200 });
        expect(res.data).toEqual((await t.post(`/v1/${action}`, body)).body);
      }
    });

    it("an action not served is 404 NOT_FOUND; stock/metric and stock/fundamentals are served", async () => {
      const res = await client.request({ action: "portfolio/benchmark", symbol: stock });
      expect(res).toMatchObject({ action: "portfolio/benchmark", status: 404, error: { code: "NOT_FOUND" } });
      for (const action of ["stock/metric", "stock/fundamentals"]) {
        const served = await client.request({ action, symbol: stock });
        expect(served).toMatchObject({ action, status: 200 });
        expect(served.data).toEqual((await t.post(`/v1/${action}`, { symbol: stock })).body);
      }
      const viaRest = await t.post("/v1/portfolio/benchmark", { symbol: stock });
      const ws = await client.request({ action: "portfolio/benchmark", symbol: stock });
      expect(withoutRequestId(ws.error)).toEqual(withoutRequestId(viaRest.body));
    });

    it("calender/ipo answers as its POST, with the Dart client's ipos() body (integer seconds)", async () => {
      // ipos(): the 30 days to now in whole seconds; here the 30 days from the test store's anchor, which hold IPOs.
      const body = { from: 1_795_132_800, to: 1_797_724_800 };
      const res = await client.request({ action: "calender/ipo", ...body });
      expect(res).toMatchObject({ action: "calender/ipo", status: 200 });
      const direct = await t.post("/v1/calender/ipo", body);
      expect(direct.body.ipoCalendar.length).toBeGreaterThan(0);
      expect(res.data).toEqual(direct.body);
    });

    it("realtime/candle subscribes, reading the Python names of live resolutions too", async () => {
      const ok = await client.request({ action: "realtime/candle", symbol: stock, resolution: "DAILY" });
      expect(ok).toMatchObject({
        action: "realtime/candle",
        status: 200,
        data: { channel: "candle", resolution: "D" },
      });
      const bare = await client.request({ action: "realtime/candle", symbol: stock });
      expect(bare).toMatchObject({ status: 200, data: { resolution: "1" } });
    });
  });
});
