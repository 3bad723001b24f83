import type { ApiKeyRow } from "../platform/auth/auth.types";
import type {
  BarRow,
  DividendRow,
  EtfProfileRow,
  ExposureRow,
  HoldingRow,
  InstrumentRow,
  ListingRow,
  QuoteRow,
  SearchDocument,
  SecurityRow,
  SecurityType,
} from "../domain/ports/source.types";

/**
 * The row stores' shared reading of their rows (SQLite's and PostgreSQL's tables have the same columns): the
 * column lists their statements select, under prefixes that keep joined tables apart, and the mappers from a
 * result row to the typed rows of data-source.ts. Only the flags differ by driver (SQLite answers 0/1, pg booleans).
 */

export type Raw = Record<string, unknown>;

const isSet = (v: unknown): boolean => v === 1 || v === true;

export const SECURITY_COLUMNS = `s.id AS s_id, s.type AS s_type, s.name AS s_name, s.isin AS s_isin, s.cusip AS s_cusip,
  s.country AS s_country, s.sector AS s_sector, s.industry AS s_industry, s.currency AS s_currency,
  s.market_cap AS s_market_cap, s.shares_outstanding AS s_shares_outstanding, s.is_adr AS s_is_adr,
  s.is_active AS s_is_active, s.description AS s_description, s.website AS s_website, s.ipo_date AS s_ipo_date,
  s.next_earnings_date AS s_next_earnings_date, s.rank AS s_rank, s.eps_ttm AS s_eps_ttm,
  s.net_income_ttm AS s_net_income_ttm`;
export const QUOTE_COLUMNS = `q.listing_id AS q_listing_id, q.t AS q_t, q.c AS q_c, q.o AS q_o, q.h AS q_h, q.l AS q_l,
  q.pc AS q_pc, q.v AS q_v, q.ma50 AS q_ma50, q.ma200 AS q_ma200, q.avg_volume AS q_avg_volume`;
export const ETF_PROFILE_COLUMNS = `p.security_id AS p_security_id, p.issuer AS p_issuer,
  p.asset_class AS p_asset_class, p.aum AS p_aum, p.nav AS p_nav, p.nav_currency AS p_nav_currency,
  p.expense_ratio AS p_expense_ratio, p.inception_date AS p_inception_date,
  p.domicile AS p_domicile, p.replication AS p_replication, p.distribution_policy AS p_distribution_policy,
  p.benchmark AS p_benchmark, p.holdings_count AS p_holdings_count, p.holdings_date AS p_holdings_date`;
export const LISTING_COLUMNS = `l.id AS l_id, l.security_id AS l_security_id, l.symbol AS l_symbol,
  l.exchange AS l_exchange, l.currency AS l_currency, l.is_primary AS l_is_primary,
  l.quote_currency AS l_quote_currency`;

export function toSecurity(r: Raw): SecurityRow {
  return {
    id: r.s_id as number,
    type: r.s_type as SecurityType,
    name: r.s_name as string,
    isin: r.s_isin as string | null,
    cusip: r.s_cusip as string | null,
    country: r.s_country as string | null,
    sector: r.s_sector as string | null,
    industry: r.s_industry as string | null,
    currency: r.s_currency as string,
    marketCap: r.s_market_cap as number | null,
    sharesOutstanding: r.s_shares_outstanding as number | null,
    isAdr: isSet(r.s_is_adr),
    isActive: isSet(r.s_is_active),
    description: r.s_description as string | null,
    website: r.s_website as string | null,
    ipoDate: r.s_ipo_date as string | null,
    nextEarningsDate: r.s_next_earnings_date as string | null,
    rank: r.s_rank as number | null,
    epsTtm: r.s_eps_ttm as number | null,
    netIncomeTtm: r.s_net_income_ttm as number | null,
  };
}

export function toListing(r: Raw): ListingRow {
  return {
    id: r.l_id as number,
    securityId: r.l_security_id as number,
    symbol: r.l_symbol as string,
    exchange: r.l_exchange as string,
    currency: r.l_currency as string,
    isPrimary: isSet(r.l_is_primary),
    quoteCurrency: r.l_quote_currency as string | null,
  };
}

export function toQuote(r: Raw): QuoteRow | null {
  if (r.q_listing_id == null) return null;
  return {
    listingId: r.q_listing_id as number,
    t: r.q_t as number,
    c: r.q_c as number,
    o: r.q_o as number,
    h: r.q_h as number,
    l: r.q_l as number,
    pc: r.q_pc as number,
    v: r.q_v as number,
    ma50: r.q_ma50 as number | null,
    ma200: r.q_ma200 as number | null,
    avgVolume: r.q_avg_volume as number | null,
  };
}

