import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_ANCHOR, TEST_STORE_PATH } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";
import { gql } from "../../helpers/graphql";
import { unix } from "../../helpers/stock-samples";

/**
 * docs/contract.md section 2: a known security without data of one kind answers 200 with an empty answer, on every
 * door; 404 stays for what does not exist. The "no data" cases are made here, not found: a range long before any
 * bar, and a copy of the test store with one stock's dividends and financials removed (the sample may give every
 * security data).
 */

let dir: string;
let t: TestApp;
/** A stock with bars, dividends and at least four quarters in the shared store, stripped of both in the copy. */
let bare: { securityId: number; symbol: string; isin: string; currency: string };
/** A stock left with two reported quarters in the copy. */
let twoQuarters: { securityId: number; symbol: string; periodEnds: string[] };
/** An ETF stripped of its dividends, holdings and exposures in the copy. */
let etf: { symbol: string; currency: string };
/** A fund stripped of its holdings and exposures in the copy. */
let fund: { isin: string; symbol: string; currency: string };

const CANDLE_KEYS = ["symbol", "s", "t", "o", "h", "l", "c", "v", "from", "to", "resolution", "key", "currency"].sort();
/** Long before any stored bar: no sample history reaches back to 1971. */
const OLD = { from: unix("1971-01-04"), to: unix("1971-03-01") };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mdg-empty-"));
  const copy = join(dir, "store.db");
  const src = new Database(TEST_STORE_PATH, { readonly: true });
  src.exec(`VACUUM INTO '${copy.replace(/'/g, "''")}'`);
  src.close();
  const db = new Database(copy);
  const stocks = db
    .prepare(
      `SELECT s.id AS securityId, l.symbol, s.isin, l.currency FROM securities s
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1 JOIN quotes q ON q.listing_id = l.id
       WHERE s.type = 'stock' AND s.isin IS NOT NULL
         AND EXISTS (SELECT 1 FROM dividends d WHERE d.security_id = s.id)
         AND (SELECT count(*) FROM quarterly_financials f WHERE f.security_id = s.id) >= 4
       ORDER BY s.rank, s.id LIMIT 2`,
    )
    .all() as (typeof bare)[];
  expect(stocks).toHaveLength(2);
  bare = stocks[0]!;
  db.prepare(`DELETE FROM dividends WHERE security_id = ?`).run(bare.securityId);
  db.prepare(`DELETE FROM quarterly_financials WHERE security_id = ?`).run(bare.securityId);
  db.prepare(`UPDATE securities SET eps_ttm = NULL, net_income_ttm = NULL WHERE id = ?`).run(bare.securityId);
  const second = stocks[1]!;
  const kept = db
    .prepare(
      `SELECT period_end AS p FROM quarterly_financials WHERE security_id = ? AND reported_date <= ?
       ORDER BY period_end LIMIT 2`,
    )
    .all(second.securityId, TEST_ANCHOR) as { p: string }[];
  db.prepare(`DELETE FROM quarterly_financials WHERE security_id = ? AND period_end > ?`).run(
    second.securityId,
    kept[1]!.p,
  );
  twoQuarters = { securityId: second.securityId, symbol: second.symbol, periodEnds: kept.map((k) => k.p) };
  const paying = db
    .prepare(
      `SELECT l.symbol, l.currency, s.id FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       WHERE s.type = 'etf' AND EXISTS (SELECT 1 FROM dividends d WHERE d.security_id = s.id) ORDER BY s.rank LIMIT 1`,
    )
    .get() as { symbol: string; currency: string; id: number };
  for (const table of ["dividends", "etf_holdings", "etf_sector_exposure", "etf_country_exposure"])
    db.prepare(`DELETE FROM ${table} WHERE ${table === "dividends" ? "security_id" : "etf_id"} = ?`).run(paying.id);
  etf = { symbol: paying.symbol, currency: paying.currency };
  db.prepare(`DELETE FROM etf_profiles WHERE security_id = ?`).run(paying.id);
  fund = db
    .prepare(
      `SELECT s.id, s.isin, l.symbol, l.currency FROM securities s JOIN listings l ON l.security_id = s.id
       AND l.is_primary = 1 WHERE s.type = 'fund' AND s.isin IS NOT NULL
       AND EXISTS (SELECT 1 FROM fund_allocation a WHERE a.fund_id = s.id) ORDER BY s.rank LIMIT 1`,
    )
    .get() as typeof fund & { id: number };
  db.prepare(`DELETE FROM fund_profiles WHERE security_id = ?`).run((fund as unknown as { id: number }).id);
  for (const table of ["fund_holdings", "fund_sector_exposure", "fund_country_exposure", "fund_allocation"])
    db.prepare(`DELETE FROM ${table} WHERE fund_id = ?`).run((fund as unknown as { id: number }).id);
  db.close();
  t = await createTestApp({ storePath: copy });
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

