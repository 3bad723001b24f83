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
 * The Bavest Python SDK's stock `Metric` model (bavest/finance/models/v0/stock/metric/metric.py at Bavest/python-sdk
 * d6e4d7ab211b5a57e7bf491bed4493452c8552a8), every key with the type it declares (the aliases of the price returns as
 * the SDK's test data spells them).
 */
const STR = ["symbol", "date", "period"];
const FLOATS = (
  "revenueGrowth grossProfitGrowth ebitgrowth operatingIncomeGrowth netIncomeGrowth epsgrowth epsdilutedGrowth " +
  "weightedAverageSharesGrowth weightedAverageSharesDilutedGrowth dividendsperShareGrowth operatingCashFlowGrowth " +
  "freeCashFlowGrowth tenYRevenueGrowthPerShare fiveYRevenueGrowthPerShare threeYRevenueGrowthPerShare " +
  "tenYOperatingCFGrowthPerShare fiveYOperatingCFGrowthPerShare threeYOperatingCFGrowthPerShare " +
  "tenYNetIncomeGrowthPerShare fiveYNetIncomeGrowthPerShare threeYNetIncomeGrowthPerShare " +
  "tenYShareholdersEquityGrowthPerShare fiveYShareholdersEquityGrowthPerShare " +
  "threeYShareholdersEquityGrowthPerShare " +
  "tenYDividendperShareGrowthPerShare fiveYDividendperShareGrowthPerShare threeYDividendperShareGrowthPerShare " +
  "receivablesGrowth inventoryGrowth assetGrowth bookValueperShareGrowth debtGrowth rdexpenseGrowth " +
  "sgaexpensesGrowth " +
  "revenuePerShare netIncomePerShare operatingCashFlowPerShare freeCashFlowPerShare cashPerShare bookValuePerShare " +
  "tangibleBookValuePerShare shareholdersEquityPerShare interestDebtPerShare marketCap enterpriseValue peRatio " +
  "priceToSalesRatio pocfratio pfcfRatio pbRatio ptbRatio evToSales enterpriseValueOverEBITDA evToOperatingCashFlow " +
  "evToFreeCashFlow earningsYield freeCashFlowYield debtToEquity debtToAssets netDebtToEBITDA currentRatio " +
  "interestCoverage incomeQuality dividendYield dividendYieldPercentage payoutRatio " +
  "salesGeneralAndAdministrativeToRevenue researchAndDevelopementToRevenue intangiblesToTotalAssets " +
  "capexToOperatingCashFlow capexToRevenue capexToDepreciation stockBasedCompensationToRevenue grahamNumber roic " +
  "returnOnTangibleAssets grahamNetNet workingCapital tangibleAssetValue netCurrentAssetValue investedCapital " +
  "averageReceivables averagePayables averageInventory daysSalesOutstanding daysPayablesOutstanding " +
  "daysOfInventoryOnHand receivablesTurnover payablesTurnover inventoryTurnover roe capexPerShare dividendPerShare " +
  "debtToMarketCap 1DayPriceReturnDaily 5DayPriceReturnDaily 4WeekPriceReturnDaily 13WeekPriceReturnDaily " +
  "26WeekPriceReturnDaily yearToDatePriceReturnDaily 1yearPriceReturnDaily 3yearPriceReturnDaily " +
  "5yearPriceReturnDaily 10yearPriceReturnDaily maxPriceReturnDaily"
).split(" ");

function expectMetricModel(body: Record<string, unknown>) {
  // Every key of the model, and the currency of the money figures besides.
  expect(Object.keys(body).sort()).toEqual([...STR, ...FLOATS, "currency"].sort());
  expect(typeof body.symbol).toBe("string");
  expect(body.period).toBe("TTM");
  for (const k of FLOATS) if (body[k] !== null) expect(typeof body[k]).toBe("number");
}

interface Q {
  revenue: number;
  gross_profit: number;
  operating_income: number;
  net_income: number;
  eps: number;
  operating_cash_flow: number;
  capex: number;
  free_cash_flow: number;
  dividends_paid: number;
  total_assets: number;
  total_equity: number;
  cash: number;
  total_debt: number;
  shares_outstanding: number;
  period_end: string;
}

interface Picked {
  securityId: number;
  listingId: number;
  symbol: string;
  isin: string;
}

/**
 * A stock reporting in its listing's currency, with a quote, stored daily bars (the sample computes the others'), and
 * at least eight quarters reported by the anchor.
 */
function pickStock(): Picked {
  return t.source.db
    .prepare(
      `SELECT s.id AS securityId, l.id AS listingId, l.symbol, s.isin FROM securities s
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       JOIN quotes q ON q.listing_id = l.id
       WHERE s.type = 'stock' AND s.isin IS NOT NULL AND l.currency = s.currency
         AND EXISTS (SELECT 1 FROM daily_bars b WHERE b.listing_id = l.id)
         AND (SELECT count(*) FROM quarterly_financials f WHERE f.security_id = s.id AND f.reported_date <= ?) >= 8
         AND (SELECT count(*) FROM quarterly_financials f WHERE f.security_id = s.id AND f.currency <> s.currency) = 0
       ORDER BY s.id LIMIT 1`,
    )
    .get(TEST_ANCHOR) as Picked;
}

const sum = (qs: Q[], k: keyof Q) => qs.reduce((s, q) => s + (q[k] as number), 0);
const div = (a: number, b: number) => (b > 0 ? a / b : null);
const grow = (a: number, b: number) => (b > 0 ? a / b - 1 : null);

/** The figures recomputed here from the rows: the contract's definitions (docs/contract.md, stock/metric). */
function expected(p: Picked): Record<string, number | null> {
  const qs = t.source.db
    .prepare(`SELECT * FROM quarterly_financials WHERE security_id = ? AND reported_date <= ? ORDER BY period_end`)
    .all(p.securityId, TEST_ANCHOR) as Q[];
  const cur = qs.slice(-4);
  const prev = qs.slice(-8, -4);
  const b = cur[3]!;
  const pb = prev[3]!;
  const quote = t.source.db.prepare(`SELECT c, pc, t FROM quotes WHERE listing_id = ?`).get(p.listingId) as {
    c: number;
    pc: number;
    t: number;
  };
  const bars = t.source.db
    .prepare(`SELECT t, c FROM daily_bars WHERE listing_id = ? AND t <= ? ORDER BY t`)
    .all(p.listingId, quote.t) as { t: number; c: number }[];
  const n = b.shares_outstanding;
  const f = (k: keyof Q) => sum(cur, k);
  const mc = quote.c * n;
  const ev = mc + b.total_debt - b.cash;
  const day = Math.floor(quote.t / 86_400) * 86_400;
  const closeAt = (at: number) => bars.filter((x) => x.t <= at).pop()?.c;
  const ret = (ref: number | undefined) => (ref != null && ref > 0 ? (quote.c / ref - 1) * 100 : null);
  const yearStart = Date.UTC(new Date(quote.t * 1000).getUTCFullYear(), 0, 1) / 1000;
  const eps = f("eps");
  const bvps = b.total_equity / n;
  return {
    revenueGrowth: grow(f("revenue"), sum(prev, "revenue")),
    grossProfitGrowth: grow(f("gross_profit"), sum(prev, "gross_profit")),
    ebitgrowth: grow(f("operating_income"), sum(prev, "operating_income")),
    netIncomeGrowth: grow(f("net_income"), sum(prev, "net_income")),
    epsgrowth: grow(eps, sum(prev, "eps")),
    operatingCashFlowGrowth: grow(f("operating_cash_flow"), sum(prev, "operating_cash_flow")),
    freeCashFlowGrowth: grow(f("free_cash_flow"), sum(prev, "free_cash_flow")),
    assetGrowth: grow(b.total_assets, pb.total_assets),
    debtGrowth: grow(b.total_debt, pb.total_debt),
    bookValueperShareGrowth: grow(bvps, pb.total_equity / pb.shares_outstanding),
    revenuePerShare: f("revenue") / n,
    netIncomePerShare: f("net_income") / n,
    freeCashFlowPerShare: f("free_cash_flow") / n,
    cashPerShare: b.cash / n,
    bookValuePerShare: bvps,
    capexPerShare: f("capex") / n,
    dividendPerShare: -f("dividends_paid") / n,
    marketCap: mc,
    enterpriseValue: ev,
    peRatio: div(quote.c, eps),
    priceToSalesRatio: div(mc, f("revenue")),
    pocfratio: div(mc, f("operating_cash_flow")),
    pbRatio: div(mc, b.total_equity),
    evToSales: div(ev, f("revenue")),
    evToFreeCashFlow: div(ev, f("free_cash_flow")),
    earningsYield: div(f("net_income"), mc),
    debtToEquity: div(b.total_debt, b.total_equity),
    debtToAssets: div(b.total_debt, b.total_assets),
    roe: div(f("net_income"), b.total_equity),
    payoutRatio: div(-f("dividends_paid"), f("net_income")),
    dividendYield: div(-f("dividends_paid"), mc),
    grahamNumber: eps > 0 && bvps > 0 ? Math.sqrt(22.5 * eps * bvps) : null,
    "1DayPriceReturnDaily": ret(quote.pc),
    "4WeekPriceReturnDaily": ret(closeAt(day - 28 * 86_400)),
    "1yearPriceReturnDaily": ret(closeAt(day - 365 * 86_400)),
    yearToDatePriceReturnDaily: ret(closeAt(yearStart - 1)),
    maxPriceReturnDaily: ret(bars[0]?.c),
    date: null,
  };
}

function expectClose(actual: unknown, want: number | null, key: string) {
  if (want == null) return expect({ [key]: actual }).toEqual({ [key]: null });
  expect(typeof actual).toBe("number");
  // Rounded to six decimals (money to cents, returns to four): a relative and an absolute slack.
  expect(Math.abs((actual as number) - want)).toBeLessThanOrEqual(Math.abs(want) * 1e-6 + 1e-4);
}

describe.each(["v0", "v1"])("POST /%s/stock/metric", (v) => {
  it("answers what client.stock.metric(symbol) posts, every key of the SDK model", async () => {
    const p = pickStock();
    const res = await t.post(`/${v}/stock/metric`, { symbol: p.symbol, currency: "EUR" });
    expect(res.status).toBe(200);
    expectMetricModel(res.body);
    expect(res.body.currency).toBe("EUR");
    // Ratios do not depend on the currency; the money figures are stock/financials/ttm's in euros.
    const own = await t.post(`/${v}/stock/metric`, { symbol: p.symbol });
    for (const k of ["peRatio", "pbRatio", "debtToEquity", "roe", "revenueGrowth", "1DayPriceReturnDaily"])
      expect(res.body[k]).toBe(own.body[k]);
    const ttm = await t.post(`/${v}/stock/financials/ttm`, { symbol: p.symbol, currency: "EUR" });
    expect(res.body.marketCap).toBe(ttm.body.price.marketCapitalization);
    expectClose(res.body.revenuePerShare, ttm.body.ttm.revenue / ttm.body.balanceSheet.sharesOutstanding, "rps");
  });

  it("computes each figure from the stored quarters, quote and daily bars", async () => {
    const p = pickStock();
    const res = await t.post(`/${v}/stock/metric`, { symbol: p.symbol });
    expect(res.status).toBe(200);
    const want = expected(p);
    const latest = t.source.db
      .prepare(`SELECT max(period_end) AS d FROM quarterly_financials WHERE security_id = ? AND reported_date <= ?`)
      .get(p.securityId, TEST_ANCHOR) as { d: string };
    expect(res.body.date).toBe(latest.d);
    delete want.date;
    for (const [k, w] of Object.entries(want)) expectClose(res.body[k], w, k);
    // Figures the store holds no input for are null.
    for (const k of ["currentRatio", "enterpriseValueOverEBITDA", "epsdilutedGrowth", "roic", "inventoryTurnover"])
      expect(res.body[k]).toBeNull();
    expect(res.body.symbol).toBe(p.symbol);
    const byIsin = await t.post(`/${v}/stock/metric`, { isin: p.isin });
    expect(byIsin.body).toEqual(res.body);
  });

  it("answers null financial figures for a stock with fewer than four reported quarters", async () => {
    const few = t.source.db
      .prepare(
        `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
         WHERE s.type = 'stock'
           AND (SELECT count(*) FROM quarterly_financials f WHERE f.security_id = s.id AND f.reported_date <= ?) < 4
         LIMIT 1`,
      )
      .get(TEST_ANCHOR) as { symbol: string } | undefined;
    if (!few) return expect(few).toBeUndefined();
    const res = await t.post(`/${v}/stock/metric`, { symbol: few.symbol });
    expect(res.status).toBe(200);
    expectMetricModel(res.body);
    for (const k of ["revenueGrowth", "peRatio", "marketCap", "revenuePerShare", "roe"]) expect(res.body[k]).toBeNull();
  });

  it("answers NOT_FOUND for an ETF and an unknown symbol, and needs the stock scope", async () => {
    const etf = t.source.db
      .prepare(`SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id WHERE s.type = 'etf'`)
      .get() as { symbol: string };
    expectErrorBody(await t.post(`/${v}/stock/metric`, { symbol: etf.symbol }), 404, "NOT_FOUND");
    expectErrorBody(await t.post(`/${v}/stock/metric`, { symbol: "NOPE-NOT-A-SYMBOL" }), 404, "NOT_FOUND");
    const dividendOnly = await t.apiKeys.create({ name: `metric-dividend-${v}`, scopes: ["dividend"] });
    expectErrorBody(
      await t.post(`/${v}/stock/metric`, { symbol: pickStock().symbol }, dividendOnly.key),
      403,
      "FORBIDDEN",
    );
  });

  it("answers GET as POST, and through bulk", async () => {
    await expectGetAndBulkAsPost(t, `/${v}/stock/metric`, { symbol: pickStock().symbol });
  });
});

describe("GraphQL Stock.metric", () => {
  it("answers the figures REST answers, grouped by kind, price returns under the SDK's attribute names", async () => {
    const p = pickStock();
    const res = await gql(
      t,
      `query ($s: String) {
        stock(symbol: $s) {
          metric {
            symbol currency date
            growth { revenueGrowth oneDayPriceReturnDaily } perShare { bookValuePerShare }
            valuation { peRatio marketCap roe }
          }
        }
      }`,
      { s: p.symbol },
    );
    const rest = await t.post("/v1/stock/metric", { symbol: p.symbol });
    expect(res.body.data.stock.metric).toEqual({
      symbol: rest.body.symbol,
      currency: rest.body.currency,
      date: rest.body.date,
      growth: { revenueGrowth: rest.body.revenueGrowth, oneDayPriceReturnDaily: rest.body["1DayPriceReturnDaily"] },
      perShare: { bookValuePerShare: rest.body.bookValuePerShare },
      valuation: { peRatio: rest.body.peRatio, marketCap: rest.body.marketCap, roe: rest.body.roe },
    });
  });
});

describe("gateway mode", () => {
  const gw = gatewayPerSuite();

  it("answers what the upstream answers, by symbol and by ISIN, in the currency asked", async () => {
    const p = pickStock();
    for (const currency of [undefined, "EUR"]) {
      const direct = await gw.upstream.app.post("/v1/stock/metric", { symbol: p.symbol, currency });
      expect(direct.status).toBe(200);
      for (const v of ["v0", "v1"]) {
        for (const body of [
          { symbol: p.symbol, currency },
          { isin: p.isin, currency },
        ]) {
          const res = await gw.gateway.post(`/${v}/stock/metric`, body, GATEWAY_KEY);
          expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: direct.body });
        }
      }
    }
  });
});