export function toEtfProfile(r: Raw): EtfProfileRow | null {
  if (r.p_security_id == null) return null;
  return {
    securityId: r.p_security_id as number,
    issuer: r.p_issuer as string,
    assetClass: r.p_asset_class as string,
    aum: r.p_aum as number,
    nav: r.p_nav as number,
    navCurrency: r.p_nav_currency as string,
    expenseRatio: r.p_expense_ratio as number,
    inceptionDate: r.p_inception_date as string,
    domicile: r.p_domicile as string,
    replication: r.p_replication as string,
    distributionPolicy: r.p_distribution_policy as string,
    benchmark: r.p_benchmark as string,
    holdingsCount: r.p_holdings_count as number,
    holdingsDate: r.p_holdings_date as string,
  };
}

/**
 * An instrument row of the lookups below, which read the ETF profile in the same statement (InstrumentRow.etfProfile).
 */
export const toInstrument = (r: Raw): InstrumentRow => ({
  listing: toListing(r),
  security: toSecurity(r),
  quote: toQuote(r),
  etfProfile: toEtfProfile(r),
});

export const toHolding = (r: Raw): HoldingRow => ({
  position: r.position as number,
  holdingSecurityId: r.holding_security_id as number | null,
  symbol: r.symbol as string | null,
  name: r.name as string,
  isin: r.isin as string | null,
  cusip: (r.cusip ?? null) as string | null,
  assetClass: (r.asset_class ?? null) as string | null,
  sector: r.sector as string | null,
  country: r.country as string | null,
  shares: (r.shares ?? null) as number | null,
  weight: r.weight as number,
  marketValue: r.market_value as number,
});

export const toBar = (r: Raw): BarRow => ({
  t: r.t as number,
  o: r.o as number,
  h: r.h as number,
  l: r.l as number,
  c: r.c as number,
  v: r.v as number,
});
export const toExposure = (r: Raw): ExposureRow => ({ name: r.name as string, weight: r.weight as number });

export function toDividend(r: Raw): DividendRow {
  return {
    securityId: r.security_id as number,
    exDate: r.ex_date as string,
    recordDate: r.record_date as string | null,
    payDate: r.pay_date as string | null,
    declarationDate: r.declaration_date as string | null,
    amount: r.amount as number,
    adjustedAmount: r.adjusted_amount as number,
    currency: r.currency as string,
    frequency: r.frequency as number,
  };
}

/** Column name → property name, computed once per name (this runs for every column of every row). */
const CAMEL = new Map<string, string>();

export function snakeToCamel(r: Raw): Raw {
  const out: Raw = {};
  for (const k in r) {
    let name = CAMEL.get(k);
    if (name === undefined) CAMEL.set(k, (name = k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())));
    out[name] = r[k];
  }
  return out;
}

/**
 * A row of `api_keys` (scopes stored space-separated). An all-NULL row (a lookup that found no key) decodes the same
 * way, into empty fields.
 */
export function toApiKey(r: Raw): ApiKeyRow {
  return {
    id: r.id as string,
    name: r.name as string,
    hash: r.hash as string,
    scopes: String(r.scopes ?? "")
      .split(" ")
      .filter(Boolean),
    createdAt: r.created_at as number,
    expiresAt: r.expires_at as number | null,
    revokedAt: r.revoked_at as number | null,
    ratePerMinute: r.rate_per_minute as number,
    dailyQuota: r.daily_quota as number,
  };
}

/** What the search index keeps of a security (`s`) and each of its listings (`l`). */
export const SEARCH_COLUMNS = `s.id, s.type, s.name, s.isin, s.cusip, s.currency, s.market_cap, s.is_adr, s.is_active,
  l.symbol, l.exchange, l.currency AS l_currency, l.is_primary`;

/** Rows of SEARCH_COLUMNS, ordered by security, as one document per security with its listings. */
export function searchDocumentsOf(rows: readonly Raw[]): SearchDocument[] {
  const docs: SearchDocument[] = [];
  for (const r of rows) {
    const listing = {
      symbol: r.symbol as string,
      exchange: r.exchange as string,
      currency: r.l_currency as string,
      isPrimary: isSet(r.is_primary),
    };
    const last = docs[docs.length - 1];
    if (last && last.security.id === r.id) last.listings.push(listing);
    else
      docs.push({
        security: {
          id: r.id as number,
          type: r.type as SecurityType,
          name: r.name as string,
          isin: r.isin as string | null,
          cusip: r.cusip as string | null,
          currency: r.currency as string,
          marketCap: r.market_cap as number | null,
          isAdr: isSet(r.is_adr),
          isActive: isSet(r.is_active),
        },
        listings: [listing],
      });
  }
  return docs;
}
