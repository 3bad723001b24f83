import type { ListingRow, SearchDocument, SecurityType } from "../ports/source.types";
import { requireCapability, type MarketDataSource } from "../ports/source.capabilities";
import { lowerBound, NameIndex } from "./search.names";

/** What the index keeps of a security: enough to answer without a store query. */
export interface IndexedSecurity {
  id: number;
  type: SecurityType;
  name: string;
  isin: string | null;
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

/** Interns repeated short strings (exchanges, currencies) as small integers. */
class Interner {
  readonly values: string[] = [];
  private readonly ids = new Map<string, number>();
  id(v: string): number {
    let i = this.ids.get(v);
    if (i === undefined) this.ids.set(v, (i = this.values.push(v) - 1));
    return i;
  }
}

const TYPES: readonly SecurityType[] = ["stock", "etf", "fund", "crypto", "forex"];
const ADR = 1;
const ACTIVE = 2;

/** Sorted keys with the security each belongs to: exact and prefix lookups by binary search. */
interface SortedKeys {
  keys: string[];
  owner: Int32Array;
}

function sortedKeys(pairs: [string, number][]): SortedKeys {
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { keys: pairs.map((p) => p[0]), owner: Int32Array.from(pairs, (p) => p[1]) };
}

/**
 * In-memory search over every security, built once at start from the store.
 * Three tiers: an exact symbol, ISIN or CUSIP, then symbol prefixes (binary
 * search over the sorted symbols), then name words (an inverted index with
 * prefix and typo-tolerant matching). No query scans the securities. The
 * securities are kept in flat arrays, not an object each, to keep the
 * process small (see BENCHMARKS.md for its memory).
 */
export class SearchIndex {
  private readonly ids: Int32Array;
  private readonly types: Uint8Array;
  private readonly flags: Uint8Array;
  private readonly caps: Float64Array;
  private readonly currencies: Uint16Array;
  private readonly listingOffsets: Int32Array;
  private readonly listingExchange: Uint16Array;
  private readonly listingCurrency: Uint16Array;
  private readonly listingPrimary: Uint8Array;
  private readonly symbols: SortedKeys;
  private readonly codes: SortedKeys;
  private readonly names: NameIndex;
  /** Security ids, made on the first `has` (only a store with change notices asks). */
  private positions: Set<number> | undefined;

  constructor(
    private readonly nameList: string[],
    private readonly isins: (string | null)[],
    private readonly listingSymbols: string[],
    private readonly strings: Interner,
    columns: {
      ids: number[];
      types: number[];
      flags: number[];
      caps: number[];
      currencies: number[];
      listingOffsets: number[];
      listingExchange: number[];
      listingCurrency: number[];
      listingPrimary: number[];
      codePairs: [string, number][];
    },
  ) {
    this.ids = Int32Array.from(columns.ids);
    this.types = Uint8Array.from(columns.types);
    this.flags = Uint8Array.from(columns.flags);
    this.caps = Float64Array.from(columns.caps);
    this.currencies = Uint16Array.from(columns.currencies);
    this.listingOffsets = Int32Array.from(columns.listingOffsets);
    this.listingExchange = Uint16Array.from(columns.listingExchange);
    this.listingCurrency = Uint16Array.from(columns.listingCurrency);
    this.listingPrimary = Uint8Array.from(columns.listingPrimary);
    const symbolPairs: [string, number][] = [];
    for (let i = 0; i < this.ids.length; i++) {
      for (let k = this.listingOffsets[i]!; k < this.listingOffsets[i + 1]!; k++)
        symbolPairs.push([listingSymbols[k]!, i]);
    }
    this.symbols = sortedKeys(symbolPairs);
    this.codes = sortedKeys(columns.codePairs);
    this.names = new NameIndex(nameList);
  }

  get size(): number {
    return this.ids.length;
  }

  /** From the source's search corpus; NOT_AVAILABLE when it has none (an upstream searches itself). */
  static async build(source: MarketDataSource): Promise<SearchIndex> {
    const columns = new IndexColumns();
    for await (const page of requireCapability(source, "searchCorpus").searchDocuments()) columns.add(page);
    return columns.index();
  }

  /** An index of nothing: gateway mode, where the upstream searches itself and nothing is indexed here. */
  static empty(): Promise<SearchIndex> {
    return Promise.resolve(new IndexColumns().index());
  }

  /** From documents at hand: the few securities a change notice names (src/domain/search/search.live.ts). */
  static fromDocuments(docs: readonly SearchDocument[]): SearchIndex {
    const columns = new IndexColumns();
    columns.add(docs);
    return columns.index();
  }

  /** Whether the security with this id is in the index. */
  has(securityId: number): boolean {
    if (this.positions === undefined) {
      this.positions = new Set<number>();
      for (const id of this.ids) this.positions.add(id);
    }
    return this.positions.has(securityId);
  }

  /** The security of this type with the lowest id: the first of its list (lists go by id), without a store query. */
  first(type: SecurityType, skip?: ReadonlySet<number>): IndexedSecurity | undefined {
    const code = TYPES.indexOf(type);
    let best = -1;
    for (let i = 0; i < this.ids.length; i++) {
      if (this.types[i] !== code || skip?.has(this.ids[i]!)) continue;
      if (best < 0 || this.ids[i]! < this.ids[best]!) best = i;
    }
    return best < 0 ? undefined : this.security(best);
  }

