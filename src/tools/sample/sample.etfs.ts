import { formatDay, makeDay, onOrAfterWeekday } from "../../sources/sample/sample.calendar";
import type { SampleContext } from "./sample.context";
import {
  bondHolding,
  type Bond,
  COMMODITIES,
  type Commodity,
  finishHoldings,
  futuresHoldings,
  StockPools,
  stockHolding,
  type WeightedHolding,
} from "./sample.holdings";
import { currencyDigits, exchange } from "../../sources/sample/sample.markets";
import type { Etf, Listing, Stock } from "./sample.model";
import { ETF_ISSUERS } from "./sample.names";
import { interpolate, roundPrice, roundTo } from "../../sources/sample/sample.numbers";
import type { Random } from "../../sources/sample/sample.random";

/** ETFs: profiles, listings and portfolios built from the stock and bond universes. */

type AssetClass = "Equity" | "Fixed Income" | "Commodity" | "Multi-Asset" | "Real Estate";
const ASSET_CLASSES: readonly AssetClass[] = ["Equity", "Fixed Income", "Commodity", "Multi-Asset", "Real Estate"];
const ASSET_CLASS_WEIGHTS = [70, 18, 4, 4, 4];

type Domicile = "US" | "IE" | "LU" | "CA" | "JP" | "AU" | "HK";
const DOMICILES: readonly Domicile[] = ["US", "IE", "LU", "CA", "JP", "AU", "HK"];
const DOMICILE_WEIGHTS = [40, 35, 15, 4, 2, 2, 2];

/** Equity regions by domicile: home markets dominate. */
const EQUITY_REGIONS: Readonly<Record<Domicile, readonly [string, number][]>> = {
  US: [
    ["USA", 60],
    ["World", 10],
    ["Emerging Markets", 8],
    ["Europe", 5],
    ["Japan", 4],
    ["China", 3],
    ["Canada", 2],
    ["Asia", 3],
    ["Eurozone", 2],
    ["UK", 2],
    ["Germany", 1],
  ],
  IE: [
    ["World", 25],
    ["USA", 20],
    ["Europe", 20],
    ["Eurozone", 8],
    ["Emerging Markets", 8],
    ["Japan", 5],
    ["UK", 4],
    ["Germany", 3],
    ["Switzerland", 2],
    ["Pacific ex-Japan", 3],
    ["Asia", 2],
  ],
  LU: [
    ["World", 25],
    ["USA", 20],
    ["Europe", 20],
    ["Eurozone", 8],
    ["Emerging Markets", 8],
    ["Japan", 5],
    ["UK", 4],
    ["Germany", 3],
    ["Switzerland", 2],
    ["Pacific ex-Japan", 3],
    ["Asia", 2],
  ],
  CA: [
    ["Canada", 60],
    ["USA", 25],
    ["World", 15],
  ],
  JP: [
    ["Japan", 80],
    ["World", 10],
    ["USA", 10],
  ],
  AU: [
    ["Australia", 70],
    ["World", 15],
    ["USA", 15],
  ],
  HK: [
    ["China", 60],
    ["Asia", 40],
  ],
};

const BOND_REGIONS: Readonly<Record<Domicile, readonly [string, number][]>> = {
  US: [
    ["USD", 70],
    ["Global", 15],
    ["Emerging Markets", 15],
  ],
  IE: [
    ["EUR", 40],
    ["USD", 25],
    ["Global", 20],
    ["GBP", 8],
    ["Emerging Markets", 7],
  ],
  LU: [
    ["EUR", 40],
    ["USD", 25],
    ["Global", 20],
    ["GBP", 8],
    ["Emerging Markets", 7],
  ],
  CA: [
    ["CAD", 70],
    ["USD", 30],
  ],
  JP: [
    ["JPY", 70],
    ["Global", 30],
  ],
  AU: [
    ["AUD", 70],
    ["Global", 30],
  ],
  HK: [
    ["USD", 60],
    ["Global", 40],
  ],
};

interface EquityTheme {
  name: string;
  weight: number;
  count: readonly [number, number];
  select: (pool: Stock[]) => Stock[];
  equalWeight?: boolean;
  /** One sector or industry: more idiosyncratic risk than a broad index. */
  concentrated?: boolean;
}

