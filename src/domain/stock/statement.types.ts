import { ArgsType, Field, Float, ObjectType, registerEnumType } from "type-graphql";

/**
 * A stock's statements as the Bavest SDKs read stock/financials (docs/contract.md section 4): the Python SDK's
 * FinancialsItem (the cash-flow statement) and the Dart SDK's IncomeData, BalanceData and CashFlowData, with the
 * figures the store holds. The SDKs' names the store holds no figure for are REST's alone (null there).
 */

export enum FinancialsFreq {
  ANNUAL = "ANNUAL",
  QUARTERLY = "QUARTERLY",
}

registerEnumType(FinancialsFreq, {
  name: "FinancialsFreq",
  description: "The periods of a statement",
  valuesConfig: {
    ANNUAL: {
      description:
        "Fiscal years with all four quarters reported: flows summed over them, balances at the fourth quarter's end",
    },
    QUARTERLY: { description: "Each reported quarter" },
  },
});

@ArgsType()
export class StatementArgs {
  @Field(() => FinancialsFreq, { defaultValue: FinancialsFreq.ANNUAL, description: "Fiscal years or quarters" })
  freq: FinancialsFreq;

  @Field(() => String, {
    nullable: true,
    description:
      "ISO 4217 code to convert the money figures into, each quarter at its period end's FX rate; default: as reported",
  })
  currency?: string | null;
}

@ObjectType({ description: "An income statement over a fiscal quarter or year" })
export class IncomeStatement {
  @Field(() => String, { description: "Last day of the period (of its fourth quarter for a fiscal year), YYYY-MM-DD" })
  date: string;

  @Field(() => String, { description: "Symbol of the listing asked for" })
  symbol: string;

  @Field(() => String, {
    description:
      "ISO 4217 currency of every money figure: as reported, or the one asked for (each quarter at its period " +
      "end's rate)",
  })
  reportedCurrency: string;

  @Field(() => String, {
    description: "Day the period's report (for a fiscal year, its fourth quarter's) was first filed, YYYY-MM-DD",
  })
  fillingDate: string;

  @Field(() => String, { description: "The same day as fillingDate (the store keeps no time of day)" })
  acceptedDate: string;

  @Field(() => String, {
    description: "The fiscal year the period belongs to, as the SDKs' models spell it (a string)",
  })
  calendarYear: string;

  @Field(() => String, { description: "Q1 to Q4 for a quarter, FY for a fiscal year" })
  period: string;

  @Field(() => Float, { description: "Revenue" })
  revenue: number;

  @Field(() => Float, { description: "Cost of revenue" })
  costOfGoodsSold: number;

  @Field(() => Float, { description: "Gross profit: revenue less cost of revenue" })
  grossIncome: number;

  @Field(() => Float, {
    nullable: true,
    description: "Gross profit / revenue (a fraction); null when revenue is not positive",
  })
  grossProfitRatio: number | null;

  @Field(() => Float, { description: "Operating expenses: gross profit less operating income" })
  totalOperatingExpense: number;

  @Field(() => Float, { description: "Cost of revenue and operating expenses: revenue less operating income" })
  costAndExpenses: number;

  @Field(() => Float, { description: "Operating income" })
  ebit: number;

  @Field(() => Float, {
    nullable: true,
    description: "Operating income / revenue (a fraction); null when revenue is not positive",
  })
  operatingIncomeRatio: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "Depreciation and amortization; null when a quarter's report has none",
  })
  depreciationAndAmortization: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "Operating income plus depreciation and amortization; null without the latter",
  })
  ebitda: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "EBITDA / revenue (a fraction); null without EBITDA or when revenue is not positive",
  })
  ebitdaratio: number | null;

  @Field(() => Float, { description: "Net income" })
  netIncome: number;

  @Field(() => Float, {
    nullable: true,
    description: "Net income / revenue (a fraction); null when revenue is not positive",
  })
  netIncomeRatio: number | null;

  @Field(() => Float, { description: "Diluted earnings per share (a fiscal year's: the sum of its quarters')" })
  eps: number;

  @Field(() => Float, { description: "The same as eps: the diluted figure where the filer reports one" })
  dilutedEPS: number;
}

@ObjectType({ description: "A balance sheet at the end of a fiscal quarter or year" })
export class BalanceSheet {
  @Field(() => String, { description: "Last day of the period (of its fourth quarter for a fiscal year), YYYY-MM-DD" })
  date: string;

  @Field(() => String, { description: "Symbol of the listing asked for" })
  symbol: string;

  @Field(() => String, {
    description:
      "ISO 4217 currency of every money figure: as reported, or the one asked for (each quarter at its period " +
      "end's rate)",
  })
  reportedCurrency: string;

  @Field(() => String, {
    description: "Day the period's report (for a fiscal year, its fourth quarter's) was first filed, YYYY-MM-DD",
  })
  fillingDate: string;

  @Field(() => String, { description: "The same day as fillingDate (the store keeps no time of day)" })
  acceptedDate: string;

