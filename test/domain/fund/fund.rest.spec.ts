import { createTestApp, type TestApp } from "../../helpers/app";
import { expectErrorBody } from "../../helpers/expect";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface FundRow {
  id: number;
  symbol: string;
  isin: string;
  name: string;
}

/** The largest fund (by rank) whose profile has an asset class, as stored. */
function sampleFund(where = ""): FundRow {
  return t.source.db
    .prepare(
      `SELECT s.id, l.symbol, s.isin, s.name FROM securities s
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1 JOIN fund_profiles p ON p.security_id = s.id
       WHERE s.type = 'fund' ${where} ORDER BY s.rank LIMIT 1`,
    )
    .get() as FundRow;
}

const stored = <T>(sql: string, ...params: unknown[]) => t.source.db.prepare(sql).all(...params) as T[];
const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);

const FUND_PATHS = ["fund/profile", "fund/sector", "fund/country", "fund/holding", "fund/allocation-exposure"];

describe.each(["v0", "v1"])("fund endpoints on /%s", (v) => {
  it("fund/profile answers {isin, symbol, profile} with the stored profile", async () => {
    const fund = sampleFund();
    const res = await t.post(`/${v}/fund/profile`, { isin: fund.isin });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["isin", "symbol", "profile"]);
    expect(Object.keys(res.body.profile)).toEqual([
      "name",
      "description",
      "fundCompany",
      "category",
      "assetClass",
      "aum",
      "nav",
      "navCurrency",
      "ongoingCharge",
      "entryCharge",
      "inceptionDate",
      "domicile",
      "benchmark",
      "riskClass",
      "distributionPolicy",
      "minInvestment",
      "holdingsCount",
      "website",
    ]);
    const [p] = stored<Record<string, unknown>>(`SELECT * FROM fund_profiles WHERE security_id = ?`, fund.id);
    expect(res.body).toMatchObject({
      isin: fund.isin,
      symbol: fund.symbol,
      profile: {
        name: fund.name,
        fundCompany: p!.fund_company,
        category: p!.category,
        aum: p!.aum,
        nav: p!.nav,
        navCurrency: p!.nav_currency,
        ongoingCharge: p!.ongoing_charge,
        entryCharge: p!.entry_charge,
        riskClass: p!.risk_class,
        minInvestment: p!.min_investment,
        holdingsCount: p!.holdings_count,
        inceptionDate: p!.inception_date,
        distributionPolicy: p!.distribution_policy,
      },
    });
  });

  it("fund/holding answers {isin, symbol, atDate, currency, holdings} with the stored positions", async () => {
    const fund = sampleFund();
    const res = await t.post(`/${v}/fund/holding`, { isin: fund.isin });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["isin", "symbol", "atDate", "currency", "holdings"]);
    const rows = stored<{ weight: number; name: string; market_value: number }>(
      `SELECT * FROM fund_holdings WHERE fund_id = ? ORDER BY position`,
      fund.id,
    );
    expect(res.body.holdings).toHaveLength(rows.length);
    for (const h of res.body.holdings)
      expect(Object.keys(h)).toEqual(["symbol", "name", "isin", "assetClass", "sector", "country", "percent", "value"]);
    expect(res.body.holdings.map((h: { percent: number }) => h.percent)).toEqual(rows.map((r) => r.weight));
    expect(res.body.holdings[0]).toMatchObject({ name: rows[0]!.name, value: rows[0]!.market_value });
    expect(sum(rows.map((r) => r.weight))).toBeCloseTo(100, 2);
  });

  it("fund/sector and fund/country sum to 100 and agree with the holdings", async () => {
    const fund = sampleFund();
    const [sector, country] = await Promise.all([
      t.post(`/${v}/fund/sector`, { isin: fund.isin }),
      t.post(`/${v}/fund/country`, { isin: fund.isin }),
    ]);
    expect(sector.status).toBe(200);
    expect(country.status).toBe(200);
    expect(Object.keys(sector.body)).toEqual(["isin", "symbol", "sectorExposure"]);
    expect(Object.keys(country.body)).toEqual(["isin", "symbol", "countryExposure"]);
    for (const s of sector.body.sectorExposure) expect(Object.keys(s)).toEqual(["sector", "weightPercentage"]);
    for (const c of country.body.countryExposure) expect(Object.keys(c)).toEqual(["country", "exposure"]);
    expect(sum(sector.body.sectorExposure.map((s: { weightPercentage: number }) => s.weightPercentage))).toBeCloseTo(
      100,
      2,
    );
    expect(sum(country.body.countryExposure.map((c: { exposure: number }) => c.exposure))).toBeCloseTo(100, 2);
    const holdings = stored<{ sector: string | null; country: string | null; weight: number }>(
      `SELECT sector, country, weight FROM fund_holdings WHERE fund_id = ?`,
      fund.id,
    );
    expect(sector.body.sectorExposure).toHaveLength(groupWeights(holdings, (h) => h.sector).size);
    expect(country.body.countryExposure).toHaveLength(groupWeights(holdings, (h) => h.country).size);
    for (const [name, w] of groupWeights(holdings, (h) => h.sector)) {
      expect({
        name,
        w: sector.body.sectorExposure.find((s: { sector: string }) => s.sector === name)?.weightPercentage,
      }).toEqual({ name, w: expect.closeTo(w, 2) });
    }
    for (const [name, w] of groupWeights(holdings, (h) => h.country)) {
      expect({
        name,
        w: country.body.countryExposure.find((c: { country: string }) => c.country === name)?.exposure,
      }).toEqual({ name, w: expect.closeTo(w, 2) });
    }
  });

  it("fund/allocation-exposure sums Equity, Bonds, Cash, Other to 100, matching the holdings' classes", async () => {
    const fund = sampleFund();
    const res = await t.post(`/${v}/fund/allocation-exposure`, { isin: fund.isin });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["isin", "symbol", "allocationExposure"]);
    expect(res.body.allocationExposure.map((a: { assetClass: string }) => a.assetClass)).toEqual([
      "Equity",
      "Bonds",
      "Cash",
      "Other",
    ]);
    expect(sum(res.body.allocationExposure.map((a: { weightPercentage: number }) => a.weightPercentage))).toBeCloseTo(
      100,
      2,
    );
    const holdings = stored<{ asset_class: string; weight: number }>(
      `SELECT asset_class, weight FROM fund_holdings WHERE fund_id = ?`,
      fund.id,
    );
    const byClass = groupWeights(holdings, (h) => (h.asset_class === "Bond" ? "Bonds" : h.asset_class));
    for (const a of res.body.allocationExposure)
      expect(a.weightPercentage).toBeCloseTo(byClass.get(a.assetClass) ?? 0, 2);
  });

  it("every fund allocation in the store sums to 100", async () => {
    const sums = stored<{ total: number }>(`SELECT SUM(weight) AS total FROM fund_allocation GROUP BY fund_id`);
    expect(sums.length).toBeGreaterThan(0);
    for (const s of sums) expect(s.total).toBeCloseTo(100, 2);
  });

  it("accepts the fund's symbol instead of its ISIN", async () => {
    const fund = sampleFund();
    const res = await t.post(`/${v}/fund/profile`, { symbol: fund.symbol });
    expect(res.status).toBe(200);
    expect(res.body.isin).toBe(fund.isin);
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

describe.each(["v0", "v1"])("fund endpoints on /%s hold the five-status rule", (v) => {
  it.each(FUND_PATHS)("%s answers 404 INVALID_ARGUMENT for a missing or ill-typed isin", async (path) => {
    for (const body of [{}, { isin: 42 }, { isin: "" }, { isin: null }, "[]"]) {
      const res = await t.post(`/${v}/${path}`, body);
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
    }
    const res = await t.post(`/${v}/${path}`, {});
    expect(res.body.details[0]).toEqual({ field: "isin", issue: "required" });
  });

  it.each(FUND_PATHS)("%s answers 404 INVALID_ARGUMENT for a malformed ISIN (length, check digit)", async (path) => {
    for (const isin of ["LU12345", "LU0000000001X", "US0378331006"]) {
      const res = await t.post(`/${v}/${path}`, { isin });
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      expect(res.body.details[0].field).toBe("isin");
    }
  });

  it.each(FUND_PATHS)("%s answers 404 NOT_FOUND for an unknown ISIN or the ISIN of an ETF", async (path) => {
    const etf = t.source.db
      .prepare(`SELECT isin FROM securities WHERE type = 'etf' AND isin IS NOT NULL LIMIT 1`)
      .get() as { isin: string };
    expectErrorBody(await t.post(`/${v}/${path}`, { isin: "XS0000000009" }), 404, "NOT_FOUND");
    expectErrorBody(await t.post(`/${v}/${path}`, { isin: etf.isin }), 404, "NOT_FOUND");
  });

  it.each(FUND_PATHS)("%s answers 401 without a key and 403 without the fund scope", async (path) => {
    const fund = sampleFund();
    expectErrorBody(await t.post(`/${v}/${path}`, { isin: fund.isin }, null), 401, "UNAUTHENTICATED");
    const etfOnly = await t.apiKeys.create({ name: `etf-only-${path}`, scopes: ["etf"] });
    expectErrorBody(await t.post(`/${v}/${path}`, { isin: fund.isin }, etfOnly.key), 403, "FORBIDDEN");
  });
});
