import { endOfMonth, formatDay, monthOf, onOrAfterWeekday, yearOf } from "../../sources/sample/sample.calendar";
import type { SampleContext } from "./sample.context";
import { splitFactorAfter } from "./sample.dividends";
import type { DividendRow, Split, Stock } from "./sample.model";
import type { QuarterlyFinancialsRow } from "../../domain/ports/source.types";
import { roundTo } from "../../sources/sample/sample.numbers";
import type { Random } from "../../sources/sample/sample.random";
import { sectorByName } from "./sample.sectors";

/**
 * Quarterly financial statements of every company: sixteen quarters for the
 * larger ones, eight for the others. Amounts are whole
 * currency units so the accounting identities hold exactly:
 * gross_profit = revenue - cost_of_revenue, free_cash_flow =
 * operating_cash_flow + capex, total_assets = total_liabilities + total_equity,
 * eps = net_income / shares_outstanding. The balance-sheet and cash-flow details
 * stay within their totals: current_assets <= total_assets (cash, receivables
 * and inventory are part of it), accounts_payable <= current_liabilities <=
 * total_liabilities; depreciation runs at 60 to 100 % of capital expenditure.
 */

export const QUARTERS = 16;

/** Quarters of the other companies (and of recent IPOs, whose prospectus reported the quarters before listing). */
export const RECENT_QUARTERS = 8;

/** One quarter, exactly as the store holds it. */
export type QuarterRow = QuarterlyFinancialsRow;

/** End of the calendar quarter `q` quarters after the one containing `day` (q may be negative). */
function quarterEnd(day: number, q: number): number {
  const y = yearOf(day);
  const m = monthOf(day);
  const lastMonthOfQuarter = Math.ceil(m / 3) * 3 + q * 3;
  return endOfMonth(y, lastMonthOfQuarter);
}

/**
 * The quarters of one company, a pure function of the seed and the company:
 * the generator computes them as it writes them (a hundred thousand
 * companies' quarters would otherwise sit in memory for the whole build).
 */
export function quartersOf(
  ctx: SampleContext,
  s: Stock,
  splits: ReadonlyMap<number, Split[]>,
  dividends: { get(id: number): readonly DividendRow[] | undefined },
): QuarterRow[] {
  return companyQuarters(ctx, ctx.rng("financials").fork(s.id), s, splits.get(s.id), dividends.get(s.id));
}

