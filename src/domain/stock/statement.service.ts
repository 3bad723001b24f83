import type { RequestContext } from "../request.context";
import { dayOf, normalizeCurrency } from "../fx/fx.service";
import type { InstrumentRow, QuarterlyFinancialsRow } from "../ports/source.types";
import { quartersIn } from "./stock.service";
import { BalanceSheet, CashFlowStatement, FinancialsFreq, IncomeStatement } from "./statement.types";

/** The statements stock/financials answers, by the value the Bavest SDKs' `statement` carries. */
export type StatementKind = "ic" | "bs" | "cf";

/** A statement's period: one quarter, or the four of a fiscal year (oldest first), and the period end before it. */
interface Period {
  quarters: readonly QuarterlyFinancialsRow[];
  label: string;
  /** The last quarter of the period before, when stored: where a period's balance changes start from. */
  before: QuarterlyFinancialsRow | undefined;
}

type Figure = keyof QuarterlyFinancialsRow;

const round = (x: number, digits: number) => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

/** A flow over the period: its quarters' sum; null when a quarter lacks the figure. */
function flow(p: Period, f: Figure): number | null {
  let sum = 0;
  for (const q of p.quarters) {
    const v = q[f];
    if (typeof v !== "number") return null;
    sum += v;
  }
  return round(sum, f === "eps" ? 6 : 4);
}

/** A balance at the period's end: its last quarter's. */
const stock = (p: Period, f: Figure): number | null => {
  const v = p.quarters[p.quarters.length - 1]![f];
  return typeof v === "number" ? v : null;
};

const minus = (a: number | null, b: number | null) => (a == null || b == null ? null : round(a - b, 4));
const plus = (a: number | null, b: number | null) => (a == null || b == null ? null : round(a + b, 4));
/** a / b as a fraction, as the SDKs' ratios are; null where it means nothing (b not positive). */
const ratio = (a: number | null, b: number | null) => (a == null || b == null || b <= 0 ? null : round(a / b, 6));

/** The quarter before `q` among `all` (the fourth of the year before a first), when stored. */
function quarterBefore(all: readonly QuarterlyFinancialsRow[], q: QuarterlyFinancialsRow) {
  const [y, n] = q.fiscalQuarter === 1 ? [q.fiscalYear - 1, 4] : [q.fiscalYear, q.fiscalQuarter - 1];
  return all.find((x) => x.fiscalYear === y && x.fiscalQuarter === n);
}

/** Newest first, as the Bavest API lists them. */
function periodsOf(all: readonly QuarterlyFinancialsRow[], freq: FinancialsFreq): Period[] {
  if (freq === FinancialsFreq.QUARTERLY) {
    return all.map((q) => ({ quarters: [q], label: `Q${q.fiscalQuarter}`, before: quarterBefore(all, q) })).reverse();
  }
  const out: Period[] = [];
  for (const year of [...new Set(all.map((q) => q.fiscalYear))]) {
    const quarters = [1, 2, 3, 4].map((n) => all.find((q) => q.fiscalYear === year && q.fiscalQuarter === n));
    if (quarters.some((q) => q === undefined)) continue;
    const full = quarters as QuarterlyFinancialsRow[];
    out.push({ quarters: full, label: "FY", before: quarterBefore(all, full[0]!) });
  }
  return out.reverse();
}

function header(p: Period, symbol: string) {
  const last = p.quarters[p.quarters.length - 1]!;
  return {
    date: last.periodEnd,
    symbol,
    reportedCurrency: last.currency,
    fillingDate: last.reportedDate,
    acceptedDate: last.reportedDate,
    calendarYear: String(last.fiscalYear),
    period: p.label,
  };
}

function incomeOf(p: Period, symbol: string): IncomeStatement {
  const revenue = flow(p, "revenue")!;
  const ebit = flow(p, "operatingIncome")!;
  const grossIncome = flow(p, "grossProfit")!;
  const netIncome = flow(p, "netIncome")!;
  const da = flow(p, "depreciationAmortization");
  const ebitda = plus(ebit, da);
  const eps = flow(p, "eps")!;
  return Object.assign(new IncomeStatement(), {
    ...header(p, symbol),
    revenue,
    costOfGoodsSold: flow(p, "costOfRevenue")!,
    grossIncome,
    grossProfitRatio: ratio(grossIncome, revenue),
    totalOperatingExpense: minus(grossIncome, ebit)!,
    costAndExpenses: minus(revenue, ebit)!,
    ebit,
    operatingIncomeRatio: ratio(ebit, revenue),
    depreciationAndAmortization: da,
    ebitda,
    ebitdaratio: ratio(ebitda, revenue),
    netIncome,
    netIncomeRatio: ratio(netIncome, revenue),
    eps,
    dilutedEPS: eps,
  });
}

