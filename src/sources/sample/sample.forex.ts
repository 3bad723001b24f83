import { isWeekday } from "./sample.calendar";
import { currencyName, isoCurrencies, MAJOR_CURRENCIES } from "./sample.markets";
import type { Random } from "./sample.random";

/**
 * Daily FX (units per USD for every calendar day) and the forex pairs quoted on
 * it. Pair closes are computed from these series, so fx_daily and the forex
 * daily bars agree exactly.
 */

// Rough present-day levels (units per USD). Only a handful of currencies need
// sensible levels; the rest get a plausible random one.
const LEVELS: Readonly<Record<string, number>> = {
  EUR: 0.92,
  JPY: 150,
  GBP: 0.79,
  CHF: 0.88,
  CAD: 1.36,
  AUD: 1.52,
  NZD: 1.65,
  SEK: 10.5,
  NOK: 10.7,
  CNY: 7.2,
  SGD: 1.35,
  INR: 83,
  KRW: 1350,
  MXN: 17.5,
  BRL: 5.2,
  ZAR: 18.5,
  TRY: 32,
  PLN: 4.0,
  CZK: 23,
  HUF: 360,
  ILS: 3.7,
  THB: 35,
  TWD: 32,
  IDR: 15800,
  MYR: 4.6,
  PHP: 56,
  RUB: 90,
  CLP: 920,
  COP: 4000,
  PEN: 3.75,
  ARS: 900,
  EGP: 48,
  NGN: 1500,
  VND: 25000,
  ISK: 138,
  RON: 4.6,
  KWD: 0.307,
  UAH: 40,
  PKR: 280,
  KZT: 480,
};

// Currencies held to the dollar or the euro move only within a narrow band.
const USD_PEGS: Readonly<Record<string, number>> = {
  HKD: 7.8,
  SAR: 3.75,
  AED: 3.6725,
  QAR: 3.64,
  BHD: 0.376,
  OMR: 0.3845,
  JOD: 0.709,
  PAB: 1,
  BSD: 1,
  BMD: 1,
  BZD: 2,
  BBD: 2,
  XCD: 2.7,
  DJF: 177.72,
  ANG: 1.79,
  AWG: 1.79,
  KYD: 0.833,
  CUC: 1,
};
const EUR_PEGS: Readonly<Record<string, number>> = {
  DKK: 7.46,
  BGN: 1.95583,
  BAM: 1.95583,
  XAF: 655.957,
  XOF: 655.957,
  XPF: 119.332,
  KMF: 491.968,
  CVE: 110.265,
};

// Annual depreciation against the dollar, so ten years of history look like it.
const TRENDS: Readonly<Record<string, number>> = { TRY: 0.25, ARS: 0.4, EGP: 0.12, NGN: 0.15, RUB: 0.05, PKR: 0.08 };

export class FxHistory {
  constructor(
    /** Calendar day number of index 0. */
    readonly firstDay: number,
    readonly lastDay: number,
    /** Units per USD, one value per calendar day; weekends repeat Friday. */
    private readonly series: ReadonlyMap<string, Float64Array>,
  ) {}

  get currencies(): string[] {
    return [...this.series.keys()];
  }

  has(currency: string): boolean {
    return this.series.has(currency);
  }

  perUsdSeries(currency: string): Float64Array {
    const s = this.series.get(currency);
    if (!s) throw new Error(`No FX series for ${currency}`);
    return s;
  }

  perUsd(currency: string, day: number): number {
    const i = Math.min(Math.max(day, this.firstDay), this.lastDay) - this.firstDay;
    return this.perUsdSeries(currency)[i] as number;
  }

  /** Price of one unit of `from` in `to` on `day`. */
  rate(from: string, to: string, day: number): number {
    if (from === to) return 1;
    return this.perUsd(to, day) / this.perUsd(from, day);
  }
}

