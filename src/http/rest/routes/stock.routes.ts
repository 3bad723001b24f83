import { z } from "zod";
import { InternalError } from "../../../platform/errors";
import {
  currencyField,
  limitField,
  sdkDayField,
  securityCurrencyBody,
  securityRefBody,
  securityRefWith,
  securityVariables,
} from "../rest.body";
import {
  EARNINGS_DEFAULT_DAYS,
  EARNINGS_MAX_ROWS,
  IPO_DEFAULT_DAYS,
  IPO_MAX_ROWS,
  PEERS_DEFAULT,
  PEERS_MAX,
} from "../../../domain/stock/stock.answers";
import {
  FinancialsTtmDocument,
  StockStatementsDocument,
  StockDividendEstimateDocument,
  StockDividendHistoryDocument,
  EarningsCalendarDocument,
  IpoCalendarDocument,
  StockPeersDocument,
  StockPeersWidgetDocument,
  StockProfileDocument,
  StockSplitsDocument,
} from "../rest.operations.generated";
import { example } from "../rest.examples";
import { aliasValue, FREQ_NAMES, STATEMENT_NAMES } from "../rest.aliases";
import { FinancialsFreq } from "../../../domain/stock/statement.types";
import { route, VERSIONS, type RouteEntry } from "../rest.route";
import { day, gqlObject, unixSeconds } from "../rest.response";
import { dividendEstimateResponse } from "./dividend.routes";

const flows = {
  revenue: z.number(),
  costOfRevenue: z.number(),
  grossProfit: z.number(),
  operatingIncome: z.number(),
  netIncome: z.number(),
  eps: z.number(),
  operatingCashFlow: z.number(),
  capex: z.number(),
  freeCashFlow: z.number(),
  dividendsPaid: z.number(),
};

const balanceSheet = {
  totalAssets: z.number(),
  totalLiabilities: z.number(),
  totalEquity: z.number(),
  cash: z.number(),
  totalDebt: z.number(),
  sharesOutstanding: z.number(),
};

/**
 * docs/api-stock-dividend.md: the last four quarters reported on or before today; with fewer, the quarters there are
 * and null figures (docs/contract.md section 4).
 */
const financialsTtmResponse = gqlObject("FinancialsTtm", {
  symbol: z.string(),
  currency: z.string(),
  asOf: day.nullable().describe("Null when no quarter is reported"),
  quarters: z.array(
    gqlObject("FinancialQuarter", {
      periodEnd: day,
      fiscalYear: z.int(),
      fiscalQuarter: z.int().min(1).max(4),
      reportedDate: day,
      ...flows,
      ...balanceSheet,
    }),
  ),
  ttm: gqlObject("TtmFlows", flows).nullable().describe("Null with fewer than four reported quarters"),
  balanceSheet: gqlObject("TtmBalanceSheet", balanceSheet)
    .nullable()
    .describe("Null with fewer than four reported quarters"),
  ratios: gqlObject("TtmRatios", {
    grossMargin: z.number().nullable(),
    operatingMargin: z.number().nullable(),
    netMargin: z.number().nullable(),
    returnOnEquity: z.number().nullable(),
    returnOnAssets: z.number().nullable(),
    debtToEquity: z.number().nullable(),
    peRatio: z.number().nullable(),
    psRatio: z.number().nullable(),
  })
    .nullable()
    .describe("Null with fewer than four reported quarters"),
  price: gqlObject("TtmPrice", {
    c: z.number(),
    currency: z.string(),
    t: unixSeconds,
    fxRate: z.number(),
    inReportingCurrency: z.number(),
    marketCapitalization: z.number(),
  })
    .nullable()
    .describe("Null with fewer than four reported quarters, or when the listing has no price"),
});

const stockRefBody = securityRefBody.transform(securityVariables);

/** The operation `stock/profile` runs; `npm run generate` types it as StockProfileDocument. */
export const STOCK_PROFILE_OPERATION = /* GraphQL */ `
  query StockProfile($symbol: String, $isin: String, $cusip: String, $wkn: String) {
    stock(symbol: $symbol, isin: $isin, cusip: $cusip, wkn: $wkn) {
      profile {
        symbol
        companyName
        currency
        isin
        cusip
        exchange
        sector
        industry
        country
        website
        description
        ipo
        isActivelyTrading
        isAdr
        marketCapitalization
        price
        changes
        volAvg
        yearLow
        yearHigh
        lastDiv
      }
    }
  }
`;

