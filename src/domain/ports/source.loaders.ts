import DataLoader from "dataloader";
import type {
  BarRangeKey,
  BarRow,
  DividendRow,
  EtfProfileRow,
  ExposureRow,
  FundProfileRow,
  FxRangeKey,
  FxRow,
  HoldingRow,
  IndexConstituentRow,
  InstrumentRow,
  ListingRow,
  PeersKey,
  QuarterlyFinancialsRow,
  SecurityRow,
  SplitRow,
} from "./source.types";
import {
  hasCapability,
  notAvailable,
  type CapabilityName,
  type MarketDataSource,
  type SourceWith,
} from "./source.capabilities";

/**
 * Alternative spellings a client may send for one symbol, most specific
 * first: crypto pairs are canonical as `BTC-USD`, and `BTC/USD`, `BTCUSD` and
 * a bare `BTC` (quoted in USD) name the same pair.
 */
export function symbolCandidates(raw: string): string[] {
  const s = raw.trim().toUpperCase();
  const out = [s];
  if (s.includes("/")) out.push(s.replace("/", "-"));
  if (/^[A-Z0-9]+$/.test(s)) {
    const pair = /^([A-Z0-9]{2,10})(USDT|USD|EUR)$/.exec(s);
    if (pair) out.push(`${pair[1]}-${pair[2]}`);
    out.push(`${s}-USD`);
  }
  return out;
}

const key = (k: BarRangeKey) => `${k.listingId}:${k.from}:${k.to}`;
const fxKey = (k: FxRangeKey) => `${k.currency}:${k.fromDay}:${k.toDay}`;
const peersKey = (k: PeersKey) => `${k.securityId}:${k.limit}`;

/** What one loader needs: the capability it reads, and how it makes its DataLoader over a source that has it. */
interface LoaderSpec<K extends CapabilityName, L> {
  capability: K;
  make(source: SourceWith<K>, options: { maxBatchSize?: number }): L;
}

const spec = <K extends CapabilityName, L>(capability: K, make: LoaderSpec<K, L>["make"]): LoaderSpec<K, L> => ({
  capability,
  make,
});

/**
 * How each loader is made. Every store lookup of one request goes through
 * these loaders, so lookups made by different fields (aliases, bulk items) in
 * the same tick share one batched query. A loader of a capability the source
 * lacks is never made: asking for it is NOT_AVAILABLE (404).
 */