function expectNoData(body: Record<string, unknown>, symbol: string, currency: string, resolution = "D") {
  expect(Object.keys(body).sort()).toEqual(CANDLE_KEYS);
  expect(body).toMatchObject({
    symbol,
    s: "no_data",
    ...{ t: [], o: [], h: [], l: [], c: [], v: [] },
    resolution,
    key: `${symbol}:${resolution}:${currency}`,
    currency,
  });
  expect(typeof body.from).toBe("number");
  expect(typeof body.to).toBe("number");
}

describe.each(["v0", "v1"])("a known security without data on /%s", (v) => {
  it("candle: an old range answers 200 no_data with every key; an unknown symbol 404", async () => {
    const res = await t.post(`/${v}/candle`, { symbol: bare.symbol, ...OLD, resolution: "D" });
    expect(res.status).toBe(200);
    expectNoData(res.body, bare.symbol, bare.currency);
    expect(res.body.from).toBe(OLD.from);
    expect(res.body.to).toBe(OLD.to + 86_400 - 1);
    expectErrorBody(await t.post(`/${v}/candle`, { symbol: "NOPE.NOPE", ...OLD }), 404, "NOT_FOUND");
  });

  it("candle in bulk: the no_data item is 200 as the direct call, the unknown one 404", async () => {
    const res = await t.post(`/${v}/bulk`, {
      endpoint: "candle",
      symbols: [{ symbol: bare.symbol }, { symbol: "NOPE.NOPE" }],
      params: { ...OLD, resolution: "W" },
    });
    expect(res.status).toBe(200);
    const [item, unknown] = res.body.results;
    expect(item.statusCode).toBe(200);
    expectNoData(item.data, bare.symbol, bare.currency, "W");
    const direct = await t.post(`/${v}/candle`, { symbol: bare.symbol, ...OLD, resolution: "W" });
    expect(item.data).toEqual(direct.body);
    expect(unknown).toMatchObject({ symbol: "NOPE.NOPE", statusCode: 404, error: { code: "NOT_FOUND" } });
  });

  it("dividends/annual of a known non-payer: 200, empty years, zero totals, frequency null (none)", async () => {
    const res = await t.post(`/${v}/dividends/annual`, { symbol: bare.symbol });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      symbol: bare.symbol,
      isin: bare.isin,
      frequency: null,
      years: [],
      latestDividend: null,
      forwardAnnualDividend: 0,
      forwardYield: 0,
      priceCurrency: bare.currency,
    });
    expect(typeof res.body.price).toBe("number");
    // By ISIN the same.
    expect((await t.post(`/${v}/dividends/annual`, { isin: bare.isin })).body).toEqual(res.body);
    expectErrorBody(await t.post(`/${v}/dividends/annual`, { symbol: "NOPE.NOPE" }), 404, "NOT_FOUND");
  });

  it("dividend estimates of a known non-payer (stock and ETF): 200 with no rows and a zero total", async () => {
    for (const [path, s] of [
      ["etf/dividend-estimate", etf],
      ["stock/dividend-estimate", bare],
      ["etf/dividend-estimate", bare],
    ] as const) {
      const res = await t.post(`/${v}/${path}`, { symbol: s.symbol });
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.body).toMatchObject({ symbol: s.symbol, frequency: null, total: 0, dividends: [] });
      expect(res.body.from > TEST_ANCHOR).toBe(true);
    }
  });

  it("stock/financials/ttm without financials: 200, no quarters, null figures", async () => {
    const res = await t.post(`/${v}/stock/financials/ttm`, { symbol: bare.symbol });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      symbol: bare.symbol,
      currency: expect.any(String),
      asOf: null,
      quarters: [],
      ttm: null,
      balanceSheet: null,
      ratios: null,
      price: null,
    });
  });

  it("stock/financials/ttm with two quarters: 200, those quarters, null figures", async () => {
    const res = await t.post(`/${v}/stock/financials/ttm`, { symbol: twoQuarters.symbol });
    expect(res.status).toBe(200);
    expect(res.body.quarters.map((q: { periodEnd: string }) => q.periodEnd)).toEqual(twoQuarters.periodEnds);
    expect(res.body).toMatchObject({ asOf: twoQuarters.periodEnds[1], ttm: null, ratios: null, price: null });
  });

  it("etf/metrics of a range without closes: 200, null figures, an empty series", async () => {
    const res = await t.post(`/${v}/etf/metrics`, { symbol: etf.symbol, ...OLD, resolution: "W" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      symbol: etf.symbol,
      currency: etf.currency,
      resolution: "W",
      from: OLD.from,
      to: OLD.to,
      startDate: null,
      endDate: null,
      startValue: null,
      endValue: null,
      totalReturn: null,
      maxDrawdown: null,
      periods: 0,
      series: [],
    });
    expect(res.body.notes[0]).toContain("no daily closes");
    expectErrorBody(await t.post(`/${v}/etf/metrics`, { symbol: "NOPE.NOPE", ...OLD }), 404, "NOT_FOUND");
  });

  it("ETF holdings, sector and country of an ETF that reports none: 200 with empty lists", async () => {
    const holdings = await t.post(`/${v}/etf/holdings`, { symbol: etf.symbol });
    expect(holdings.status).toBe(200);
    expect(holdings.body).toEqual({ symbol: etf.symbol, atDate: null, holdings: [] });
    const sector = await t.post(`/${v}/etf/sector`, { symbol: etf.symbol });
    expect([sector.status, sector.body.sectorExposure]).toEqual([200, []]);
    const country = await t.post(`/${v}/etf/country`, { symbol: etf.symbol });
    expect([country.status, country.body.countryExposure]).toEqual([200, []]);
  });

  it("ETF profile and fundamentals of an ETF the store has no profile of: 200 with null", async () => {
    const profile = await t.post(`/${v}/etf/profile`, { symbol: etf.symbol });
    expect([profile.status, profile.body]).toEqual([200, { symbol: etf.symbol, profile: null }]);
    const fundamentals = await t.post(`/${v}/etf/fundamentals`, { symbol: etf.symbol });
    expect(fundamentals.status).toBe(200);
    expect(fundamentals.body).toMatchObject({ symbol: etf.symbol, fundamentals: null });
  });

  it("fund profile of a fund the store has no profile of: 200 with null", async () => {
    const res = await t.post(`/${v}/fund/profile`, { isin: fund.isin });
    expect([res.status, res.body]).toEqual([200, { isin: fund.isin, symbol: fund.symbol, profile: null }]);
  });

  it("fund holding, sector, country and allocation of a fund that reports none: 200 with empty lists", async () => {
    const holding = await t.post(`/${v}/fund/holding`, { isin: fund.isin });
    expect(holding.status).toBe(200);
    expect(holding.body).toMatchObject({ isin: fund.isin, atDate: null, holdings: [] });
    for (const [path, key] of [
      ["fund/sector", "sectorExposure"],
      ["fund/country", "countryExposure"],
      ["fund/allocation-exposure", "allocationExposure"],
    ]) {
      const res = await t.post(`/${v}/${path}`, { isin: fund.isin });
      expect({ path, status: res.status, list: res.body[key!] }).toEqual({ path, status: 200, list: [] });
    }
    expectErrorBody(await t.post(`/${v}/fund/allocation-exposure`, { isin: "XS0000000009" }), 404, "NOT_FOUND");
  });

  it("quote of a stock whose EPS is unknown: metrics null, nothing null inside", async () => {
    const res = await t.post(`/${v}/quote`, { symbol: bare.symbol });
    expect(res.status).toBe(200);
    expect(res.body.metrics).toBeNull();
  });
});