/** The operation `stock/dividend` runs; `npm run generate` types it as StockDividendHistoryDocument. */
export const STOCK_DIVIDEND_OPERATION = /* GraphQL */ `
  query StockDividendHistory($symbol: String, $isin: String, $cusip: String, $wkn: String, $currency: String) {
    stock(symbol: $symbol, isin: $isin, cusip: $cusip, wkn: $wkn) {
      dividendHistory(currency: $currency) {
        symbol
        currency
        dividends {
          date
          recordDate
          payDate
          declarationDate
          amount
          adjustedAmount
          currency
        }
      }
    }
  }
`;

/**
 * The Bavest Python SDK's `Dividend` model (`dividends`, each with its keys) of the contract's dividend rows
 * (docs/contract.md section 4, with their currency), and the symbol and currency of the answer.
 */
const stockDividendResponse = gqlObject("StockDividendHistory", {
  symbol: z.string(),
  currency: z.string().nullable(),
  dividends: z.array(
    gqlObject("Dividend", {
      date: day,
      recordDate: day.nullable(),
      payDate: day.nullable(),
      declarationDate: day.nullable(),
      amount: z.number(),
      adjustedAmount: z.number(),
      currency: z.string(),
    }),
  ),
});

/** The operation `stock/split` runs; `npm run generate` types it as StockSplitsDocument. */
export const STOCK_SPLITS_OPERATION = /* GraphQL */ `
  query StockSplits($symbol: String, $isin: String, $cusip: String, $wkn: String, $from: String, $to: String) {
    stock(symbol: $symbol, isin: $isin, cusip: $cusip, wkn: $wkn) {
      splits(from: $from, to: $to) {
        symbol
        date
        fromFactor
        toFactor
      }
    }
  }
`;

/** The Bavest Python SDK's `Split` model (docs/contract.md section 4). */
const stockSplitResponse = z.object({
  event: z.literal("split").describe('Always "split"'),
  splits: z
    .array(
      gqlObject("StockSplit", {
        date: day,
        symbol: z.string(),
        fromFactor: z.int().min(1),
        toFactor: z.int().min(1),
      }),
    )
    .describe("Oldest first; empty for a stock without splits in the range"),
});

/** The operation `stock/peers` runs; `npm run generate` types it as StockPeersDocument. */
export const STOCK_PEERS_OPERATION = /* GraphQL */ `
  query StockPeers($symbol: String, $isin: String, $cusip: String, $wkn: String, $limit: Int) {
    stock(symbol: $symbol, isin: $isin, cusip: $cusip, wkn: $wkn) {
      peers(limit: $limit) {
        symbol
      }
    }
  }
`;

/** The Bavest Python SDK's `Peers` model (docs/contract.md section 4). */
const stockPeersResponse = z.object({
  peers: z
    .array(z.string())
    .describe(
      "Symbols of the primary listings of other stocks: the same industry first, then the same sector, each " +
        "nearest in market capitalisation first; empty for a stock without a sector or without other stocks in it",
    ),
});

/** The operation `widgets/stock/peers` runs; `npm run generate` types it as StockPeersWidgetDocument. */
export const STOCK_PEERS_WIDGET_OPERATION = /* GraphQL */ `
  query StockPeersWidget($symbol: String, $isin: String, $cusip: String, $wkn: String, $currency: String, $limit: Int) {
    stock(symbol: $symbol, isin: $isin, cusip: $cusip, wkn: $wkn) {
      peersWidget(currency: $currency, limit: $limit) {
        symbol
        name
        category
        close
        priceChange
      }
    }
  }
`;

/** The Bavest Python SDK's `StockPeers` model (docs/contract.md section 4). */
const stockPeersWidgetResponse = z.object({
  stock_peers: z
    .array(
      z.object({
        symbol: z.string().describe("Symbol of the peer's primary listing"),
        name: z.string(),
        category: z.string().describe("The peer's industry (its sector where it has none)"),
        close: z.number().describe("Latest price, in `currency` or the listing's own"),
        priceChange: z.number().describe("Change of the latest price to the previous close, in the same currency"),
      }),
    )
    .describe("stock/peers' peers in its order, each with its latest price; a peer without a price is left out"),
});

