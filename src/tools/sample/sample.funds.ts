import {
  endOfMonth,
  formatDay,
  makeDay,
  monthOf,
  onOrAfterWeekday,
  onOrBeforeWeekday,
  yearOf,
} from "../../sources/sample/sample.calendar";
import type { SampleContext } from "./sample.context";
import {
  type Bond,
  bondHolding,
  cashHolding,
  COMMODITIES,
  finishHoldings,
  futuresHoldings,
  type HoldingSet,
  StockPools,
  stockHolding,
  type WeightedHolding,
} from "./sample.holdings";
import type { Etf, Fund, Stock } from "./sample.model";
import { FUND_COMPANY_FORMS } from "./sample.names";
import { interpolate, roundPrice, roundTo } from "../../sources/sample/sample.numbers";
import type { Random } from "../../sources/sample/sample.random";

/**
 * Mutual funds. A fund house runs strategies; each strategy is sold in one or
 * more share classes (retail/institutional, accumulating/distributing,
 * currency), and every share class is a security with its own ISIN, as in the
 * real market. Share classes of a strategy share its portfolio.
 */

type FundAssetClass = "Equity" | "Fixed Income" | "Allocation" | "Money Market" | "Alternative" | "Real Estate";
const ASSET_CLASSES: readonly FundAssetClass[] = [
  "Equity",
  "Fixed Income",
  "Allocation",
  "Money Market",
  "Alternative",
  "Real Estate",
];
const ASSET_CLASS_WEIGHTS = [55, 25, 10, 3, 3, 4];

const REGION_ADJECTIVE: Readonly<Record<string, string>> = {
  World: "Global",
  USA: "US",
  Europe: "European",
  Eurozone: "Euro",
  Japan: "Japan",
  UK: "UK",
  Germany: "German",
  Switzerland: "Swiss",
  Canada: "Canadian",
  Australia: "Australian",
  "Pacific ex-Japan": "Pacific ex-Japan",
  "Emerging Markets": "Emerging Markets",
  China: "China",
  Asia: "Asian",
};
const REGION_CATEGORY: Readonly<Record<string, string>> = {
  World: "Global",
  USA: "US",
  Europe: "Europe",
  Eurozone: "Eurozone",
  Japan: "Japan",
  UK: "UK",
  Germany: "Germany",
  Switzerland: "Switzerland",
  Canada: "Canada",
  Australia: "Australia",
  "Pacific ex-Japan": "Asia-Pacific ex-Japan",
  "Emerging Markets": "Global Emerging Markets",
  China: "China",
  Asia: "Asia",
};

interface EquityStyle {
  word: string;
  category: (region: string) => string;
  select: (pool: Stock[]) => Stock[];
}
const EQUITY_STYLES: readonly EquityStyle[] = [
  { word: "", category: (r) => `${r} Large-Cap Blend Equity`, select: (p) => p },
  { word: "Value", category: (r) => `${r} Large-Cap Value Equity`, select: (p) => p.filter((s) => s.value > 0.55) },
  { word: "Growth", category: (r) => `${r} Large-Cap Growth Equity`, select: (p) => p.filter((s) => s.value < 0.45) },
  { word: "Small-Cap", category: (r) => `${r} Small-Cap Equity`, select: (p) => p.slice(Math.floor(p.length * 0.3)) },
  {
    word: "Dividend",
    category: (r) => `${r} Equity Income`,
    select: (p) => p.filter((s) => s.value > 0.5 || s.sector === "Utilities"),
  },
  {
    word: "Sustainable",
    category: (r) => `${r} Large-Cap Blend Equity`,
    select: (p) => p.filter((s) => s.sector !== "Energy" && s.esg > 0.4),
  },
  {
    word: "Technology",
    category: () => "Sector Equity Technology",
    select: (p) => p.filter((s) => s.sector === "Information Technology"),
  },
  {
    word: "Health Care",
    category: () => "Sector Equity Healthcare",
    select: (p) => p.filter((s) => s.sector === "Health Care"),
  },
  {
    word: "Financials",
    category: () => "Sector Equity Financial Services",
    select: (p) => p.filter((s) => s.sector === "Financials"),
  },
  { word: "Energy", category: () => "Sector Equity Energy", select: (p) => p.filter((s) => s.sector === "Energy") },
];
const EQUITY_STYLE_WEIGHTS = [30, 10, 10, 8, 8, 10, 7, 7, 5, 5];

