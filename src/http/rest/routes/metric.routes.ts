import { z } from "zod";
import { InternalError } from "../../../platform/errors";
import { securityCurrencyBody } from "../rest.body";
import { STOCK_METRIC_DESCRIPTIONS, type StockMetricFigure } from "../../../domain/stock/stock.metrics";
import { StockMetricDocument } from "../rest.operations.generated";
import { example } from "../rest.examples";
import { route, VERSIONS, type RouteEntry } from "../rest.route";
import { day } from "../rest.response";

/** The operation `stock/metric` runs; `npm run generate` types it as StockMetricDocument. */
export const STOCK_METRIC_OPERATION = /* GraphQL */ `
  query StockMetric($symbol: String, $isin: String, $cusip: String, $wkn: String, $currency: String) {
    stock(symbol: $symbol, isin: $isin, cusip: $cusip, wkn: $wkn) {
      metric(currency: $currency) {
        symbol
        currency
        date
        growth {
          revenueGrowth
          grossProfitGrowth
          ebitgrowth
          operatingIncomeGrowth
          netIncomeGrowth
          epsgrowth
          dividendsperShareGrowth
          operatingCashFlowGrowth
          freeCashFlowGrowth
          assetGrowth
          bookValueperShareGrowth
          debtGrowth
          oneDayPriceReturnDaily
          fiveDayPriceReturnDaily
          fourWeekPriceReturnDaily
          thirteenWeekPriceReturnDaily
          twentysixWeekPriceReturnDaily
          yearToDatePriceReturnDaily
          oneyearPriceReturnDaily
          threeyearPriceReturnDaily
          fiveyearPriceReturnDaily
          tenyearPriceReturnDaily
          maxPriceReturnDaily
        }
        perShare {
          revenuePerShare
          netIncomePerShare
          operatingCashFlowPerShare
          freeCashFlowPerShare
          cashPerShare
          bookValuePerShare
          shareholdersEquityPerShare
          capexPerShare
          dividendPerShare
        }
        valuation {
          marketCap
          enterpriseValue
          peRatio
          priceToSalesRatio
          pocfratio
          pfcfRatio
          pbRatio
          evToSales
          evToOperatingCashFlow
          evToFreeCashFlow
          earningsYield
          freeCashFlowYield
          debtToMarketCap
          grahamNumber
          dividendYield
          dividendYieldPercentage
          debtToEquity
          debtToAssets
          roe
          incomeQuality
          payoutRatio
          capexToOperatingCashFlow
          capexToRevenue
        }
      }
    }
  }
`;

const figure = (g: StockMetricFigure) => z.number().nullable().describe(STOCK_METRIC_DESCRIPTIONS[g]);
const notHeld = (what: string) => z.null().describe(`Always null: the store holds no ${what}`);
const notComputed = z
  .null()
  .describe("Always null: multi-year per-share growth is not computed (the store's quarters rarely reach that far)");

/**
 * The Bavest Python SDK's stock `Metric` model, every key of it in its order (docs/contract.md section 4), and the
 * currency of its money figures. Keys the store cannot derive are null rather than invented.
 */