const bySector = (sector: string) => (pool: Stock[]) => pool.filter((s) => s.sector === sector);
const byIndustry = (industry: string) => (pool: Stock[]) => pool.filter((s) => s.industry === industry);

const EQUITY_THEMES: readonly EquityTheme[] = [
  { name: "Equity", weight: 20, count: [120, 200], select: (p) => p },
  { name: "Large Cap", weight: 6, count: [50, 120], select: (p) => p },
  { name: "Mid Cap", weight: 4, count: [80, 200], select: (p) => p.slice(Math.floor(p.length * 0.05)) },
  { name: "Small Cap", weight: 5, count: [100, 200], select: (p) => p.slice(Math.floor(p.length * 0.3)) },
  { name: "Value", weight: 4, count: [60, 200], select: (p) => p.filter((s) => s.value > 0.55) },
  { name: "Growth", weight: 4, count: [60, 200], select: (p) => p.filter((s) => s.value < 0.45) },
  { name: "Quality", weight: 3, count: [50, 150], select: (p) => p.filter((s) => s.quality > 0.6) },
  { name: "Momentum", weight: 3, count: [50, 150], select: (p) => p.filter((s) => s.momentum > 0.6) },
  {
    name: "Minimum Volatility",
    weight: 3,
    count: [60, 200],
    select: (p) => p.filter((s) => s.volatility < 0.3 && s.beta < 1),
  },
  {
    name: "High Dividend",
    weight: 4,
    count: [40, 120],
    select: (p) =>
      p.filter(
        (s) =>
          s.sector === "Utilities" ||
          s.sector === "Consumer Staples" ||
          s.sector === "Financials" ||
          s.sector === "Energy" ||
          s.value > 0.7,
      ),
  },
  {
    name: "ESG Leaders",
    weight: 4,
    count: [80, 200],
    select: (p) => p.filter((s) => s.sector !== "Energy" && s.esg > 0.3),
  },
  { name: "Equal Weight", weight: 2, count: [50, 100], select: (p) => p, equalWeight: true },
  {
    name: "Information Technology",
    weight: 3,
    count: [25, 80],
    select: bySector("Information Technology"),
    concentrated: true,
  },
  { name: "Health Care", weight: 3, count: [25, 80], select: bySector("Health Care"), concentrated: true },
  { name: "Financials", weight: 3, count: [25, 80], select: bySector("Financials"), concentrated: true },
  { name: "Energy", weight: 2, count: [20, 60], select: bySector("Energy"), concentrated: true },
  { name: "Industrials", weight: 2, count: [25, 80], select: bySector("Industrials"), concentrated: true },
  { name: "Consumer Staples", weight: 2, count: [20, 60], select: bySector("Consumer Staples"), concentrated: true },
  {
    name: "Consumer Discretionary",
    weight: 2,
    count: [25, 80],
    select: bySector("Consumer Discretionary"),
    concentrated: true,
  },
  { name: "Utilities", weight: 1, count: [15, 50], select: bySector("Utilities"), concentrated: true },
  { name: "Materials", weight: 1, count: [20, 60], select: bySector("Materials"), concentrated: true },
  {
    name: "Communication Services",
    weight: 1,
    count: [15, 50],
    select: bySector("Communication Services"),
    concentrated: true,
  },
  { name: "Semiconductors", weight: 2, count: [20, 50], select: byIndustry("Semiconductors"), concentrated: true },
  { name: "Biotechnology", weight: 1, count: [30, 120], select: byIndustry("Biotechnology"), concentrated: true },
  { name: "Banks", weight: 1, count: [25, 80], select: byIndustry("Banks"), concentrated: true },
  { name: "Clean Energy", weight: 2, count: [25, 80], select: byIndustry("Renewable Electricity"), concentrated: true },
  { name: "Cloud Computing", weight: 1, count: [25, 60], select: byIndustry("Software"), concentrated: true },
];

