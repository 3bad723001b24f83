import type { PortfolioPeriodFigures, PortfolioStatFigures } from "./portfolio.types";

/**
 * The statistics under the Bavest Python SDK's names (its `Stats` model, ffn's figures), and their grouping in
 * GraphQL (PortfolioStatFigures): one flat object of 44 in REST, as the SDK reads it; in GraphQL the period figures
 * are grouped, so no selection of the service's own operations lists more than a handful of fields.
 */
export const SDK_STAT_NAMES = [
  "riskFree",
  "totalReturn",
  "cagr",
  "maxDrawdown",
  "calmar",
  "mtd",
  "threeMonth",
  "sixMonth",
  "ytd",
  "oneYear",
  "threeYear",
  "fiveYear",
  "tenYear",
  "inception",
  "dailySharpe",
  "dailySortino",
  "dailyMean",
  "dailyVolume",
  "dailySkew",
  "dailyKurt",
  "bestDay",
  "worstDay",
  "monthlySharpe",
  "monthlySortino",
  "monthlyMean",
  "monthlyVol",
  "monthlySkew",
  "monthlyKurt",
  "bestMonth",
  "worstMonth",
  "yearlySharpe",
  "yearlySortino",
  "yearlyMean",
  "yearlyVol",
  "yearlySkew",
  "yearlyKurt",
  "bestYear",
  "worstYear",
  "avgDrawdown",
  "avgDrawdownDays",
  "avgUpMonth",
  "avgDownMonth",
  "winYearPerc",
  "twelveMonthWinPerc",
] as const;

export type SdkStatName = (typeof SDK_STAT_NAMES)[number];
export type SdkStats = Record<SdkStatName, number>;

type Period = "daily" | "monthly" | "yearly";

/** Each period figure's SDK name (the SDK calls the daily volatility `dailyVolume`). */
const PERIOD_NAMES: Record<Period, Record<keyof PortfolioPeriodFigures, SdkStatName>> = {
  daily: {
    sharpe: "dailySharpe",
    sortino: "dailySortino",
    mean: "dailyMean",
    vol: "dailyVolume",
    skew: "dailySkew",
    kurt: "dailyKurt",
    best: "bestDay",
    worst: "worstDay",
  },
  monthly: {
    sharpe: "monthlySharpe",
    sortino: "monthlySortino",
    mean: "monthlyMean",
    vol: "monthlyVol",
    skew: "monthlySkew",
    kurt: "monthlyKurt",
    best: "bestMonth",
    worst: "worstMonth",
  },
  yearly: {
    sharpe: "yearlySharpe",
    sortino: "yearlySortino",
    mean: "yearlyMean",
    vol: "yearlyVol",
    skew: "yearlySkew",
    kurt: "yearlyKurt",
    best: "bestYear",
    worst: "worstYear",
  },
};

const period = (s: SdkStats, p: Period): PortfolioPeriodFigures => {
  const n = PERIOD_NAMES[p];
  return {
    sharpe: s[n.sharpe],
    sortino: s[n.sortino],
    mean: s[n.mean],
    vol: s[n.vol],
    skew: s[n.skew],
    kurt: s[n.kurt],
    best: s[n.best],
    worst: s[n.worst],
  };
};

/** The SDK's flat figures, grouped as GraphQL answers them. */
export function groupStats(s: SdkStats): PortfolioStatFigures {
  return {
    riskFree: s.riskFree,
    totalReturn: s.totalReturn,
    cagr: s.cagr,
    maxDrawdown: s.maxDrawdown,
    calmar: s.calmar,
    inception: s.inception,
    mtd: s.mtd,
    threeMonth: s.threeMonth,
    sixMonth: s.sixMonth,
    ytd: s.ytd,
    oneYear: s.oneYear,
    threeYear: s.threeYear,
    fiveYear: s.fiveYear,
    tenYear: s.tenYear,
    daily: period(s, "daily"),
    monthly: period(s, "monthly"),
    yearly: period(s, "yearly"),
    avgDrawdown: s.avgDrawdown,
    avgDrawdownDays: s.avgDrawdownDays,
    avgUpMonth: s.avgUpMonth,
    avgDownMonth: s.avgDownMonth,
    winYearPerc: s.winYearPerc,
    twelveMonthWinPerc: s.twelveMonthWinPerc,
  };
}

/** GraphQL's grouped figures under the SDK's flat names, in the model's order. */
export function flattenStats(g: PortfolioStatFigures): SdkStats {
  const { daily, monthly, yearly, ...top } = g;
  const flat: Partial<SdkStats> = { ...top };
  for (const [p, figures] of [
    ["daily", daily],
    ["monthly", monthly],
    ["yearly", yearly],
  ] as const) {
    for (const [k, name] of Object.entries(PERIOD_NAMES[p])) flat[name] = figures[k as keyof PortfolioPeriodFigures];
  }
  return Object.fromEntries(SDK_STAT_NAMES.map((name) => [name, flat[name]!])) as SdkStats;
}

/** Where each SDK name sits in GraphQL's PortfolioStatFigures (`daily.vol` for `dailyVolume`). */
export function statPath(name: SdkStatName): string {
  for (const [p, names] of Object.entries(PERIOD_NAMES)) {
    const found = Object.entries(names).find(([, n]) => n === name);
    if (found) return `${p}.${found[0]}`;
  }
  return name;
}
