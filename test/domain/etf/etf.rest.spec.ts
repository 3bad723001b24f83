import { roundMoney } from "../../../src/domain/fx/fx.service";
import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";

const RISK_FREE = 3;
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { MDG_RISK_FREE_RATE: String(RISK_FREE) } });
});
afterAll(() => t.close());

interface EtfRow {
  id: number;
  listingId: number;
  symbol: string;
  isin: string;
  cusip: string | null;
  currency: string;
  name: string;
}

/** The largest ETF of an asset class (by rank) with its primary listing, as stored. */
function sampleEtf(assetClass = "Equity", where = ""): EtfRow {
  return t.source.db
    .prepare(
      `SELECT s.id, l.id AS listingId, l.symbol, s.isin, s.cusip, l.currency, s.name FROM securities s
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1 JOIN etf_profiles p ON p.security_id = s.id
       WHERE s.type = 'etf' AND p.asset_class = ? ${where} ORDER BY s.rank LIMIT 1`,
    )
    .get(assetClass) as EtfRow;
}

const stored = <T>(sql: string, ...params: unknown[]) => t.source.db.prepare(sql).all(...params) as T[];
const NOW = Date.parse(`${TEST_ANCHOR}T15:00:00Z`) / 1000;
const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);

const PROFILE_KEYS = [
  "name",
  "isin",
  "cusip",
  "assetClass",
  "aum",
  "avgVolume",
  "description",
  "domicile",
  "etfCompany",
  "expenseRatio",
  "inceptionDate",
  "nav",
  "navCurrency",
  "website",
  "holdingsCount",
];