function companyQuarters(
  ctx: SampleContext,
  r: Random,
  s: Stock,
  splits: readonly Split[] | undefined,
  divs: readonly DividendRow[] | undefined,
): QuarterRow[] {
  const sector = sectorByName(s.sector ?? "");
  const fyEnd = s.country === "JP" ? 3 : r.weighted([12, 3, 6, 9], [75, 8, 9, 8]);
  const lag = r.intBetween(28, 45);
  // A pure function of the period, so asking twice gives the same day.
  const reportDay = (periodEnd: number) => onOrAfterWeekday(periodEnd + lag + ((periodEnd * 31 + s.id) % 5) - 2);

  // The latest quarter whose report is out by the anchor.
  let latest = quarterEnd(ctx.anchorDay, -1);
  const latestReport = reportDay(latest);
  let pending: number | null = null;
  if (latestReport > ctx.anchorDay) {
    pending = latestReport;
    latest = quarterEnd(latest, -1);
  }
  s.nextEarningsDate = formatDay(pending ?? reportDay(quarterEnd(latest, 1)));

  // A recent IPO drew its count of quarters here once; the draw stays so the rest of its stream does.
  if (s.recentIpo) r.intBetween(2, 3);
  const count = s.order < ctx.counts.stocksWithFinancials && !s.recentIpo ? QUARTERS : RECENT_QUARTERS;
  const annualRevenueNow = (s.marketCap ?? 0) / (sector.priceToSales * r.logNormal(0, 0.5));
  const growth = 0.06 + 0.08 * r.normal();
  const grossMargin = Math.min(0.9, Math.max(0.05, sector.grossMargin + 0.1 * r.normal()));
  const opexRatio = r.chance(0.1) ? r.range(1.0, 1.3) : r.range(0.4, 0.9);
  const taxRate = r.range(0.18, 0.3);
  const financial = s.sector === "Financials";
  const assetsToRevenue = financial ? r.range(6, 12) : r.range(0.8, 2.5);
  const equityRatio = financial ? r.range(0.07, 0.12) : r.range(0.3, 0.6);
  const capexRatio = r.range(0.02, 0.12);
  const buybackPerYear = r.range(-0.02, 0.03);
  const season = [r.range(-0.04, 0.04), r.range(-0.04, 0.04), r.range(-0.04, 0.04), 0];
  const sharesNow = s.sharesOutstanding ?? 1;
  // The details draw from a stream of their own, so the figures above stay what they were before details existed.
  const d = r.fork("details");
  const holdsInventory = !financial && d.chance(0.8);
  const inventoryDays = holdsInventory ? d.range(20, 120) : 0;
  const receivableDays = financial ? 0 : d.range(25, 70);
  const payableDays = financial ? 0 : d.range(30, 90);

  const rows: QuarterRow[] = [];
  for (let k = count - 1; k >= 0; k--) {
    const end = quarterEnd(latest, -k);
    const start = quarterEnd(latest, -k - 1);
    const years = k / 4;
    const month = monthOf(end);
    const fiscalQuarter = Math.floor(((month - fyEnd - 1 + 12) % 12) / 3) + 1;
    const fiscalYear = month > fyEnd ? yearOf(end) + 1 : yearOf(end);

    const revenue = Math.max(
      1000,
      Math.round(
        (annualRevenueNow / 4 / (1 + growth) ** years) *
          (1 + (season[fiscalQuarter - 1] as number) + 0.03 * r.normal()),
      ),
    );
    const costOfRevenue = Math.round(revenue * (1 - grossMargin * (1 + 0.02 * r.normal())));
    const grossProfit = revenue - costOfRevenue;
    const operatingIncome = grossProfit - Math.round(grossProfit * opexRatio * (1 + 0.03 * r.normal()));
    const preTax = operatingIncome - Math.round(revenue * 0.01);
    const netIncome = preTax > 0 ? Math.round(preTax * (1 - taxRate)) : preTax;
    // Share count of the time: before a later split there were fewer shares.
    const shares = Math.round((sharesNow / splitFactorAfter(splits, end)) * (1 + buybackPerYear) ** years);
    const totalAssets = Math.round(revenue * 4 * assetsToRevenue * (1 + 0.02 * r.normal()));
    const totalEquity = Math.round(totalAssets * equityRatio);
    const totalLiabilities = totalAssets - totalEquity;
    const cash = Math.round(totalAssets * r.range(0.04, 0.15));
    const totalDebt = Math.round(totalLiabilities * r.range(0.2, 0.6));
    const operatingCashFlow = Math.round(Math.max(netIncome, 0) * 1.15 + revenue * r.range(0.02, 0.06));
    const capex = -Math.round(revenue * capexRatio * r.range(0.8, 1.2));
    const inventory = Math.round((costOfRevenue * inventoryDays) / 91);
    const accountsReceivable = Math.round((revenue * receivableDays) / 91);
    // Never past the total: a thin balance sheet against a large quarter keeps what fits.
    const currentAssets = Math.min(
      totalAssets,
      cash + inventory + accountsReceivable + Math.round(totalAssets * d.range(0.02, 0.1)),
    );
    const accountsPayable = Math.min(totalLiabilities, Math.round((costOfRevenue * payableDays) / 91));
    const currentLiabilities = Math.min(
      totalLiabilities,
      accountsPayable + Math.round(totalLiabilities * d.range(0.05, 0.2)),
    );
    const depreciationAmortization = Math.round(-capex * d.range(0.6, 1.0));
    const stockBasedCompensation = Math.round(revenue * d.range(0.005, 0.03));
    let paidAmount = 0;
    if (divs) for (const d of divs) if (d.payDay > start && d.payDay <= end) paidAmount += d.amount * shares;
    const paid = Math.round(paidAmount);
    rows.push({
      periodEnd: formatDay(end),
      fiscalYear,
      fiscalQuarter,
      reportedDate: formatDay(reportDay(end)),
      currency: s.currency,
      revenue,
      costOfRevenue,
      grossProfit,
      operatingIncome,
      netIncome,
      // Per share, to four decimals as reported (a cent's hundredth), so no float noise reaches an answer.
      eps: roundTo(netIncome / shares, 4),
      totalAssets,
      totalLiabilities,
      totalEquity,
      cash,
      totalDebt,
      sharesOutstanding: shares,
      operatingCashFlow,
      capex: capex === 0 ? 0 : capex,
      freeCashFlow: operatingCashFlow + capex,
      dividendsPaid: paid === 0 ? 0 : -paid,
      currentAssets,
      currentLiabilities,
      inventory,
      accountsReceivable,
      accountsPayable,
      depreciationAmortization,
      stockBasedCompensation,
    });
  }
  return rows;
}