/** A calendar's window of days, in the SDKs' time forms, and it as the operation's variables. */
const calendarWindow = { from: sdkDayField.optional(), to: sdkDayField.optional() };
const windowVariables = (b: { from?: string; to?: string }) => ({ from: b.from ?? null, to: b.to ?? null });

/** The operation `calender/earnings` runs; `npm run generate` types it as EarningsCalendarDocument. */
export const EARNINGS_CALENDAR_OPERATION = /* GraphQL */ `
  query EarningsCalendar($from: String, $to: String) {
    earningsCalendar(from: $from, to: $to) {
      date
      symbol
      exchange
      title
      publicationDate
    }
  }
`;

/**
 * stock/financials (docs/contract.md section 4): the keys of the Bavest SDKs' statement models (the Python SDK's
 * FinancialsItem, the Dart SDK's IncomeData, BalanceData and CashFlowData) that the store holds no figure for, null
 * in every answer rather than invented.
 */
const INCOME_NOT_HELD = [
  "generalAndAdministrativeExpenses",
  "sellingAndMarketingExpenses",
  "otherExpenses",
  "interestIncome",
  "interestExpense",
  "totalOtherIncomeExpensesNet",
  "incomeBeforeTaxRatio",
  "pretaxIncome",
  "provisionforIncomeTaxes",
  "researchDevelopment",
  "sgaExpense",
  "weightedAverageShsOut",
  "dilutedAverageSharesOutstanding",
] as const;
const BALANCE_NOT_HELD = [
  "shortTermInvestments",
  "cashShortTermInvestments",
  "otherCurrentAssets",
  "goodwill",
  "intangibleAssets",
  "goodwillAndIntangibleAssets",
  "longTermInvestments",
  "taxAssets",
  "otherNonCurrentAssets",
  "otherAssets",
  "shortTermDebt",
  "taxPayables",
  "deferredRevenue",
  "otherCurrentLiabilities",
  "longTermDebt",
  "deferredRevenueNonCurrent",
  "deferredTaxLiabilitiesNonCurrent",
  "otherNonCurrentLiabilities",
  "otherLiabilities",
  "capitalLeaseObligations",
  "preferredStock",
  "commonStock",
  "retainedEarnings",
  "othertotalStockholdersEquity",
  "minorityInterest",
  "totalInvestments",
  "otherEquity",
  "propertyPlantEquipment",
] as const;
const CASH_FLOW_NOT_HELD = [
  "otherWorkingCapital",
  "otherNonCashItems",
  "acquisitionsNet",
  "purchasesOfInvestments",
  "salesMaturitiesOfInvestments",
  "otherInvestingActivites",
  "debtRepayment",
  "commonStockIssued",
  "otherFinancingActivites",
  "effectOfForexChangesOnCash",
  "changesinWorkingCapital",
  "deferredTaxesInvestmentTaxCredit",
  "issuanceReductionCapitalStock",
  "netCashFinancingActivities",
  "netInvestingCashFlow",
] as const;

const nullsOf = (keys: readonly string[]) =>
  Object.fromEntries(keys.map((k) => [k, z.null().describe("Always null: the store holds no such figure")]));

const statementHeader = {
  date: day,
  symbol: z.string(),
  reportedCurrency: z.string(),
  cik: z.null().describe("Always null: a filer's CIK is not served here"),
  fillingDate: day,
  acceptedDate: day,
  calendarYear: z.string().regex(/^\d{4}$/),
  period: z.enum(["Q1", "Q2", "Q3", "Q4", "FY"]),
  link: z.null().describe("Always null: the store holds no link to a filing"),
  finalLink: z.null().describe("Always null: the store holds no link to a filing"),
};

const incomeStatementResponse = gqlObject("IncomeStatement", {
  ...statementHeader,
  revenue: z.number(),
  costOfGoodsSold: z.number(),
  grossIncome: z.number(),
  grossProfitRatio: z.number().nullable(),
  totalOperatingExpense: z.number(),
  costAndExpenses: z.number(),
  ebit: z.number(),
  operatingIncomeRatio: z.number().nullable(),
  depreciationAndAmortization: z.number().nullable(),
  ebitda: z.number().nullable(),
  ebitdaratio: z.number().nullable(),
  netIncome: z.number(),
  netIncomeRatio: z.number().nullable(),
  eps: z.number(),
  dilutedEPS: z.number(),
  ...nullsOf(INCOME_NOT_HELD),
});