  /** The security at position i, as an object (made on demand for the few that answer a query). */
  security(i: number): IndexedSecurity {
    const listings: IndexedSecurity["listings"] = [];
    for (let k = this.listingOffsets[i]!; k < this.listingOffsets[i + 1]!; k++) {
      listings.push({
        symbol: this.listingSymbols[k]!,
        exchange: this.strings.values[this.listingExchange[k]!]!,
        currency: this.strings.values[this.listingCurrency[k]!]!,
        isPrimary: this.listingPrimary[k] === 1,
      });
    }
    const cap = this.caps[i]!;
    return {
      id: this.ids[i]!,
      type: TYPES[this.types[i]!]!,
      name: this.nameList[i]!,
      isin: this.isins[i]!,
      currency: this.strings.values[this.currencies[i]!]!,
      marketCap: Number.isNaN(cap) ? null : cap,
      isAdr: (this.flags[i]! & ADR) !== 0,
      isActive: (this.flags[i]! & ACTIVE) !== 0,
      listings,
    };
  }

  private exact(keys: SortedKeys, key: string): number | undefined {
    const p = lowerBound(keys.keys, key);
    return keys.keys[p] === key ? keys.owner[p] : undefined;
  }

  /** `skip`: security ids answered elsewhere (changed since this index was built), never returned. */
  search(query: string, opts: SearchOptions, skip?: ReadonlySet<number>): SecurityMatch[] {
    const q = query.trim();
    const upper = q.toUpperCase();
    const out: SecurityMatch[] = [];
    const seen = new Set<number>();
    const accept = (i: number, match: MatchKind, score: number) => {
      if (seen.has(i) || (opts.types && !opts.types.includes(TYPES[this.types[i]!]!))) return;
      if (skip !== undefined && skip.has(this.ids[i]!)) return;
      seen.add(i);
      out.push({ security: this.security(i), match, score });
    };

    const exact =
      this.exact(this.symbols, upper) ??
      this.exact(this.symbols, upper.replace("/", "-")) ??
      this.exact(this.codes, upper);
    if (exact !== undefined) accept(exact, "exact", 3);
    if (out.length >= opts.limit) return out;

    // Symbols never hold spaces; a query with them is a name.
    if (!/\s/.test(upper) && upper.length > 0) {
      const { keys, owner } = this.symbols;
      const hits: number[] = [];
      // Bounded: only as many prefix hits as could still make the page, shortest (closest) symbols first.
      const cap = Math.max(opts.limit * 4, 50);
      for (let p = lowerBound(keys, upper); p < keys.length && keys[p]!.startsWith(upper) && hits.length < cap; p++)
        hits.push(p);
      hits
        .sort((a, b) => keys[a]!.length - keys[b]!.length || this.capOf(owner[b]!) - this.capOf(owner[a]!))
        .forEach((p) => accept(owner[p]!, "prefix", 2));
      if (out.length >= opts.limit) return out.slice(0, opts.limit);
    }

    // Among equally good name matches, the larger security is the likelier intent.
    const ranked = this.names
      .search(q, Math.max(opts.limit * 10, 200))
      .map((h) => ({ i: h.doc, score: h.score * (1 + Math.log10(1 + this.capOf(h.doc)) / 100) }))
      .sort((a, b) => b.score - a.score);
    for (const h of ranked) {
      if (out.length >= opts.limit) break;
      accept(h.i, "name", h.score);
    }
    return out;
  }

  private capOf(i: number): number {
    const cap = this.caps[i]!;
    return Number.isNaN(cap) ? 0 : cap;
  }
}

/** The flat columns of an index, filled page by page. */
class IndexColumns {
  private readonly strings = new Interner();
  private readonly names: string[] = [];
  private readonly isins: (string | null)[] = [];
  private readonly listingSymbols: string[] = [];
  private readonly c = {
    ids: [] as number[],
    types: [] as number[],
    flags: [] as number[],
    caps: [] as number[],
    currencies: [] as number[],
    listingOffsets: [0],
    listingExchange: [] as number[],
    listingCurrency: [] as number[],
    listingPrimary: [] as number[],
    codePairs: [] as [string, number][],
  };

  add(page: readonly SearchDocument[]): void {
    const { c, strings } = this;
    for (const { security: s, listings } of page) {
      const i = c.ids.length;
      c.ids.push(s.id);
      c.types.push(TYPES.indexOf(s.type));
      c.flags.push((s.isAdr ? ADR : 0) | (s.isActive ? ACTIVE : 0));
      c.caps.push(s.marketCap ?? Number.NaN);
      c.currencies.push(strings.id(s.currency));
      this.names.push(s.name);
      this.isins.push(s.isin);
      if (s.isin) c.codePairs.push([s.isin, i]);
      if (s.cusip) c.codePairs.push([s.cusip, i]);
      for (const l of listings) {
        this.listingSymbols.push(l.symbol);
        c.listingExchange.push(strings.id(l.exchange));
        c.listingCurrency.push(strings.id(l.currency));
        c.listingPrimary.push(l.isPrimary ? 1 : 0);
      }
      c.listingOffsets.push(this.listingSymbols.length);
    }
  }

  index(): SearchIndex {
    return new SearchIndex(this.names, this.isins, this.listingSymbols, this.strings, this.c);
  }
}