const BOND_THEMES: readonly { name: string; kinds: readonly Bond["kind"][]; maxYears?: number; minYears?: number }[] = [
  { name: "Government Bond", kinds: ["government"] },
  { name: "Treasury 1-3yr", kinds: ["government"], maxYears: 3 },
  { name: "Treasury 7-10yr", kinds: ["government"], minYears: 7, maxYears: 10 },
  { name: "Corporate Bond", kinds: ["corporate"] },
  { name: "High Yield Corporate Bond", kinds: ["high-yield"] },
  { name: "Aggregate Bond", kinds: ["government", "corporate", "inflation"] },
  { name: "Inflation Linked Bond", kinds: ["inflation"] },
  { name: "Ultrashort Bond", kinds: ["government", "corporate"], maxYears: 1.5 },
];

const COMMODITY_THEMES: readonly { name: string; pick: (c: Commodity) => boolean }[] = [
  { name: "Broad Commodities", pick: () => true },
  { name: "Gold", pick: (c) => c.name === "Gold" },
  { name: "Precious Metals", pick: (c) => c.group === "Precious Metals" },
  { name: "Energy Commodities", pick: (c) => c.group === "Energy" },
  { name: "Crude Oil", pick: (c) => c.root === "CL" || c.root === "CO" },
  { name: "Agriculture", pick: (c) => c.group === "Agriculture" },
  { name: "Industrial Metals", pick: (c) => c.group === "Industrial Metals" },
];

const MULTI_ASSET_THEMES: readonly [string, number][] = [
  ["Conservative 30/70", 0.3],
  ["Balanced 60/40", 0.6],
  ["Growth 80/20", 0.8],
  ["Income Allocation", 0.4],
];

/** log10(rank in a full-size universe) -> log10(AUM in USD). */
const AUM_KNOTS: readonly (readonly [number, number])[] = [
  [0, 11.7],
  [1, 11.0],
  [2, 10.2],
  [2.7, 9.3],
  [3.18, 7.5],
];
const FULL_ETF_COUNT = 1_500;

function primaryExchangeFor(d: Domicile, r: Random): string {
  switch (d) {
    case "US":
      return r.chance(0.7) ? "XNYS" : "XNAS";
    case "IE":
    case "LU":
      return r.weighted(["XETR", "XLON", "XSWX", "XPAR", "XAMS"], [35, 35, 10, 10, 10]);
    case "CA":
      return "XTSE";
    case "JP":
      return "XTKS";
    case "AU":
      return "XASX";
    case "HK":
      return "XHKG";
  }
}

function etfSymbol(ctx: SampleContext, exCode: string, letters: string): string {
  const s = ctx.symbols;
  const sfx = exchange(exCode).suffix;
  switch (exCode) {
    case "XNYS":
    case "XNAS":
      return s.usTicker(letters, 4);
    case "XETR":
      return s.letterSymbol(letters, sfx, 4, 4);
    case "XLON":
      return s.letterSymbol(letters, sfx, 4, 4);
    case "XSWX":
      return s.letterSymbol(letters, sfx, 4, 5);
    case "XPAR":
      return s.letterSymbol(letters, sfx, 3, 4);
    case "XAMS":
      return s.letterSymbol(letters, sfx, 4, 4);
    case "XTSE":
      return s.letterSymbol(letters, sfx, 3, 4);
    case "XASX":
      return s.letterSymbol(letters, sfx, 3, 3);
    case "XTKS":
      return s.numericSymbol(sfx, 1300, 2999, 4);
    case "XHKG":
      return s.numericSymbol(sfx, 2800, 3199, 4);
    default:
      throw new Error(`No ETF symbols on ${exCode}`);
  }
}

const initials = (text: string) =>
  text
    .split(/[\s/-]+/)
    .map((w) => w.charAt(0))
    .join("")
    .toUpperCase();

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

interface Draft {
  domicile: Domicile;
  assetClass: AssetClass;
  regionName: string;
  theme: string;
  score: number;
  holdings: (currency: string, r: Random) => WeightedHolding[];
  volatility: number;
  beta: number;
}

