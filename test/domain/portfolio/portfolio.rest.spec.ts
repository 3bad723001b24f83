import { createTestApp, type TestApp } from "../../helpers/app";
import { expectErrorBody } from "../../helpers/expect";
import { GATEWAY_KEY, gatewayPerSuite } from "../../helpers/gateway";
import { gql } from "../../helpers/graphql";
import {
  dayText,
  dividendPayer,
  perUsd,
  primarySymbols,
  storedBars,
  storedDividends,
  unix,
  withDailyBars,
} from "../../helpers/stock-samples";

/**
 * The portfolio analytics as the Bavest Python SDK calls them (bavest/finance/client/bavest_client.py, `Portfolio`):
 * it posts `{portfolio_items: [{symbol, amount, buy_date}], currency}` to price, metric and allocation,
 * `{portfolio_items}` to region and sector, and `{portfolio_items, from, to, resolution, currency}` to stats and
 * chart, with from/to as `datetime.timestamp()` (float seconds) and resolution as the enum's value. The Dart client
 * posts the same items with `from`/`to` as int seconds and its own `CandleResolution.str`.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const db = () => t.source.db;

/** A stock and an ETF with quotes and daily bars, the stock's currency and listing. */
function samples() {
  const stock = withDailyBars(db(), "stock");
  const etf = withDailyBars(db(), "etf");
  return { stock, etf };
}

/** Float seconds, as Python's `datetime.timestamp()` gives them. */
const pySeconds = (day: string) => unix(day) + 0.25;

describe.each(["v0", "v1"])("POST /%s/portfolio/price", (v) => {
  it("answers the SDK's PortfolioPrice: the positions' latest quotes summed in euros", async () => {
    const { stock, etf } = samples();
    const items = [
      { symbol: stock.symbol, amount: 10, buy_date: pySeconds("2025-01-02") },
      { symbol: etf.symbol, amount: 2.5, buy_date: pySeconds("2025-03-03") },
    ];
    const res = await t.post(`/${v}/portfolio/price`, { portfolio_items: items, currency: "EUR" });
    expect(res.status).toBe(200);
    // PortfolioPrice: c, o, l, h, dp, d, pc, t, all float.
    for (const k of ["c", "o", "l", "h", "dp", "d", "pc", "t"]) expect(typeof res.body[k]).toBe("number");
    const quote = (listingId: number) =>
      db().prepare(`SELECT c, pc, t FROM quotes WHERE listing_id = ?`).get(listingId) as {
        c: number;
        pc: number;
        t: number;
      };
    const value = (s: typeof stock, amount: number, pick: "c" | "pc") => {
      const q = quote(s.listingId);
      const day = dayText(q.t);
      return (q[pick] * amount * perUsd(db(), "EUR", day)) / perUsd(db(), s.currency, day);
    };
    const c = value(stock, 10, "c") + value(etf, 2.5, "c");
    const pc = value(stock, 10, "pc") + value(etf, 2.5, "pc");
    expect(res.body.c).toBeCloseTo(c, 2);
    expect(res.body.pc).toBeCloseTo(pc, 2);
    expect(res.body.d).toBeCloseTo(c - pc, 1);
    expect(res.body.dp).toBeCloseTo(((c - pc) / pc) * 100, 2);
    expect(res.body.t).toBe(Math.max(quote(stock.listingId).t, quote(etf.listingId).t));
  });

  it("answers 401 without a key, 403 without the portfolio scope or without a held security's scope", async () => {
    const { stock, etf } = samples();
    const body = { portfolio_items: [{ symbol: etf.symbol, amount: 1, buy_date: 1_700_000_000 }], currency: "EUR" };
    expectErrorBody(await t.post(`/${v}/portfolio/price`, body, null), 401, "UNAUTHENTICATED");
    const etfOnly = await t.apiKeys.create({ name: `etf-only-${v}`, scopes: ["etf"] });
    expectErrorBody(await t.post(`/${v}/portfolio/price`, body, etfOnly.key), 403, "FORBIDDEN");
    const portfolioEtf = await t.apiKeys.create({ name: `portfolio-etf-${v}`, scopes: ["portfolio", "etf"] });
    expect((await t.post(`/${v}/portfolio/price`, body, portfolioEtf.key)).status).toBe(200);
    const withStock = { ...body, portfolio_items: [...body.portfolio_items, { symbol: stock.symbol, amount: 1 }] };
    const refused = await t.post(`/${v}/portfolio/price`, withStock, portfolioEtf.key);
    expectErrorBody(refused, 403, "FORBIDDEN");
    expect(refused.body.message).toContain('"stock"');
  });

  it("answers 404 NOT_FOUND for an unknown symbol and 404 INVALID_ARGUMENT for a malformed body", async () => {
    const { stock } = samples();
    const unknown = await t.post(`/${v}/portfolio/price`, {
      portfolio_items: [
        { symbol: stock.symbol, amount: 1 },
        { symbol: "NO-SUCH-SYMBOL-X", amount: 1 },
      ],
    });
    expectErrorBody(unknown, 404, "NOT_FOUND");
    for (const bad of [
      {},
      { portfolio_items: [] },
      { portfolio_items: [{ symbol: stock.symbol }] },
      { portfolio_items: [{ symbol: stock.symbol, amount: -1 }] },
      { portfolio_items: [{ symbol: stock.symbol, amount: 1, buy_date: "yesterday" }] },
      { portfolio_items: [{ symbol: stock.symbol, amount: 1, buy_date: "1700000000" }] },
      { portfolio_items: [{ symbol: stock.symbol, amount: 1 }], currency: "XYZ" },
    ]) {
      expectErrorBody(await t.post(`/${v}/portfolio/price`, bad), 404, "INVALID_ARGUMENT");
    }
  });
});