const BOND_TYPES: readonly { name: string; kinds: readonly Bond["kind"][]; maxYears?: number }[] = [
  { name: "Government Bond", kinds: ["government"] },
  { name: "Corporate Bond", kinds: ["corporate"] },
  { name: "High Yield Bond", kinds: ["high-yield"] },
  { name: "Short Duration Bond", kinds: ["government", "corporate"], maxYears: 3 },
  { name: "Aggregate Bond", kinds: ["government", "corporate", "inflation"] },
  { name: "Inflation-Linked Bond", kinds: ["inflation"] },
];

const VARIANTS = [
  "",
  "Opportunities",
  "Select",
  "Focus",
  "Plus",
  "Core",
  "Dynamic",
  "Strategic",
  "Active",
  "Enhanced",
  "Conviction",
  "Leaders",
];

/** log10(rank among strategies in a full-size universe) -> log10(AUM in USD). */
const AUM_KNOTS: readonly (readonly [number, number])[] = [
  [0, 11.2],
  [1, 10.6],
  [2, 9.8],
  [3, 8.9],
  [3.48, 7.5],
];
const FULL_STRATEGY_COUNT = 3_000;

interface FundHouse {
  name: string;
  brand: string;
  home: "LU" | "IE" | "US" | "DE" | "FR" | "GB" | "CH";
  strategyNames: Set<string>;
  size: number;
}

interface Strategy {
  house: FundHouse;
  name: string;
  assetClass: FundAssetClass;
  category: string;
  benchmark: string;
  domicile: string;
  baseCurrency: string;
  riskClass: number;
  volatility: number;
  beta: number;
  holdings: HoldingSet;
  frequency: number;
  yieldPct: number;
  /** Relative pull on assets: broad equity and balanced funds gather the most. */
  popularity: number;
}

function baseCurrencyOf(home: FundHouse["home"]): string {
  switch (home) {
    case "US":
      return "USD";
    case "GB":
      return "GBP";
    case "CH":
      return "CHF";
    default:
      return "EUR";
  }
}

