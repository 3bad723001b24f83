import { continents, countries } from "countries-list";
import type { ExposureRow, HoldingRow, SecurityRow, SecurityType } from "../ports/source.types";
import type { RequestContext } from "../request.context";

/**
 * How deep a fund of funds is looked through: a portfolio's ETF holding a fund holding an ETF is three levels. Deeper
 * holdings of funds are reported as unknown, as are holdings that lead back to a fund already on their path.
 */
export const LOOK_THROUGH_DEPTH = 4;

/** A share of a portfolio with no sector or region of its own: bonds, cash, futures, crypto and currency pairs. */
export const OTHER = "Other";
/** The share the store cannot place: a fund's holdings summing under 100 %, a stock without a sector or country. */
export const UNKNOWN = "Unknown";

/** What one security of the portfolio (or of a fund it holds) is, as far as its exposure goes. */
export interface ExposureNode {
  security: Pick<SecurityRow, "id" | "type" | "sector" | "country">;
  /** Fraction of the portfolio (0..1). */
  weight: number;
  /** Ids of the funds on the way down to this one, to stop at a fund that holds itself. */
  path: readonly number[];
}

/** Fractions of a portfolio (0..1) by sector and by region; the two each sum to the portfolio's valued whole. */
export interface Exposure {
  sectors: Map<string, number>;
  regions: Map<string, number>;
}

const CONTINENTS = continents as Readonly<Record<string, string>>;
const COUNTRIES = countries as Readonly<Record<string, { continent: string }>>;

/**
 * The region of a country as stored (ISO 3166 alpha-2): its continent, as the `countries-list` data names it
 * (Africa, Antarctica, Asia, Europe, North America, Oceania, South America); an unknown code is UNKNOWN.
 */
export function regionOf(country: string): string {
  const c = COUNTRIES[country.trim().toUpperCase()];
  return (c && CONTINENTS[c.continent]) ?? UNKNOWN;
}

const add = (m: Map<string, number>, key: string, w: number) => m.set(key, (m.get(key) ?? 0) + w);

const isFund = (type: SecurityType) => type === "etf" || type === "fund";

/** What a security that is not a fund adds: its own sector and country. */
function addDirect(out: Exposure, s: ExposureNode["security"], w: number): void {
  if (s.type === "crypto" || s.type === "forex") {
    add(out.sectors, OTHER, w);
    add(out.regions, OTHER, w);
    return;
  }
  add(out.sectors, s.sector ?? UNKNOWN, w);
  add(out.regions, s.country ? regionOf(s.country) : UNKNOWN, w);
}

/**
 * A holding that is not looked through further: its row's sector and country, else those of the security it links
 * to. A row that links nothing and names no sector is a bond, cash or a future (OTHER, as the sample's exposure
 * tables count them); a linked security without one is UNKNOWN.
 */
function addHolding(out: Exposure, h: HoldingRow, held: SecurityRow | null, w: number): void {
  if (held && (held.type === "crypto" || held.type === "forex")) return addDirect(out, held, w);
  const none = h.holdingSecurityId == null ? OTHER : UNKNOWN;
  add(out.sectors, h.sector ?? held?.sector ?? none, w);
  const country = h.country ?? held?.country ?? null;
  add(out.regions, country ? regionOf(country) : none, w);
}

/** A fund without holdings rows: its sector and country tables (percent), with what they leave as UNKNOWN. */
function addTables(out: Exposure, sectors: readonly ExposureRow[], countries: readonly ExposureRow[], w: number) {
  const spread = (rows: readonly ExposureRow[], into: Map<string, number>, name: (n: string) => string) => {
    const positive = rows.filter((r) => r.weight > 0);
    const total = positive.reduce((s, r) => s + r.weight, 0);
    const scale = total > 100 ? 100 / total : 1;
    for (const r of positive) add(into, name(r.name), (w * r.weight * scale) / 100);
    if (total < 100) add(into, UNKNOWN, (w * (100 - total)) / 100);
  };
  spread(sectors, out.sectors, (n) => n);
  spread(countries, out.regions, (n) => (/^[A-Za-z]{2}$/.test(n) ? regionOf(n) : n));
}