describe.each(["v0", "v1"])("ETF endpoints on /%s", (v) => {
  it("etf/profile answers the contract's shape with the stored profile", async () => {
    const etf = sampleEtf();
    const res = await t.post(`/${v}/etf/profile`, { symbol: etf.symbol });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["symbol", "profile"]);
    expect(Object.keys(res.body.profile)).toEqual(PROFILE_KEYS);
    const [p] = stored<Record<string, unknown>>(`SELECT * FROM etf_profiles WHERE security_id = ?`, etf.id);
    expect(res.body).toEqual({
      symbol: etf.symbol,
      profile: expect.objectContaining({
        name: etf.name,
        isin: etf.isin,
        cusip: etf.cusip,
        assetClass: p!.asset_class,
        aum: p!.aum,
        etfCompany: p!.issuer,
        expenseRatio: p!.expense_ratio,
        inceptionDate: p!.inception_date,
        nav: p!.nav,
        navCurrency: p!.nav_currency,
        holdingsCount: p!.holdings_count,
        domicile: p!.domicile,
      }),
    });
  });

  it("etf/profile resolves an ISIN to the same ETF", async () => {
    const etf = sampleEtf();
    const res = await t.post(`/${v}/etf/profile`, { isin: etf.isin.toLowerCase() });
    expect(res.status).toBe(200);
    expect(res.body.symbol).toBe(etf.symbol);
  });

  it("etf/profile reads the ETF, its quote and its profile in one store query, by symbol or ISIN", async () => {
    const etf = sampleEtf();
    for (const body of [{ symbol: etf.symbol }, { isin: etf.isin }]) {
      const { result, queries } = await t.countQueries(() => t.post(`/${v}/etf/profile`, body));
      expect(result.status).toBe(200);
      expect(result.body.profile.name).toBe(etf.name);
      expect(queries).toBe(1);
    }
  });

  it("etf/holdings answers {symbol, atDate, holdings} with the stored positions, largest first", async () => {
    const etf = sampleEtf();
    const res = await t.post(`/${v}/etf/holdings`, { symbol: etf.symbol });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["symbol", "atDate", "holdings"]);
    const rows = stored<{ weight: number; market_value: number; shares: number; name: string }>(
      `SELECT * FROM etf_holdings WHERE etf_id = ? ORDER BY position`,
      etf.id,
    );
    expect(res.body.holdings).toHaveLength(rows.length);
    expect(res.body.atDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const keys =
      v === "v0"
        ? ["symbol", "name", "isin", "cusip", "share", "percent", "value"]
        : ["symbol", "name", "isin", "share", "percent", "value"];
    for (const h of res.body.holdings) expect(Object.keys(h)).toEqual(keys);
    expect(res.body.holdings.map((h: { percent: number }) => h.percent)).toEqual(rows.map((r) => r.weight));
    expect(res.body.holdings[0]).toMatchObject({
      name: rows[0]!.name,
      share: rows[0]!.shares,
      value: rows[0]!.market_value,
    });
    expect(sum(rows.map((r) => r.weight))).toBeCloseTo(100, 2);
  });

  it("etf/sector and etf/country sum to 100 and agree with the holdings they derive from", async () => {
    for (const etf of [sampleEtf("Equity"), sampleEtf("Multi-Asset"), sampleEtf("Fixed Income")].filter(Boolean)) {
      const [sector, country] = await Promise.all([
        t.post(`/${v}/etf/sector`, { symbol: etf.symbol }),
        t.post(`/${v}/etf/country`, { symbol: etf.symbol }),
      ]);
      expect(sector.status).toBe(200);
      expect(country.status).toBe(200);
      expect(Object.keys(sector.body)).toEqual(["symbol", "sectorExposure"]);
      expect(Object.keys(country.body)).toEqual(["symbol", "countryExposure"]);
      for (const s of sector.body.sectorExposure) expect(Object.keys(s)).toEqual(["sector", "weightPercentage"]);
      for (const c of country.body.countryExposure) expect(Object.keys(c)).toEqual(["country", "exposure"]);
      expect(sum(sector.body.sectorExposure.map((s: { weightPercentage: number }) => s.weightPercentage))).toBeCloseTo(
        100,
        2,
      );
      expect(sum(country.body.countryExposure.map((c: { exposure: number }) => c.exposure))).toBeCloseTo(100, 2);

      const holdings = stored<{ sector: string | null; country: string | null; weight: number }>(
        `SELECT sector, country, weight FROM etf_holdings WHERE etf_id = ?`,
        etf.id,
      );
      const bySector = groupWeights(holdings, (h) => h.sector);
      const byCountry = groupWeights(holdings, (h) => h.country);
      expect(sector.body.sectorExposure).toHaveLength(bySector.size);
      expect(country.body.countryExposure).toHaveLength(byCountry.size);
      for (const [name, w] of bySector) {
        const got = sector.body.sectorExposure.find((s: { sector: string }) => s.sector === name);
        expect({ name, w: got?.weightPercentage }).toEqual({ name, w: expect.closeTo(w, 2) });
      }
      for (const [name, w] of byCountry) {
        const got = country.body.countryExposure.find((c: { country: string }) => c.country === name);
        expect({ name, w: got?.exposure }).toEqual({ name, w: expect.closeTo(w, 2) });
      }
    }
  });

  it("etf/fundamentals answers the profile facts and a valuation derived from the holdings", async () => {
    const etf = sampleEtf();
    const res = await t.post(`/${v}/etf/fundamentals`, { symbol: etf.symbol });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["symbol", "isin", "name", "fundamentals"]);
    const f = res.body.fundamentals;
    expect(Object.keys(f)).toEqual([
      "assetClass",
      "expenseRatio",
      "aum",
      "nav",
      "navCurrency",
      "holdingsCount",
      "inceptionDate",
      "domicile",
      "issuer",
      "replication",
      "distributionPolicy",
      "benchmark",
      "valuation",
    ]);
    const [p] = stored<Record<string, unknown>>(`SELECT * FROM etf_profiles WHERE security_id = ?`, etf.id);
    expect(f).toMatchObject({
      expenseRatio: p!.expense_ratio,
      aum: p!.aum,
      nav: p!.nav,
      navCurrency: p!.nav_currency,
      holdingsCount: p!.holdings_count,
      inceptionDate: p!.inception_date,
      domicile: p!.domicile,
      issuer: p!.issuer,
      replication: p!.replication,
      distributionPolicy: p!.distribution_policy,
      benchmark: p!.benchmark,
    });
    expect(Object.keys(f.valuation)).toEqual([
      "asOf",
      "peRatio",
      "pbRatio",
      "dividendYield",
      "coveredWeight",
      "marketCapBreakdown",
    ]);
    expect(f.valuation.asOf).toBe(TEST_ANCHOR);
    const b = f.valuation.marketCapBreakdown;
    expect(b.large + b.mid + b.small + b.unclassified).toBeCloseTo(100, 2);
    // An equity ETF's holdings are stored stocks: the ratios are derivable.
    expect(f.valuation.coveredWeight).toBeGreaterThan(90);
    expect(f.valuation.peRatio).toBeGreaterThan(0);
    expect(f.valuation.pbRatio).toBeGreaterThan(0);
    expect(f.valuation.dividendYield).toBeGreaterThanOrEqual(0);
  });

  it("etf/fundamentals derives P/E, P/B and dividend yield from the stored holdings (recomputed here)", async () => {
    const etf = sampleEtf();
    const res = await t.post(`/${v}/etf/fundamentals`, { symbol: etf.symbol });
    const holdings = stored<{
      weight: number;
      id: number;
      cap: number | null;
      shares: number | null;
      currency: string;
    }>(
      `SELECT h.weight, s.id, s.market_cap AS cap, s.shares_outstanding AS shares, s.currency FROM etf_holdings h
       JOIN securities s ON s.id = h.holding_security_id WHERE h.etf_id = ?`,
      etf.id,
    );
    const yearAgo = `${Number(TEST_ANCHOR.slice(0, 4)) - 1}${TEST_ANCHOR.slice(4)}`;
    let [we, e, wb, b, wd, d] = [0, 0, 0, 0, 0, 0];
    for (const h of holdings) {
      if (!(h.cap && h.cap > 0)) continue;
      const q = stored<{ net_income: number; total_equity: number }>(
        `SELECT net_income, total_equity FROM quarterly_financials WHERE security_id = ? AND currency = ?
          ORDER BY period_end DESC LIMIT 4`,
        h.id,
        h.currency,
      );
      if (q.length === 4) {
        we += h.weight;
        e += (h.weight * sum(q.map((x) => x.net_income))) / h.cap;
      }
      if (q.length > 0) {
        wb += h.weight;
        b += (h.weight * q[0]!.total_equity) / h.cap;
      }
      if (h.shares && h.shares > 0) {
        const [paid] = stored<{ s: number | null }>(
          `SELECT SUM(adjusted_amount) AS s FROM dividends WHERE security_id = ? AND currency = ? AND ex_date > ?
            AND ex_date <= ?`,
          h.id,
          h.currency,
          yearAgo,
          TEST_ANCHOR,
        );
        wd += h.weight;
        d += h.weight * (((paid!.s ?? 0) * h.shares) / h.cap) * 100;
      }
    }
    expect(we).toBeGreaterThan(50);
    const val = res.body.fundamentals.valuation;
    expect(val.peRatio).toBeCloseTo(we / e, 3);
    expect(val.pbRatio).toBeCloseTo(wb / b, 3);
    expect(val.dividendYield).toBeCloseTo(d / wd, 3);
  });

  it("etf/fundamentals of a bond ETF leaves the equity ratios null and everything unclassified", async () => {
    const etf = sampleEtf("Fixed Income");
    const res = await t.post(`/${v}/etf/fundamentals`, { isin: etf.isin });
    expect(res.status).toBe(200);
    expect(res.body.fundamentals.valuation).toMatchObject({
      peRatio: null,
      pbRatio: null,
      dividendYield: null,
      coveredWeight: 0,
    });
    expect(res.body.fundamentals.valuation.marketCapBreakdown.unclassified).toBeCloseTo(100, 2);
  });

  it("etf/metrics answers the documented shape with the documented defaults", async () => {
    const etf = sampleEtf();
    const res = await t.post(`/${v}/etf/metrics`, { symbol: etf.symbol });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual([
      "symbol",
      "currency",
      "resolution",
      "from",
      "to",
      "startDate",
      "endDate",
      "startValue",
      "endValue",
      "totalReturn",
      "annualisedReturn",
      "annualisedVolatility",
      "sharpeRatio",
      "riskFreeRate",
      "maxDrawdown",
      "bestPeriod",
      "worstPeriod",
      "periods",
      "series",
      "fxFilledDays",
      "notes",
    ]);
    const yearAgo = new Date(NOW * 1000);
    yearAgo.setUTCFullYear(yearAgo.getUTCFullYear() - 1);
    expect(res.body).toMatchObject({
      symbol: etf.symbol,
      currency: etf.currency,
      resolution: "D",
      to: NOW,
      from: yearAgo.getTime() / 1000,
      riskFreeRate: RISK_FREE,
      fxFilledDays: 0,
      notes: [],
    });
    expect(Object.keys(res.body.maxDrawdown)).toEqual(["value", "peakDate", "troughDate", "recoveryDate"]);
    expect(Object.keys(res.body.bestPeriod)).toEqual(["date", "periodReturn"]);
    expect(Object.keys(res.body.series[0])).toEqual(["date", "t", "value", "periodReturn", "cumulativeReturn"]);
    expect(res.body.periods).toBe(res.body.series.length - 1);
  });

  it("etf/metrics agrees with values computed here from the stored closes", async () => {
    const etf = sampleEtf();
    const from = NOW - 200 * 86_400;
    const to = NOW - 20 * 86_400;
    const closes = stored<{ t: number; c: number }>(
      `SELECT t, c FROM daily_bars WHERE listing_id = ? AND t BETWEEN ? AND ? ORDER BY t`,
      etf.listingId,
      from,
      to,
    );
    expect(closes.length).toBeGreaterThan(100);
    const c = closes.map((r) => r.c);
    const res = await t.post(`/${v}/etf/metrics`, { symbol: etf.symbol, from, to, resolution: "D" });
    expect(res.status).toBe(200);
    const expected = independentMetrics(c, 252, RISK_FREE);
    expect(res.body.startValue).toBe(c[0]);
    expect(res.body.endValue).toBe(c[c.length - 1]);
    expect(res.body.totalReturn).toBeCloseTo(expected.totalReturn, 9);
    expect(res.body.annualisedVolatility).toBeCloseTo(expected.volatility, 9);
    expect(res.body.sharpeRatio).toBeCloseTo(expected.sharpe, 9);
    expect(res.body.maxDrawdown.value).toBeCloseTo(expected.maxDrawdown, 9);
    expect(res.body.series).toHaveLength(c.length);
    expect(res.body.series[res.body.series.length - 1].cumulativeReturn).toBeCloseTo(expected.totalReturn, 9);
  });

  it("etf/metrics accepts from and to as days YYYY-MM-DD (00:00 UTC)", async () => {
    const etf = sampleEtf();
    const byDay = await t.post(`/${v}/etf/metrics`, { symbol: etf.symbol, from: "2026-06-01", to: "2026-09-30" });
    const bySecond = await t.post(`/${v}/etf/metrics`, {
      symbol: etf.symbol,
      from: Date.parse("2026-06-01") / 1000,
      to: Date.parse("2026-09-30") / 1000,
    });
    expect(byDay.status).toBe(200);
    expect(byDay.body).toEqual(bySecond.body);
    expect(byDay.body.from).toBe(Date.parse("2026-06-01T00:00:00Z") / 1000);
  });

  it("etf/metrics converts with the daily FX series and counts the days it filled", async () => {
    const etf = sampleEtf();
    const target = etf.currency === "JPY" ? "EUR" : "JPY";
    const from = NOW - 120 * 86_400;
    const closes = stored<{ t: number; c: number }>(
      `SELECT t, c FROM daily_bars WHERE listing_id = ? AND t BETWEEN ? AND ? ORDER BY t`,
      etf.listingId,
      from,
      NOW,
    );
    const fx = (cur: string) =>
      cur === "USD"
        ? null
        : stored<{ day: string; per_usd: number }>(
            `SELECT day, per_usd FROM fx_daily WHERE currency = ? ORDER BY day`,
            cur,
          );
    const [fromFx, toFx] = [fx(etf.currency), fx(target)];
    let filled = 0;
    const rate = (series: { day: string; per_usd: number }[] | null, day: string) => {
      if (!series) return { r: 1, exact: true };
      const row = series.filter((x) => x.day <= day).pop()!;
      return { r: row.per_usd, exact: row.day === day };
    };
    const converted = closes.map((b) => {
      const day = new Date(b.t * 1000).toISOString().slice(0, 10);
      const a = rate(fromFx, day);
      const z = rate(toFx, day);
      if (!a.exact || !z.exact) filled++;
      return (b.c * z.r) / a.r;
    });
    const res = await t.post(`/${v}/etf/metrics`, {
      symbol: etf.symbol,
      from,
      to: NOW,
      currency: target.toLowerCase(),
      resolution: "W",
    });
    expect(res.status).toBe(200);
    expect(res.body.currency).toBe(target);
    expect(res.body.resolution).toBe("W");
    // Converted closes are shown on the target currency's tick; the returns come from the unrounded conversion.
    expect(res.body.startValue).toBe(roundMoney(converted[0]!, target));
    expect(res.body.endValue).toBe(roundMoney(converted[converted.length - 1]!, target));
    expect(res.body.series.at(-1).value).toBe(res.body.endValue);
    expect(res.body.totalReturn).toBeCloseTo((converted[converted.length - 1]! / converted[0]! - 1) * 100, 9);
    expect(res.body.fxFilledDays).toBe(filled);
    expect(res.body.notes).toHaveLength(filled > 0 ? 1 : 0);
    // Weekly: about 17 weeks, fewer points than days.
    expect(res.body.periods).toBeGreaterThanOrEqual(16);
    expect(res.body.periods).toBeLessThanOrEqual(19);
  });
});