const LOADERS = {
  instrumentBySymbol: spec(
    "instruments",
    (source, o) =>
      new DataLoader<string, InstrumentRow | null>(async (symbols) => {
        const candidates = symbols.map(symbolCandidates);
        const flat = [...new Set(candidates.flat())];
        const found = await source.getInstrumentsBySymbols(flat);
        const hit = new Map<string, InstrumentRow | Error>();
        flat.forEach((s, i) => {
          const row = found[i];
          if (row) hit.set(s, row);
        });
        return candidates.map((list) => {
          for (const c of list) {
            const row = hit.get(c);
            // A spelling the source could not read fails its symbol's load alone (the cache answers such errors).
            if (row instanceof Error) return row;
            // An alternate spelling only ever resolves to a crypto pair.
            if (row && (c === list[0] || row.security.type === "crypto")) return row;
          }
          return null;
        });
      }, o),
  ),
  instrumentByIsin: spec(
    "instruments",
    (source, o) => new DataLoader<string, InstrumentRow | null>((isins) => source.getInstrumentsByIsins(isins), o),
  ),
  instrumentByCusip: spec(
    "instruments",
    (source, o) => new DataLoader<string, InstrumentRow | null>((cusips) => source.getInstrumentsByCusips(cusips), o),
  ),
  instrumentByWkn: spec(
    "instruments",
    (source, o) => new DataLoader<string, InstrumentRow | null>((wkns) => source.getInstrumentsByWkns(wkns), o),
  ),
  security: spec(
    "instruments",
    (source, o) => new DataLoader<number, SecurityRow | null>((ids) => source.getSecuritiesByIds(ids), o),
  ),
  listings: spec(
    "instruments",
    (source, o) => new DataLoader<number, ListingRow[]>((ids) => source.getListingsBySecurityIds(ids), o),
  ),
  stockPeers: spec(
    "instruments",
    (source, o) =>
      new DataLoader<PeersKey, InstrumentRow[], string>((keys) => source.getStockPeers(keys), {
        ...o,
        cacheKeyFn: peersKey,
      }),
  ),
  dailyBars: spec(
    "bars",
    (source, o) =>
      new DataLoader<BarRangeKey, BarRow[], string>((keys) => source.getDailyBars(keys), { ...o, cacheKeyFn: key }),
  ),
  intradayBars: spec(
    "bars",
    (source, o) =>
      new DataLoader<BarRangeKey, BarRow[], string>((keys) => source.getIntradayBars(keys), { ...o, cacheKeyFn: key }),
  ),
  fxRates: spec(
    "fx",
    (source, o) =>
      new DataLoader<FxRangeKey, FxRow[], string>((keys) => source.getFxRates(keys), { ...o, cacheKeyFn: fxKey }),
  ),
  etfProfile: spec(
    "etfReference",
    (source, o) => new DataLoader<number, EtfProfileRow | null>((ids) => source.getEtfProfiles(ids), o),
  ),
  etfHoldings: spec(
    "etfReference",
    (source, o) => new DataLoader<number, HoldingRow[]>((ids) => source.getEtfHoldings(ids), o),
  ),
  etfSectors: spec(
    "etfReference",
    (source, o) => new DataLoader<number, ExposureRow[]>((ids) => source.getEtfSectorExposure(ids), o),
  ),
  etfCountries: spec(
    "etfReference",
    (source, o) => new DataLoader<number, ExposureRow[]>((ids) => source.getEtfCountryExposure(ids), o),
  ),
  fundProfile: spec(
    "fundReference",
    (source, o) => new DataLoader<number, FundProfileRow | null>((ids) => source.getFundProfiles(ids), o),
  ),
  fundHoldings: spec(
    "fundReference",
    (source, o) => new DataLoader<number, HoldingRow[]>((ids) => source.getFundHoldings(ids), o),
  ),
  fundSectors: spec(
    "fundReference",
    (source, o) => new DataLoader<number, ExposureRow[]>((ids) => source.getFundSectorExposure(ids), o),
  ),
  fundCountries: spec(
    "fundReference",
    (source, o) => new DataLoader<number, ExposureRow[]>((ids) => source.getFundCountryExposure(ids), o),
  ),
  fundAllocation: spec(
    "fundReference",
    (source, o) => new DataLoader<number, ExposureRow[]>((ids) => source.getFundAllocation(ids), o),
  ),
  financials: spec(
    "fundamentals",
    (source, o) => new DataLoader<number, QuarterlyFinancialsRow[]>((ids) => source.getQuarterlyFinancials(ids), o),
  ),
  dividends: spec(
    "dividends",
    (source, o) => new DataLoader<number, DividendRow[]>((ids) => source.getDividends(ids), o),
  ),
  splits: spec("dividends", (source, o) => new DataLoader<number, SplitRow[]>((ids) => source.getSplits(ids), o)),
  indexConstituents: spec(
    "indices",
    (source, o) => new DataLoader<string, IndexConstituentRow[]>((symbols) => source.getIndexConstituents(symbols), o),
  ),
};

export type Loaders = { readonly [K in keyof typeof LOADERS]: ReturnType<(typeof LOADERS)[K]["make"]> };

/**
 * The loaders of one request, each made on first use: a request reads two or
 * three of the twenty, and making the rest would be wasted work on the hot
 * path. Created per request: the cache must never outlive it.
 */
/**
 * A loader of a capability the source lacks: every load rejects with
 * NOT_AVAILABLE, as a promise like any other load (never a throw while a
 * service builds its `Promise.all`, which would leave its other loads
 * unhandled).
 */
function refusing(error: Error): DataLoader<unknown, never> {
  return new DataLoader<unknown, never>(async () => {
    throw error;
  });
}

class RequestLoaders {
  readonly made: Partial<Record<keyof Loaders, unknown>> = {};
  constructor(readonly source: MarketDataSource) {}
}
for (const key of Object.keys(LOADERS) as (keyof Loaders)[]) {
  Object.defineProperty(RequestLoaders.prototype, key, {
    get(this: RequestLoaders) {
      if (this.made[key] === undefined) {
        const { capability, make } = LOADERS[key] as LoaderSpec<CapabilityName, unknown>;
        const options = this.source.maxBatchSize === undefined ? {} : { maxBatchSize: this.source.maxBatchSize };
        this.made[key] = hasCapability(this.source, capability)
          ? make(this.source, options)
          : refusing(notAvailable(this.source, capability));
      }
      return this.made[key];
    },
  });
}

export function createLoaders(source: MarketDataSource): Loaders {
  return new RequestLoaders(source) as unknown as Loaders;
}