const loaded = <T>(x: T | Error): T => {
  if (x instanceof Error) throw x;
  return x;
};

/**
 * The portfolio's exposure by sector and region, looking through ETFs and funds to their holdings, weighted, level by
 * level (one batched read per table and level, whatever the number of funds). A fund's holdings summing over 100 %
 * are scaled to 100; under 100, the rest is UNKNOWN. A fund without holdings rows is counted by its sector and
 * country tables.
 */
export async function lookThrough(ctx: RequestContext, roots: readonly ExposureNode[]): Promise<Exposure> {
  const out: Exposure = { sectors: new Map(), regions: new Map() };
  let level = roots.filter((n) => n.weight > 0);
  for (let depth = 0; level.length > 0; depth++) {
    const funds: ExposureNode[] = [];
    for (const n of level) {
      if (!isFund(n.security.type)) addDirect(out, n.security, n.weight);
      else if (depth >= LOOK_THROUGH_DEPTH || n.path.includes(n.security.id)) {
        add(out.sectors, UNKNOWN, n.weight);
        add(out.regions, UNKNOWN, n.weight);
      } else funds.push(n);
    }
    if (funds.length === 0) break;
    const holdings = await Promise.all(
      funds.map((n) =>
        n.security.type === "etf"
          ? ctx.loaders.etfHoldings.load(n.security.id)
          : ctx.loaders.fundHoldings.load(n.security.id),
      ),
    );
    const linked = [
      ...new Set(holdings.flat().flatMap((h) => (h.holdingSecurityId == null ? [] : [h.holdingSecurityId]))),
    ];
    const securities = new Map<number, SecurityRow>();
    (await ctx.loaders.security.loadMany(linked)).forEach((s, i) => {
      const row = loaded(s);
      if (row) securities.set(linked[i]!, row);
    });
    const bare = funds.filter((_, i) => holdings[i]!.length === 0);
    const tables = await Promise.all(
      bare.map((n) =>
        n.security.type === "etf"
          ? Promise.all([ctx.loaders.etfSectors.load(n.security.id), ctx.loaders.etfCountries.load(n.security.id)])
          : Promise.all([ctx.loaders.fundSectors.load(n.security.id), ctx.loaders.fundCountries.load(n.security.id)]),
      ),
    );
    bare.forEach((n, i) => addTables(out, tables[i]![0], tables[i]![1], n.weight));
    const next: ExposureNode[] = [];
    funds.forEach((n, i) => {
      const rows = holdings[i]!.filter((h) => h.weight > 0);
      if (rows.length === 0) return;
      const total = rows.reduce((s, h) => s + h.weight, 0);
      const scale = total > 100 ? 100 / total : 1;
      if (total < 100) {
        add(out.sectors, UNKNOWN, (n.weight * (100 - total)) / 100);
        add(out.regions, UNKNOWN, (n.weight * (100 - total)) / 100);
      }
      const path = [...n.path, n.security.id];
      for (const h of rows) {
        const w = (n.weight * h.weight * scale) / 100;
        const held = h.holdingSecurityId == null ? null : (securities.get(h.holdingSecurityId) ?? null);
        if (held && isFund(held.type)) next.push({ security: held, weight: w, path });
        else addHolding(out, h, held, w);
      }
    });
    level = next;
  }
  return out;
}

/**
 * Fractions as the SDKs' percentages (12.5 means 12.5 %, two decimals), largest first, then by name. A share that
 * rounds to 0.00 is left out: vendors' weights are rounded, so a fund's holdings summing to 99.998 % would otherwise
 * list an Unknown of 0.
 */
export function percentages(weights: ReadonlyMap<string, number>): { name: string; percentage: number }[] {
  return [...weights]
    .map(([name, w]) => ({ name, percentage: Math.round(w * 1e4) / 100 }))
    .filter((x) => x.percentage > 0)
    .sort((a, b) => b.percentage - a.percentage || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