export function generateFunds(
  ctx: SampleContext,
  stocks: readonly Stock[],
  bonds: readonly Bond[],
  etfs: readonly Etf[],
  firstId: number,
): Fund[] {
  const r = ctx.rng("funds");
  const pools = new StockPools(stocks);
  const houses: FundHouse[] = [];
  for (let i = 0; i < ctx.counts.fundCompanies; i++) {
    const brand = ctx.namer.brand();
    houses.push({
      brand,
      name: `${brand} ${r.pick(FUND_COMPANY_FORMS)}`,
      home: r.weighted(["LU", "IE", "US", "DE", "FR", "GB", "CH"], [35, 20, 30, 5, 4, 3, 3]),
      strategyNames: new Set(),
      size: 1 / (i + 1) ** 0.8,
    });
  }
  const houseWeights = houses.map((h) => h.size);

  // Strategies first, then their share classes, until the class count is reached.
  const n = ctx.counts.funds;
  const strategies: { s: Strategy; classes: number }[] = [];
  let classes = 0;
  for (let i = 0; classes < n; i++) {
    const sr = r.fork(`strategy-${i}`);
    const house = sr.weighted(houses, houseWeights);
    const k = Math.min(n - classes, sr.weighted([1, 2, 3, 4], [35, 30, 20, 15]));
    strategies.push({ s: makeStrategy(ctx, sr, house, pools, bonds, etfs), classes: k });
    classes += k;
  }

  const strategyAum = new Float64Array(strategies.length);
  const order = strategies.map(({ s }, i) => ({ i, score: s.popularity })).sort((a, b) => b.score - a.score);
  order.forEach((x, k) => {
    const fullRank = (k + 1) * (FULL_STRATEGY_COUNT / strategies.length);
    strategyAum[x.i] = 10 ** interpolate(AUM_KNOTS, Math.log10(fullRank)) * Math.exp(0.1 * r.normal());
  });

  const holdingsDay = onOrBeforeWeekday(endOfMonth(yearOf(ctx.anchorDay), monthOf(ctx.anchorDay) - 1));
  const funds: Fund[] = [];
  strategies.forEach(({ s, classes: k }, si) => {
    const cr = r.fork(`classes-${si}`);
    const shares = Array.from({ length: k }, () => cr.logNormal(0, 0.8));
    const shareTotal = shares.reduce((a, b) => a + b, 0);
    const usedLabels = new Set<string>();
    for (let c = 0; c < k; c++) {
      const us = s.domicile === "US";
      let label = "";
      let currency = s.baseCurrency;
      let institutional = false;
      let distributing = us;
      for (let attempt = 0; attempt < 50; attempt++) {
        institutional = cr.chance(0.3);
        if (us) {
          label = `Class ${institutional ? "I" : cr.pick(["A", "C", "R6", "Investor"])}`;
          currency = "USD";
          distributing = true;
        } else {
          const letter = institutional ? cr.pick(["I", "Z", "X"]) : cr.pick(["A", "B", "R", "E"]);
          distributing = cr.chance(0.4);
          const hedged = cr.chance(0.25);
          currency = hedged
            ? cr.pick(["EUR", "USD", "CHF", "GBP"].filter((x) => x !== s.baseCurrency))
            : s.baseCurrency;
          label = `${letter} ${distributing ? "Dist" : "Acc"} ${currency}${hedged ? " Hedged" : ""}`;
        }
        if (!usedLabels.has(label)) break;
      }
      if (usedLabels.has(label)) label = `${label} ${c + 1}`;
      usedLabels.add(label);

      const name = us ? `${s.house.brand} ${s.name} Fund - ${label}` : `${s.house.brand} ${s.name} Fund ${label}`;
      const perUsd = ctx.fx.perUsd(currency, ctx.lastTradingDay);
      const price = roundPrice(Math.min(400, Math.max(8, cr.logNormal(Math.log(60), 0.6))) * perUsd, 2);
      const aumLocal = (strategyAum[si] as number) * ((shares[c] as number) / shareTotal) * perUsd;
      const units = Math.max(1_000, Math.round(aumLocal / price));
      const aum = roundTo(units * price, 2);
      const ident = us ? ctx.ids.cusipIsin("US", "fund") : { cusip: null, isin: ctx.ids.isin(s.domicile) };
      const symbol = us ? ctx.symbols.mutualFundTicker(s.house.brand) : ident.isin;
      if (!us) ctx.symbols.claim(symbol);
      const id = firstId + funds.length;
      const rate = ctx.fx.rate(s.baseCurrency, currency, ctx.lastTradingDay);
      const frequency = distributing ? s.frequency : 0;
      funds.push({
        id,
        type: "fund",
        name,
        isin: ident.isin,
        cusip: ident.cusip,
        country: s.domicile,
        sector: null,
        industry: null,
        currency,
        marketCap: aum,
        sharesOutstanding: units,
        isAdr: false,
        description:
          `${name} is a ${s.assetClass.toLowerCase()} fund managed by ${s.house.name} ` + `(category: ${s.category}).`,
        website: `https://www.${s.house.brand.toLowerCase()}.example/funds`,
        ipoDate: null,
        nextEarningsDate: null,
        rank: null,
        listings: [{ id: 0, securityId: id, symbol, exchange: "FUND", currency, isPrimary: true, quoteCurrency: null }],
        price,
        valueUsd: aum / perUsd,
        volatility: s.volatility,
        beta: s.beta,
        drift: s.assetClass === "Equity" ? 0.06 : 0.02,
        volume: Math.max(10, Math.round(units * cr.range(0.0005, 0.003))),
        profile: {
          fundCompany: s.house.name,
          category: s.category,
          assetClass: s.assetClass,
          aum,
          nav: price,
          navCurrency: currency,
          ongoingCharge: roundTo(
            (s.assetClass === "Money Market"
              ? cr.range(0.05, 0.3)
              : s.assetClass === "Fixed Income"
                ? cr.range(0.3, 1.1)
                : cr.range(0.6, 1.9)) * (institutional ? 0.5 : 1),
            2,
          ),
          entryCharge: institutional
            ? 0
            : us
              ? label === "Class A"
                ? 5.75
                : 0
              : roundTo(cr.pick([0, 0, 1, 2.5, 3, 5]), 2),
          inceptionDate: "",
          domicile: s.domicile,
          benchmark: s.benchmark,
          riskClass: s.riskClass,
          distributionPolicy: distributing ? "Distributing" : "Accumulating",
          minInvestment: institutional ? 1_000_000 : cr.pick([0, 100, 1_000, 2_500, 3_000]),
          holdingsDate: formatDay(holdingsDay),
          frequency,
          yieldPct: s.yieldPct,
        },
        holdings: rate === 1 ? s.holdings : s.holdings.scaled(rate),
      });
    }
  });

  assignInceptions(ctx, r.fork("inception"), funds);
  return funds;
}

