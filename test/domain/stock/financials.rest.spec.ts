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
 * The Bavest Python SDK's `FinancialsItem` (bavest/finance/models/v0/stock/financials/financials.py at
 * Bavest/python-sdk), every field with the type it declares; `Financials` holds `financials: List[FinancialsItem]`.
 */
const PYTHON_FINANCIALS_ITEM = {
  date: "str",
  symbol: "str",
  reportedCurrency: "str",
  cik: "float",
  fillingDate: "str",
  acceptedDate: "str",
  calendarYear: "str",
  period: "str",
  stockBasedCompensation: "float",
  accountsReceivables: "float",
  inventory: "float",
  accountsPayables: "float",
  otherWorkingCapital: "float",
  otherNonCashItems: "float",
  netCashProvidedByOperatingActivities: "float",
  investmentsInPropertyPlantAndEquipment: "float",
  acquisitionsNet: "float",
  purchasesOfInvestments: "float",
  salesMaturitiesOfInvestments: "float",
  otherInvestingActivites: "float",
  debtRepayment: "float",
  commonStockIssued: "float",
  otherFinancingActivites: "float",
  effectOfForexChangesOnCash: "float",
  cashAtEndOfPeriod: "float",
  cashAtBeginningOfPeriod: "float",
  link: "str",
  finalLink: "str",
  capex: "float",
  cashDividendsPaid: "float",
  changeinCash: "float",
  changesinWorkingCapital: "float",
  deferredTaxesInvestmentTaxCredit: "float",
  depreciationAmortization: "float",
  fcf: "float",
  issuanceReductionCapitalStock: "float",
  netCashFinancingActivities: "float",
  netIncomeStartingLine: "float",
  netInvestingCashFlow: "float",
  netOperatingCashFlow: "float",
} as const;

/** The Dart SDK's `IncomeData` (lib/model/v0/stock/financials/income.dart): the keys its fromJson reads. */
const DART_INCOME_KEYS = [
  "date",
  "symbol",
  "reportedCurrency",
  "cik",
  "fillingDate",
  "acceptedDate",
  "period",
  "revenue",
  "grossProfitRatio",
  "generalAndAdministrativeExpenses",
  "sellingAndMarketingExpenses",
  "otherExpenses",
  "costAndExpenses",
  "interestIncome",
  "interestExpense",
  "depreciationAndAmortization",
  "ebitda",
  "ebitdaratio",
  "operatingIncomeRatio",
  "totalOtherIncomeExpensesNet",
  "incomeBeforeTaxRatio",
  "netIncome",
  "netIncomeRatio",
  "eps",
  "weightedAverageShsOut",
  "link",
  "finalLink",
  "costOfGoodsSold",
  "dilutedAverageSharesOutstanding",
  "dilutedEPS",
  "ebit",
  "grossIncome",
  "pretaxIncome",
  "provisionforIncomeTaxes",
  "researchDevelopment",
  "sgaExpense",
  "totalOperatingExpense",
];

/** The Dart SDK's `BalanceData` (lib/model/v0/stock/financials/balance.dart): the keys its fromJson reads. */
const DART_BALANCE_KEYS = [
  "date",
  "symbol",
  "reportedCurrency",
  "cik",
  "fillingDate",
  "acceptedDate",
  "period",
  "cashAndCashEquivalents",
  "shortTermInvestments",
  "inventory",
  "otherCurrentAssets",
  "goodwill",
  "intangibleAssets",
  "goodwillAndIntangibleAssets",
  "longTermInvestments",
  "taxAssets",
  "otherNonCurrentAssets",
  "totalNonCurrentAssets",
  "otherAssets",
  "totalAssets",
  "shortTermDebt",
  "taxPayables",
  "deferredRevenue",
  "otherCurrentLiabilities",
  "longTermDebt",
  "deferredRevenueNonCurrent",
  "deferredTaxLiabilitiesNonCurrent",
  "otherNonCurrentLiabilities",
  "totalNonCurrentLiabilities",
  "otherLiabilities",
  "capitalLeaseObligations",
  "totalLiabilities",
  "preferredStock",
  "commonStock",
  "retainedEarnings",
  "othertotalStockholdersEquity",
  "totalStockholdersEquity",
  "minorityInterest",
  "totalEquity",
  "totalLiabilitiesAndTotalEquity",
  "totalInvestments",
  "totalDebt",
  "netDebt",
  "link",
  "finalLink",
  "accountsPayable",
  "cashShortTermInvestments",
  "currentAssets",
  "currentLiabilities",
  "liabilitiesShareholdersEquity",
  "otherEquity",
  "propertyPlantEquipment",
  "totalReceivables",
];

