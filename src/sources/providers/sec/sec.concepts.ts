import type { FINANCIAL_FIGURES, OPTIONAL_FINANCIAL_FIGURES } from "../../../domain/ports/source.types";

/** A figure of the store's quarterly financials. */
export type FinancialFigure = (typeof FINANCIAL_FIGURES)[number] | (typeof OPTIONAL_FINANCIAL_FIGURES)[number];

/**
 * How one figure is read from a company's XBRL facts (`us-gaap`). `concepts` are alternatives: the names a filer
 * used for the same figure over the years (`SalesRevenueNet` until 2018, then
 * `RevenueFromContractWithCustomerExcludingAssessedTax`), read as one series. A `flow` is reported over a period
 * (quarters, year-to-date, fiscal years), a `balance` at a day.
 */
export interface ConceptRead {
  read: "flow" | "balance";
  unit: "USD" | "USD/shares" | "shares";
  concepts: readonly string[];
  /** Series added to it (commercial paper to long-term debt), as many as the filing reports. */
  plus?: readonly (readonly string[])[];
  /** When `concepts` give nothing for a period: the sum of these, as many as the filing reports. */
  orSumOf?: readonly string[];
  /**
   * Brought to the share basis of today: a figure reported before a split (SPLIT_CONCEPT) is divided by its ratio
   * (per share) or multiplied by it (a count of shares), as prices are adjusted for splits. A per-share figure's
   * fourth quarter is also checked against net income, since the year and its quarters may be on two share bases
   * (sec.facts.ts perShareFourth).
   */
  splitAdjusted?: "perShare" | "shares";
  /** -1 for a cash outflow the filer reports as a positive payment (the store keeps it negative). */
  sign?: 1 | -1;
  /**
   * For a payment: no fact of the figure over any part of the quarter, or only facts of 0, means none (dividends, a
   * line a cash flow statement leaves out or reports as 0 when there is nothing to show): 0 rather than a quarter
   * left out. Alphabet reports dividends paid for some of its quarters and years from 2013 to 2023, all 0 but 47 M
   * in 2015, and quarterly from 2024.
   */
  noneWhenNotReported?: boolean;
  /** When `concepts` give nothing for the quarter: computed from the quarter's other figures (gross profit). */
  orDerived?: (q: Readonly<Record<string, number>>) => number | undefined;
  /**
   * When `concepts` give nothing at the quarter's end: this `dei` concept of the report's cover page, given as of a
   * day after the quarter (the first report filed after it). Filers that put shares outstanding on the balance sheet
   * of their 10-K only give them there in each 10-Q.
   */
  orCover?: string;
}

/** A figure computed from others of the same quarter. */
export interface DerivedRead {
  derived: (q: Readonly<Record<string, number>>) => number | undefined;
  /** Figures it needs, read first. */
  from: readonly FinancialFigure[];
}

/** Left unmapped on purpose: the reason, shown in the run's notes when the figure holds a quarter back. */
export interface Unmapped {
  unmapped: string;
}

export type FigureRead = ConceptRead | DerivedRead | Unmapped;

/**
 * Every figure of FINANCIAL_FIGURES, and how the SEC's company facts give it. The `satisfies` makes a figure added
 * to the store fail to compile here until it is mapped, or left unmapped with a reason.
 */