/**
 * The largest funds carry full daily history, so they must predate the
 * history window; every fund is old enough for five years of distributions.
 */
function assignInceptions(ctx: SampleContext, r: Random, funds: Fund[]): void {
  const bySize = funds.slice().sort((a, b) => b.valueUsd - a.valueUsd);
  const old = new Set(bySize.slice(0, ctx.counts.fundsWithHistory).map((f) => f.id));
  const earliest = makeDay(1985, 1, 1);
  for (const f of funds) {
    const latest = old.has(f.id) || r.chance(0.6) ? ctx.historyStart - 30 : ctx.anchorDay - 6 * 366;
    const from = latest === ctx.historyStart - 30 ? earliest : ctx.historyStart;
    const day = onOrAfterWeekday(r.intBetween(from, latest));
    f.profile.inceptionDate = formatDay(day);
    f.ipoDate = f.profile.inceptionDate;
  }
}

function uniqueStrategyName(house: FundHouse, r: Random, base: string): string {
  for (const v of r.shuffle(VARIANTS.slice(1))) {
    const candidate = house.strategyNames.has(base) ? `${base} ${v}` : base;
    if (!house.strategyNames.has(candidate)) {
      house.strategyNames.add(candidate);
      return candidate;
    }
  }
  for (let k = 2; ; k++) {
    const candidate = `${base} ${k}`;
    if (!house.strategyNames.has(candidate)) {
      house.strategyNames.add(candidate);
      return candidate;
    }
  }
}

