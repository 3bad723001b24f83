import { formatDay, makeDay, monthOf, yearOf } from "../../sources/sample/sample.calendar";
import type { SampleContext } from "./sample.context";
import { assertReferenceCodes, countryName } from "../../sources/sample/sample.markets";
import { HoldingSet, type HoldingRow, type HoldingTemplate, type Stock } from "./sample.model";
import { allocateWeightUnits, roundTo } from "../../sources/sample/sample.numbers";
import type { Random } from "../../sources/sample/sample.random";
import { ADR_COUNTRIES } from "./sample.securities";

/**
 * Building blocks shared by ETF and fund portfolios: regional stock pools,
 * a bond universe (bonds are not securities of their own, so their holdings
 * carry no holding_security_id), commodity futures and cash.
 */

export interface Region {
  name: string;
  /** Domicile countries; null = everywhere. */
  countries: readonly string[] | null;
}

const EUROZONE = ["DE", "FR", "NL", "IE", "ES", "IT", "FI"];
const EMERGING = ["CN", "IN", "BR", "KR", "TW", "MX", "ZA", "AR"];
assertReferenceCodes([...EUROZONE, ...EMERGING], []);

export const REGIONS: readonly Region[] = [
  { name: "World", countries: null },
  { name: "USA", countries: ["US"] },
  {
    name: "Europe",
    countries: [
      "DE",
      "FR",
      "NL",
      "CH",
      "GB",
      ...ADR_COUNTRIES.filter((c) => EUROZONE.includes(c) || ["SE", "DK", "NO"].includes(c)),
    ],
  },
  { name: "Eurozone", countries: EUROZONE },
  { name: "Japan", countries: ["JP"] },
  { name: "UK", countries: ["GB"] },
  { name: "Germany", countries: ["DE"] },
  { name: "Switzerland", countries: ["CH"] },
  { name: "Canada", countries: ["CA"] },
  { name: "Australia", countries: ["AU"] },
  { name: "Pacific ex-Japan", countries: ["AU", "HK", "SG"] },
  { name: "Emerging Markets", countries: EMERGING },
  { name: "China", countries: ["CN", "HK"] },
  { name: "Asia", countries: ["JP", "HK", "CN", "KR", "TW", "IN", "SG"] },
];

export function region(name: string): Region {
  const r = REGIONS.find((x) => x.name === name);
  if (!r) throw new Error(`Unknown region ${name}`);
  return r;
}

/** Stocks per region, largest first. */
export class StockPools {
  private readonly pools = new Map<string, Stock[]>();

  constructor(private readonly stocks: readonly Stock[]) {}

  region(name: string): Stock[] {
    let pool = this.pools.get(name);
    if (!pool) {
      const countries = region(name).countries;
      const set = countries ? new Set(countries) : null;
      pool = this.stocks.filter((s) => !s.recentIpo && !s.upcomingIpo && (!set || set.has(s.country ?? "")));
      this.pools.set(name, pool);
    }
    return pool;
  }

  /**
   * `select` applied to a region's pool, cached under `key`: thousands of
   * portfolios share a few dozen (region, theme) pools, and filtering the
   * full universe for each of them dominated planning time.
   */
  selected(name: string, key: string, select: (pool: Stock[]) => Stock[]): Stock[] {
    const cacheKey = `${name}|${key}`;
    let pool = this.pools.get(cacheKey);
    if (!pool) {
      pool = select(this.region(name));
      this.pools.set(cacheKey, pool);
    }
    return pool;
  }
}

export interface Bond {
  name: string;
  isin: string;
  cusip: string | null;
  country: string;
  sector: string | null;
  currency: string;
  /** Clean price per 100 nominal. */
  price: number;
  kind: "government" | "inflation" | "emerging" | "corporate" | "high-yield";
  maturityDay: number;
}

const GOVERNMENTS: readonly (readonly [string, string])[] = [
  ["US", "USD"],
  ["DE", "EUR"],
  ["FR", "EUR"],
  ["NL", "EUR"],
  ["IT", "EUR"],
  ["ES", "EUR"],
  ["BE", "EUR"],
  ["AT", "EUR"],
  ["FI", "EUR"],
  ["IE", "EUR"],
  ["GB", "GBP"],
  ["JP", "JPY"],
  ["CA", "CAD"],
  ["AU", "AUD"],
  ["CH", "CHF"],
  ["SE", "SEK"],
  ["NO", "NOK"],
];
const EMERGING_SOVEREIGNS = ["BR", "MX", "ZA", "IN", "ID", "TR", "CO", "CL", "PE", "PH"];
const INFLATION_LINKED = ["US", "GB", "FR", "DE", "IT"];
assertReferenceCodes(
  [...GOVERNMENTS.map((g) => g[0]), ...EMERGING_SOVEREIGNS],
  GOVERNMENTS.map((g) => g[1]),
);