const stockMetricResponse = z.object({
  symbol: z.string(),
  date: day.nullable().describe("Period end of the latest reported quarter; null without one"),
  period: z.literal("TTM").describe("Always TTM: the trailing twelve months"),
  revenueGrowth: figure("revenueGrowth"),
  grossProfitGrowth: figure("grossProfitGrowth"),
  ebitgrowth: figure("ebitgrowth"),
  operatingIncomeGrowth: figure("operatingIncomeGrowth"),
  netIncomeGrowth: figure("netIncomeGrowth"),
  epsgrowth: figure("epsgrowth"),
  epsdilutedGrowth: notHeld("diluted EPS"),
  weightedAverageSharesGrowth: notHeld("weighted-average share count"),
  weightedAverageSharesDilutedGrowth: notHeld("weighted-average share count"),
  dividendsperShareGrowth: figure("dividendsperShareGrowth"),
  operatingCashFlowGrowth: figure("operatingCashFlowGrowth"),
  freeCashFlowGrowth: figure("freeCashFlowGrowth"),
  tenYRevenueGrowthPerShare: notComputed,
  fiveYRevenueGrowthPerShare: notComputed,
  threeYRevenueGrowthPerShare: notComputed,
  tenYOperatingCFGrowthPerShare: notComputed,
  fiveYOperatingCFGrowthPerShare: notComputed,
  threeYOperatingCFGrowthPerShare: notComputed,
  tenYNetIncomeGrowthPerShare: notComputed,
  fiveYNetIncomeGrowthPerShare: notComputed,
  threeYNetIncomeGrowthPerShare: notComputed,
  tenYShareholdersEquityGrowthPerShare: notComputed,
  fiveYShareholdersEquityGrowthPerShare: notComputed,
  threeYShareholdersEquityGrowthPerShare: notComputed,
  tenYDividendperShareGrowthPerShare: notComputed,
  fiveYDividendperShareGrowthPerShare: notComputed,
  threeYDividendperShareGrowthPerShare: notComputed,
  receivablesGrowth: notHeld("receivables"),
  inventoryGrowth: notHeld("inventory"),
  assetGrowth: figure("assetGrowth"),
  bookValueperShareGrowth: figure("bookValueperShareGrowth"),
  debtGrowth: figure("debtGrowth"),
  rdexpenseGrowth: notHeld("R&D expense"),
  sgaexpensesGrowth: notHeld("SG&A expense"),
  revenuePerShare: figure("revenuePerShare"),
  netIncomePerShare: figure("netIncomePerShare"),
  operatingCashFlowPerShare: figure("operatingCashFlowPerShare"),
  freeCashFlowPerShare: figure("freeCashFlowPerShare"),
  cashPerShare: figure("cashPerShare"),
  bookValuePerShare: figure("bookValuePerShare"),
  tangibleBookValuePerShare: notHeld("intangible assets"),
  shareholdersEquityPerShare: figure("shareholdersEquityPerShare"),
  interestDebtPerShare: notHeld("interest expense"),
  marketCap: figure("marketCap"),
  enterpriseValue: figure("enterpriseValue"),
  peRatio: figure("peRatio"),
  priceToSalesRatio: figure("priceToSalesRatio"),
  pocfratio: figure("pocfratio"),
  pfcfRatio: figure("pfcfRatio"),
  pbRatio: figure("pbRatio"),
  ptbRatio: notHeld("intangible assets"),
  evToSales: figure("evToSales"),
  enterpriseValueOverEBITDA: notHeld("depreciation and amortisation (EBITDA)"),
  evToOperatingCashFlow: figure("evToOperatingCashFlow"),
  evToFreeCashFlow: figure("evToFreeCashFlow"),
  earningsYield: figure("earningsYield"),
  freeCashFlowYield: figure("freeCashFlowYield"),
  debtToEquity: figure("debtToEquity"),
  debtToAssets: figure("debtToAssets"),
  netDebtToEBITDA: notHeld("depreciation and amortisation (EBITDA)"),
  currentRatio: notHeld("current assets and liabilities"),
  interestCoverage: notHeld("interest expense"),
  incomeQuality: figure("incomeQuality"),
  dividendYield: figure("dividendYield"),
  dividendYieldPercentage: figure("dividendYieldPercentage"),
  payoutRatio: figure("payoutRatio"),
  salesGeneralAndAdministrativeToRevenue: notHeld("SG&A expense"),
  researchAndDevelopementToRevenue: notHeld("R&D expense"),
  intangiblesToTotalAssets: notHeld("intangible assets"),
  capexToOperatingCashFlow: figure("capexToOperatingCashFlow"),
  capexToRevenue: figure("capexToRevenue"),
  capexToDepreciation: notHeld("depreciation"),
  stockBasedCompensationToRevenue: notHeld("stock-based compensation"),
  grahamNumber: figure("grahamNumber"),
  roic: notHeld("invested capital (tax rate, current liabilities)"),
  returnOnTangibleAssets: notHeld("intangible assets"),
  grahamNetNet: notHeld("current assets"),
  workingCapital: notHeld("current assets and liabilities"),
  tangibleAssetValue: notHeld("intangible assets"),
  netCurrentAssetValue: notHeld("current assets"),
  investedCapital: notHeld("current liabilities"),
  averageReceivables: notHeld("receivables"),
  averagePayables: notHeld("payables"),
  averageInventory: notHeld("inventory"),
  daysSalesOutstanding: notHeld("receivables"),
  daysPayablesOutstanding: notHeld("payables"),
  daysOfInventoryOnHand: notHeld("inventory"),
  receivablesTurnover: notHeld("receivables"),
  payablesTurnover: notHeld("payables"),
  inventoryTurnover: notHeld("inventory"),
  roe: figure("roe"),
  capexPerShare: figure("capexPerShare"),
  dividendPerShare: figure("dividendPerShare"),
  debtToMarketCap: figure("debtToMarketCap"),
  "1DayPriceReturnDaily": figure("oneDayPriceReturnDaily"),
  "5DayPriceReturnDaily": figure("fiveDayPriceReturnDaily"),
  "4WeekPriceReturnDaily": figure("fourWeekPriceReturnDaily"),
  "13WeekPriceReturnDaily": figure("thirteenWeekPriceReturnDaily"),
  "26WeekPriceReturnDaily": figure("twentysixWeekPriceReturnDaily"),
  yearToDatePriceReturnDaily: figure("yearToDatePriceReturnDaily"),
  "1yearPriceReturnDaily": figure("oneyearPriceReturnDaily"),
  "3yearPriceReturnDaily": figure("threeyearPriceReturnDaily"),
  "5yearPriceReturnDaily": figure("fiveyearPriceReturnDaily"),
  "10yearPriceReturnDaily": figure("tenyearPriceReturnDaily"),
  maxPriceReturnDaily: figure("maxPriceReturnDaily"),
  currency: z.string().describe("ISO 4217 currency of the money figures: the reporting currency, or the one asked for"),
});