function makeStrategy(
  ctx: SampleContext,
  r: Random,
  house: FundHouse,
  pools: StockPools,
  bonds: readonly Bond[],
  etfs: readonly Etf[],
): Strategy {
  const assetClass = r.weighted(ASSET_CLASSES, ASSET_CLASS_WEIGHTS);
  const domicile = house.home === "LU" && r.chance(0.2) ? "IE" : house.home;
  const baseCurrency = baseCurrencyOf(house.home);
  // Few bonds are issued in francs or sterling here; such houses buy abroad.
  const inBaseCurrency = (b: Bond) => b.currency === baseCurrency || baseCurrency === "CHF" || baseCurrency === "GBP";
  const years = (b: Bond) => (b.maturityDay - ctx.anchorDay) / 365.25;
  const cash = (weight: number) => cashHolding(baseCurrency, weight);

  const stockRows = (pool: Stock[], count: number, share: number): WeightedHolding[] => {
    const picked = pool.slice(0, Math.min(pool.length, Math.floor(count * 1.6)));
    const chosen = r.sample(picked, Math.min(picked.length, count));
    let total = 0;
    const raw = chosen.map((s) => {
      const w = Math.sqrt(s.valueUsd) * r.logNormal(0, 0.5);
      total += w;
      return w;
    });
    return chosen.map((s, i) => stockHolding(ctx, s, baseCurrency, ((raw[i] as number) / total) * share));
  };
  const bondRows = (pool: readonly Bond[], count: number, share: number): WeightedHolding[] => {
    let chosen = r.sample(pool, count);
    // Narrow pools (inflation-linked in one currency) are topped up so that
    // every portfolio keeps at least ten positions.
    if (chosen.length < 9) {
      const taken = new Set(chosen);
      chosen = chosen.concat(
        r.sample(
          bonds.filter((b) => !taken.has(b)),
          9 - chosen.length,
        ),
      );
    }
    return chosen.map((b) => bondHolding(ctx, b, baseCurrency, (share / chosen.length) * r.range(0.7, 1.3)));
  };
  const etfRows = (count: number, share: number): WeightedHolding[] =>
    r.sample(etfs, count).map((e) => ({
      holdingSecurityId: e.id,
      symbol: e.listings[0]?.symbol ?? null,
      name: e.name,
      isin: e.isin,
      cusip: e.cusip,
      sector: null,
      country: e.country,
      assetClass: "Other" as const,
      unitPrice: e.price * ctx.fx.rate(e.currency, baseCurrency, ctx.lastTradingDay),
      raw: share / count,
    }));

  let name: string;
  let category: string;
  let benchmark: string;
  let riskClass: number;
  let volatility: number;
  let beta: number;
  let frequency: number;
  let yieldPct: number;
  let rows: WeightedHolding[];
  let popularity = r.logNormal(0, 0.8);
  const total = r.intBetween(10, 100);

  switch (assetClass) {
    case "Equity":
    case "Real Estate": {
      const regionName =
        house.home === "US"
          ? r.weighted(["USA", "World", "Emerging Markets", "Europe", "Asia"], [55, 20, 10, 10, 5])
          : r.weighted(
              [
                "World",
                "Europe",
                "Eurozone",
                "USA",
                "Emerging Markets",
                "Japan",
                "Germany",
                "UK",
                "Switzerland",
                "Asia",
                "China",
              ],
              [25, 20, 8, 15, 10, 5, 5, 4, 3, 3, 2],
            );
      const style = assetClass === "Real Estate" ? null : r.weighted(EQUITY_STYLES, EQUITY_STYLE_WEIGHTS);
      const select = style ? style.select : (p: Stock[]) => p.filter((s) => s.sector === "Real Estate");
      const key = `fund:${style ? style.word : "Real Estate"}`;
      let pool = pools.selected(regionName, key, select);
      if (pool.length < 15) pool = pools.selected("World", key, select);
      if (pool.length < 15) pool = pools.region("World");
      const adjective = REGION_ADJECTIVE[regionName] ?? regionName;
      if (regionName === "World" || regionName === "USA" || regionName === "Europe") popularity *= 2.5;
      if (style && !style.word) popularity *= 2;
      name = uniqueStrategyName(
        house,
        r,
        style ? `${adjective}${style.word ? ` ${style.word}` : ""} Equity` : `${adjective} Property Securities`,
      );
      category = style
        ? style.category(REGION_CATEGORY[regionName] ?? regionName)
        : `Property - Indirect ${REGION_CATEGORY[regionName] ?? regionName}`;
      const benchmarkWord = style?.word ? ` ${style.word}` : assetClass === "Real Estate" ? " Real Estate" : "";
      benchmark = `MDG ${regionName}${benchmarkWord} Index`;
      riskClass = regionName === "Emerging Markets" || regionName === "China" ? 6 : r.pick([5, 5, 6]);
      volatility = r.range(0.03, 0.08);
      beta = r.range(0.85, 1.15);
      frequency = r.pick([1, 1, 2, 4]);
      yieldPct = assetClass === "Real Estate" ? r.range(2.5, 4.5) : r.range(1, 3);
      const cashWeight = r.range(0.005, 0.04);
      rows = [...stockRows(pool, total - 1, 1 - cashWeight), cash(cashWeight)];
      break;
    }
    case "Fixed Income": {
      const type = r.pick(BOND_TYPES);
      const emerging = r.chance(0.1);
      const kinds = emerging ? (["emerging"] as Bond["kind"][]) : type.kinds;
      const pool = bonds.filter(
        (b) =>
          kinds.includes(b.kind) && inBaseCurrency(b) && (type.maxYears === undefined || years(b) <= type.maxYears),
      );
      const ccyWord =
        baseCurrency === "EUR"
          ? "Euro"
          : baseCurrency === "USD"
            ? "US"
            : baseCurrency === "GBP"
              ? "Sterling"
              : "Global";
      name = uniqueStrategyName(house, r, emerging ? "Emerging Markets Debt" : `${ccyWord} ${type.name}`);
      category = emerging ? "Global Emerging Markets Bond" : `${baseCurrency} ${type.name}`;
      benchmark = emerging ? "MDG Emerging Markets Sovereign Bond Index" : `MDG ${baseCurrency} ${type.name} Index`;
      riskClass = type.name === "High Yield Bond" || emerging ? 4 : r.pick([2, 3, 3]);
      volatility = r.range(0.03, 0.06);
      beta = r.range(0, 0.15);
      frequency = r.pick([4, 12, 12]);
      yieldPct = r.range(2.5, 5.5);
      const cashWeight = r.range(0.01, 0.05);
      rows = [...bondRows(pool, total - 1, 1 - cashWeight), cash(cashWeight)];
      break;
    }
    case "Allocation": {
      const [profile, equity] = r.pick([
        ["Cautious", 0.25],
        ["Balanced", 0.5],
        ["Dynamic", 0.75],
        ["Income", 0.4],
      ] as const);
      name = uniqueStrategyName(house, r, `${profile} Multi-Asset`);
      const riskWord =
        profile === "Dynamic"
          ? "Aggressive"
          : profile === "Balanced"
            ? "Moderate"
            : profile === "Income"
              ? "Flexible"
              : "Cautious";
      category = `${baseCurrency} ${riskWord} Allocation`;
      benchmark =
        `${Math.round(equity * 100)}% MDG World Index / ` +
        `${Math.round((1 - equity) * 100)}% MDG Global Aggregate Bond Index`;
      riskClass = equity >= 0.7 ? 5 : equity >= 0.45 ? 4 : 3;
      popularity *= 2;
      volatility = r.range(0.02, 0.04);
      beta = equity * r.range(0.9, 1.1);
      frequency = 4;
      yieldPct = r.range(1.5, 3.5);
      const nEtfs = Math.min(etfs.length, r.intBetween(1, 5));
      const nStocks = Math.max(5, Math.floor((total - nEtfs - 1) * 0.6));
      const nBonds = Math.max(4, total - nEtfs - 1 - nStocks);
      const other = 0.08;
      const cashWeight = r.range(0.01, 0.05);
      rows = [
        ...stockRows(pools.region("World"), nStocks, equity * (1 - other - cashWeight)),
        ...bondRows(
          bonds.filter((b) => b.kind !== "emerging" && inBaseCurrency(b)),
          nBonds,
          (1 - equity) * (1 - other - cashWeight),
        ),
        ...etfRows(nEtfs, other),
        cash(cashWeight),
      ];
      break;
    }
    case "Money Market": {
      const pool = bonds.filter(
        (b) => (b.kind === "government" || b.kind === "corporate") && inBaseCurrency(b) && years(b) <= 1.5,
      );
      const ccyWord =
        baseCurrency === "EUR"
          ? "Euro"
          : baseCurrency === "USD"
            ? "US Dollar"
            : baseCurrency === "GBP"
              ? "Sterling"
              : "Swiss Franc";
      name = uniqueStrategyName(house, r, `${ccyWord} Liquidity`);
      category = `${baseCurrency} Money Market`;
      benchmark = `MDG ${baseCurrency} 1-Month Deposit Rate`;
      riskClass = 1;
      volatility = 0.003;
      beta = 0;
      frequency = 12;
      yieldPct = r.range(2, 4.5);
      const cashWeight = r.range(0.1, 0.3);
      rows = [...bondRows(pool, Math.min(total - 1, 40), 1 - cashWeight), cash(cashWeight)];
      break;
    }
    case "Alternative": {
      const kind = r.pick(["Global Macro", "Commodity Strategy", "Absolute Return"]);
      name = uniqueStrategyName(house, r, kind);
      category =
        kind === "Commodity Strategy"
          ? "Commodities Broad Basket"
          : kind === "Global Macro"
            ? "Macro Trading"
            : "Multistrategy";
      benchmark = `MDG ${baseCurrency} 3-Month Deposit Rate`;
      riskClass = r.pick([3, 4, 5]);
      volatility = r.range(0.05, 0.1);
      beta = r.range(0.1, 0.4);
      frequency = 1;
      yieldPct = r.range(0.5, 2);
      const cashWeight = r.range(0.05, 0.2);
      const futures = futuresHoldings(
        ctx,
        r,
        COMMODITIES.slice(0, 12),
        Math.max(4, Math.floor(total / 3)),
        baseCurrency,
      );
      let futuresTotal = 0;
      for (const f of futures) futuresTotal += f.raw;
      for (const f of futures) f.raw = (f.raw / futuresTotal) * 0.4;
      rows = [
        ...futures,
        ...etfRows(Math.min(etfs.length, r.intBetween(2, 6)), 0.2),
        ...bondRows(
          bonds.filter((b) => b.kind === "government" && inBaseCurrency(b)),
          Math.max(3, Math.floor(total / 3)),
          0.4 - cashWeight,
        ),
        cash(cashWeight),
      ];
      break;
    }
  }

  return {
    house,
    name,
    assetClass,
    category,
    benchmark,
    domicile,
    baseCurrency,
    riskClass,
    volatility,
    beta,
    holdings: finishHoldings(ctx, rows),
    frequency,
    yieldPct,
    popularity,
  };
}