export function generateEtfs(
  ctx: SampleContext,
  stocks: readonly Stock[],
  bonds: readonly Bond[],
  firstId: number,
): Etf[] {
  const r = ctx.rng("etfs");
  const n = ctx.counts.etfs;
  const pools = new StockPools(stocks);
  const names = new Set<string>();

  const drafts: Draft[] = [];
  for (let i = 0; i < n; i++) {
    const dr = r.fork(i);
    const domicile = dr.weighted(DOMICILES, DOMICILE_WEIGHTS);
    const assetClass = dr.weighted(ASSET_CLASSES, ASSET_CLASS_WEIGHTS);
    drafts.push(draftEtf(ctx, dr, pools, bonds, domicile, assetClass));
  }

  // Broad, home-market funds gather the most assets.
  const aumOrder = drafts.map((d, i) => ({ i, score: d.score })).sort((a, b) => b.score - a.score);
  const aumUsd = new Float64Array(n);
  aumOrder.forEach((x, k) => {
    const fullRank = (k + 1) * (FULL_ETF_COUNT / n);
    aumUsd[x.i] = 10 ** interpolate(AUM_KNOTS, Math.log10(fullRank)) * Math.exp(0.1 * r.normal());
  });

  const etfs: Etf[] = [];
  for (let i = 0; i < n; i++) {
    const d = drafts[i] as Draft;
    const er = r.fork(`etf-${i}`);
    const ucits = d.domicile === "IE" || d.domicile === "LU";
    const exCode = primaryExchangeFor(d.domicile, er);
    const currency = exchange(exCode).currency;
    const issuer = er.pick(ETF_ISSUERS);
    const distributing =
      d.assetClass === "Commodity" ? false : ucits ? er.chance(0.5) : er.chance(d.domicile === "US" ? 0.9 : 0.8);

    const policyTag = distributing ? "(Dist)" : "(Acc)";
    const regionPart = d.assetClass === "Commodity" ? "" : `${d.regionName} `;
    let name = "";
    for (const variant of ["", "Core ", "Select ", "Enhanced ", "Screened ", "Prime ", "Plus "]) {
      name = ucits
        ? `${issuer} ${variant}${regionPart}${d.theme} UCITS ETF ${policyTag}`
        : `${issuer} ${variant}${regionPart}${d.theme} ETF`;
      if (!names.has(name)) break;
    }
    for (let k = 2; names.has(name); k++) name = name.replace(/ ETF/, ` ETF ${k === 2 ? "II" : k}`);
    names.add(name);

    const perUsd = ctx.fx.perUsd(currency, ctx.lastTradingDay);
    const base = currencyDigits(currency) === 0 ? 0 : 2;
    const price = roundPrice(Math.min(600, Math.max(5, er.logNormal(Math.log(40), 0.7))) * perUsd, base);
    const aumLocal = (aumUsd[i] as number) * perUsd;
    const shares = Math.max(10_000, Math.round(aumLocal / price));
    const aum = roundTo(shares * price, 2);
    const holdingsRaw = d.holdings(currency, er);
    const holdings = finishHoldings(ctx, holdingsRaw);

    const letters = initials(issuer) + initials(`${d.regionName} ${d.theme}`) + issuer.slice(1).toUpperCase();
    const listings: Listing[] = [];
    const mkListing = (ex: string, isPrimary: boolean): Listing => ({
      id: 0,
      securityId: firstId + i,
      symbol: etfSymbol(ctx, ex, letters),
      exchange: ex,
      currency: exchange(ex).currency,
      isPrimary,
      quoteCurrency: null,
    });
    listings.push(mkListing(exCode, true));
    if (ucits && er.chance(0.5)) {
      const others = ["XETR", "XLON", "XSWX", "XPAR", "XAMS"].filter((x) => x !== exCode);
      for (const ex of er.sample(others, er.intBetween(1, 2))) listings.push(mkListing(ex, false));
    }

    const ident =
      d.domicile === "US" ? ctx.ids.cusipIsin("US", "fund") : { cusip: null, isin: ctx.ids.isin(d.domicile) };
    const inception = onOrAfterWeekday(er.intBetween(makeDay(1995, 1, 1), ctx.historyStart - 60));
    const benchmark =
      d.assetClass === "Commodity" ? `MDG ${d.theme} Total Return Index` : `MDG ${d.regionName} ${d.theme} Index`;
    const expenseRatio = roundTo(
      d.assetClass === "Commodity"
        ? er.range(0.2, 0.85)
        : d.assetClass === "Fixed Income"
          ? er.range(0.03, 0.4)
          : d.theme === "Equity" || d.theme === "Large Cap"
            ? er.range(0.03, 0.25)
            : er.range(0.12, 0.65),
      2,
    );
    const frequency = !distributing
      ? 0
      : d.assetClass === "Fixed Income"
        ? 12
        : d.domicile === "US" || d.assetClass === "Real Estate" || d.assetClass === "Multi-Asset"
          ? 4
          : er.weighted([1, 2, 4], [30, 30, 40]);
    const yieldPct =
      d.assetClass === "Fixed Income"
        ? er.range(2.5, 5)
        : d.assetClass === "Real Estate"
          ? er.range(2.5, 4.5)
          : er.range(1.2, 3);

    const etf: Etf = {
      id: firstId + i,
      type: "etf",
      name,
      isin: ident.isin,
      cusip: ident.cusip,
      country: d.domicile,
      sector: null,
      industry: null,
      currency,
      marketCap: aum,
      sharesOutstanding: shares,
      isAdr: false,
      description:
        `${name} seeks to track the ${benchmark}. It holds ${holdings.length} positions ` +
        `and ${distributing ? "distributes its income" : "reinvests its income"}.`,
      website: `https://www.${slug(issuer)}-etfs.example`,
      ipoDate: formatDay(inception),
      nextEarningsDate: null,
      rank: null,
      listings,
      price,
      valueUsd: aum / perUsd,
      volatility: d.volatility,
      beta: d.beta,
      drift: d.assetClass === "Fixed Income" ? 0.01 : 0.06,
      volume: Math.max(500, Math.round(shares * er.range(0.003, 0.02))),
      profile: {
        issuer,
        assetClass: d.assetClass,
        aum,
        nav: roundPrice(price * (1 + 0.0008 * er.normal()), base),
        navCurrency: currency,
        expenseRatio,
        inceptionDate: formatDay(inception),
        domicile: d.domicile,
        replication:
          d.assetClass === "Commodity"
            ? "Synthetic"
            : er.weighted(
                ["Physical (full)", "Physical (sampling)", "Synthetic"],
                holdings.length >= 150 ? [30, 60, 10] : [70, 20, 10],
              ),
        distributionPolicy: distributing ? "Distributing" : "Accumulating",
        benchmark,
        holdingsDate: formatDay(ctx.lastTradingDay),
        frequency,
        yieldPct,
      },
      holdings,
    };
    etfs.push(etf);
  }
  return etfs;
}