describe("portfolio limits", () => {
  it("refuses more items than MDG_PORTFOLIO_MAX_ITEMS with 404 INVALID_ARGUMENT naming portfolio_items", async () => {
    const small = await createTestApp({ env: { MDG_PORTFOLIO_MAX_ITEMS: "2" } });
    try {
      const symbols = primarySymbols(small.source.db, "stock", 3);
      const items = symbols.map((symbol) => ({ symbol, amount: 1 }));
      const res = await small.post("/v1/portfolio/price", { portfolio_items: items });
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      expect(res.body.details[0].field).toBe("portfolio_items");
      expect((await small.post("/v1/portfolio/price", { portfolio_items: items.slice(0, 2) })).status).toBe(200);
    } finally {
      await small.close();
    }
  });

  it("refuses an end before the start, a range over 20 years and intraday resolutions", async () => {
    const { stock } = samples();
    const items = [{ symbol: stock.symbol, amount: 1 }];
    for (const bad of [
      { from: unix("2026-01-02"), to: unix("2026-01-01") },
      { from: unix("2000-01-01"), to: unix("2026-01-01") },
      { resolution: "15" },
    ]) {
      expectErrorBody(await t.post("/v1/portfolio/chart", { portfolio_items: items, ...bad }), 404, "INVALID_ARGUMENT");
    }
  });

  it("reads a portfolio's positions in a constant number of store queries, however many", async () => {
    const symbols = primarySymbols(db(), "stock", 6);
    const held = db()
      .prepare(`SELECT DISTINCT currency FROM listings WHERE symbol IN (${symbols.map(() => "?").join(",")})`)
      .pluck()
      .all(...symbols) as string[];
    // A currency none of them is listed in, so one position and six alike need the FX series.
    const currency = ["CHF", "SEK", "NOK", "AUD", "CAD"].find((c) => !held.includes(c))!;
    const body = (n: number) => ({
      portfolio_items: symbols.slice(0, n).map((symbol) => ({ symbol, amount: 1, buy_date: unix("2026-01-05") })),
      currency,
    });
    const one = await t.countQueries(() => t.post("/v1/portfolio/stats", body(1)));
    const six = await t.countQueries(() => t.post("/v1/portfolio/stats", body(6)));
    expect(six.result.status).toBe(200);
    // The instruments, their daily bars, the FX series: one batched query each.
    expect(one.queries).toBe(3);
    expect(six.queries).toBe(one.queries);
  });
});