/** Sums holdings' weights per key; holdings without one (government bonds, cash, futures) count as "Other". */
function groupWeights<T extends { weight: number }>(rows: T[], key: (r: T) => string | null): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) {
    const k = key(r) ?? "Other";
    out.set(k, (out.get(k) ?? 0) + r.weight);
  }
  return out;
}

/** The metrics written out here, independently of src/domain/etf/etf.metrics.ts. */
function independentMetrics(c: number[], perYear: number, rfPercent: number) {
  const r: number[] = [];
  for (let i = 1; i < c.length; i++) r.push(c[i]! / c[i - 1]! - 1);
  const m = r.reduce((s, x) => s + x, 0) / r.length;
  const sd = Math.sqrt(r.reduce((s, x) => s + (x - m) ** 2, 0) / (r.length - 1));
  let peak = c[0]!;
  let dd = 0;
  for (const x of c) {
    peak = Math.max(peak, x);
    dd = Math.min(dd, x / peak - 1);
  }
  return {
    totalReturn: (c[c.length - 1]! / c[0]! - 1) * 100,
    volatility: sd * Math.sqrt(perYear) * 100,
    sharpe: (m * perYear - rfPercent / 100) / (sd * Math.sqrt(perYear)),
    maxDrawdown: dd * 100,
  };
}

