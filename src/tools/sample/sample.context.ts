import { addYears, onOrBeforeWeekday, parseDay } from "../../sources/sample/sample.calendar";
import { FxHistory, generateFx } from "../../sources/sample/sample.forex";
import { IdentifierRegistry } from "./sample.identifiers";
import { CompanyNamer, SymbolRegistry } from "./sample.names";
import { Random } from "../../sources/sample/sample.random";

/** Bumped whenever the generated content changes for the same seed and anchor. */
export const GENERATOR_VERSION = "5";

/** Years of daily history before the anchor. */
export const HISTORY_YEARS = 10;

export { INTRADAY_DAYS } from "../../sources/sample/sample.prices";

/** Full-size counts; a `scale` below 1 shrinks them for tests. */
const FULL_COUNTS = {
  stocks: 91_000,
  etfs: 1_500,
  funds: 6_500,
  crypto: 1_500,
  stocksWithHistory: 1_000,
  fundsWithHistory: 500,
  cryptoWithHistory: 500,
  intradayStocks: 100,
  intradayCrypto: 50,
  stocksWithFinancials: 3_000,
  recentIpos: 50,
  upcomingIpos: 20,
  splitStocks: 300,
  corporateBonds: 2_500,
  fundCompanies: 60,
} as const;

export type SampleCounts = { -readonly [K in keyof typeof FULL_COUNTS]: number };

const MINIMUM_COUNTS: SampleCounts = {
  stocks: 400,
  etfs: 12,
  funds: 24,
  crypto: 30,
  stocksWithHistory: 8,
  fundsWithHistory: 4,
  cryptoWithHistory: 6,
  intradayStocks: 2,
  intradayCrypto: 2,
  stocksWithFinancials: 30,
  recentIpos: 3,
  upcomingIpos: 3,
  splitStocks: 4,
  corporateBonds: 60,
  fundCompanies: 4,
};

export function scaledCounts(scale: number): SampleCounts {
  const out = {} as SampleCounts;
  for (const key of Object.keys(FULL_COUNTS) as (keyof SampleCounts)[]) {
    out[key] = Math.max(MINIMUM_COUNTS[key], Math.round(FULL_COUNTS[key] * scale));
  }
  return out;
}

export interface SampleContext {
  readonly seed: number;
  readonly scale: number;
  readonly anchorDay: number;
  readonly historyStart: number;
  /**
   * The last day of every price path: the day before the anchor. The anchor is the sample's clock, 00:00 UTC of the
   * anchor day (the quotes' times are capped there), and no market's session of the anchor day has closed by then.
   */
  readonly lastClosedDay: number;
  /** Last weekday before the anchor day: the day of the latest exchange close. */
  readonly lastTradingDay: number;
  readonly counts: SampleCounts;
  readonly fx: FxHistory;
  readonly ids: IdentifierRegistry;
  readonly symbols: SymbolRegistry;
  readonly namer: CompanyNamer;
  /** A random stream for one concern; the same label always gives the same stream. */
  rng(label: string): Random;
  /**
   * Lets the name, symbol and identifier registries go once the universe is built (13 MB of heap on the full sample
   * for the rest of the build); reading any of them afterwards throws rather than hand out a duplicate.
   */
  retireRegistries(): void;
}

export function createContext(seed: number, anchorDate: string, scale: number): SampleContext {
  if (!Number.isSafeInteger(seed)) throw new Error(`Seed must be an integer, got ${seed}`);
  if (!(scale > 0 && scale <= 1)) throw new Error(`Scale must be in (0, 1], got ${scale}`);
  const anchorDay = parseDay(anchorDate);
  const historyStart = addYears(anchorDay, -HISTORY_YEARS);
  const rng = (label: string) => Random.fromSeed(seed, label);
  let registries: { ids: IdentifierRegistry; symbols: SymbolRegistry; namer: CompanyNamer } | null = {
    ids: new IdentifierRegistry(rng("identifiers")),
    symbols: new SymbolRegistry(rng("symbols")),
    namer: new CompanyNamer(rng("names")),
  };
  const held = () => {
    if (!registries) throw new Error("the sample's registries were retired once its universe was built");
    return registries;
  };
  return {
    seed,
    scale,
    anchorDay,
    historyStart,
    lastClosedDay: anchorDay - 1,
    lastTradingDay: onOrBeforeWeekday(anchorDay - 1),
    counts: scaledCounts(scale),
    fx: generateFx(rng("fx"), historyStart, anchorDay),
    get ids() {
      return held().ids;
    },
    get symbols() {
      return held().symbols;
    },
    get namer() {
      return held().namer;
    },
    rng,
    retireRegistries() {
      registries = null;
    },
  };
}