type Item = Record<string, unknown>;

function expectPythonItem(item: Item) {
  expect(Object.keys(item).sort()).toEqual(Object.keys(PYTHON_FINANCIALS_ITEM).sort());
  for (const [k, type] of Object.entries(PYTHON_FINANCIALS_ITEM)) {
    const v = item[k];
    // A figure the store does not hold is null (docs/contract.md section 4), never an invented value.
    if (v === null) continue;
    expect({ k, type: typeof v }).toEqual({ k, type: type === "str" ? "string" : "number" });
  }
}

interface Row {
  periodEnd: string;
  fiscalYear: number;
  fiscalQuarter: number;
  reportedDate: string;
  currency: string;
  revenue: number;
  netIncome: number;
  eps: number;
  totalAssets: number;
  totalLiabilities: number;
  totalEquity: number;
  cash: number;
  operatingCashFlow: number;
  capex: number;
  freeCashFlow: number;
  dividendsPaid: number;
  accountsReceivable: number | null;
  inventory: number | null;
}

/** A stock with sixteen quarters, the first by id: its primary listing's symbol and its quarters as stored. */
function stockWithQuarters(): { symbol: string; isin: string; rows: Row[] } {
  const s = t.source.db
    .prepare(
      `SELECT l.symbol, s.isin, s.id FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       WHERE s.type = 'stock' AND s.isin IS NOT NULL
         AND (SELECT count(*) FROM quarterly_financials f WHERE f.security_id = s.id) = 16
       ORDER BY s.id LIMIT 1`,
    )
    .get() as { symbol: string; isin: string; id: number };
  const rows = t.source.db
    .prepare(
      `SELECT period_end AS periodEnd, fiscal_year AS fiscalYear, fiscal_quarter AS fiscalQuarter,
              reported_date AS reportedDate, currency, revenue, net_income AS netIncome, eps,
              total_assets AS totalAssets, total_liabilities AS totalLiabilities, total_equity AS totalEquity, cash,
              operating_cash_flow AS operatingCashFlow, capex, free_cash_flow AS freeCashFlow,
              dividends_paid AS dividendsPaid, accounts_receivable AS accountsReceivable, inventory
       FROM quarterly_financials WHERE security_id = ? AND reported_date <= ? ORDER BY period_end`,
    )
    .all(s.id, TEST_ANCHOR) as Row[];
  return { symbol: s.symbol, isin: s.isin, rows };
}

/** Fiscal years with all four quarters among `rows`, newest first. */
function fullYears(rows: readonly Row[]): Row[][] {
  const years = [...new Set(rows.map((r) => r.fiscalYear))];
  return years
    .map((y) => rows.filter((r) => r.fiscalYear === y).sort((a, b) => a.fiscalQuarter - b.fiscalQuarter))
    .filter((qs) => qs.length === 4)
    .reverse();
}

const sum = (rows: readonly Row[], f: keyof Row) => rows.reduce((s, r) => s + (r[f] as number), 0);