const ETF_PATHS = ["etf/profile", "etf/holdings", "etf/sector", "etf/country", "etf/fundamentals", "etf/metrics"];

describe.each(["v0", "v1"])("ETF endpoints on /%s hold the five-status rule", (v) => {
  it.each(ETF_PATHS)("%s answers 404 INVALID_ARGUMENT for a missing or ill-typed symbol", async (path) => {
    for (const body of [{}, { symbol: 42 }, { symbol: "" }, { symbol: ["SPY"] }, "{not json"]) {
      expectErrorBody(await t.post(`/${v}/${path}`, body), 404, "INVALID_ARGUMENT");
    }
  });

  it.each(ETF_PATHS)("%s answers 404 NOT_FOUND for an unknown symbol, a stock, or an unknown ISIN", async (path) => {
    const stock = t.source.db
      .prepare(
        `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id WHERE s.type = 'stock'
          ORDER BY s.rank LIMIT 1`,
      )
      .get() as { symbol: string };
    expectErrorBody(await t.post(`/${v}/${path}`, { symbol: "NO-SUCH-ETF" }), 404, "NOT_FOUND");
    expectErrorBody(await t.post(`/${v}/${path}`, { symbol: stock.symbol }), 404, "NOT_FOUND");
    expectErrorBody(await t.post(`/${v}/${path}`, { isin: "XS0000000009" }), 404, "NOT_FOUND");
  });

  it.each(ETF_PATHS)("%s answers 404 INVALID_ARGUMENT for a malformed ISIN", async (path) => {
    for (const isin of ["US0378331006", "US03783310", "not-an-isin"]) {
      const res = await t.post(`/${v}/${path}`, { isin });
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      expect(res.body.details[0].field).toBe("isin");
    }
  });

  it.each(ETF_PATHS)("%s answers 401 without a key and 403 without the etf scope", async (path) => {
    const etf = sampleEtf();
    expectErrorBody(await t.post(`/${v}/${path}`, { symbol: etf.symbol }, null), 401, "UNAUTHENTICATED");
    const fundOnly = await t.apiKeys.create({ name: `fund-only-${path}`, scopes: ["fund"] });
    expectErrorBody(await t.post(`/${v}/${path}`, { symbol: etf.symbol }, fundOnly.key), 403, "FORBIDDEN");
  });

  it.each([
    [{ from: 10, to: 5 }, "from"],
    [{ resolution: "X" }, "resolution"],
    [{ resolution: "5" }, "resolution"],
    [{ resolution: 7 }, "resolution"],
    [{ currency: "XYZ" }, "currency"],
    [{ currency: 12 }, "currency"],
    [{ from: "yesterday" }, "from"],
    [{ from: "20261120" }, "from"],
    [{ to: 1_763_650_800_000 }, "to"],
    [{ from: 1.5 }, "from"],
    [{ to: -1 }, "to"],
    [{ to: 1e12 }, "to"],
  ])("etf/metrics answers 404 INVALID_ARGUMENT for %j", async (extra, field) => {
    const etf = sampleEtf();
    const res = await t.post(`/${v}/etf/metrics`, { symbol: etf.symbol, ...extra });
    expectErrorBody(res, 404, "INVALID_ARGUMENT");
    expect(res.body.details[0].field).toBe(field);
  });

  it("etf/metrics answers 200 with null figures and an empty series for a range with no data", async () => {
    const etf = sampleEtf();
    const res = await t.post(`/${v}/etf/metrics`, { symbol: etf.symbol, from: 0, to: 86_400 * 365 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ symbol: etf.symbol, startDate: null, totalReturn: null, periods: 0, series: [] });
  });

  it("ETF paths answer 404 for a method other than GET and POST", async () => {
    const res = await t.http.put(`/${v}/etf/profile`).set("x-api-key", "test-bootstrap-key-0123456789");
    expectErrorBody(res, 404, "NOT_FOUND");
  });
});