const balanceSheetResponse = gqlObject("BalanceSheet", {
  ...statementHeader,
  cashAndCashEquivalents: z.number(),
  totalReceivables: z.number().nullable(),
  inventory: z.number().nullable(),
  currentAssets: z.number().nullable(),
  totalNonCurrentAssets: z.number().nullable(),
  totalAssets: z.number(),
  accountsPayable: z.number().nullable(),
  currentLiabilities: z.number().nullable(),
  totalNonCurrentLiabilities: z.number().nullable(),
  totalLiabilities: z.number(),
  totalDebt: z.number(),
  netDebt: z.number(),
  totalStockholdersEquity: z.number(),
  totalEquity: z.number(),
  totalLiabilitiesAndTotalEquity: z.number(),
  liabilitiesShareholdersEquity: z.number(),
  ...nullsOf(BALANCE_NOT_HELD),
});

const cashFlowStatementResponse = gqlObject("CashFlowStatement", {
  ...statementHeader,
  netIncomeStartingLine: z.number(),
  depreciationAmortization: z.number().nullable(),
  stockBasedCompensation: z.number().nullable(),
  accountsReceivables: z.number().nullable(),
  inventory: z.number().nullable(),
  accountsPayables: z.number().nullable(),
  netCashProvidedByOperatingActivities: z.number(),
  netOperatingCashFlow: z.number(),
  investmentsInPropertyPlantAndEquipment: z.number(),
  capex: z.number(),
  fcf: z.number(),
  cashDividendsPaid: z.number(),
  cashAtEndOfPeriod: z.number(),
  cashAtBeginningOfPeriod: z.number().nullable(),
  changeinCash: z.number().nullable(),
  ...nullsOf(CASH_FLOW_NOT_HELD),
});

/** The Bavest Python SDK's `Financials` model: its one key. */
const statementsResponse = z.object({
  financials: z
    .array(z.union([incomeStatementResponse, balanceSheetResponse, cashFlowStatementResponse]))
    .describe(
      "The asked statement, newest first: each fiscal year whose four quarters are reported (flows summed, " +
        "balances at its end), or each reported quarter",
    ),
});

type StatementRows = z.infer<typeof statementsResponse>["financials"];

/**
 * The SDK's keys around a statement: those the store holds none of as null, the filing's links and CIK too. Typed
 * by the response schema, which the answers are checked against in the tests (the GraphQL period is a string).
 */
function withNotHeld(rows: readonly object[], notHeld: readonly string[]): StatementRows {
  const nulls = Object.fromEntries(["cik", "link", "finalLink", ...notHeld].map((k) => [k, null]));
  return rows.map((r) => ({ ...nulls, ...r })) as unknown as StatementRows;
}

const STATEMENT_TEXT = "expected one of bs, ic, cf (or BALANCE, INCOME, CASHFLOW)";
const FREQ_TEXT = "expected one of annual, quarterly (or ANNUAL, QUARTERLY)";

/** The values (`bs`, `ic`, `cf`) the Dart SDK sends, or the Python SDK's enum names (rest.aliases.ts). */
const statementField = z
  .string({ error: STATEMENT_TEXT })
  .meta({ enum: ["bs", "ic", "cf", "BALANCE", "INCOME", "CASHFLOW"] })
  .transform((v, ctx) => {
    const s = String(aliasValue(STATEMENT_NAMES, v)).trim().toLowerCase();
    if (s !== "bs" && s !== "ic" && s !== "cf") {
      ctx.addIssue({ code: "custom", message: STATEMENT_TEXT });
      return z.NEVER;
    }
    return s;
  })
  .describe("The statement: bs (balance sheet), ic (income), cf (cash flow), or the Python SDK's enum names");