function draftEtf(
  ctx: SampleContext,
  r: Random,
  pools: StockPools,
  bonds: readonly Bond[],
  domicile: Domicile,
  assetClass: AssetClass,
): Draft {
  // The largest ETFs are broad, US-listed or UCITS, equity index funds.
  const homeBonus = domicile === "US" ? 3 : domicile === "IE" || domicile === "LU" ? 2 : 1;
  const broad = (name: string) =>
    name === "Equity" || name === "Large Cap" || name === "Government Bond" || name === "Aggregate Bond" ? 4 : 1;
  switch (assetClass) {
    case "Equity":
    case "Real Estate": {
      const regionName = r.weighted(
        EQUITY_REGIONS[domicile].map((x) => x[0]),
        EQUITY_REGIONS[domicile].map((x) => x[1]),
      );
      const theme: EquityTheme =
        assetClass === "Real Estate"
          ? {
              name: r.pick(["Real Estate", "REIT", "Property"]),
              weight: 1,
              count: [20, 80],
              select: bySector("Real Estate"),
              concentrated: true,
            }
          : r.weighted(
              EQUITY_THEMES,
              EQUITY_THEMES.map((t) => t.weight),
            );
      const sectorTheme = theme.concentrated === true;
      return {
        domicile,
        assetClass,
        regionName,
        theme: theme.name,
        score:
          r.logNormal(0, 0.8) *
          broad(theme.name) *
          (regionName === "World" || regionName === "USA" ? 3 : 1) *
          homeBonus,
        volatility: sectorTheme ? r.range(0.08, 0.14) : r.range(0.03, 0.07),
        beta: sectorTheme ? r.range(0.8, 1.3) : r.range(0.85, 1.1),
        holdings: (currency, hr) => {
          let pool = pools.selected(regionName, theme.name, theme.select);
          if (pool.length < theme.count[0]) pool = pools.selected("World", theme.name, theme.select);
          if (pool.length < 10) pool = pools.region("World");
          const count = Math.min(pool.length, hr.intBetween(theme.count[0], theme.count[1]));
          return pool
            .slice(0, count)
            .map((s) => stockHolding(ctx, s, currency, theme.equalWeight ? hr.range(0.95, 1.05) : s.valueUsd ** 0.9));
        },
      };
    }
    case "Fixed Income": {
      const regionName = r.weighted(
        BOND_REGIONS[domicile].map((x) => x[0]),
        BOND_REGIONS[domicile].map((x) => x[1]),
      );
      const theme =
        regionName === "Emerging Markets"
          ? { name: "Government Bond", kinds: ["emerging"] as Bond["kind"][] }
          : r.pick(BOND_THEMES);
      return {
        domicile,
        assetClass,
        regionName,
        theme: theme.name,
        score: r.logNormal(0, 0.8) * broad(theme.name) * (regionName === "USD" ? 2 : 1) * homeBonus * 0.6,
        volatility: r.range(0.03, 0.07),
        beta: r.range(0.0, 0.15),
        holdings: (currency, hr) => {
          const years = (b: Bond) => (b.maturityDay - ctx.anchorDay) / 365.25;
          const matches = (b: Bond) =>
            theme.kinds.includes(b.kind) &&
            (regionName === "Global" || regionName === "Emerging Markets" || b.currency === regionName) &&
            (theme.maxYears === undefined || years(b) <= theme.maxYears) &&
            (theme.minYears === undefined || years(b) >= theme.minYears);
          let pool = bonds.filter(matches);
          if (pool.length < 10) pool = bonds.filter((b) => theme.kinds.includes(b.kind));
          if (pool.length < 10) pool = bonds.slice();
          const count = Math.min(pool.length, hr.intBetween(40, 200));
          return hr.sample(pool, count).map((b) => bondHolding(ctx, b, currency, hr.logNormal(0, 0.6)));
        },
      };
    }
    case "Commodity": {
      const theme = r.pick(COMMODITY_THEMES);
      return {
        domicile,
        assetClass,
        regionName: "Global",
        theme: theme.name,
        score: r.logNormal(0, 0.8) * (theme.name === "Gold" ? 2 : 1) * homeBonus * 0.5,
        volatility: r.range(0.12, 0.22),
        beta: r.range(0.1, 0.4),
        holdings: (currency, hr) => {
          const picked = COMMODITIES.filter(theme.pick);
          return futuresHoldings(ctx, hr, picked, Math.max(10, Math.min(30, picked.length * 3)), currency);
        },
      };
    }
    case "Multi-Asset": {
      const [themeName, equityShare] = r.pick(MULTI_ASSET_THEMES);
      const regionName = r.pick(["World", "USA", "Europe"]);
      return {
        domicile,
        assetClass,
        regionName,
        theme: themeName,
        score: r.logNormal(0, 0.8) * homeBonus * 0.5,
        volatility: r.range(0.03, 0.05),
        beta: equityShare * r.range(0.9, 1.1),
        holdings: (currency, hr) => {
          const stockPool = pools.region(regionName);
          const nStocks = Math.min(stockPool.length, hr.intBetween(20, 70));
          const chosenStocks = stockPool.slice(0, nStocks);
          const govs = bonds.filter((b) => b.kind === "government" || b.kind === "corporate");
          const chosenBonds = hr.sample(govs, hr.intBetween(10, 60));
          let stockTotal = 0;
          for (const s of chosenStocks) stockTotal += s.valueUsd ** 0.9;
          const out: WeightedHolding[] = chosenStocks.map((s) =>
            stockHolding(ctx, s, currency, (s.valueUsd ** 0.9 / stockTotal) * equityShare),
          );
          for (const b of chosenBonds) out.push(bondHolding(ctx, b, currency, (1 - equityShare) / chosenBonds.length));
          return out;
        },
      };
    }
  }
}