describe("versions of etf/holdings", () => {
  it("/v0 carries cusip and the deprecation headers", async () => {
    const etf = sampleEtf("Equity", "AND s.country = 'US'");
    const res = await t.post(`/v0/etf/holdings`, { symbol: etf.symbol });
    expect(res.status).toBe(200);
    expect(res.headers.deprecation).toBe("@1735689599");
    expect(res.headers.sunset).toBe("Tue, 31 Dec 2024 23:59:59 GMT");
    expect(res.headers.link).toBe(`</v1/etf/holdings>; rel="successor-version"`);
    expect(res.body.holdings.every((h: object) => "cusip" in h)).toBe(true);
    // A US equity ETF holds US stocks, which have CUSIPs.
    expect(
      res.body.holdings.some((h: { cusip: string | null }) => typeof h.cusip === "string" && h.cusip.length === 9),
    ).toBe(true);
  });

  it("/v1 has no cusip anywhere in the body and no deprecation headers", async () => {
    const etf = sampleEtf("Equity", "AND s.country = 'US'");
    const res = await t.post(`/v1/etf/holdings`, { symbol: etf.symbol });
    expect(res.status).toBe(200);
    expect(res.text.toLowerCase()).not.toContain("cusip");
    expect(res.headers.deprecation).toBeUndefined();
    expect(res.headers.sunset).toBeUndefined();
  });
});