const BASE_YIELD: Readonly<Record<string, number>> = {
  USD: 4.2,
  EUR: 2.8,
  GBP: 4.3,
  JPY: 1.0,
  CAD: 3.4,
  AUD: 4.1,
  CHF: 0.8,
  SEK: 2.4,
  NOK: 3.8,
};

function bondCurrencyFor(country: string): string {
  if (EUROZONE.includes(country)) return "EUR";
  if (country === "GB") return "GBP";
  if (country === "CH") return "CHF";
  if (country === "JP") return "JPY";
  if (country === "CA") return "CAD";
  if (country === "AU") return "AUD";
  return "USD";
}

export function generateBonds(ctx: SampleContext, stocks: readonly Stock[]): Bond[] {
  const r = ctx.rng("bonds");
  const bonds: Bond[] = [];
  const startYear = yearOf(ctx.anchorDay);
  const make = (
    issuerText: string,
    country: string,
    sector: string | null,
    currency: string,
    kind: Bond["kind"],
    spread: number,
  ): void => {
    const years = kind === "government" ? r.intBetween(1, 30) : r.intBetween(1, 12);
    const maturityDay = makeDay(startYear + years, r.intBetween(1, 12), 15);
    const y = (BASE_YIELD[currency] ?? 4) + spread + 0.05 * years;
    // Coupons are set in eighths of a percent at issue, near the yield of the day.
    const coupon = Math.max(0.125, Math.round((y + r.range(-1.5, 1.0)) * 8) / 8);
    const price = roundTo(Math.min(130, Math.max(60, 100 + (coupon - y) * Math.min(years, 15) * 0.85)), 3);
    const couponText = (Math.round(coupon * 1000) / 1000).toFixed(3);
    const ident = country === "US" ? ctx.ids.cusipIsin("US", "bond") : { cusip: null, isin: ctx.ids.isin(country) };
    bonds.push({
      name: `${issuerText} ${couponText}% ${formatDay(maturityDay)}`,
      isin: ident.isin,
      cusip: ident.cusip,
      country,
      sector,
      currency,
      price,
      kind,
      maturityDay,
    });
  };
  for (const [country, currency] of GOVERNMENTS) {
    const n = Math.max(6, Math.round(25 * Math.sqrt(ctx.scale)));
    for (let i = 0; i < n; i++)
      make(`${countryName(country)} Government Bond`, country, null, currency, "government", 0);
  }
  for (const country of INFLATION_LINKED) {
    for (let i = 0; i < 6; i++)
      make(`${countryName(country)} Inflation-Linked Bond`, country, null, bondCurrencyFor(country), "inflation", -1.5);
  }
  for (const country of EMERGING_SOVEREIGNS) {
    for (let i = 0; i < 8; i++) make(`${countryName(country)} USD Bond`, country, null, "USD", "emerging", 2.5);
  }
  const issuers = stocks.filter((s) => !s.recentIpo && !s.upcomingIpo).slice(0, ctx.counts.corporateBonds);
  for (const s of issuers) {
    const highYield = s.order > issuers.length / 3 && r.chance(0.5);
    const country = s.country ?? "US";
    make(
      s.shortName,
      country,
      s.sector,
      bondCurrencyFor(country),
      highYield ? "high-yield" : "corporate",
      highYield ? 3.5 : 1.1,
    );
  }
  return bonds;
}

export interface Commodity {
  name: string;
  root: string;
  /** Rough USD price of one unit. */
  price: number;
  country: string;
  group: "Precious Metals" | "Energy" | "Industrial Metals" | "Agriculture";
}

export const COMMODITIES: readonly Commodity[] = [
  { name: "Gold", root: "GC", price: 2000, country: "US", group: "Precious Metals" },
  { name: "Silver", root: "SI", price: 25, country: "US", group: "Precious Metals" },
  { name: "Platinum", root: "PL", price: 950, country: "US", group: "Precious Metals" },
  { name: "Palladium", root: "PA", price: 1000, country: "US", group: "Precious Metals" },
  { name: "WTI Crude Oil", root: "CL", price: 75, country: "US", group: "Energy" },
  { name: "Brent Crude Oil", root: "CO", price: 80, country: "GB", group: "Energy" },
  { name: "Natural Gas", root: "NG", price: 3, country: "US", group: "Energy" },
  { name: "Heating Oil", root: "HO", price: 2.5, country: "US", group: "Energy" },
  { name: "RBOB Gasoline", root: "RB", price: 2.3, country: "US", group: "Energy" },
  { name: "Copper", root: "HG", price: 4, country: "US", group: "Industrial Metals" },
  { name: "Aluminium", root: "AH", price: 2300, country: "GB", group: "Industrial Metals" },
  { name: "Zinc", root: "ZI", price: 2500, country: "GB", group: "Industrial Metals" },
  { name: "Nickel", root: "NI", price: 17000, country: "GB", group: "Industrial Metals" },
  { name: "Corn", root: "ZC", price: 450, country: "US", group: "Agriculture" },
  { name: "Wheat", root: "ZW", price: 600, country: "US", group: "Agriculture" },
  { name: "Soybeans", root: "ZS", price: 1200, country: "US", group: "Agriculture" },
  { name: "Sugar", root: "SB", price: 20, country: "US", group: "Agriculture" },
  { name: "Coffee", root: "KC", price: 180, country: "US", group: "Agriculture" },
  { name: "Cotton", root: "CT", price: 80, country: "US", group: "Agriculture" },
  { name: "Live Cattle", root: "LE", price: 180, country: "US", group: "Agriculture" },
];

