import MiniSearch from "minisearch";
import type { DataSource, ListingRow, SecurityType } from "../sources/data-source";

/** What the index keeps of a security: enough to answer without a store query. */
export interface IndexedSecurity {
  id: number;
  type: SecurityType;
  name: string;
  isin: string | null;
  cusip: string | null;
  currency: string;
  marketCap: number | null;
  isAdr: boolean;
  isActive: boolean;
  listings: Pick<ListingRow, "symbol" | "exchange" | "currency" | "isPrimary">[];
}

export type MatchKind = "exact" | "prefix" | "name";

export interface SecurityMatch {
  security: IndexedSecurity;
  match: MatchKind;
  score: number;
}

export interface SearchOptions {
  limit: number;
  types?: readonly SecurityType[];
}

const foldDiacritics = (s: string) => s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");

/**
 * In-memory search over every security, built once at start from the store.
 * Three tiers: an exact symbol, ISIN or CUSIP (hash maps), then symbol
 * prefixes (binary search over the sorted symbols), then name words (an
 * inverted index with prefix and typo-tolerant matching). No query scans the
 * securities.
 */
export class SearchIndex {
  private readonly byCode = new Map<string, number>();
  private readonly sortedSymbols: string[] = [];
  private readonly sortedSymbolOwner: Int32Array;
  private readonly names: MiniSearch<{ id: number; name: string }>;

  private constructor(private readonly securities: IndexedSecurity[]) {
    const symbolPairs: [string, number][] = [];
    securities.forEach((s, i) => {
      if (s.isin) this.byCode.set(s.isin, i);
      if (s.cusip) this.byCode.set(s.cusip, i);
      for (const l of s.listings) {
        this.byCode.set(l.symbol, i);
        symbolPairs.push([l.symbol, i]);
      }
    });
    symbolPairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    this.sortedSymbols = symbolPairs.map((p) => p[0]);
    this.sortedSymbolOwner = Int32Array.from(symbolPairs, (p) => p[1]);
    this.names = new MiniSearch({
      fields: ["name"],
      idField: "id",
      processTerm: (term) => {
        const t = foldDiacritics(term).toLowerCase().replace(/[^a-z0-9&]/g, "");
        return t.length > 0 ? t : null;
      },
      searchOptions: { combineWith: "AND" },
    });
    this.names.addAll(securities.map((s, i) => ({ id: i, name: s.name })));
  }

  get size(): number {
    return this.securities.length;
  }

  static async build(source: DataSource): Promise<SearchIndex> {
    const securities: IndexedSecurity[] = [];
    for await (const page of source.searchDocuments()) {
      for (const doc of page) {
        const s = doc.security;
        securities.push({
          id: s.id,
          type: s.type,
          name: s.name,
          isin: s.isin,
          cusip: s.cusip,
          currency: s.currency,
          marketCap: s.marketCap,
          isAdr: s.isAdr,
          isActive: s.isActive,
          listings: doc.listings.map((l) => ({ symbol: l.symbol, exchange: l.exchange, currency: l.currency, isPrimary: l.isPrimary })),
        });
      }
    }
    return new SearchIndex(securities);
  }

  search(query: string, opts: SearchOptions): SecurityMatch[] {
    const q = query.trim();
    const upper = q.toUpperCase();
    const out: SecurityMatch[] = [];
    const seen = new Set<number>();
    const accept = (i: number, match: MatchKind, score: number) => {
      const security = this.securities[i]!;
      if (seen.has(i) || (opts.types && !opts.types.includes(security.type))) return;
      seen.add(i);
      out.push({ security, match, score });
    };

    const exact = this.byCode.get(upper) ?? this.byCode.get(upper.replace("/", "-"));
    if (exact !== undefined) accept(exact, "exact", 3);
    if (out.length >= opts.limit) return out.slice(0, opts.limit);

    // Symbols never hold spaces; a query with them is a name.
    if (!/\s/.test(upper) && upper.length > 0) {
      const prefixHits: number[] = [];
      let lo = lowerBound(this.sortedSymbols, upper);
      // Bounded: only as many prefix hits as could still make the page, shortest (closest) symbols first.
      const cap = Math.max(opts.limit * 4, 50);
      while (lo < this.sortedSymbols.length && this.sortedSymbols[lo]!.startsWith(upper) && prefixHits.length < cap) {
        prefixHits.push(lo++);
      }
      prefixHits
        .sort((a, b) => this.sortedSymbols[a]!.length - this.sortedSymbols[b]!.length || this.capOf(this.sortedSymbolOwner[b]!) - this.capOf(this.sortedSymbolOwner[a]!))
        .forEach((p) => accept(this.sortedSymbolOwner[p]!, "prefix", 2));
      if (out.length >= opts.limit) return out.slice(0, opts.limit);
    }

    let hits = this.names.search(q, { prefix: (_t, i, terms) => i === terms.length - 1, fuzzy: (t) => (t.length >= 4 ? 0.25 : false), maxFuzzy: 2 });
    if (hits.length === 0) {
      hits = this.names.search(q, { prefix: true, fuzzy: (t) => (t.length >= 4 ? 0.25 : false), maxFuzzy: 2, combineWith: "OR" });
    }
    // Among equally good name matches, the larger security is the likelier intent.
    const ranked = hits
      .map((h) => ({ i: h.id as number, score: h.score * (1 + Math.log10(1 + this.capOf(h.id as number)) / 20) }))
      .sort((a, b) => b.score - a.score);
    for (const h of ranked) {
      if (out.length >= opts.limit) break;
      accept(h.i, "name", h.score);
    }
    return out.slice(0, opts.limit);
  }

  private capOf(i: number): number {
    return this.securities[i]!.marketCap ?? 0;
  }
}

function lowerBound(arr: readonly string[], key: string): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