describe.each(["v0", "v1"])("POST /%s/stock/financials", (v) => {
  it("answers what the Python SDK posts (names of its enums, currency EUR) in its Financials model", async () => {
    const s = stockWithQuarters();
    for (const statement of ["CASHFLOW", "BALANCE", "INCOME"]) {
      for (const freq of ["ANNUAL", "QUARTERLY"]) {
        const res = await t.post(`/${v}/stock/financials`, { symbol: s.symbol, freq, statement, currency: "EUR" });
        expect(res.status).toBe(200);
        expect(Object.keys(res.body)).toEqual(["financials"]);
        const items = res.body.financials as Item[];
        expect(items.length).toBe(freq === "ANNUAL" ? fullYears(s.rows).length : s.rows.length);
        for (const item of items) expect(item.reportedCurrency).toBe("EUR");
        if (statement === "CASHFLOW") for (const item of items) expectPythonItem(item);
      }
    }
  });

  it("answers what the Dart SDK posts (the values, by symbol or ISIN) with the keys of its models", async () => {
    const s = stockWithQuarters();
    const keys: Record<string, string[]> = {
      ic: DART_INCOME_KEYS,
      bs: DART_BALANCE_KEYS,
      cf: Object.keys(PYTHON_FINANCIALS_ITEM),
    };
    for (const [statement, expected] of Object.entries(keys)) {
      const bySymbol = await t.post(`/${v}/stock/financials`, {
        statement,
        currency: "EUR",
        freq: "quarterly",
        symbol: s.symbol,
      });
      expect(bySymbol.status).toBe(200);
      const byIsin = await t.post(`/${v}/stock/financials`, {
        statement,
        currency: "EUR",
        freq: "quarterly",
        isin: s.isin,
      });
      expect(byIsin.body).toEqual(bySymbol.body);
      const item = (bySymbol.body.financials as Item[])[0]!;
      for (const k of expected) expect({ k, has: k in item }).toEqual({ k, has: true });
      // Dart reads `year` from `date` (income, balance) or `calendarYear` (cash flow): both parse.
      expect(item.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(item.calendarYear).toMatch(/^\d{4}$/);
    }
  });

  it("answers the stored quarters newest first, the balance-sheet identity holding in each", async () => {
    const s = stockWithQuarters();
    const res = await t.post(`/${v}/stock/financials`, { symbol: s.symbol, freq: "quarterly", statement: "bs" });
    const items = res.body.financials as Item[];
    const newest = [...s.rows].reverse();
    expect(items.map((i) => [i.date, i.period, i.calendarYear, i.fillingDate])).toEqual(
      newest.map((r) => [r.periodEnd, `Q${r.fiscalQuarter}`, String(r.fiscalYear), r.reportedDate]),
    );
    items.forEach((item, i) => {
      const r = newest[i]!;
      expect(item.reportedCurrency).toBe(r.currency);
      expect(item.totalAssets).toBe(r.totalAssets);
      expect(item.cashAndCashEquivalents).toBe(r.cash);
      expect(item.totalAssets).toBe((item.totalLiabilities as number) + (item.totalEquity as number));
      expect(item.totalLiabilitiesAndTotalEquity).toBe(item.totalAssets);
    });
  });

  it("sums a fiscal year's four quarters for flows and takes its fourth quarter's balances", async () => {
    const s = stockWithQuarters();
    const years = fullYears(s.rows);
    expect(years.length).toBeGreaterThanOrEqual(3);
    const ask = async (statement: string) =>
      (await t.post(`/${v}/stock/financials`, { symbol: s.symbol, freq: "annual", statement })).body
        .financials as Item[];
    const [ic, bs, cf] = [await ask("ic"), await ask("bs"), await ask("cf")];
    years.forEach((qs, i) => {
      const q4 = qs[3]!;
      for (const item of [ic[i]!, bs[i]!, cf[i]!]) {
        expect([item.date, item.period, item.calendarYear]).toEqual([q4.periodEnd, "FY", String(q4.fiscalYear)]);
      }
      expect(ic[i]!.revenue).toBeCloseTo(sum(qs, "revenue"), 4);
      expect(ic[i]!.netIncome).toBeCloseTo(sum(qs, "netIncome"), 4);
      expect(ic[i]!.eps).toBeCloseTo(sum(qs, "eps"), 6);
      expect(cf[i]!.netOperatingCashFlow).toBeCloseTo(sum(qs, "operatingCashFlow"), 4);
      expect(cf[i]!.capex).toBeCloseTo(sum(qs, "capex"), 4);
      expect(cf[i]!.fcf).toBeCloseTo(sum(qs, "freeCashFlow"), 4);
      expect(cf[i]!.fcf).toBeCloseTo((cf[i]!.netOperatingCashFlow as number) + (cf[i]!.capex as number), 4);
      expect(cf[i]!.cashDividendsPaid).toBeCloseTo(sum(qs, "dividendsPaid"), 4);
      expect(cf[i]!.cashAtEndOfPeriod).toBe(q4.cash);
      expect(bs[i]!.totalAssets).toBe(q4.totalAssets);
      expect(bs[i]!.totalEquity).toBe(q4.totalEquity);
      expect(bs[i]!.totalAssets).toBe((bs[i]!.totalLiabilities as number) + (bs[i]!.totalEquity as number));
      // The year's balance changes start from the fourth quarter of the year before, when stored.
      const before = s.rows.find((r) => r.fiscalYear === q4.fiscalYear - 1 && r.fiscalQuarter === 4);
      expect(cf[i]!.cashAtBeginningOfPeriod).toBe(before ? before.cash : null);
      expect(cf[i]!.accountsReceivables).toBe(before ? before.accountsReceivable! - q4.accountsReceivable! : null);
      expect(cf[i]!.inventory).toBe(before ? before.inventory! - q4.inventory! : null);
    });
  });

  it("sums converted quarters: a year in EUR is its quarters in EUR added up", async () => {
    const s = stockWithQuarters();
    const body = { symbol: s.symbol, statement: "ic", currency: "EUR" };
    const annual = (await t.post(`/${v}/stock/financials`, { ...body, freq: "annual" })).body.financials as Item[];
    const quarters = (await t.post(`/${v}/stock/financials`, { ...body, freq: "quarterly" })).body.financials as Item[];
    for (const year of annual) {
      const own = quarters.filter((q) => q.calendarYear === year.calendarYear);
      expect(own).toHaveLength(4);
      expect(year.revenue).toBeCloseTo(
        own.reduce((a, q) => a + (q.revenue as number), 0),
        4,
      );
    }
  });

  it("answers 404 INVALID_ARGUMENT for a bad freq or statement, or none; NOT_FOUND for an unknown stock", async () => {
    const s = stockWithQuarters();
    const cases: [Item, string][] = [
      [{ symbol: s.symbol, freq: "MONTHLY", statement: "BALANCE" }, "freq"],
      [{ symbol: s.symbol, freq: "annual", statement: "xx" }, "statement"],
      [{ symbol: s.symbol, freq: "annual", statement: "CASH_FLOW" }, "statement"],
      [{ symbol: s.symbol, freq: "annual" }, "statement"],
    ];
    for (const [body, field] of cases) {
      const res = await t.post(`/${v}/stock/financials`, body);
      expectErrorBody(res, 404, "INVALID_ARGUMENT");
      expect(res.body.details[0].field).toBe(field);
    }
    expectErrorBody(
      await t.post(`/${v}/stock/financials`, { symbol: "NOPE-NOT-A-SYMBOL", statement: "ic" }),
      404,
      "NOT_FOUND",
    );
  });

  it("answers GET as POST and through bulk; needs the stock scope", async () => {
    const s = stockWithQuarters();
    await expectGetAndBulkAsPost(t, `/${v}/stock/financials`, {
      symbol: s.symbol,
      freq: "QUARTERLY",
      statement: "INCOME",
    });
    const dividendOnly = await t.apiKeys.create({ name: `financials-dividend-${v}`, scopes: ["dividend"] });
    expectErrorBody(
      await t.post(`/${v}/stock/financials`, { symbol: s.symbol, statement: "ic" }, dividendOnly.key),
      403,
      "FORBIDDEN",
    );
  });
});

describe("GraphQL Stock.incomeStatements, balanceSheets, cashFlowStatements", () => {
  it("answer the figures REST answers", async () => {
    const s = stockWithQuarters();
    const res = await gql(
      t,
      `query ($s: String) { stock(symbol: $s) {
         incomeStatements(freq: QUARTERLY) { date period revenue ebitda }
         balanceSheets { date totalAssets currentAssets }
         cashFlowStatements(currency: "EUR") { date fcf reportedCurrency } } }`,
      { s: s.symbol },
    );
    expect(res.body.errors).toBeUndefined();
    const rest = async (statement: string, extra: Item = {}) =>
      (await t.post("/v1/stock/financials", { symbol: s.symbol, statement, ...extra })).body.financials as Item[];
    const ic = await rest("ic", { freq: "quarterly" });
    const bs = await rest("bs");
    const cf = await rest("cf", { currency: "EUR" });
    const stock = res.body.data.stock as Record<string, Item[]>;
    expect(stock.incomeStatements).toEqual(
      ic.map((i) => ({ date: i.date, period: i.period, revenue: i.revenue, ebitda: i.ebitda })),
    );
    expect(stock.balanceSheets).toEqual(
      bs.map((i) => ({ date: i.date, totalAssets: i.totalAssets, currentAssets: i.currentAssets })),
    );
    expect(stock.cashFlowStatements).toEqual(
      cf.map((i) => ({ date: i.date, fcf: i.fcf, reportedCurrency: i.reportedCurrency })),
    );
  });
});

describe("gateway mode", () => {
  const gw = gatewayPerSuite();

  it("answers what the upstream answers, for each statement and both forms of freq", async () => {
    const s = stockWithQuarters();
    for (const body of [
      { symbol: s.symbol, freq: "ANNUAL", statement: "BALANCE", currency: "EUR" },
      { isin: s.isin, freq: "quarterly", statement: "cf" },
      { symbol: s.symbol, statement: "ic" },
    ]) {
      const direct = await gw.upstream.app.post("/v1/stock/financials", body);
      expect(direct.status).toBe(200);
      expect((direct.body.financials as Item[]).length).toBeGreaterThan(0);
      const res = await gw.gateway.post("/v1/stock/financials", body, GATEWAY_KEY);
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: direct.body });
    }
  });
});