function balanceOf(p: Period, symbol: string): BalanceSheet {
  const cash = stock(p, "cash")!;
  const totalAssets = stock(p, "totalAssets")!;
  const totalLiabilities = stock(p, "totalLiabilities")!;
  const totalEquity = stock(p, "totalEquity")!;
  const totalDebt = stock(p, "totalDebt")!;
  const currentAssets = stock(p, "currentAssets");
  const currentLiabilities = stock(p, "currentLiabilities");
  const both = plus(totalLiabilities, totalEquity)!;
  return Object.assign(new BalanceSheet(), {
    ...header(p, symbol),
    cashAndCashEquivalents: cash,
    totalReceivables: stock(p, "accountsReceivable"),
    inventory: stock(p, "inventory"),
    currentAssets,
    totalNonCurrentAssets: minus(totalAssets, currentAssets),
    totalAssets,
    accountsPayable: stock(p, "accountsPayable"),
    currentLiabilities,
    totalNonCurrentLiabilities: minus(totalLiabilities, currentLiabilities),
    totalLiabilities,
    totalDebt,
    netDebt: minus(totalDebt, cash)!,
    totalStockholdersEquity: totalEquity,
    totalEquity,
    totalLiabilitiesAndTotalEquity: both,
    liabilitiesShareholdersEquity: both,
  });
}

function cashFlowOf(p: Period, symbol: string): CashFlowStatement {
  const before = (f: Figure): number | null => {
    const v = p.before?.[f];
    return typeof v === "number" ? v : null;
  };
  const ocf = flow(p, "operatingCashFlow")!;
  const capex = flow(p, "capex")!;
  const cashAtEnd = stock(p, "cash")!;
  const cashAtBeginning = before("cash");
  return Object.assign(new CashFlowStatement(), {
    ...header(p, symbol),
    netIncomeStartingLine: flow(p, "netIncome")!,
    depreciationAmortization: flow(p, "depreciationAmortization"),
    stockBasedCompensation: flow(p, "stockBasedCompensation"),
    // A growing asset took cash, a growing payable kept it.
    accountsReceivables: minus(before("accountsReceivable"), stock(p, "accountsReceivable")),
    inventory: minus(before("inventory"), stock(p, "inventory")),
    accountsPayables: minus(stock(p, "accountsPayable"), before("accountsPayable")),
    netCashProvidedByOperatingActivities: ocf,
    netOperatingCashFlow: ocf,
    investmentsInPropertyPlantAndEquipment: capex,
    capex,
    fcf: flow(p, "freeCashFlow")!,
    cashDividendsPaid: flow(p, "dividendsPaid")!,
    cashAtEndOfPeriod: cashAtEnd,
    cashAtBeginningOfPeriod: cashAtBeginning,
    changeinCash: minus(cashAtEnd, cashAtBeginning),
  });
}

const BUILD = { ic: incomeOf, bs: balanceOf, cf: cashFlowOf } as const;

/**
 * A stock's statements of one kind (docs/contract.md section 4, stock/financials), newest first, from the quarters
 * reported on or before the clock's day: each quarter, or each fiscal year whose four quarters are reported (flows
 * summed, balances at its fourth quarter's end). In the reporting currency or, with `currency`, converted into it,
 * each quarter at its period end's rate (as stock/financials/ttm). A stock without reported quarters answers none.
 */
export async function statementsOf<K extends StatementKind>(
  ctx: RequestContext,
  row: InstrumentRow,
  statement: K,
  freq: FinancialsFreq,
  currency?: string | null,
): Promise<ReturnType<(typeof BUILD)[K]>[]> {
  const today = dayOf(Math.floor(ctx.clock.now().getTime() / 1000));
  const all = await ctx.loaders.financials.load(row.security.id);
  const reported = all.filter((q) => q.reportedDate <= today);
  const target = currency ? normalizeCurrency(currency) : null;
  const shown =
    target && reported.some((q) => q.currency !== target) ? await quartersIn(ctx, reported, target) : reported;
  const build = BUILD[statement] as (p: Period, symbol: string) => ReturnType<(typeof BUILD)[K]>;
  return periodsOf(shown, freq).map((p) => build(p, row.listing.symbol));
}
