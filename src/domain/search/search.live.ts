import type { SearchDocument, SecurityType } from "../ports/source.types";
import type { MarketDataSource } from "../ports/source.capabilities";
import type { ChangeNotice } from "../ports/source.changes";
import { SearchIndex, type IndexedSecurity, type SearchOptions, type SecurityMatch } from "./search.index";

/** What requests read of the search index (http/http.context.ts): a fixed index, or one that follows change notices. */
export interface SearchIndexReader {
  readonly size: number;
  search(query: string, opts: SearchOptions): SecurityMatch[];
  /** The security of this type with the lowest id (the first of its list). */
  first(type: SecurityType): IndexedSecurity | undefined;
}

const KIND_ORDER = { exact: 0, prefix: 1, name: 2 } as const;

/**
 * The search index of a store other processes write: the index built at start, plus a small index of the securities
 * changed since (added, renamed, relisted), which hides their old entries in the first. A change notice patches it
 * in place of a rebuild, which would take seconds and twice the index's memory; a notice of "all" (or an overlay
 * grown past a tenth of the base) does rebuild, in the background, and swaps the result in.
 */
export class LiveSearchIndex implements SearchIndexReader {
  /** Security ids whose entry in `base` is out of date (changed or removed since it was built). */
  private readonly stale = new Set<number>();
  private readonly changed = new Map<number, SearchDocument>();
  private overlay: SearchIndex | undefined;
  /** Of the ids in `stale`, those `base` holds (what `size` subtracts). */
  private staleInBase = 0;
  private rebuilding: Promise<void> | undefined;
  /** How often the index was patched, and rebuilt whole, since start. */
  readonly stats = { patches: 0, rebuilds: 0 };

  /** `catchUp`: runs before every answer, to take in the changes of a store read in process (ChangeFeed.catchUp). */
  constructor(
    private base: SearchIndex,
    private readonly source: MarketDataSource,
    private readonly catchUp: () => void = () => undefined,
  ) {}

  get size(): number {
    this.catchUp();
    return this.base.size - this.staleInBase + this.changed.size;
  }

  /**
   * Takes in a change notice: the named securities now answer as the store holds them. A patch is done when the
   * call returns (its promise only waits for a rebuild it may start).
   */
  async apply(notice: ChangeNotice): Promise<void> {
    const { securities } = notice;
    if (securities === "all") return this.rebuild();
    this.stats.patches++;
    for (const id of securities.ids) {
      if (!this.stale.has(id)) {
        this.stale.add(id);
        if (this.base.has(id)) this.staleInBase++;
      }
      this.changed.delete(id);
    }
    for (const doc of securities.documents) this.changed.set(doc.security.id, doc);
    this.overlay = this.changed.size === 0 ? undefined : SearchIndex.fromDocuments([...this.changed.values()]);
    if (this.stale.size > Math.max(1_000, this.base.size / 10)) await this.rebuild();
  }

  first(type: SecurityType): IndexedSecurity | undefined {
    this.catchUp();
    const fromBase = this.base.first(type, this.stale);
    const fromOverlay = this.overlay?.first(type);
    if (!fromBase || !fromOverlay) return fromBase ?? fromOverlay;
    return fromOverlay.id < fromBase.id ? fromOverlay : fromBase;
  }

  search(query: string, opts: SearchOptions): SecurityMatch[] {
    this.catchUp();
    if (this.stale.size === 0) return this.base.search(query, opts);
    const fromBase = this.base.search(query, opts, this.stale);
    const fromOverlay = this.overlay?.search(query, opts) ?? [];
    if (fromOverlay.length === 0) return fromBase;
    // One ranking across both, as one index would give: exact, then prefixes (shortest symbol, then largest), then
    // names by score.
    const upper = query.trim().toUpperCase();
    const prefixLength = (m: SecurityMatch) =>
      Math.min(...m.security.listings.filter((l) => l.symbol.startsWith(upper)).map((l) => l.symbol.length));
    return [...fromBase, ...fromOverlay]
      .sort(
        (a, b) =>
          KIND_ORDER[a.match] - KIND_ORDER[b.match] ||
          (a.match === "prefix"
            ? prefixLength(a) - prefixLength(b) || (b.security.marketCap ?? 0) - (a.security.marketCap ?? 0)
            : a.match === "name"
              ? b.score - a.score
              : 0),
      )
      .slice(0, opts.limit);
  }

  /** A new index from the store, swapped in whole; notices that arrive meanwhile wait for it (the feed awaits). */
  private rebuild(): Promise<void> {
    return (this.rebuilding ??= (async () => {
      try {
        this.stats.rebuilds++;
        const fresh = await SearchIndex.build(this.source);
        this.base = fresh;
        this.stale.clear();
        this.changed.clear();
        this.overlay = undefined;
        this.staleInBase = 0;
      } finally {
        this.rebuilding = undefined;
      }
    })());
  }
}
