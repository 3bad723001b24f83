import DataLoader from "dataloader";
import type {
  BarCoverageRow,
  BarRangeKey,
  BarRow,
  DataSource,
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
  QuarterlyFinancialsRow,
  SecurityRow,
  SplitRow,
} from "./data-source";

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

/**
 * How each loader is made. Every store lookup of one request goes through
 * these loaders, so lookups made by different fields (aliases, bulk items) in
 * the same tick share one batched query.
 */
const LOADERS = {
  instrumentBySymbol: (source: DataSource) =>
    new DataLoader<string, InstrumentRow | null>(async (symbols) => {
      const candidates = symbols.map(symbolCandidates);
      const flat = [...new Set(candidates.flat())];
      const found = await source.getInstrumentsBySymbols(flat);
      const hit = new Map<string, InstrumentRow>();
      flat.forEach((s, i) => {
        const row = found[i];
        if (row) hit.set(s, row);
      });
      return candidates.map((list) => {
        for (const c of list) {
          const row = hit.get(c);
          // An alternate spelling only ever resolves to a crypto pair.
          if (row && (c === list[0] || row.security.type === "crypto")) return row;
        }
        return null;
      });
    }),
  instrumentByIsin: (source: DataSource) => new DataLoader<string, InstrumentRow | null>((isins) => source.getInstrumentsByIsins(isins)),
  security: (source: DataSource) => new DataLoader<number, SecurityRow | null>((ids) => source.getSecuritiesByIds(ids)),
  listings: (source: DataSource) => new DataLoader<number, ListingRow[]>((ids) => source.getListingsBySecurityIds(ids)),
  dailyBars: (source: DataSource) => new DataLoader<BarRangeKey, BarRow[], string>((keys) => source.getDailyBars(keys), { cacheKeyFn: key }),
  intradayBars: (source: DataSource) => new DataLoader<BarRangeKey, BarRow[], string>((keys) => source.getIntradayBars(keys), { cacheKeyFn: key }),
  barCoverage: (source: DataSource) => new DataLoader<number, BarCoverageRow>((ids) => source.getBarCoverage(ids)),
  fxRates: (source: DataSource) => new DataLoader<FxRangeKey, FxRow[], string>((keys) => source.getFxRates(keys), { cacheKeyFn: fxKey }),
  etfProfile: (source: DataSource) => new DataLoader<number, EtfProfileRow | null>((ids) => source.getEtfProfiles(ids)),
  etfHoldings: (source: DataSource) => new DataLoader<number, HoldingRow[]>((ids) => source.getEtfHoldings(ids)),
  etfSectors: (source: DataSource) => new DataLoader<number, ExposureRow[]>((ids) => source.getEtfSectorExposure(ids)),
  etfCountries: (source: DataSource) => new DataLoader<number, ExposureRow[]>((ids) => source.getEtfCountryExposure(ids)),
  fundProfile: (source: DataSource) => new DataLoader<number, FundProfileRow | null>((ids) => source.getFundProfiles(ids)),
  fundHoldings: (source: DataSource) => new DataLoader<number, HoldingRow[]>((ids) => source.getFundHoldings(ids)),
  fundSectors: (source: DataSource) => new DataLoader<number, ExposureRow[]>((ids) => source.getFundSectorExposure(ids)),
  fundCountries: (source: DataSource) => new DataLoader<number, ExposureRow[]>((ids) => source.getFundCountryExposure(ids)),
  fundAllocation: (source: DataSource) => new DataLoader<number, ExposureRow[]>((ids) => source.getFundAllocation(ids)),
  financials: (source: DataSource) => new DataLoader<number, QuarterlyFinancialsRow[]>((ids) => source.getQuarterlyFinancials(ids)),
  dividends: (source: DataSource) => new DataLoader<number, DividendRow[]>((ids) => source.getDividends(ids)),
  splits: (source: DataSource) => new DataLoader<number, SplitRow[]>((ids) => source.getSplits(ids)),
  indexConstituents: (source: DataSource) => new DataLoader<string, IndexConstituentRow[]>((symbols) => source.getIndexConstituents(symbols)),
};

export type Loaders = { readonly [K in keyof typeof LOADERS]: ReturnType<(typeof LOADERS)[K]> };

/**
 * The loaders of one request, each made on first use: a request reads two or
 * three of the twenty, and making the rest would be wasted work on the hot
 * path. Created per request: the cache must never outlive it.
 */
class RequestLoaders {
  readonly made: Partial<Record<keyof Loaders, unknown>> = {};
  constructor(readonly source: DataSource) {}
}
for (const key of Object.keys(LOADERS) as (keyof Loaders)[]) {
  Object.defineProperty(RequestLoaders.prototype, key, {
    get(this: RequestLoaders) {
      return (this.made[key] ??= LOADERS[key](this.source));
    },
  });
}

export function createLoaders(source: DataSource): Loaders {
  return new RequestLoaders(source) as unknown as Loaders;
}
