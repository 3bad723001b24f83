/**
 * The `id: ID!` of the entity types, for client caches (Apollo Client's InMemoryCache, urql's Graphcache) that key
 * objects by `__typename` and `id`. Each id is built from what names the thing in the data itself (exchange, symbol,
 * ISIN, a date), never from a store's row numbers, so it is the same across restarts, replicas and rebuilds of the
 * store from the same data. Ids are opaque to clients: unique within their type, nothing more is promised.
 */

/** A listing: its exchange and symbol (`XNAS:AAPL`); a symbol names one listing, the exchange keeps it unambiguous. */
export function listingId(listing: { exchange: string; symbol: string }): string {
  return `${listing.exchange}:${listing.symbol}`;
}

/** A security: its ISIN, or (crypto, forex, anything without one) its primary listing's id. */
export function securityId(security: { isin: string | null }, primary: { exchange: string; symbol: string }): string {
  return security.isin ?? listingId(primary);
}

/**
 * A quote: the listing and the currency its prices are in. The same listing quoted in EUR and in USD are two
 * quotes, which a cache must keep apart.
 */
export function quoteId(quote: { exchange: string; symbol: string; currency: string }): string {
  return `${listingId(quote)}:${quote.currency}`;
}

/** The holdings of a fund or ETF at a date: the security and the day the holdings were reported. */
export function holdingsId(ownerId: string, atDate: string | null): string {
  // Holdings without a reported date (an empty answer) are one object per owner.
  return `${ownerId}@${atDate ?? "none"}`;
}

/**
 * Gives each position of a holdings list its id: the holdings' id and the held security's ISIN, symbol or name. A key
 * that repeats in one list (two cash lines of one name) gets its occurrence number, in the list's stable order.
 */
export function assignHoldingIds<T extends { isin: string | null; symbol: string | null; name: string }>(
  holdingsKey: string,
  holdings: readonly T[],
): (T & { id: string })[] {
  const seen = new Map<string, number>();
  return holdings.map((h) => {
    const key = h.isin ?? h.symbol ?? h.name;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return Object.assign(h, { id: `${holdingsKey}/${key}${n > 1 ? `#${n}` : ""}` });
  });
}
