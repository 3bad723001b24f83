/**
 * In-memory model of the generated universe. Everything except the bar series
 * is built here first (it is small), so each table can then be written in
 * primary-key order in one pass.
 */

import type { EtfProfileRow, FundProfileRow, ListingRow, SecurityRow } from "../../domain/ports/source.types";

export type { SecurityType } from "../../domain/ports/source.types";

export type { SqlValue } from "../../sources/sample/sample.prices";

/** A listing as the store holds it. */
export type Listing = ListingRow;

/** A security as the store holds it (all generated securities are active), plus what generation needs. */
export interface Security extends Omit<SecurityRow, "isActive" | "epsTtm" | "netIncomeTtm"> {
  /** Listings, primary first. */
  listings: Listing[];
  /** Planned last close of the primary listing, in its currency. */
  price: number;
  /** Market value in USD at the anchor, for ranking and index weights. */
  valueUsd: number;
  /** Annualised idiosyncratic volatility, on top of beta times the market factor. */
  volatility: number;
  /** Sensitivity to the common market factor. */
  beta: number;
  /** Annual drift of the price path (shapes history only). */
  drift: number;
  /** Typical daily volume of the primary listing (shares or units). */
  volume: number;
}

export interface Stock extends Security {
  type: "stock";
  shortName: string;
  ipoDay: number;
  recentIpo: boolean;
  /** Its IPO is still ahead (ipoDay after the anchor): expected, not yet in any index, fund or dividend plan. */
  upcomingIpo: boolean;
  /** Style scores in [0, 1] used by smart-beta ETFs. */
  value: number;
  quality: number;
  momentum: number;
  esg: number;
  /** 0-based rank by market cap among stocks. */
  order: number;
}

export interface HoldingRow {
  holdingSecurityId: number | null;
  symbol: string | null;
  name: string;
  isin: string | null;
  cusip: string | null;
  sector: string | null;
  country: string | null;
  /** Written to fund_holdings only; etf_holdings has no such column. */
  assetClass: "Equity" | "Bond" | "Cash" | "Other";
  /** Price of one unit in the holder's currency (for share counts). */
  unitPrice: number;
  /** Weight in units of 0.0001 %, summing to 1,000,000 per holder. */
  weightUnits: number;
}

/** The store's ETF profile as generated, plus how it distributes (for the dividends it pays). */
export interface EtfProfile extends Omit<EtfProfileRow, "securityId" | "holdingsCount" | "distributionPolicy"> {
  distributionPolicy: "Distributing" | "Accumulating";
  /** Payments per year when distributing. */
  frequency: number;
  /** Distribution yield in percent when distributing. */
  yieldPct: number;
}

export interface Etf extends Security {
  type: "etf";
  profile: EtfProfile;
  holdings: HoldingSet;
}

/** The store's fund profile as generated, plus how it distributes (for the dividends it pays). */
export interface FundProfile extends Omit<FundProfileRow, "securityId" | "holdingsCount" | "distributionPolicy"> {
  distributionPolicy: "Distributing" | "Accumulating";
  frequency: number;
  yieldPct: number;
}

export interface Fund extends Security {
  type: "fund";
  profile: FundProfile;
  holdings: HoldingSet;
}

export interface Crypto extends Security {
  type: "crypto";
  symbol: string;
  stable: boolean;
}

export interface ForexSecurity extends Security {
  type: "forex";
  base: string;
  quote: string;
  major: boolean;
}

export interface Split {
  day: number;
  numerator: number;
  denominator: number;
}

export interface DividendRow {
  exDay: number;
  recordDay: number;
  payDay: number;
  declarationDay: number;
  amount: number;
  adjustedAmount: number;
  currency: string;
  frequency: number;
}

export interface IndexDef {
  symbol: string;
  name: string;
  members: { securityId: number; weightUnits: number }[];
}

/** What a holding row says about the position itself; one shared object per distinct position of a build. */
export type HoldingTemplate = Readonly<Omit<HoldingRow, "unitPrice" | "weightUnits">>;

/**
 * A holder's portfolio, packed: a shared template per position and two typed arrays. With a row object per position
 * the ETFs and funds took ~170 MB of heap in the full sample for the whole build; packed they take ~40 MB, and the
 * writer reads them without building a row.
 */
export class HoldingSet {
  static readonly EMPTY = new HoldingSet([], new Float64Array(0), new Int32Array(0));

  constructor(
    private readonly templates: readonly HoldingTemplate[],
    private readonly unitPrices: Float64Array,
    private readonly units: Int32Array,
  ) {}

  get length(): number {
    return this.templates.length;
  }

  /** What position `i` (0-based, in position order) holds. */
  position(i: number): HoldingTemplate {
    return this.templates[i] as HoldingTemplate;
  }

  /** Price of one unit of position `i` in the holder's currency. */
  unitPrice(i: number): number {
    return this.unitPrices[i] as number;
  }

  /** Weight of position `i` in units of 0.0001 %. */
  weightUnits(i: number): number {
    return this.units[i] as number;
  }

  /** The same positions priced in another currency: unit prices times `rate`. */
  scaled(rate: number): HoldingSet {
    return new HoldingSet(
      this.templates,
      this.unitPrices.map((p) => p * rate),
      this.units,
    );
  }
}