  @Field(() => String, {
    description: "The fiscal year the period belongs to, as the SDKs' models spell it (a string)",
  })
  calendarYear: string;

  @Field(() => String, { description: "Q1 to Q4 for a quarter, FY for a fiscal year" })
  period: string;

  @Field(() => Float, { description: "Cash and cash equivalents" })
  cashAndCashEquivalents: number;

  @Field(() => Float, { nullable: true, description: "Accounts receivable; null when the report has none" })
  totalReceivables: number | null;

  @Field(() => Float, { nullable: true, description: "Inventory; null when the report has none" })
  inventory: number | null;

  @Field(() => Float, { nullable: true, description: "Current assets; null when the report has none" })
  currentAssets: number | null;

  @Field(() => Float, { nullable: true, description: "Total assets less current assets; null without the latter" })
  totalNonCurrentAssets: number | null;

  @Field(() => Float, { description: "Total assets" })
  totalAssets: number;

  @Field(() => Float, { nullable: true, description: "Accounts payable; null when the report has none" })
  accountsPayable: number | null;

  @Field(() => Float, { nullable: true, description: "Current liabilities; null when the report has none" })
  currentLiabilities: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "Total liabilities less current liabilities; null without the latter",
  })
  totalNonCurrentLiabilities: number | null;

  @Field(() => Float, { description: "Total liabilities" })
  totalLiabilities: number;

  @Field(() => Float, { description: "Total debt, short and long term" })
  totalDebt: number;

  @Field(() => Float, { description: "Total debt less cash and cash equivalents" })
  netDebt: number;

  @Field(() => Float, { description: "Shareholders' equity" })
  totalStockholdersEquity: number;

  @Field(() => Float, { description: "The same as totalStockholdersEquity" })
  totalEquity: number;

  @Field(() => Float, { description: "Total liabilities plus equity (equal to total assets)" })
  totalLiabilitiesAndTotalEquity: number;

  @Field(() => Float, { description: "The same as totalLiabilitiesAndTotalEquity" })
  liabilitiesShareholdersEquity: number;
}

@ObjectType({ description: "A cash-flow statement over a fiscal quarter or year" })
export class CashFlowStatement {
  @Field(() => String, { description: "Last day of the period (of its fourth quarter for a fiscal year), YYYY-MM-DD" })
  date: string;

  @Field(() => String, { description: "Symbol of the listing asked for" })
  symbol: string;

  @Field(() => String, {
    description:
      "ISO 4217 currency of every money figure: as reported, or the one asked for (each quarter at its period " +
      "end's rate)",
  })
  reportedCurrency: string;

  @Field(() => String, {
    description: "Day the period's report (for a fiscal year, its fourth quarter's) was first filed, YYYY-MM-DD",
  })
  fillingDate: string;

  @Field(() => String, { description: "The same day as fillingDate (the store keeps no time of day)" })
  acceptedDate: string;

  @Field(() => String, {
    description: "The fiscal year the period belongs to, as the SDKs' models spell it (a string)",
  })
  calendarYear: string;

  @Field(() => String, { description: "Q1 to Q4 for a quarter, FY for a fiscal year" })
  period: string;

  @Field(() => Float, { description: "Net income, where the cash-flow statement starts" })
  netIncomeStartingLine: number;

  @Field(() => Float, {
    nullable: true,
    description: "Depreciation and amortization; null when a quarter's report has none",
  })
  depreciationAmortization: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "Stock-based compensation; null when a quarter's report has none",
  })
  stockBasedCompensation: number | null;

  @Field(() => Float, {
    nullable: true,
    description:
      "Cash from the change in accounts receivable: the previous period end's less this one's; null without both",
  })
  accountsReceivables: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "Cash from the change in inventory: the previous period end's less this one's; null without both",
  })
  inventory: number | null;

  @Field(() => Float, {
    nullable: true,
    description:
      "Cash from the change in accounts payable: this period end's less the previous one's; null without both",
  })
  accountsPayables: number | null;

  @Field(() => Float, { description: "Operating cash flow" })
  netCashProvidedByOperatingActivities: number;

  @Field(() => Float, { description: "The same as netCashProvidedByOperatingActivities" })
  netOperatingCashFlow: number;

  @Field(() => Float, { description: "Capital expenditure (negative: cash out)" })
  investmentsInPropertyPlantAndEquipment: number;

  @Field(() => Float, { description: "The same as investmentsInPropertyPlantAndEquipment" })
  capex: number;

  @Field(() => Float, { description: "Free cash flow: operating cash flow plus capex" })
  fcf: number;

  @Field(() => Float, { description: "Dividends paid (negative: cash out)" })
  cashDividendsPaid: number;

  @Field(() => Float, { description: "Cash and cash equivalents at the period's end" })
  cashAtEndOfPeriod: number;

  @Field(() => Float, {
    nullable: true,
    description: "Cash and cash equivalents at the previous period's end; null when that is not stored",
  })
  cashAtBeginningOfPeriod: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "The cash at the period's end less that at its beginning; null without the latter",
  })
  changeinCash: number | null;
}