describe("portfolio pricing", () => {
  it("prices a portfolio by positions and range: /graphql refuses 100 over 20 years, REST serves them", async () => {
    const symbols = primarySymbols(db(), "stock", 100);
    const items = symbols.map((symbol) => ({ symbol, amount: 1 }));
    const from = unix("2006-12-01");
    const to = unix("2026-11-20");
    const res = await gql(
      t,
      `query($items: [PortfolioItemInput!]!) { portfolio(items: $items, from: ${from}, to: ${to}) { price { c } } }`,
      { items },
    );
    expect(res.body.errors[0].extensions).toMatchObject({
      code: "GRAPHQL_VALIDATION_FAILED",
      reason: "QUERY_TOO_COSTLY",
    });
    const small = await gql(
      t,
      `query($items: [PortfolioItemInput!]!) { portfolio(items: $items, from: ${unix("2026-01-01")}) { price { c } } }`,
      { items: items.slice(0, 2) },
    );
    expect(small.body.errors).toBeUndefined();
    const rest = await t.post("/v1/portfolio/stats", { portfolio_items: items, from, to, currency: "USD" });
    expect(rest.status).toBe(200);
    expect(rest.body.stats.totalReturn).toEqual(expect.any(Number));
  });
});

describe("a portfolio among other requests", () => {
  it("answers quotes asked while a long portfolio's stats are computed, and the same stats as alone", async () => {
    const symbols = primarySymbols(db(), "stock", 50);
    const body = {
      portfolio_items: symbols.map((symbol) => ({ symbol, amount: 1 })),
      from: unix("2016-11-20"),
      to: unix("2026-11-20"),
      currency: "EUR",
    };
    const alone = await t.post("/v1/portfolio/stats", body);
    expect(alone.status).toBe(200);
    let done = false;
    const stats = t.post("/v1/portfolio/stats", body).then((res) => {
      done = true;
      return res;
    });
    let answered = 0;
    while (!done) {
      const quote = await t.post("/v1/quote", { symbol: symbols[0] });
      expect(quote.status).toBe(200);
      if (!done) answered++;
    }
    const res = await stats;
    expect(res.body).toEqual(alone.body);
    // The reads, the conversions, the sums and the statistics give other requests turns of the event loop between
    // them: some 20 quotes are answered meanwhile on the test store, none if the call held the loop throughout.
    expect(answered).toBeGreaterThanOrEqual(5);
  });
});