/** Builds the per-USD series for every ISO currency over [firstDay, lastDay]. */
export function generateFx(rng: Random, firstDay: number, lastDay: number): FxHistory {
  const n = lastDay - firstDay + 1;
  const years = n / 365.25;
  const currencies = isoCurrencies();
  const common = new Float64Array(n);
  const commonRng = rng.fork("usd-factor");
  for (let i = 0; i < n; i++) common[i] = commonRng.normal();

  const series = new Map<string, Float64Array>();
  const usd = new Float64Array(n).fill(1);
  series.set("USD", usd);

  const walk = (code: string): Float64Array => {
    const r = rng.fork(code);
    const out = new Float64Array(n);
    const level = LEVELS[code] ?? Math.exp(r.range(Math.log(0.4), Math.log(20000)));
    const volAnnual = LEVELS[code] !== undefined ? r.range(0.07, 0.11) : r.range(0.06, 0.16);
    const volDaily = volAnnual / Math.sqrt(260);
    const trend = TRENDS[code] ?? 0;
    const rho = 0.6;
    const kappa = 0.005;
    const logEnd = Math.log(level);
    const decimals = roundingDecimals(level);
    let target = logEnd - trend * years;
    let x = target + 0.04 * r.normal();
    for (let i = 0; i < n; i++) {
      const day = firstDay + i;
      if (i > 0 && isWeekday(day)) {
        // The level itself drifts for depreciating currencies; x follows it
        // step for step and reverts around it.
        const next = logEnd - trend * (years - i / 365.25);
        const shock = rho * (common[i] as number) + Math.sqrt(1 - rho * rho) * r.normal();
        x += next - target + kappa * (next - x) + volDaily * shock;
        target = next;
      }
      out[i] = i > 0 && !isWeekday(day) ? (out[i - 1] as number) : roundTo(Math.exp(x), decimals);
    }
    return out;
  };

  const pegged = (code: string, anchorSeries: Float64Array, peg: number, band: number): Float64Array => {
    const r = rng.fork(code);
    const out = new Float64Array(n);
    const decimals = roundingDecimals(peg * (anchorSeries[n - 1] as number));
    let dev = 0;
    for (let i = 0; i < n; i++) {
      const day = firstDay + i;
      if (i > 0 && !isWeekday(day)) {
        out[i] = out[i - 1] as number;
        continue;
      }
      dev = 0.98 * dev + 0.2 * band * r.normal();
      dev = Math.max(-band, Math.min(band, dev));
      out[i] = roundTo((anchorSeries[i] as number) * peg * (1 + dev), decimals);
    }
    return out;
  };

  // EUR first: the euro pegs are built on it.
  const eur = walk("EUR");
  series.set("EUR", eur);
  for (const code of currencies) {
    if (series.has(code)) continue;
    const usdPeg = USD_PEGS[code];
    const eurPeg = EUR_PEGS[code];
    if (usdPeg !== undefined) series.set(code, pegged(code, usd, usdPeg, 0.004));
    else if (eurPeg !== undefined) series.set(code, pegged(code, eur, eurPeg, 0.003));
    else series.set(code, walk(code));
  }
  const sorted = new Map([...series.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
  return new FxHistory(firstDay, lastDay, sorted);
}

/** Decimals giving about six significant digits, as FX feeds quote. */
function roundingDecimals(level: number): number {
  return Math.max(0, 5 - Math.floor(Math.log10(level)));
}

function roundTo(x: number, decimals: number): number {
  const m = 10 ** decimals;
  return Math.round(x * m) / m;
}

export interface ForexPair {
  base: string;
  quote: string;
  symbol: string;
  name: string;
  /** Both currencies among the majors: these carry daily history. */
  major: boolean;
}

/**
 * All pairs among the majors in market convention, then USD against every
 * other circulating ISO 4217 currency.
 */
export function forexPairs(): ForexPair[] {
  const pairs: ForexPair[] = [];
  // ISO 4217 names two codes "Bolívar Soberano" (VED, VES); the code tells them apart.
  const nameCount = new Map<string, number>();
  for (const code of isoCurrencies()) nameCount.set(currencyName(code), (nameCount.get(currencyName(code)) ?? 0) + 1);
  const label = (code: string) => {
    const name = currencyName(code);
    return (nameCount.get(name) ?? 0) > 1 ? `${name} (${code})` : name;
  };
  const make = (base: string, quote: string, major: boolean): ForexPair => ({
    base,
    quote,
    symbol: base + quote,
    name: `${label(base)} / ${label(quote)}`,
    major,
  });
  for (let i = 0; i < MAJOR_CURRENCIES.length; i++) {
    for (let j = i + 1; j < MAJOR_CURRENCIES.length; j++) {
      pairs.push(make(MAJOR_CURRENCIES[i] as string, MAJOR_CURRENCIES[j] as string, true));
    }
  }
  const majors = new Set<string>(MAJOR_CURRENCIES);
  for (const code of isoCurrencies()) {
    if (!majors.has(code)) pairs.push(make("USD", code, false));
  }
  return pairs;
}