/** `annual` or `quarterly` as the Dart SDK sends them, or the Python SDK's names; as the GraphQL enum's names. */
const freqField = z
  .string({ error: FREQ_TEXT })
  .meta({ enum: ["annual", "quarterly", "ANNUAL", "QUARTERLY"] })
  .transform((v, ctx) => {
    const f = String(aliasValue(FREQ_NAMES, v)).trim().toLowerCase();
    if (f !== "annual" && f !== "quarterly") {
      ctx.addIssue({ code: "custom", message: FREQ_TEXT });
      return z.NEVER;
    }
    return f === "annual" ? FinancialsFreq.ANNUAL : FinancialsFreq.QUARTERLY;
  })
  .describe(
    "annual (fiscal years with four reported quarters) or quarterly, or the Python SDK's names; default annual",
  );

/** The operation `calender/ipo` runs; `npm run generate` types it as IpoCalendarDocument. */
export const IPO_CALENDAR_OPERATION = /* GraphQL */ `
  query IpoCalendar($from: String, $to: String) {
    ipoCalendar(from: $from, to: $to) {
      date
      symbol
      name
      exchange
      numberOfShares
      price
      currency
      totalSharesValue
      status
    }
  }
`;

/** The Bavest Python SDK's `IpoCalendar` model (docs/contract.md section 4), every key of it, and the currency. */
const ipoCalendarResponse = z.object({
  ipoCalendar: z
    .array(
      z.object({
        date: day.describe("The listing day, expected or actual"),
        exchange: z.string().describe("MIC-style code of the exchange the shares are offered on"),
        name: z.string(),
        numberOfShares: z.number().nullable().describe("Shares offered; null where the store holds none"),
        price: z
          .number()
          .nullable()
          .describe("Offer price in currency (the expected price while expected); null where the store holds none"),
        status: z.enum(["expected", "priced", "withdrawn"]),
        symbol: z.string().describe("Symbol of the stock's primary listing"),
        totalSharesValue: z.number().nullable().describe("numberOfShares × price, in cents; null without either"),
        currency: z.string().describe("ISO 4217 code of price and totalSharesValue"),
      }),
    )
    .describe(`Earliest first (by day, then symbol), at most ${IPO_MAX_ROWS}`),
});

const notHeldText = (what: string) => z.null().describe(`Always null: the store holds no ${what}`);

/** The Bavest Python SDK's `EarningsConfirmed` model (docs/contract.md section 4), every key of it. */
const earningsCalendarResponse = z.object({
  event: z.literal("earnings").describe('Always "earnings"'),
  earningsConfirmed: z
    .array(
      z.object({
        date: day,
        symbol: z.string().describe("Symbol of the stock's primary listing"),
        exchange: z.string(),
        time: notHeldText("time of day of a report"),
        title: z.string().describe("`<company> Q<n> <fiscal year> earnings`, or `<company> earnings` for a date ahead"),
        when: notHeldText("session (before or after the market) of a report"),
        publicationDate: day.nullable().describe("The day the quarter was reported; null for a date ahead"),
        url: notHeldText("link to a report"),
      }),
    )
    .describe(`Earliest first (by day, then security), at most ${EARNINGS_MAX_ROWS}`),
});

const notHeld = (what: string) => z.null().describe(`Always null: the store holds no ${what}`);

/**
 * The Bavest Python SDK's stock `Profile` model, every key of it (docs/contract.md section 4). Keys of figures the
 * store does not hold are null rather than invented.
 */
const stockProfileResponse = gqlObject("StockProfile", {
  symbol: z.string(),
  beta: notHeld("beta"),
  price: z.number().nullable(),
  volAvg: z.number().nullable(),
  lastDiv: z.number(),
  range: z
    .string()
    .nullable()
    .describe("The 52-week range, `low-high` in the listing's currency (from the daily bars); null without bars"),
  changes: z.number().nullable(),
  companyName: z.string(),
  currency: z.string(),
  cik: notHeld("SEC CIK"),
  isin: z.string().nullable(),
  cusip: z.string().nullable(),
  exchange: z.string(),
  exchangeShortName: z.string().describe("MIC-style code of the listing's exchange, as `exchange`"),
  industry: z.string().nullable(),
  website: z.string().nullable(),
  description: z.string().nullable(),
  ceo: notHeld("chief executive"),
  sector: z.string().nullable(),
  country: z.string().nullable(),
  phone: notHeld("phone number"),
  address: notHeld("address"),
  city: notHeld("address"),
  state: notHeld("address"),
  zip: notHeld("address"),
  dcfDiff: notHeld("discounted-cash-flow valuation"),
  dcf: notHeld("discounted-cash-flow valuation"),
  isEtf: z.literal(false).describe("Always false: the endpoint answers stocks"),
  isActivelyTrading: z.boolean(),
  isAdr: z.boolean(),
  isFund: z.literal(false).describe("Always false: the endpoint answers stocks"),
  marketCapitalization: z.number().nullable(),
  employeeTotal: notHeld("head count"),
  ipo: day.nullable(),
});