export const SEC_FIGURES = {
  revenue: {
    read: "flow",
    unit: "USD",
    concepts: ["RevenueFromContractWithCustomerExcludingAssessedTax", "Revenues", "SalesRevenueNet"],
  },
  costOfRevenue: {
    read: "flow",
    unit: "USD",
    concepts: ["CostOfGoodsAndServicesSold", "CostOfRevenue", "CostOfGoodsSold"],
  },
  grossProfit: {
    read: "flow",
    unit: "USD",
    concepts: ["GrossProfit"],
    // Alphabet, Meta and others report revenue and cost of revenue, and no gross profit.
    orDerived: (q) =>
      q.revenue === undefined || q.costOfRevenue === undefined ? undefined : q.revenue - q.costOfRevenue,
  },
  operatingIncome: { read: "flow", unit: "USD", concepts: ["OperatingIncomeLoss"] },
  netIncome: { read: "flow", unit: "USD", concepts: ["NetIncomeLoss"] },
  eps: {
    read: "flow",
    unit: "USD/shares",
    concepts: ["EarningsPerShareDiluted", "EarningsPerShareBasicAndDiluted"],
    splitAdjusted: "perShare",
  },
  totalAssets: { read: "balance", unit: "USD", concepts: ["Assets"] },
  totalLiabilities: {
    read: "balance",
    unit: "USD",
    concepts: ["Liabilities"],
    // NVIDIA, among others, tagged no total of liabilities before 2017: what the balance sheet's identity leaves.
    orDerived: (q) =>
      q.totalAssets === undefined || q.totalEquity === undefined ? undefined : q.totalAssets - q.totalEquity,
  },
  totalEquity: {
    read: "balance",
    unit: "USD",
    concepts: ["StockholdersEquity", "StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest"],
  },
  cash: { read: "balance", unit: "USD", concepts: ["CashAndCashEquivalentsAtCarryingValue"] },
  totalDebt: {
    read: "balance",
    unit: "USD",
    concepts: ["LongTermDebt"],
    orSumOf: ["LongTermDebtCurrent", "LongTermDebtNoncurrent"],
    plus: [["CommercialPaper", "ShortTermBorrowings"]],
  },
  sharesOutstanding: {
    read: "balance",
    unit: "shares",
    concepts: ["CommonStockSharesOutstanding"],
    orCover: "EntityCommonStockSharesOutstanding",
    splitAdjusted: "shares",
  },
  operatingCashFlow: {
    read: "flow",
    unit: "USD",
    concepts: [
      "NetCashProvidedByUsedInOperatingActivities",
      "NetCashProvidedByUsedInOperatingActivitiesContinuingOperations",
    ],
  },
  capex: {
    read: "flow",
    unit: "USD",
    // NVIDIA, among others, moved from the first to the second (which adds intangible assets) in 2020.
    concepts: ["PaymentsToAcquirePropertyPlantAndEquipment", "PaymentsToAcquireProductiveAssets"],
    sign: -1,
  },
  freeCashFlow: {
    from: ["operatingCashFlow", "capex"],
    derived: (q) =>
      q.operatingCashFlow === undefined || q.capex === undefined ? undefined : q.operatingCashFlow + q.capex,
  },
  dividendsPaid: {
    read: "flow",
    unit: "USD",
    concepts: ["PaymentsOfDividends", "PaymentsOfDividendsCommonStock"],
    sign: -1,
    noneWhenNotReported: true,
  },
  currentAssets: { read: "balance", unit: "USD", concepts: ["AssetsCurrent"] },
  currentLiabilities: { read: "balance", unit: "USD", concepts: ["LiabilitiesCurrent"] },
  inventory: { read: "balance", unit: "USD", concepts: ["InventoryNet"] },
  accountsReceivable: { read: "balance", unit: "USD", concepts: ["AccountsReceivableNetCurrent"] },
  accountsPayable: { read: "balance", unit: "USD", concepts: ["AccountsPayableCurrent"] },
  depreciationAmortization: {
    read: "flow",
    unit: "USD",
    concepts: ["DepreciationDepletionAndAmortization", "DepreciationAndAmortization"],
  },
  stockBasedCompensation: { read: "flow", unit: "USD", concepts: ["ShareBasedCompensation"] },
} as const satisfies Record<FinancialFigure, FigureRead>;

/**
 * A stock split's ratio, as filers tag it in the reports around it (NVIDIA's 10 of June 2024, with a day or a month
 * near the split's); below 1 for a reverse split.
 */
export const SPLIT_CONCEPT = "StockholdersEquityNoteStockSplitConversionRatio1";

/** Every `dei` (cover page) concept the figures read. */
export function coverConceptsRead(): string[] {
  const out = new Set<string>();
  for (const f of Object.values(SEC_FIGURES) as FigureRead[]) if ("orCover" in f && f.orCover) out.add(f.orCover);
  return [...out];
}

/** Every us-gaap concept the figures read (what a trimmed copy of a company's facts must keep, with the dei ones). */
export function conceptsRead(): string[] {
  const out = new Set<string>([SPLIT_CONCEPT]);
  for (const f of Object.values(SEC_FIGURES) as FigureRead[]) {
    if (!("concepts" in f)) continue;
    for (const c of f.concepts) out.add(c);
    for (const group of f.plus ?? []) for (const c of group) out.add(c);
    for (const c of f.orSumOf ?? []) out.add(c);
  }
  return [...out];
}
