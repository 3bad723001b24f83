import { fixedClock } from "../../../src/platform/clock";
import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody, expectGetAndBulkAsPost } from "../../helpers/expect";
import { GATEWAY_KEY, gatewayPerSuite } from "../../helpers/gateway";
import { gql } from "../../helpers/graphql";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/**
 * The Bavest Python SDK's stock fundamentals models (bavest/finance/models/v0/stock/fundamentals/fundamentals.py at
 * Bavest/python-sdk d6e4d7ab211b5a57e7bf491bed4493452c8552a8), every key with the type it declares: `Fundamentals`
 * `{metrics: List[MetricsItem]}`, `MetricsItem` `{multiples, stability, revenue, period: str}`, and the float keys of
 * `Multiples` (the `ev/…` ones by their aliases), `Stability` and `Revenue`. The Dart client's `Stability` reads four
 * more (lib/model/v0/stock/fundamentals/fundamentals.dart in Bavest/dart-sdk).
 */
const PY_MULTIPLES = (
  "equityReturn salesReturn ebitMargin capitalTurnover assetsReturn ev ev/revenue ev/ebit ev/fcf ev/ebitda " +
  "priceEarningsRatio priceBookRatio priceCashflowRatio priceSalesRatio peg"
).split(" ");
const PY_STABILITY = (
  "equityRatio debtRatio debtToEquityRatio dynamicLeverage currentRatio fixedAssetIntensity capitalExpenditureRatio " +
  "assetCoverage1 assetCoverage2"
).split(" ");
const DART_STABILITY_EXTRA = ["cataRatio", "ppeRatio", "cashRatio", "quickRatio"];
const PY_REVENUE = "equityReturn salesReturn ebitMargin ebitdaMargin capitalTurnover assetsReturn".split(" ");
const PY_ITEM = ["multiples", "stability", "revenue", "period"];

type Item = Record<string, unknown> & {
  multiples: Record<string, number | null>;
  stability: Record<string, number | null>;
  revenue: Record<string, number | null>;
  period: string;
};

function expectFundamentalsModel(body: Record<string, unknown>): Item[] {
  // The model's one key, and the currency of ev besides.
  expect(Object.keys(body).sort()).toEqual(["currency", "metrics"]);
  expect(typeof body.currency).toBe("string");
  const metrics = body.metrics as Item[];
  expect(Array.isArray(metrics)).toBe(true);
  for (const item of metrics) {
    expect(Object.keys(item).sort()).toEqual([...PY_ITEM].sort());
    expect(typeof item.period).toBe("string");
    expect(Object.keys(item.multiples).sort()).toEqual([...PY_MULTIPLES].sort());
    expect(Object.keys(item.stability).sort()).toEqual([...PY_STABILITY, ...DART_STABILITY_EXTRA].sort());
    expect(Object.keys(item.revenue).sort()).toEqual([...PY_REVENUE].sort());
    for (const group of [item.multiples, item.stability, item.revenue])
      for (const v of Object.values(group)) if (v !== null) expect(typeof v).toBe("number");
    expect(item.stability.ppeRatio).toBeNull();
  }
  return metrics;
}

/** What the Dart client does with the answer: DateTime.parse of each period, newest year first, no duplicates. */
function expectDartReadable(metrics: Item[]) {
  const periods = metrics.map((m) => m.period);
  for (const p of periods) {
    expect(p).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Number.isNaN(Date.parse(p))).toBe(false);
  }
  expect(new Set(periods).size).toBe(periods.length);
  expect([...periods].sort().reverse()).toEqual(periods);
}

interface Picked {
  securityId: number;
  listingId: number;
  symbol: string;
  isin: string;
}

/**
 * A stock reporting in its listing's currency, with a fiscal year whose four quarters are reported by the anchor, its
 * fourth with current assets, and a stored daily bar in the 14 days to that year's end; one with a split first, so
 * the year-end price as traded differs from the stored split-adjusted close.
 */