describe.each(["v0", "v1"])("POST /%s/portfolio/chart", (v) => {
  it("answers the SDK's PortfolioChart with the value's bars: amount × close converted from the buy date", async () => {
    const { stock } = samples();
    const from = "2026-06-01";
    const to = "2026-09-30";
    const buy = "2026-07-01";
    const res = await t.post(`/${v}/portfolio/chart`, {
      portfolio_items: [{ symbol: stock.symbol, amount: 3, buy_date: pySeconds(buy) }],
      from: pySeconds(from),
      to: pySeconds(to),
      resolution: "D",
      currency: "EUR",
    });
    expect(res.status).toBe(200);
    // PortfolioChart: currency str, from float, to float, resolution str, portfolio_items [{symbol str, amount float,
    // buy_date float}]; the Dart client's Candles beside them.
    expect(res.body).toMatchObject({
      currency: "EUR",
      from: unix(from),
      to: unix(to),
      resolution: "D",
      portfolio_items: [{ symbol: stock.symbol, amount: 3, buy_date: unix(buy) }],
      s: "ok",
    });
    const bars = storedBars(db(), "daily_bars", stock.listingId, unix(buy), unix(to));
    expect(res.body.t).toEqual(bars.map((b) => b.t));
    const eur = (b: { t: number; c: number }) =>
      (3 * b.c * perUsd(db(), "EUR", dayText(b.t))) / perUsd(db(), stock.currency, dayText(b.t));
    bars.forEach((b, i) => expect(res.body.c[i]).toBeCloseTo(eur(b), 1));
  });

  it("reads the Python enum's names and the Dart client's int seconds and millisecond strings", async () => {
    const { stock } = samples();
    const items = [{ symbol: stock.symbol, amount: 1, buy_date: String(unix("2026-01-05") * 1000) }];
    const dart = await t.post(`/${v}/portfolio/chart`, {
      portfolio_items: items,
      from: unix("2026-01-01"),
      to: unix("2026-06-30"),
      resolution: "W",
    });
    const python = await t.post(`/${v}/portfolio/chart`, {
      portfolio_items: [{ ...items[0], buy_date: unix("2026-01-05") * 1000 }],
      from: pySeconds("2026-01-01"),
      to: pySeconds("2026-06-30"),
      resolution: "WEEKLY",
    });
    expect(dart.status).toBe(200);
    expect(python.body).toEqual(dart.body);
    expect(dart.body.resolution).toBe("W");
    expect(dart.body.currency).toBe("EUR");
  });
});

describe.each(["v0", "v1"])("POST /%s/portfolio/stats", (v) => {
  it("answers the SDK's PortfolioStats: every figure a float, risk and correlation by symbol and total", async () => {
    const symbols = primarySymbols(db(), "stock", 2);
    const res = await t.post(`/${v}/portfolio/stats`, {
      portfolio_items: symbols.map((symbol, i) => ({ symbol, amount: 5 + i, buy_date: pySeconds("2026-01-05") })),
      from: pySeconds("2025-06-01"),
      to: pySeconds("2026-11-20"),
      resolution: "D",
      currency: "EUR",
    });
    expect(res.status).toBe(200);
    const stats = res.body.stats as Record<string, unknown>;
    // Stats: the 44 floats the model declares.
    const declared = [
      "riskFree totalReturn cagr maxDrawdown calmar mtd threeMonth sixMonth ytd oneYear threeYear fiveYear tenYear",
      "inception dailySharpe dailySortino dailyMean dailyVolume dailySkew dailyKurt bestDay worstDay monthlySharpe",
      "monthlySortino monthlyMean monthlyVol monthlySkew monthlyKurt bestMonth worstMonth yearlySharpe yearlySortino",
      "yearlyMean yearlyVol yearlySkew yearlyKurt bestYear worstYear avgDrawdown avgDrawdownDays avgUpMonth",
      "avgDownMonth winYearPerc twelveMonthWinPerc",
    ]
      .join(" ")
      .split(" ");
    expect(Object.keys(stats).sort()).toEqual([...declared].sort());
    for (const k of declared) expect(typeof stats[k]).toBe("number");
    // Series: t, c, h, l, o (float lists), s (str), v.
    for (const k of ["t", "c", "h", "l", "o", "v"]) expect(Array.isArray(res.body.series[k])).toBe(true);
    expect(res.body.series.s).toBe("ok");
    expect(Object.keys(res.body.riskReturnRatio).sort()).toEqual([...symbols, "total"].sort());
    expect(res.body.correlation.total.total).toBe(1);
    expect(res.body.correlation[symbols[0]!][symbols[1]!]).toBe(res.body.correlation[symbols[1]!][symbols[0]!]);
  });

  it("gives a one-security portfolio the security's own figures (its etf/metrics)", async () => {
    const { etf } = samples();
    const from = unix("2025-11-20");
    const to = unix("2026-11-20");
    const stats = await t.post(`/${v}/portfolio/stats`, {
      portfolio_items: [{ symbol: etf.symbol, amount: 7, buy_date: from }],
      from,
      to,
      currency: "GBP",
    });
    const own = await t.post("/v1/etf/metrics", { symbol: etf.symbol, from, to, currency: "GBP", resolution: "D" });
    expect(stats.status).toBe(200);
    expect(own.status).toBe(200);
    const s = stats.body.stats;
    expect(s.totalReturn).toBeCloseTo(own.body.totalReturn / 100, 8);
    expect(s.cagr).toBeCloseTo(own.body.annualisedReturn / 100, 8);
    expect(s.maxDrawdown).toBeCloseTo(own.body.maxDrawdown.value / 100, 8);
    expect(s.dailyVolume).toBeCloseTo(own.body.annualisedVolatility / 100, 8);
    expect(s.dailySharpe).toBeCloseTo(own.body.sharpeRatio, 8);
    expect(s.bestDay).toBeCloseTo(own.body.bestPeriod.periodReturn / 100, 8);
    expect(s.worstDay).toBeCloseTo(own.body.worstPeriod.periodReturn / 100, 8);
    expect(stats.body.series.t.length).toBe(own.body.series.length);
  });

  it("answers null figures for positions without bars in the range", async () => {
    const { stock } = samples();
    const res = await t.post(`/${v}/portfolio/stats`, {
      portfolio_items: [{ symbol: stock.symbol, amount: 1 }],
      from: unix("1990-01-01"),
      to: unix("1990-12-31"),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ riskReturnRatio: null, correlation: null, series: null, stats: null });
  });
});