const MONTH_CODES = "FGHJKMNQUVXZ";
const MONTH_NAMES = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

export type WeightedHolding = Omit<HoldingRow, "weightUnits"> & { raw: number };

export function stockHolding(ctx: SampleContext, s: Stock, currency: string, raw: number): WeightedHolding {
  return {
    holdingSecurityId: s.id,
    symbol: s.listings[0]?.symbol ?? null,
    name: s.name,
    isin: s.isin,
    cusip: s.cusip,
    sector: s.sector,
    country: s.country,
    assetClass: "Equity",
    unitPrice: s.price * ctx.fx.rate(s.currency, currency, ctx.lastTradingDay),
    raw,
  };
}

export function bondHolding(ctx: SampleContext, b: Bond, currency: string, raw: number): WeightedHolding {
  return {
    holdingSecurityId: null,
    symbol: null,
    name: b.name,
    isin: b.isin,
    cusip: b.cusip,
    sector: b.sector,
    country: b.country,
    assetClass: "Bond",
    unitPrice: b.price * ctx.fx.rate(b.currency, currency, ctx.lastTradingDay),
    raw,
  };
}

export function cashHolding(currency: string, raw: number): WeightedHolding {
  return {
    holdingSecurityId: null,
    symbol: null,
    name: `${currency} Cash`,
    isin: null,
    cusip: null,
    sector: null,
    country: null,
    assetClass: "Cash",
    unitPrice: 1,
    raw,
  };
}

/** Front-month-first futures strip on `commodities`, `count` contracts in all. */
export function futuresHoldings(
  ctx: SampleContext,
  r: Random,
  commodities: readonly Commodity[],
  count: number,
  currency: string,
): WeightedHolding[] {
  const out: WeightedHolding[] = [];
  const perCommodity = Math.max(1, Math.ceil(count / commodities.length));
  const firstMonth = yearOf(ctx.anchorDay) * 12 + monthOf(ctx.anchorDay); // next month, 0-based
  for (const c of commodities) {
    const importance = r.logNormal(0, 0.4);
    for (let k = 0; k < perCommodity && out.length < count; k++) {
      const m = firstMonth + k;
      const year = Math.floor(m / 12);
      const month = m % 12;
      out.push({
        holdingSecurityId: null,
        symbol: `${c.root}${MONTH_CODES[month]}${year % 10}`,
        name: `${c.name} Future ${MONTH_NAMES[month]} ${year}`,
        isin: null,
        cusip: null,
        sector: null,
        country: c.country,
        assetClass: "Other",
        unitPrice: c.price * (1 + 0.004 * k) * ctx.fx.rate("USD", currency, ctx.lastTradingDay),
        raw: importance / (1 + 0.35 * k),
      });
    }
  }
  return out;
}

export { HoldingSet, type HoldingTemplate };

/** Templates by content, one table per build (a test process runs several builds). */
const templateTables = new WeakMap<SampleContext, Map<string, HoldingTemplate>>();

function template(ctx: SampleContext, h: WeightedHolding): HoldingTemplate {
  let table = templateTables.get(ctx);
  if (!table) {
    table = new Map();
    templateTables.set(ctx, table);
  }
  const key = [h.holdingSecurityId, h.symbol, h.name, h.isin, h.cusip, h.sector, h.country, h.assetClass].join(
    "\u0001",
  );
  let t = table.get(key);
  if (!t) {
    t = {
      holdingSecurityId: h.holdingSecurityId,
      symbol: h.symbol,
      name: h.name,
      isin: h.isin,
      cusip: h.cusip,
      sector: h.sector,
      country: h.country,
      assetClass: h.assetClass,
    };
    table.set(key, t);
  }
  return t;
}

/**
 * Turns raw weights into exact percentages (sum 100.0000) and sorts by
 * weight, largest first, which is the order positions are numbered in.
 */
export function finishHoldings(ctx: SampleContext, items: readonly WeightedHolding[]): HoldingSet {
  const units = allocateWeightUnits(items.map((h) => h.raw));
  // Ties keep generation order, so output is deterministic.
  const order = items.map((_h, i) => i).sort((a, b) => (units[b] as number) - (units[a] as number) || a - b);
  return new HoldingSet(
    order.map((i) => template(ctx, items[i] as WeightedHolding)),
    Float64Array.from(order, (i) => (items[i] as WeightedHolding).unitPrice),
    Int32Array.from(order, (i) => units[i] as number),
  );
}