function pickStock(): Picked {
  return t.source.db
    .prepare(
      `SELECT s.id AS securityId, l.id AS listingId, l.symbol, s.isin FROM securities s
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       WHERE s.type = 'stock' AND s.isin IS NOT NULL AND l.currency = s.currency
         AND (SELECT count(*) FROM quarterly_financials f WHERE f.security_id = s.id AND f.currency <> s.currency) = 0
         AND EXISTS (
           SELECT 1 FROM quarterly_financials f
           WHERE f.security_id = s.id AND f.fiscal_quarter = 4 AND f.reported_date <= ?
             AND f.current_assets IS NOT NULL AND f.depreciation_amortization IS NOT NULL
             AND (SELECT count(*) FROM quarterly_financials g
                  WHERE g.security_id = s.id AND g.fiscal_year = f.fiscal_year AND g.reported_date <= ?) = 4
             AND (SELECT count(*) FROM quarterly_financials g
                  WHERE g.security_id = s.id AND g.fiscal_year = f.fiscal_year - 1 AND g.reported_date <= ?) = 4
             AND EXISTS (SELECT 1 FROM daily_bars b WHERE b.listing_id = l.id
               AND b.t BETWEEN CAST(strftime('%s', f.period_end) AS INTEGER) - 14 * 86400
                           AND CAST(strftime('%s', f.period_end) AS INTEGER) + 86399))
       ORDER BY EXISTS (SELECT 1 FROM splits x WHERE x.security_id = s.id) DESC, s.id LIMIT 1`,
    )
    .get(TEST_ANCHOR, TEST_ANCHOR, TEST_ANCHOR) as Picked;
}

interface Q {
  fiscal_year: number;
  fiscal_quarter: number;
  period_end: string;
  revenue: number;
  operating_income: number;
  net_income: number;
  eps: number;
  depreciation_amortization: number | null;
  operating_cash_flow: number;
  capex: number;
  free_cash_flow: number;
  total_assets: number;
  total_liabilities: number;
  total_equity: number;
  cash: number;
  total_debt: number;
  shares_outstanding: number;
  current_assets: number | null;
  current_liabilities: number | null;
  inventory: number | null;
}

const div = (a: number | null, b: number | null) => (a == null || b == null || b <= 0 ? null : a / b);

/**
 * The newest fiscal year of `p` that has its four quarters, the year before's four and a stored close, and its
 * figures recomputed here from the rows by the contract's definitions (docs/contract.md, stock/fundamentals).
 */
