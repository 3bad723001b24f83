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
 * Every store lookup of one request goes through these loaders, so lookups
 * made by different fields (aliases, bulk items) in the same tick share one
 * batched query. Created per request: the cache must never outlive it.
 */
export function createLoaders(source: DataSource) {
  const bySymbol = new DataLoader<string, InstrumentRow | null>(async (symbols) => {
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
  });
  const byIsin = new DataLoader<string, InstrumentRow | null>((isins) => source.getInstrumentsByIsins(isins));

  return {
    instrumentBySymbol: bySymbol,
    instrumentByIsin: byIsin,
    security: new DataLoader<number, SecurityRow | null>((ids) => source.getSecuritiesByIds(ids)),
    listings: new DataLoader<number, ListingRow[]>((ids) => source.getListingsBySecurityIds(ids)),
    dailyBars: new DataLoader<BarRangeKey, BarRow[], string>((keys) => source.getDailyBars(keys), { cacheKeyFn: key }),
    intradayBars: new DataLoader<BarRangeKey, BarRow[], string>((keys) => source.getIntradayBars(keys), { cacheKeyFn: key }),
    barCoverage: new DataLoader<number, BarCoverageRow>((ids) => source.getBarCoverage(ids)),
    fxRates: new DataLoader<FxRangeKey, FxRow[], string>((keys) => source.getFxRates(keys), { cacheKeyFn: fxKey }),
    etfProfile: new DataLoader<number, EtfProfileRow | null>((ids) => source.getEtfProfiles(ids)),
    etfHoldings: new DataLoader<number, HoldingRow[]>((ids) => source.getEtfHoldings(ids)),
    etfSectors: new DataLoader<number, ExposureRow[]>((ids) => source.getEtfSectorExposure(ids)),
    etfCountries: new DataLoader<number, ExposureRow[]>((ids) => source.getEtfCountryExposure(ids)),
    fundProfile: new DataLoader<number, FundProfileRow | null>((ids) => source.getFundProfiles(ids)),
    fundHoldings: new DataLoader<number, HoldingRow[]>((ids) => source.getFundHoldings(ids)),
    fundSectors: new DataLoader<number, ExposureRow[]>((ids) => source.getFundSectorExposure(ids)),
    fundCountries: new DataLoader<number, ExposureRow[]>((ids) => source.getFundCountryExposure(ids)),
    fundAllocation: new DataLoader<number, ExposureRow[]>((ids) => source.getFundAllocation(ids)),
    financials: new DataLoader<number, QuarterlyFinancialsRow[]>((ids) => source.getQuarterlyFinancials(ids)),
    dividends: new DataLoader<number, DividendRow[]>((ids) => source.getDividends(ids)),
    splits: new DataLoader<number, SplitRow[]>((ids) => source.getSplits(ids)),
    indexConstituents: new DataLoader<string, IndexConstituentRow[]>((symbols) => source.getIndexConstituents(symbols)),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