describe.each(["v0", "v1"])("POST /%s/portfolio/metric", (v) => {
  /** The year before the test clock's day: 2025-11-20 to 2026-11-20. */
  const to = unix("2026-11-20");
  const yearBefore = unix("2025-11-20");

  it("answers the SDK's PortfolioMetric: a stock's 52-week return and dividends, from the store", async () => {
    const payer = dividendPayer(db(), "stock");
    const res = await t.post(`/${v}/portfolio/metric`, {
      portfolio_items: [{ symbol: payer.symbol, amount: 4, buy_date: pySeconds("2026-10-01") }],
      currency: payer.currency,
      to,
    });
    expect(res.status).toBe(200);
    // PortfolioMetric: beta, 26WeekPriceReturnDaily, 5DayPriceReturnDaily, 52WeekPriceReturnDaily,
    // dividendPerShareAnnual, treynorQuotient, sharpeRatio, alpha, all float.
    const declared = [
      "beta",
      "26WeekPriceReturnDaily",
      "5DayPriceReturnDaily",
      "52WeekPriceReturnDaily",
      "dividendPerShareAnnual",
      "treynorQuotient",
      "sharpeRatio",
      "alpha",
    ];
    expect(Object.keys(res.body).sort()).toEqual([...declared].sort());
    for (const k of declared) expect(typeof res.body[k]).toBe("number");
    // Held all year, whatever the buy date: the closes a year apart.
    const bars = storedBars(db(), "daily_bars", payer.listingId, yearBefore - 30 * 86_400, to);
    const end = bars[bars.length - 1]!;
    const yearAgo = unix(dayText(end.t).replace(/^\d{4}/, (y) => String(Number(y) - 1)));
    const start = bars.filter((b) => b.t <= yearAgo).pop()!;
    expect(res.body["52WeekPriceReturnDaily"]).toBeCloseTo((end.c / start.c - 1) * 100, 4);
    const five = bars[bars.length - 6]!;
    expect(res.body["5DayPriceReturnDaily"]).toBeCloseTo((end.c / five.c - 1) * 100, 4);
    const paid = storedDividends(db(), payer.securityId).filter(
      (d) => d.exDate > dayText(yearBefore) && d.exDate <= dayText(to) && d.currency === payer.currency,
    );
    expect(res.body.dividendPerShareAnnual).toBeCloseTo(4 * paid.reduce((a, d) => a + d.adjustedAmount, 0), 2);
    // No benchmark: the figures against one are 0.
    expect([res.body.beta, res.body.alpha, res.body.treynorQuotient]).toEqual([0, 0, 0]);
  });

  it("measures beta 1 and alpha 0 against the only security held, and answers Dart's portfolio/metrics", async () => {
    const { etf } = samples();
    const body = { portfolio_items: [{ symbol: etf.symbol, amount: 2 }], currency: "EUR", benchmark: etf.symbol };
    const res = await t.post(`/${v}/portfolio/metric`, body);
    expect(res.status).toBe(200);
    expect(res.body.beta).toBeCloseTo(1, 6);
    expect(res.body.alpha).toBeCloseTo(0, 4);
    const dart = await t.post(`/${v}/portfolio/metrics`, body);
    expect(dart.body).toEqual(res.body);
    expectErrorBody(
      await t.post(`/${v}/portfolio/metric`, { ...body, benchmark: "NO-SUCH-SYMBOL-X" }),
      404,
      "NOT_FOUND",
    );
  });
});