function expectedYear(p: Picked): { period: string; figures: Record<string, number | null> } {
  const qs = t.source.db
    .prepare(`SELECT * FROM quarterly_financials WHERE security_id = ? AND reported_date <= ? ORDER BY period_end`)
    .all(p.securityId, TEST_ANCHOR) as Q[];
  const yearOf = (y: number) => qs.filter((q) => q.fiscal_year === y);
  const closeOf = (end: string) => {
    const to = Date.parse(`${end}T00:00:00Z`) / 1000 + 86_399;
    return t.source.db
      .prepare(`SELECT t, c FROM daily_bars WHERE listing_id = ? AND t BETWEEN ? AND ? ORDER BY t DESC LIMIT 1`)
      .get(p.listingId, to - 15 * 86_400 + 1, to) as { t: number; c: number } | undefined;
  };
  const years = [...new Set(qs.map((q) => q.fiscal_year))].sort((a, b) => b - a);
  const y = years.find((y) => {
    const four = yearOf(y);
    return (
      four.length === 4 && yearOf(y - 1).length === 4 && four[3]!.current_assets != null && closeOf(four[3]!.period_end)
    );
  })!;
  const four = yearOf(y);
  const b = four[3]!;
  const sum = (k: keyof Q, rows = four) => rows.reduce((s, q) => s + (q[k] as number), 0);
  const bar = closeOf(b.period_end)!;
  const barDay = new Date(bar.t * 1000).toISOString().slice(0, 10);
  // The stored bars are split-adjusted: the price as traded is the close times the ratios of the later splits.
  const splits = t.source.db
    .prepare(`SELECT numerator, denominator FROM splits WHERE security_id = ? AND day > ?`)
    .all(p.securityId, barDay) as { numerator: number; denominator: number }[];
  const price = splits.reduce((c, s) => c * (s.numerator / s.denominator), bar.c);
  const [rev, ni, ebit, eps, ocf, fcf] = (
    ["revenue", "net_income", "operating_income", "eps", "operating_cash_flow", "free_cash_flow"] as const
  ).map((k) => sum(k));
  const capex = sum("capex");
  const da = four.every((q) => q.depreciation_amortization != null) ? sum("depreciation_amortization") : null;
  const ebitda = da == null ? null : ebit! + da;
  const mc = price * b.shares_outstanding;
  const ev = mc + b.total_debt - b.cash;
  const nca = b.total_assets - b.current_assets!;
  const ncl = b.current_liabilities == null ? null : b.total_liabilities - b.current_liabilities;
  const pe = div(price, eps!);
  const prevEps = sum("eps", yearOf(y - 1));
  const growth = prevEps > 0 ? eps! / prevEps - 1 : null;
  return {
    period: b.period_end,
    figures: {
      equityReturn: div(ni!, b.total_equity),
      salesReturn: div(ni!, rev!),
      ebitMargin: div(ebit!, rev!),
      ebitdaMargin: div(ebitda, rev!),
      capitalTurnover: div(rev!, b.total_assets),
      assetsReturn: div(ni!, b.total_assets),
      ev,
      "ev/revenue": div(ev, rev!),
      "ev/ebit": div(ev, ebit!),
      "ev/fcf": div(ev, fcf!),
      "ev/ebitda": div(ev, ebitda),
      priceEarningsRatio: pe,
      priceBookRatio: div(mc, b.total_equity),
      priceCashflowRatio: div(mc, ocf!),
      priceSalesRatio: div(mc, rev!),
      peg: pe == null || growth == null ? null : div(pe, growth * 100),
      equityRatio: div(b.total_equity, b.total_assets),
      debtRatio: div(b.total_liabilities, b.total_assets),
      debtToEquityRatio: div(b.total_debt, b.total_equity),
      dynamicLeverage: div(b.total_debt - b.cash, ocf!),
      currentRatio: div(b.current_assets, b.current_liabilities),
      fixedAssetIntensity: div(nca, b.total_assets),
      capitalExpenditureRatio: div(-capex, rev!),
      assetCoverage1: div(b.total_equity, nca),
      assetCoverage2: ncl == null ? null : div(b.total_equity + ncl, nca),
      cataRatio: div(b.current_assets, b.total_assets),
      cashRatio: div(b.cash, b.current_liabilities),
      quickRatio: b.inventory == null ? null : div(b.current_assets! - b.inventory, b.current_liabilities),
    },
  };
}

function expectClose(actual: unknown, want: number | null, key: string) {
  if (want == null) return expect({ [key]: actual }).toEqual({ [key]: null });
  expect({ [key]: typeof actual }).toEqual({ [key]: "number" });
  // Ratios to six decimals, prices to six, money to cents: a relative and an absolute slack.
  expect(Math.abs((actual as number) - want)).toBeLessThanOrEqual(Math.abs(want) * 1e-6 + 1e-4);
}