export const METRIC_ROUTES: readonly RouteEntry[] = [
  route({
    path: "stock/metric",
    summary:
      "Metrics of a stock in the Bavest SDK's shape: growth, per-share figures, valuation and leverage from the " +
      "trailing twelve months and the latest price, price returns from the daily bars",
    versions: VERSIONS,
    scope: "stock",
    body: securityCurrencyBody,
    operation: StockMetricDocument,
    shape: (d) => {
      const m = d.stock.metric;
      // A nullable field of the stock is only null after an error, which execution has already thrown.
      if (m == null) throw new InternalError("stock metric: no data and no error");
      return {
        symbol: m.symbol,
        date: m.date,
        period: "TTM" as const,
        revenueGrowth: m.growth.revenueGrowth,
        grossProfitGrowth: m.growth.grossProfitGrowth,
        ebitgrowth: m.growth.ebitgrowth,
        operatingIncomeGrowth: m.growth.operatingIncomeGrowth,
        netIncomeGrowth: m.growth.netIncomeGrowth,
        epsgrowth: m.growth.epsgrowth,
        epsdilutedGrowth: null,
        weightedAverageSharesGrowth: null,
        weightedAverageSharesDilutedGrowth: null,
        dividendsperShareGrowth: m.growth.dividendsperShareGrowth,
        operatingCashFlowGrowth: m.growth.operatingCashFlowGrowth,
        freeCashFlowGrowth: m.growth.freeCashFlowGrowth,
        tenYRevenueGrowthPerShare: null,
        fiveYRevenueGrowthPerShare: null,
        threeYRevenueGrowthPerShare: null,
        tenYOperatingCFGrowthPerShare: null,
        fiveYOperatingCFGrowthPerShare: null,
        threeYOperatingCFGrowthPerShare: null,
        tenYNetIncomeGrowthPerShare: null,
        fiveYNetIncomeGrowthPerShare: null,
        threeYNetIncomeGrowthPerShare: null,
        tenYShareholdersEquityGrowthPerShare: null,
        fiveYShareholdersEquityGrowthPerShare: null,
        threeYShareholdersEquityGrowthPerShare: null,
        tenYDividendperShareGrowthPerShare: null,
        fiveYDividendperShareGrowthPerShare: null,
        threeYDividendperShareGrowthPerShare: null,
        receivablesGrowth: null,
        inventoryGrowth: null,
        assetGrowth: m.growth.assetGrowth,
        bookValueperShareGrowth: m.growth.bookValueperShareGrowth,
        debtGrowth: m.growth.debtGrowth,
        rdexpenseGrowth: null,
        sgaexpensesGrowth: null,
        revenuePerShare: m.perShare.revenuePerShare,
        netIncomePerShare: m.perShare.netIncomePerShare,
        operatingCashFlowPerShare: m.perShare.operatingCashFlowPerShare,
        freeCashFlowPerShare: m.perShare.freeCashFlowPerShare,
        cashPerShare: m.perShare.cashPerShare,
        bookValuePerShare: m.perShare.bookValuePerShare,
        tangibleBookValuePerShare: null,
        shareholdersEquityPerShare: m.perShare.shareholdersEquityPerShare,
        interestDebtPerShare: null,
        marketCap: m.valuation.marketCap,
        enterpriseValue: m.valuation.enterpriseValue,
        peRatio: m.valuation.peRatio,
        priceToSalesRatio: m.valuation.priceToSalesRatio,
        pocfratio: m.valuation.pocfratio,
        pfcfRatio: m.valuation.pfcfRatio,
        pbRatio: m.valuation.pbRatio,
        ptbRatio: null,
        evToSales: m.valuation.evToSales,
        enterpriseValueOverEBITDA: null,
        evToOperatingCashFlow: m.valuation.evToOperatingCashFlow,
        evToFreeCashFlow: m.valuation.evToFreeCashFlow,
        earningsYield: m.valuation.earningsYield,
        freeCashFlowYield: m.valuation.freeCashFlowYield,
        debtToEquity: m.valuation.debtToEquity,
        debtToAssets: m.valuation.debtToAssets,
        netDebtToEBITDA: null,
        currentRatio: null,
        interestCoverage: null,
        incomeQuality: m.valuation.incomeQuality,
        dividendYield: m.valuation.dividendYield,
        dividendYieldPercentage: m.valuation.dividendYieldPercentage,
        payoutRatio: m.valuation.payoutRatio,
        salesGeneralAndAdministrativeToRevenue: null,
        researchAndDevelopementToRevenue: null,
        intangiblesToTotalAssets: null,
        capexToOperatingCashFlow: m.valuation.capexToOperatingCashFlow,
        capexToRevenue: m.valuation.capexToRevenue,
        capexToDepreciation: null,
        stockBasedCompensationToRevenue: null,
        grahamNumber: m.valuation.grahamNumber,
        roic: null,
        returnOnTangibleAssets: null,
        grahamNetNet: null,
        workingCapital: null,
        tangibleAssetValue: null,
        netCurrentAssetValue: null,
        investedCapital: null,
        averageReceivables: null,
        averagePayables: null,
        averageInventory: null,
        daysSalesOutstanding: null,
        daysPayablesOutstanding: null,
        daysOfInventoryOnHand: null,
        receivablesTurnover: null,
        payablesTurnover: null,
        inventoryTurnover: null,
        roe: m.valuation.roe,
        capexPerShare: m.perShare.capexPerShare,
        dividendPerShare: m.perShare.dividendPerShare,
        debtToMarketCap: m.valuation.debtToMarketCap,
        "1DayPriceReturnDaily": m.growth.oneDayPriceReturnDaily,
        "5DayPriceReturnDaily": m.growth.fiveDayPriceReturnDaily,
        "4WeekPriceReturnDaily": m.growth.fourWeekPriceReturnDaily,
        "13WeekPriceReturnDaily": m.growth.thirteenWeekPriceReturnDaily,
        "26WeekPriceReturnDaily": m.growth.twentysixWeekPriceReturnDaily,
        yearToDatePriceReturnDaily: m.growth.yearToDatePriceReturnDaily,
        "1yearPriceReturnDaily": m.growth.oneyearPriceReturnDaily,
        "3yearPriceReturnDaily": m.growth.threeyearPriceReturnDaily,
        "5yearPriceReturnDaily": m.growth.fiveyearPriceReturnDaily,
        "10yearPriceReturnDaily": m.growth.tenyearPriceReturnDaily,
        maxPriceReturnDaily: m.growth.maxPriceReturnDaily,
        currency: m.currency,
      };
    },
    response: stockMetricResponse,
    examples: (s) => ({
      python: example("What client.stock.metric(symbol) posts: money figures in euros", {
        symbol: s.stock,
        currency: "EUR",
      }),
      own: example("In the reporting currency", { symbol: s.stock }),
    }),
    emptyAnswer:
      "the metrics with null figures: those of the financials with fewer than four reported quarters (growth with " +
      "fewer than eight), those of the price without a quote, the price returns without daily bars that old",
    singleSecurity: true,
  }),
];