describe("GraphQL portfolio", () => {
  it("answers the figures REST answers", async () => {
    const { stock, etf } = samples();
    const items = [
      { symbol: stock.symbol, amount: 2, buyDate: unix("2026-02-02") },
      { symbol: etf.symbol, amount: 1 },
    ];
    const res = await gql(
      t,
      `query($items: [PortfolioItemInput!]!) {
        portfolio(items: $items, currency: "USD", from: ${unix("2026-01-01")}, to: ${unix("2026-10-31")}) {
          currency price { c } chart { c } stats { stats { totalReturn } }
        }
      }`,
      { items },
    );
    expect(res.body.errors).toBeUndefined();
    const body = {
      portfolio_items: items.map((i) => ({ symbol: i.symbol, amount: i.amount, buy_date: i.buyDate })),
      currency: "USD",
      from: unix("2026-01-01"),
      to: unix("2026-10-31"),
    };
    const p = res.body.data.portfolio;
    expect(p.price.c).toBe((await t.post("/v1/portfolio/price", body)).body.c);
    expect(p.chart.c).toEqual((await t.post("/v1/portfolio/chart", body)).body.c);
    expect(p.stats.stats.totalReturn).toBe((await t.post("/v1/portfolio/stats", body)).body.stats.totalReturn);
  });

  it("refuses a key without the portfolio scope", async () => {
    const { stock } = samples();
    const stockOnly = await t.apiKeys.create({ name: "stock-only-gql", scopes: ["stock"] });
    const res = await gql(
      t,
      `{ portfolio(items: [{symbol: ${JSON.stringify(stock.symbol)}, amount: 1}]) { price { c } } }`,
      undefined,
      stockOnly.key,
    );
    expect(res.body.errors[0].extensions.code).toBe("FORBIDDEN");
  });
});

describe("gateway mode", () => {
  const gw = gatewayPerSuite();

  it("answers what the upstream answers, for every portfolio endpoint", async () => {
    const { stock, etf } = samples();
    const body = {
      portfolio_items: [
        { symbol: stock.symbol, amount: 4, buy_date: unix("2026-03-02") },
        { symbol: etf.symbol, amount: 1.5, buy_date: null },
      ],
      from: unix("2026-01-01"),
      to: unix("2026-11-20"),
      resolution: "M",
      currency: "CHF",
    };
    for (const path of ["portfolio/price", "portfolio/chart", "portfolio/stats", "portfolio/metric"]) {
      const direct = await gw.upstream.app.post(`/v1/${path}`, body);
      expect(direct.status).toBe(200);
      const res = await gw.gateway.post(`/v1/${path}`, body, GATEWAY_KEY);
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 200, body: direct.body });
    }
    const unknown = await gw.gateway.post(
      "/v1/portfolio/price",
      { portfolio_items: [{ symbol: "NO-SUCH-SYMBOL-X", amount: 1 }] },
      GATEWAY_KEY,
    );
    expectErrorBody(unknown, 404, "NOT_FOUND");
  });
});