/** A nullable field of the stock is only null after an error, which execution has already thrown. */
function present<T>(value: T | null, what: string): T {
  if (value == null) throw new InternalError(`${what}: no data and no error`);
  return value;
}

export const STOCK_ROUTES: readonly RouteEntry[] = [
  route({
    path: "stock/profile",
    summary:
      "Profile of a stock in the Bavest SDK's shape: identity, classification, latest price, 52-week range, " +
      "latest dividend",
    versions: VERSIONS,
    scope: "stock",
    body: stockRefBody,
    operation: StockProfileDocument,
    shape: (d) => {
      const p = present(d.stock.profile, "stock profile");
      return {
        symbol: p.symbol,
        beta: null,
        price: p.price,
        volAvg: p.volAvg,
        lastDiv: p.lastDiv,
        range: p.yearLow == null || p.yearHigh == null ? null : `${p.yearLow}-${p.yearHigh}`,
        changes: p.changes,
        companyName: p.companyName,
        currency: p.currency,
        cik: null,
        isin: p.isin,
        cusip: p.cusip,
        exchange: p.exchange,
        exchangeShortName: p.exchange,
        industry: p.industry,
        website: p.website,
        description: p.description,
        ceo: null,
        sector: p.sector,
        country: p.country,
        phone: null,
        address: null,
        city: null,
        state: null,
        zip: null,
        dcfDiff: null,
        dcf: null,
        isEtf: false as const,
        isActivelyTrading: p.isActivelyTrading,
        isAdr: p.isAdr,
        isFund: false as const,
        marketCapitalization: p.marketCapitalization,
        employeeTotal: null,
        ipo: p.ipo,
      };
    },
    response: stockProfileResponse,
    maxAgeSeconds: 300,
    examples: (s) => ({ stock: example("The first stock", { symbol: s.stock }) }),
    emptyAnswer:
      "the profile with what the store knows of the stock: `price`, `changes` and `volAvg` null without a quote, " +
      "`range` null without daily bars, `lastDiv: 0` without dividends",
    singleSecurity: true,
  }),
  route({
    path: "stock/dividend",
    summary: "Dividends of a stock in the Bavest SDK's shape, each in its own currency or converted into currency",
    versions: VERSIONS,
    scope: "stock",
    body: securityCurrencyBody,
    operation: StockDividendHistoryDocument,
    shape: (d) => present(d.stock.dividendHistory, "stock dividends"),
    response: stockDividendResponse,
    examples: (s) => ({
      stock: example("The first stock's dividends in euros (the SDKs' default currency)", {
        symbol: s.stock,
        currency: "EUR",
      }),
      own: example("In each dividend's own currency", { symbol: s.stock }),
    }),
    emptyAnswer: "`dividends: []`",
    singleSecurity: true,
  }),
  route({
    path: "stock/split",
    summary: "Splits of a stock in the Bavest SDK's shape, within days from and to (SDK time forms accepted)",
    versions: VERSIONS,
    scope: "stock",
    body: securityRefWith({ from: sdkDayField.optional(), to: sdkDayField.optional() }).transform((b) => ({
      ...securityVariables(b),
      from: b.from ?? null,
      to: b.to ?? null,
    })),
    operation: StockSplitsDocument,
    shape: (d) => {
      const splits = present(d.stock.splits, "stock splits");
      return { event: "split" as const, splits };
    },
    response: stockSplitResponse,
    examples: (s) => ({
      stock: example("The first stock's splits since 2000 (Python sends float seconds)", {
        symbol: s.stock,
        from: 946_684_800.25,
        to: 1_763_596_800.5,
      }),
      dart: example("The Dart client's form: milliseconds in strings", {
        symbol: s.stock,
        from: "946684800000",
        to: "1763596800000",
      }),
    }),
    emptyAnswer: '`event: "split"`, `splits: []`',
    singleSecurity: true,
  }),
  route({
    path: "stock/peers",
    summary:
      "Peers of a stock in the Bavest SDK's shape: the same industry, then the same sector, nearest market " +
      "capitalisation first",
    versions: VERSIONS,
    scope: "stock",
    body: securityRefWith({
      limit: limitField
        .min(1, { error: "expected an integer from 1" })
        .max(PEERS_MAX, { error: `at most ${PEERS_MAX}` })
        .optional()
        .describe(`How many peers at most; default ${PEERS_DEFAULT}`),
    }).transform((b) => ({ ...securityVariables(b), limit: b.limit ?? null })),
    operation: StockPeersDocument,
    shape: (d) => ({ peers: present(d.stock.peers, "stock peers").map((p) => p.symbol) }),
    response: stockPeersResponse,
    examples: (s) => ({
      stock: example("The first stock's peers (what client.stock.peers(symbol) posts)", { symbol: s.stock }),
      three: example("Its three nearest peers", { symbol: s.stock, limit: 3 }),
    }),
    emptyAnswer: "`peers: []` (a stock without a sector, or alone in it)",
    singleSecurity: true,
  }),
  route({
    path: "widgets/stock/peers",
    summary: "Peers of a stock with their latest prices, in the Bavest SDK's peers widget shape",
    versions: VERSIONS,
    scope: "stock",
    body: securityRefWith({
      currency: currencyField.optional(),
      limit: limitField
        .min(1, { error: "expected an integer from 1" })
        .max(PEERS_MAX, { error: `at most ${PEERS_MAX}` })
        .optional()
        .describe(`How many peers at most; default ${PEERS_DEFAULT}`),
    }).transform((b) => ({ ...securityVariables(b), currency: b.currency ?? null, limit: b.limit ?? null })),
    operation: StockPeersWidgetDocument,
    shape: (d) => ({ stock_peers: present(d.stock.peersWidget, "stock peers widget") }),
    response: stockPeersWidgetResponse,
    maxAgeSeconds: 5,
    examples: (s) => ({
      stock: example("The first stock's peers in euros (what client.widget.peers(symbol) posts)", {
        symbol: s.stock,
        currency: "EUR",
      }),
      dart: example("The Dart client's form: its SecurityIdentifier alone, prices in each listing's currency", {
        symbol: s.stock,
      }),
    }),
    emptyAnswer: "`stock_peers: []` (a stock without a sector, or alone in it)",
    singleSecurity: true,
  }),
  route({
    path: "calender/earnings",
    summary:
      "Earnings dates of every stock within days from and to, in the Bavest SDK's shape (SDK time forms accepted; " +
      `no body: today and ${EARNINGS_DEFAULT_DAYS} days on)`,
    versions: VERSIONS,
    scope: "stock",
    body: z
      .object({
        event: z.string().max(32).optional().describe('What the Python SDK sends, "earnings"; ignored'),
        ...calendarWindow,
      })
      .transform(windowVariables),
    operation: EarningsCalendarDocument,
    shape: (d) => ({
      event: "earnings" as const,
      earningsConfirmed: d.earningsCalendar.map((e) => ({
        date: e.date,
        symbol: e.symbol,
        exchange: e.exchange,
        time: null,
        title: e.title,
        when: null,
        publicationDate: e.publicationDate ?? null,
        url: null,
      })),
    }),
    response: earningsCalendarResponse,
    maxAgeSeconds: 3_600,
    examples: () => ({
      python: example("What client.stock.earnings(frm, to) posts: float seconds", {
        event: "earnings",
        from: 1_761_955_200.25,
        to: 1_763_596_800.5,
      }),
      dart: example("Milliseconds in strings", { from: "1761955200000", to: "1763596800000" }),
    }),
    emptyAnswer: '`event: "earnings"`, `earningsConfirmed: []`',
    singleSecurity: false,
  }),
  route({
    path: "calender/ipo",
    summary:
      "Initial public offerings within days from and to, in the Bavest SDK's shape (SDK time forms accepted; " +
      `no body: today and ${IPO_DEFAULT_DAYS} days on)`,
    versions: VERSIONS,
    scope: "stock",
    body: z.object(calendarWindow).transform(windowVariables),
    operation: IpoCalendarDocument,
    shape: (d) => ({
      ipoCalendar: d.ipoCalendar.map((e) => ({
        date: e.date,
        exchange: e.exchange,
        name: e.name,
        numberOfShares: e.numberOfShares ?? null,
        price: e.price ?? null,
        status: e.status as "expected" | "priced" | "withdrawn",
        symbol: e.symbol,
        totalSharesValue: e.totalSharesValue ?? null,
        currency: e.currency,
      })),
    }),
    response: ipoCalendarResponse,
    maxAgeSeconds: 3_600,
    examples: () => ({
      python: example("What client.calendaripo(frm, to) posts: float seconds", {
        from: 1_795_132_800.25,
        to: 1_796_947_200.5,
      }),
      dart: example("What the Dart client's ipos() posts: integer seconds", { from: 1_795_132_800, to: 1_796_947_200 }),
    }),
    emptyAnswer: "`ipoCalendar: []`",
    singleSecurity: false,
  }),
  route({
    path: "stock/financials",
    summary:
      "A stock's balance sheets, income or cash-flow statements by fiscal year or quarter, in the Bavest SDKs' shape",
    versions: VERSIONS,
    scope: "stock",
    body: securityRefWith({
      statement: statementField,
      freq: freqField.optional(),
      currency: currencyField.optional(),
    }).transform((b) => ({
      ...securityVariables(b),
      freq: b.freq ?? FinancialsFreq.ANNUAL,
      currency: b.currency ?? null,
      ic: b.statement === "ic",
      bs: b.statement === "bs",
      cf: b.statement === "cf",
    })),
    operation: StockStatementsDocument,
    shape: (d) => {
      const s = present(d.stock, "stock financials");
      const financials = s.incomeStatements
        ? withNotHeld(s.incomeStatements, INCOME_NOT_HELD)
        : s.balanceSheets
          ? withNotHeld(s.balanceSheets, BALANCE_NOT_HELD)
          : withNotHeld(present(s.cashFlowStatements ?? null, "stock financials"), CASH_FLOW_NOT_HELD);
      return { financials };
    },
    response: statementsResponse,
    examples: (s) => ({
      python: example("What client.stock.financials(symbol, Freq.ANNUAL, Statement.BALANCE) posts", {
        symbol: s.stock,
        freq: "ANNUAL",
        statement: "BALANCE",
        currency: "EUR",
      }),
      dart: example("What the Dart client's cashflow(id, mode: Freq.quarterly) posts", {
        symbol: s.stock,
        freq: "quarterly",
        statement: "cf",
        currency: "EUR",
      }),
    }),
    emptyAnswer: "`financials: []` (no reported quarter; annual: no fiscal year with its four quarters reported)",
    singleSecurity: true,
  }),
  route({
    path: "stock/financials/ttm",
    summary:
      "Trailing-twelve-month financials of a stock: flows of the last four quarters, the latest balance sheet, ratios",
    versions: VERSIONS,
    scope: "stock",
    body: securityCurrencyBody,
    operation: FinancialsTtmDocument,
    shape: (d) => present(d.stock.financialsTtm, "financials TTM"),
    response: financialsTtmResponse,
    examples: (s) => ({ stock: example("The first stock", { symbol: s.stock }) }),
    emptyExample: {
      summary: "A known stock with fewer than four reported quarters (here none)",
      value: {
        symbol: "NEWCO",
        currency: "USD",
        asOf: null,
        quarters: [],
        ttm: null,
        balanceSheet: null,
        ratios: null,
        price: null,
      },
    },
    emptyAnswer:
      "the reported quarters there are (fewer than four), `asOf` of the latest or null, `ttm`, `balanceSheet`, " +
      "`ratios`, `price` null; with four quarters but no price, `price` and the price ratios null",
    singleSecurity: true,
  }),
  route({
    path: "stock/dividend-estimate",
    summary: "Expected dividends of a stock over the next twelve months (announced, then estimated)",
    versions: VERSIONS,
    scope: "dividend",
    body: stockRefBody,
    operation: StockDividendEstimateDocument,
    shape: (d) => present(d.stock.dividendEstimate, "dividend estimate"),
    response: dividendEstimateResponse,
    examples: (s) => ({ stock: example("The first stock", { symbol: s.stock }) }),
    emptyAnswer:
      "`dividends: []`, `total: 0`, `frequency: null` (none), the window, a `method` saying nothing is estimated",
    singleSecurity: true,
  }),
];
