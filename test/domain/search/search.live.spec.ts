import { SearchIndex } from "../../../src/domain/search/search.index";
import { LiveSearchIndex } from "../../../src/domain/search/search.live";
import type { SearchDocument } from "../../../src/domain/ports/source.types";
import type { MarketDataSource } from "../../../src/domain/ports/source.capabilities";

/**
 * The search index of a store other processes write, patched by change notices: a rename, a new security and a
 * removal answer at once, ranked as one index would rank them; "all" rebuilds from the store.
 */
function doc(id: number, symbol: string, name: string, marketCap = 1e9): SearchDocument {
  return {
    security: {
      id,
      type: "stock",
      name,
      isin: null,
      cusip: null,
      currency: "USD",
      marketCap,
      isAdr: false,
      isActive: true,
    },
    listings: [{ symbol, exchange: "XNAS", currency: "USD", isPrimary: true }],
  };
}

const BASE = [
  doc(1, "ALPH", "Alpha Industries", 5e9),
  doc(2, "BETA", "Beta Systems", 3e9),
  doc(3, "ALPHX", "Alphex Mining", 1e8),
];

/** A store whose corpus is `docs` (what a rebuild reads). */
function storeOf(docs: SearchDocument[]): MarketDataSource & { reads: number } {
  const store = {
    kind: "sqlite" as const,
    capabilities: new Set(["searchCorpus"]),
    reads: 0,
    async *searchDocuments() {
      store.reads++;
      yield docs;
    },
    ping: async () => undefined,
    close: async () => undefined,
  };
  return store as unknown as MarketDataSource & { reads: number };
}

const symbols = (index: LiveSearchIndex, q: string) =>
  index.search(q, { limit: 10 }).map((m) => `${m.security.listings[0]!.symbol}:${m.match}`);

describe("LiveSearchIndex", () => {
  it("answers a rename, a new security and a removal from the notice, without reading the store", async () => {
    const store = storeOf(BASE);
    const index = new LiveSearchIndex(SearchIndex.fromDocuments(BASE), store);
    expect(index.size).toBe(3);

    await index.apply({ from: 1, to: 2, securities: { ids: [2], documents: [doc(2, "BETA", "Gamma Robotics")] } });
    expect(index.search("Gamma", { limit: 5 }).map((m) => m.security.id)).toEqual([2]);
    expect(index.search("Beta Systems", { limit: 5 }).some((m) => m.security.name === "Beta Systems")).toBe(false);
    expect(index.search("BETA", { limit: 5 })[0]).toMatchObject({
      match: "exact",
      security: { name: "Gamma Robotics" },
    });
    expect(index.size).toBe(3);

    // A new one whose symbol shares the prefix of two old ones: ranked among them by symbol length.
    await index.apply({ from: 2, to: 3, securities: { ids: [4], documents: [doc(4, "ALPHA", "Alphanew Corp", 2e9)] } });
    expect(index.size).toBe(4);
    expect(symbols(index, "ALP")).toEqual(["ALPH:prefix", "ALPHA:prefix", "ALPHX:prefix"]);

    // Removed (or its last listing gone): named in the notice, with no document.
    await index.apply({ from: 3, to: 4, securities: { ids: [1], documents: [] } });
    expect(index.size).toBe(3);
    expect(symbols(index, "ALP")).toEqual(["ALPHA:prefix", "ALPHX:prefix"]);
    expect(index.search("Alpha Industries", { limit: 5 }).some((m) => m.security.id === 1)).toBe(false);
    expect(store.reads).toBe(0);
  });

  it("names the first security of a type (lowest id) as the store now holds it", async () => {
    const index = new LiveSearchIndex(SearchIndex.fromDocuments(BASE), storeOf(BASE));
    expect(index.first("stock")?.listings[0]!.symbol).toBe("ALPH");
    expect(index.first("etf")).toBeUndefined();
    // Renamed: its new document; removed: the next one by id.
    await index.apply({ from: 1, to: 2, securities: { ids: [1], documents: [doc(1, "ALPQ", "Alpha Renamed")] } });
    expect(index.first("stock")?.listings[0]!.symbol).toBe("ALPQ");
    await index.apply({ from: 2, to: 3, securities: { ids: [1], documents: [] } });
    expect(index.first("stock")?.listings[0]!.symbol).toBe("BETA");
  });

  it("rebuilds from the store on a notice of all, dropping the patches", async () => {
    const now = [doc(2, "BETA", "Beta Systems"), doc(5, "EPS", "Epsilon Labs")];
    const store = storeOf(now);
    const index = new LiveSearchIndex(SearchIndex.fromDocuments(BASE), store);
    await index.apply({ from: 1, to: 2, securities: { ids: [9], documents: [doc(9, "NINE", "Nine Patched")] } });
    expect(index.size).toBe(4);

    await index.apply({ from: 2, to: 3, securities: "all" });
    expect(store.reads).toBe(1);
    expect(index.size).toBe(2);
    expect(symbols(index, "EPS")).toEqual(["EPS:exact"]);
    expect(index.search("NINE", { limit: 5 })).toEqual([]);
    expect(index.search("ALPH", { limit: 5 })).toEqual([]);
  });
});