describe.each(["v0", "v1"])("POST /%s/stock/fundamentals", (v) => {
  it("answers what the Dart client's fundamentals(SecurityIdentifier(symbol)) posts, in the SDKs' models", async () => {
    const p = pickStock();
    const res = await t.post(`/${v}/stock/fundamentals`, { symbol: p.symbol });
    expect(res.status).toBe(200);
    const metrics = expectFundamentalsModel(res.body);
    expect(metrics.length).toBeGreaterThanOrEqual(2);
    expectDartReadable(metrics);
    // SecurityIdentifier.toJson posts whichever identifier it holds.
    const byIsin = await t.post(`/${v}/stock/fundamentals`, { isin: p.isin });
    expect(byIsin.body).toEqual(res.body);
  });

  it("computes a fiscal year's figures from its quarters' rows and its year-end close", async () => {
    const p = pickStock();
    const res = await t.post(`/${v}/stock/fundamentals`, { symbol: p.symbol });
    const want = expectedYear(p);
    const item = (res.body.metrics as Item[]).find((m) => m.period === want.period)!;
    expect(item).toBeDefined();
    const got: Record<string, unknown> = { ...item.revenue, ...item.stability, ...item.multiples };
    // The picked year has every input: the check compares numbers, not nulls.
    for (const k of ["ev", "ev/ebitda", "priceEarningsRatio", "peg", "currentRatio", "quickRatio", "assetCoverage2"])
      expect({ [k]: typeof want.figures[k] }).toEqual({ [k]: "number" });
    for (const [k, w] of Object.entries(want.figures)) expectClose(got[k], w, k);
    // The returns and margins the Python model's multiples repeat are the revenue group's.
    for (const k of ["equityReturn", "salesReturn", "ebitMargin", "capitalTurnover", "assetsReturn"])
      expect(item.multiples[k]).toBe(item.revenue[k]);
    // One entry per fiscal year with four quarters reported.
    const years = t.source.db
      .prepare(
        `SELECT count(*) AS n FROM (SELECT fiscal_year FROM quarterly_financials WHERE security_id = ? AND
         reported_date <= ? GROUP BY fiscal_year HAVING count(*) = 4)`,
      )
      .get(p.securityId, TEST_ANCHOR) as { n: number };
    expect(res.body.metrics).toHaveLength(years.n);
  });

  it("converts ev into the currency asked and leaves the ratios as reported", async () => {
    const p = pickStock();
    const own = await t.post(`/${v}/stock/fundamentals`, { symbol: p.symbol });
    const target = own.body.currency === "EUR" ? "USD" : "EUR";
    const res = await t.post(`/${v}/stock/fundamentals`, { symbol: p.symbol, currency: target.toLowerCase() });
    expect(res.status).toBe(200);
    expect(res.body.currency).toBe(target);
    const [a, b] = [own.body.metrics as Item[], res.body.metrics as Item[]];
    expect(b.map((m) => m.period)).toEqual(a.map((m) => m.period));
    for (const [i, m] of b.entries()) {
      expect({ ...m.multiples, ev: null }).toEqual({ ...a[i]!.multiples, ev: null });
      expect(m.stability).toEqual(a[i]!.stability);
      if (a[i]!.multiples.ev != null && a[i]!.multiples.ev! > 0) {
        expect(typeof m.multiples.ev).toBe("number");
        expect(m.multiples.ev).not.toBe(a[i]!.multiples.ev);
      }
    }
  });

  it("answers a fiscal year from the day its fourth quarter is reported, and metrics: [] before", async () => {
    const p = pickStock();
    // The day the first fiscal year had its four quarters reported: the latest of their reported days.
    const first = t.source.db
      .prepare(
        `SELECT min(d) AS day FROM (SELECT max(reported_date) AS d FROM quarterly_financials WHERE security_id = ?
         GROUP BY fiscal_year HAVING count(*) = 4)`,
      )
      .get(p.securityId) as { day: string };
    const before = new Date(Date.parse(`${first.day}T12:00:00Z`) - 86_400_000);
    for (const [clock, years] of [
      [before, 0],
      [new Date(`${first.day}T12:00:00Z`), 1],
    ] as const) {
      const then = await createTestApp({ clock: fixedClock(clock.toISOString()) });
      try {
        const res = await then.post(`/${v}/stock/fundamentals`, { symbol: p.symbol });
        expect(res.status).toBe(200);
        expect(res.body.metrics).toHaveLength(years);
      } finally {
        await then.close();
      }
    }
  });

  it("answers NOT_FOUND for an unknown symbol or an ETF, INVALID_ARGUMENT for a bad body; needs stock", async () => {
    const p = pickStock();
    const etf = t.source.db
      .prepare(`SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id WHERE s.type = 'etf'`)
      .get() as { symbol: string };
    expectErrorBody(await t.post(`/${v}/stock/fundamentals`, { symbol: etf.symbol }), 404, "NOT_FOUND");
    expectErrorBody(await t.post(`/${v}/stock/fundamentals`, { symbol: "NOPE-NOT-A-SYMBOL" }), 404, "NOT_FOUND");
    for (const [body, field] of [
      [{}, undefined],
      [{ symbol: 42 }, "symbol"],
      [{ symbol: p.symbol, currency: "euros" }, "currency"],
    ] as const) {
      const res = await t.post(`/${v}/stock/fundamentals`, body);
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      if (field) expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const dividendOnly = await t.apiKeys.create({ name: `fundamentals-dividend-${v}`, scopes: ["dividend"] });
    expectErrorBody(await t.post(`/${v}/stock/fundamentals`, { symbol: p.symbol }, dividendOnly.key), 403, "FORBIDDEN");
  });

  it("reads the store once per kind, for one stock or several in bulk", async () => {
    const p = pickStock();
    const one = await t.countQueries(() => t.post(`/${v}/stock/fundamentals`, { symbol: p.symbol }));
    expect(one.result.status).toBe(200);
    const others = t.source.db
      .prepare(
        `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
         WHERE s.type = 'stock' AND s.id <> ? ORDER BY s.id LIMIT 4`,
      )
      .all(p.securityId) as { symbol: string }[];
    const symbols = [{ symbol: p.symbol }, ...others.map((o) => ({ symbol: o.symbol }))];
    const many = await t.countQueries(() => t.post(`/${v}/bulk`, { endpoint: "stock/fundamentals", symbols }));
    expect(many.result.body.results.map((r: { statusCode: number }) => r.statusCode)).toEqual(symbols.map(() => 200));
    // The instrument, its quarters, its daily bars over the years, its splits: one read each.
    expect(one.queries).toBeLessThanOrEqual(4);
    // Five stocks read as one (the loaders batch them), the FX rates of their currencies besides.
    expect(many.queries).toBeLessThanOrEqual(6);
  });

  it("answers GET as POST, and through bulk", async () => {
    await expectGetAndBulkAsPost(t, `/${v}/stock/fundamentals`, { symbol: pickStock().symbol });
  });
});

describe("GraphQL Stock.fundamentals", () => {
  it("answers the figures REST answers, the ev ratios under the Dart model's names", async () => {
    const p = pickStock();
    const res = await gql(
      t,
      `query ($s: String) {
        stock(symbol: $s) {
          fundamentals(currency: "EUR") {
            currency
            years { period multiples { ev evEbit peg } stability { equityRatio quickRatio } revenue { salesReturn } }
          }
        }
      }`,
      { s: p.symbol },
    );
    const rest = await t.post("/v1/stock/fundamentals", { symbol: p.symbol, currency: "EUR" });
    expect(res.body.data.stock.fundamentals).toEqual({
      currency: "EUR",
      years: (rest.body.metrics as Item[]).map((m) => ({
        period: m.period,
        multiples: { ev: m.multiples.ev, evEbit: m.multiples["ev/ebit"], peg: m.multiples.peg },
        stability: { equityRatio: m.stability.equityRatio, quickRatio: m.stability.quickRatio },
        revenue: { salesReturn: m.revenue.salesReturn },
      })),
    });
  });

  it("refuses the field without the stock scope", async () => {
    const dividendOnly = await t.apiKeys.create({ name: "fundamentals-gql-dividend", scopes: ["dividend"] });
    const res = await gql(
      t,
      `query ($s: String) { stock(symbol: $s) { symbol fundamentals { currency } } }`,
      { s: pickStock().symbol },
      dividendOnly.key,
    );
    expect(res.body.data?.stock?.fundamentals ?? null).toBeNull();
    expect(res.body.errors[0].extensions.code).toBe("FORBIDDEN");
  });
});

describe("gateway mode", () => {
  const gw = gatewayPerSuite();

  it("answers what the upstream answers, by symbol and by ISIN, in the currency asked", async () => {
    const p = pickStock();
    for (const currency of [undefined, "EUR"]) {
      const direct = await gw.upstream.app.post("/v1/stock/fundamentals", { symbol: p.symbol, currency });
      expect(direct.status).toBe(200);
      expect(direct.body.metrics.length).toBeGreaterThan(0);
      for (const v of ["v0", "v1"]) {
        for (const body of [
          { symbol: p.symbol, currency },
          { isin: p.isin, currency },
        ]) {
          const res = await gw.gateway.post(`/${v}/stock/fundamentals`, body, GATEWAY_KEY);
          expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: direct.body });
        }
      }
    }
  });
});