describe("etf/metrics computed in process (a source the workers cannot read)", () => {
  it("answers the same empty metrics as the worker path", async () => {
    // A source without a metrics worker (any but SQLite) computes metrics in process (etf.metrics.jobs.ts `offloadTo`).
    const hidden: Record<PropertyKey, unknown> = { kind: "postgres", etfMetricsWorker: undefined };
    const inProcess = await createTestApp({
      storePath: t.deps.config.sqlitePath,
      market: (source) =>
        new Proxy(source, {
          get: (target, p) => (p in hidden ? hidden[p] : (Reflect.get(target, p, target) as unknown)),
        }),
    });
    try {
      const body = { symbol: etf.symbol, ...OLD, resolution: "W" };
      const res = await inProcess.post("/v1/etf/metrics", body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual((await t.post("/v1/etf/metrics", body)).body);
    } finally {
      await inProcess.close();
    }
  });
});

describe("a known security without data in GraphQL", () => {
  it("answers the empty shapes, not NOT_FOUND errors", async () => {
    const res = await gql(
      t,
      `query ($s: String!, $from: Int!, $to: Int!, $etf: String!, $fund: String!) {
        candle(symbol: $s, from: $from, to: $to) { s t c key }
        stock(symbol: $s) {
          candles(from: $from, to: $to, resolution: "M") { s t key }
          financialsTtm { asOf quarters { periodEnd } ttm { eps } ratios { peRatio } price { c } }
          dividends { date }
          annualDividends { frequency years { year } latestDividend { date } forwardAnnualDividend }
          dividendEstimate { frequency total dividends { date } }
        }
        annualDividends(symbol: $s) { frequency forwardAnnualDividend }
        dividendEstimate(symbol: $s) { total }
        quote(symbol: $s) { metrics { eps } }
        etf(symbol: $etf) {
          profile { name } fundamentals { aum } holdings { atDate holdings { name } } sectorExposure { sector }
          metrics(from: $from, to: $to) { startDate totalReturn maxDrawdown { value } series { t } }
        }
        fund(isin: $fund) { profile { name } holdings { atDate holdings { name } } allocationExposure { assetClass } }
      }`,
      { s: bare.symbol, ...OLD, etf: etf.symbol, fund: fund.isin },
    );
    expect(res.body.errors).toBeUndefined();
    const key = (r: string) => `${bare.symbol}:${r}:${bare.currency}`;
    expect(res.body.data).toEqual({
      candle: { s: "no_data", t: [], c: [], key: key("D") },
      stock: {
        candles: { s: "no_data", t: [], key: key("M") },
        financialsTtm: { asOf: null, quarters: [], ttm: null, ratios: null, price: null },
        dividends: [],
        annualDividends: { frequency: null, years: [], latestDividend: null, forwardAnnualDividend: 0 },
        dividendEstimate: { frequency: null, total: 0, dividends: [] },
      },
      annualDividends: { frequency: null, forwardAnnualDividend: 0 },
      dividendEstimate: { total: 0 },
      quote: { metrics: null },
      etf: {
        profile: null,
        fundamentals: null,
        holdings: { atDate: null, holdings: [] },
        sectorExposure: [],
        metrics: { startDate: null, totalReturn: null, maxDrawdown: null, series: [] },
      },
      fund: { profile: null, holdings: { atDate: null, holdings: [] }, allocationExposure: [] },
    });
  });

  it("an unknown symbol stays NOT_FOUND", async () => {
    const res = await gql(t, `{ candle(symbol: "NOPE.NOPE") { s } }`);
    expect(res.body.errors[0].extensions.code).toBe("NOT_FOUND");
  });
});
