import { makeDay, SECONDS_PER_DAY } from "./sample.calendar";
import type { FxHistory } from "./sample.forex";
import { exchange } from "./sample.markets";
import { tickDecimals, type TickKind } from "./sample.numbers";
import type { Random } from "./sample.random";
import { isTradingDay, sessionOn } from "./sample.sessions";

/** A value of a row the generator writes. */
export type SqlValue = number | string | null;

/** Weekdays of 5-minute bars up to the last closed day (a holiday among them has none). */
export const INTRADAY_DAYS = 10;

/**
 * Price histories: the hot loop of the build (about ten million daily bars).
 *
 * Each path is a geometric random walk driven by a shared market factor,
 * its own noise and occasional stress regimes. The walk is simulated in
 * relative terms and then scaled so its last close equals the security's
 * planned price: market caps, quotes and holdings planned up front stay
 * consistent with the bars. Buffers are typed arrays reused across listings,
 * and rows go out through one reused array, so the loop allocates nothing.
 */

export interface RowWriter {
  /** Appends one row; the values are copied before this returns, so callers may reuse the array. */
  write(values: readonly SqlValue[]): void;
}

export type BarStyle = "ohlc" | "nav" | "fx";

export interface HistorySpec {
  listingId: number;
  /** Listing whose random stream drives the path: itself, or the primary a secondary listing follows. */
  stream: number;
  /** Exchange days with the stock market factor, or every day with the crypto one. */
  market: "weekday" | "daily";
  style: BarStyle;
  /** Trading days of the series (weekdays or every day), ascending. */
  days: Int32Array;
  /** Market factor log-returns aligned with `days`; null for none. */
  factor: Float64Array | null;
  /** Typical daily standard deviation of `factor`. */
  factorDailyVol: number;
  /** Planned last close (ignored for fx). */
  finalPrice: number;
  /** Minimum price decimals (0 for yen, 2 otherwise). */
  baseDecimals: number;
  /** Annualised idiosyncratic volatility. */
  volatility: number;
  beta: number;
  drift: number;
  /** Typical daily volume. */
  volume: number;
  /**
   * Fraction of the path's volume this listing trades (1 but for a secondary
   * listing, which follows its primary's path on a venue that trades less).
   */
  volumeShare?: number;
  /** Steps per year of the series, for scaling volatility and drift. */
  stepsPerYear: number;
  /**
   * Daily pull of the idiosyncratic deviation back to the trend (0 = pure
   * random walk). Crypto needs it: its daily noise is large, and as a pure
   * walk it would wander by factors of ten thousand over ten years.
   */
  meanReversion: number;
  /** Opens gap away from the previous close (exchange sessions); false for 24h markets. */
  gaps: boolean;
  /** 5-minute bars per day on the last INTRADAY_DAYS days (less the listing's holidays); 0 for none. */
  intradayBars: number;
  /**
   * The listing's exchange: its sessions (sample.sessions.ts) place the 5-minute bars and the quote's time, and its
   * holidays have no bar (the path still moves through them, as the world does while a market is shut).
   */
  exchange: string;
  fxBase?: string;
  fxQuote?: string;
}

/** The latest quote of a listing, derived from its bars or generated. */
export interface QuoteStats {
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  pc: number;
  v: number;
  ma50: number | null;
  ma200: number | null;
  avgVolume: number | null;
}

/** Numbers per packed quote. */
const QUOTE_FIELDS = 10;

/**
 * Every listing's quote by listing id (1 to `count`), packed: 131,000 quote objects held from the price history to
 * the quotes table cost ~35 MB of heap; here they take 10 MB. Absent figures (a short path's averages) are NaN inside.
 */
export class QuoteTable {
  /**
   * A Float64Array per field, not one for all: freeing a ~10 MB block would raise glibc's mmap and trim thresholds to
   * that size, and the service would then start on ~30 MiB of freed memory still resident (StockColumns says more).
   */
  private readonly values: Float64Array[] = [];
  private readonly present: Uint8Array;

  constructor(private readonly count: number) {
    for (let k = 0; k < QUOTE_FIELDS; k++) this.values.push(new Float64Array(count + 1));
    this.present = new Uint8Array(count + 1);
  }

  set(listingId: number, q: QuoteStats): void {
    if (!(listingId >= 1 && listingId <= this.count)) throw new Error(`listing ${listingId} is out of range`);
    const nan = (v: number | null) => (v === null ? NaN : v);
    const fields = [q.t, q.o, q.h, q.l, q.c, q.pc, q.v, nan(q.ma50), nan(q.ma200), nan(q.avgVolume)];
    for (let k = 0; k < QUOTE_FIELDS; k++) (this.values[k] as Float64Array)[listingId] = fields[k] as number;
    this.present[listingId] = 1;
  }

  get(listingId: number): QuoteStats {
    if (this.present[listingId] !== 1) throw new Error(`listing ${listingId} has no quote`);
    const at = (k: number) => (this.values[k] as Float64Array)[listingId] as number;
    const orNull = (v: number) => (Number.isNaN(v) ? null : v);
    return {
      t: at(0),
      o: at(1),
      h: at(2),
      l: at(3),
      c: at(4),
      pc: at(5),
      v: at(6),
      ma50: orNull(at(7)),
      ma200: orNull(at(8)),
      avgVolume: orNull(at(9)),
    };
  }
}

/** Builds a market factor: drift, Markov stress regimes and scripted crashes. */
export function marketFactor(
  r: Random,
  days: Int32Array,
  annualVol: number,
  annualDrift: number,
  stepsPerYear: number,
  crashes: readonly { from: number; to: number; totalReturn: number }[],
): Float64Array {
  const n = days.length;
  const out = new Float64Array(n);
  const vol = annualVol / Math.sqrt(stepsPerYear);
  const mu = annualDrift / stepsPerYear;
  // Stress spells (about 7 % of days, ~40 days each) double volatility and
  // bleed a little, which gives the history visible drawdowns.
  let stressed = false;
  for (let i = 0; i < n; i++) {
    if (stressed ? r.next() < 1 / 40 : r.next() < 1 / 500) stressed = !stressed;
    out[i] = stressed ? mu - 0.15 * vol + 2 * vol * r.normal() : mu + vol * r.normal();
  }
  for (const c of crashes) {
    let first = -1;
    let last = -1;
    for (let i = 0; i < n; i++) {
      const d = days[i] as number;
      if (d >= c.from && d <= c.to) {
        if (first < 0) first = i;
        last = i;
      }
    }
    if (first < 0) continue;
    const len = last - first + 1;
    const step = Math.log(1 + c.totalReturn) / len;
    for (let i = first; i <= last; i++) out[i] = step + 1.5 * vol * r.normal();
  }
  return out;
}

/** The 2020 crash and the 2022 bear market, applied when they fall into the window. */
export const STOCK_CRASHES = [
  { from: makeDay(2020, 2, 20), to: makeDay(2020, 3, 23), totalReturn: -0.33 },
  { from: makeDay(2022, 1, 4), to: makeDay(2022, 10, 12), totalReturn: -0.22 },
];
export const CRYPTO_CRASHES = [
  { from: makeDay(2018, 1, 8), to: makeDay(2018, 12, 15), totalReturn: -0.8 },
  { from: makeDay(2022, 4, 1), to: makeDay(2022, 11, 21), totalReturn: -0.7 },
];

const NO_ROWS: RowWriter = { write: () => undefined };

/** Runs specs one at a time, reusing its buffers. */
export class BarSimulator {
  private readonly o: Float64Array;
  private readonly h: Float64Array;
  private readonly l: Float64Array;
  private readonly c: Float64Array;
  private readonly v: Float64Array;
  private readonly io: Float64Array;
  private readonly ih: Float64Array;
  private readonly il: Float64Array;
  private readonly ic: Float64Array;
  private readonly iv: Float64Array;
  private readonly row: SqlValue[] = [0, 0, 0, 0, 0, 0, 0];
  /** Indices of the path's days its listing's exchange trades. */
  private readonly open: Int32Array;
  private readonly profiles = new Map<number, Float64Array>();

  constructor(
    maxDays: number,
    private readonly fx: FxHistory | null,
  ) {
    this.o = new Float64Array(maxDays);
    this.h = new Float64Array(maxDays);
    this.l = new Float64Array(maxDays);
    this.c = new Float64Array(maxDays);
    this.v = new Float64Array(maxDays);
    this.open = new Int32Array(maxDays);
    const intraday = INTRADAY_DAYS * 288;
    this.io = new Float64Array(intraday);
    this.ih = new Float64Array(intraday);
    this.il = new Float64Array(intraday);
    this.ic = new Float64Array(intraday);
    this.iv = new Float64Array(intraday);
  }

  /** Simulates one listing, writes its bars and returns its quote. */
  run(spec: HistorySpec, r: Random, daily: RowWriter, intraday: RowWriter): QuoteStats {
    if (spec.style === "fx") this.simulateFx(spec, r);
    else this.simulateWalk(spec, r);
    return this.emit(spec, daily, intraday, false);
  }

  /**
   * The quote of a path not stored: what `run` returns, without writing its
   * bars. `again` reuses the path just simulated, for a secondary listing
   * whose spec differs from it only in final price, decimals, close time and
   * volume share (same stream, days and dynamics): the same numbers `run`
   * would give it, without simulating the walk a second time.
   */
  quoteOnly(spec: HistorySpec, r: Random, again: boolean): QuoteStats {
    if (!again) {
      if (spec.style === "fx") this.simulateFx(spec, r);
      else this.simulateWalk(spec, r);
    }
    return this.emit(spec, NO_ROWS, NO_ROWS, true);
  }

  private intradayProfile(k: number): Float64Array {
    let p = this.profiles.get(k);
    if (!p) {
      // Stocks trade most at the open and the close; crypto follows the sun a little.
      p = new Float64Array(k);
      let sum = 0;
      for (let j = 0; j < k; j++) {
        const x =
          k <= 100 ? 1 + 2 * ((j - (k - 1) / 2) / ((k - 1) / 2)) ** 2 : 1 + 0.3 * Math.sin((2 * Math.PI * j) / k - 1);
        p[j] = x;
        sum += x;
      }
      for (let j = 0; j < k; j++) p[j] = (p[j] as number) / sum;
      this.profiles.set(k, p);
    }
    return p;
  }

  private simulateWalk(spec: HistorySpec, r: Random): void {
    const { o, h, l, c, v, io, ih, il, ic, iv } = this;
    const n = spec.days.length;
    const f = spec.factor;
    const beta = spec.beta;
    const sigma = spec.volatility / Math.sqrt(spec.stepsPerYear);
    const mu = spec.drift / spec.stepsPerYear;
    const total = Math.sqrt(sigma * sigma + beta * beta * spec.factorDailyVol * spec.factorDailyVol);
    const gap = spec.gaps ? 0.25 * total : 0;
    const wick = 0.6 * total;
    const nav = spec.style === "nav";
    const baseVolume = spec.volume;
    const k = spec.intradayBars;
    const intradayFrom = k > 0 ? Math.max(1, n - INTRADAY_DAYS) : n;
    const profile = k > 0 ? this.intradayProfile(k) : null;
    const subSigma = k > 0 ? sigma / Math.sqrt(k) : 0;
    const subWick = 0.5 * subSigma;

    const kappa = spec.meanReversion;
    let stressed = false;
    let prev = 1;
    let deviation = 0;
    for (let i = 0; i < n; i++) {
      if (stressed ? r.next() < 1 / 30 : r.next() < 1 / 400) stressed = !stressed;
      const s = stressed ? 2 * sigma : sigma;
      const m = (f === null ? 0 : beta * (f[i] as number)) + mu;
      const open = i === 0 || gap === 0 ? prev : prev * (1 + gap * r.normal());
      if (i < intradayFrom) {
        // Stress drags the price down; with mean reversion the drag reverts too.
        const shock = s * r.normal() + (stressed ? -0.3 * sigma : 0) - kappa * deviation;
        deviation += shock;
        const ret = m + shock;
        const close = prev * Math.exp(ret);
        if (nav) {
          o[i] = close;
          h[i] = close;
          l[i] = close;
        } else {
          const w = stressed ? 2 * wick : wick;
          o[i] = open;
          h[i] = (open > close ? open : close) * (1 + w * r.next());
          l[i] = (open < close ? open : close) * (1 - w * r.next());
        }
        c[i] = close;
        const surprise = ret < 0 ? -ret / total : ret / total;
        v[i] = Math.max(1, Math.round(baseVolume * (0.55 + 0.9 * r.next()) * (1 + 0.5 * surprise)));
        prev = close;
      } else {
        // The daily bar of an intraday day is the aggregate of its 5-minute bars.
        const base = (i - intradayFrom) * k;
        const dayVolume = baseVolume * (0.6 + 0.8 * r.next());
        const stepMu = m / k;
        let p = open;
        let hi = -Infinity;
        let lo = Infinity;
        let vol = 0;
        for (let j = 0; j < k; j++) {
          const x = base + j;
          const po = p;
          p = p * Math.exp(stepMu + subSigma * r.normal());
          io[x] = po;
          ic[x] = p;
          const hx = (po > p ? po : p) * (1 + subWick * r.next());
          const lx = (po < p ? po : p) * (1 - subWick * r.next());
          ih[x] = hx;
          il[x] = lx;
          const vx = Math.max(1, Math.round(dayVolume * (profile as Float64Array)[j]! * (0.6 + 0.8 * r.next())));
          iv[x] = vx;
          if (hx > hi) hi = hx;
          if (lx < lo) lo = lx;
          vol += vx;
        }
        o[i] = open;
        h[i] = hi;
        l[i] = lo;
        c[i] = p;
        v[i] = vol;
        prev = p;
      }
    }
  }

  private simulateFx(spec: HistorySpec, r: Random): void {
    const { o, h, l, c, v } = this;
    const fx = this.fx;
    if (!fx) throw new Error("fx paths need the FX history");
    const base = fx.perUsdSeries(spec.fxBase as string);
    const quote = fx.perUsdSeries(spec.fxQuote as string);
    const first = fx.firstDay;
    const n = spec.days.length;
    for (let i = 0; i < n; i++) {
      const idx = (spec.days[i] as number) - first;
      // Same expression as a consumer would use on fx_daily: quote per base.
      const close = (quote[idx] as number) / (base[idx] as number);
      const open = i === 0 ? close : (c[i - 1] as number);
      o[i] = open;
      c[i] = close;
      h[i] = (open > close ? open : close) * (1 + 0.004 * r.next());
      l[i] = (open < close ? open : close) * (1 - 0.004 * r.next());
      v[i] = 50_000 + Math.round(250_000 * r.next());
    }
  }

  private emit(spec: HistorySpec, daily: RowWriter, intraday: RowWriter, statsOnly: boolean): QuoteStats {
    const { o, h, l, c, v, io, ih, il, ic, iv, row, open } = this;
    const n = spec.days.length;
    const share = spec.volumeShare ?? 1;
    const hours = exchange(spec.exchange);
    // The days the listing's exchange trades: the path's days less its holidays.
    let m = 0;
    for (let i = 0; i < n; i++) if (isTradingDay(hours, spec.days[i] as number)) open[m++] = i;
    if (m === 0) throw new Error(`listing ${spec.listingId}: no trading day in its path`);
    const last = open[m - 1] as number;
    let scale = 1;
    let minLow = Infinity;
    if (spec.style !== "fx") scale = spec.finalPrice / (c[last] as number);
    for (let k = 0; k < m; k++) {
      const x = l[open[k] as number] as number;
      if (x < minLow) minLow = x;
    }
    const kind: TickKind = spec.style === "fx" ? "fx" : spec.market === "daily" ? "crypto" : "equity";
    const mult = 10 ** tickDecimals(kind, minLow * scale, spec.baseDecimals);
    // Prices are scaled then rounded to the tick; rounding is monotonic, so h >= max(o, c) and l <= min(o, c)
    // survive it, and a day's high still equals the highest of its 5-minute highs.
    const tick = (x: number) => Math.round(x * scale * mult) / mult;

    row[0] = spec.listingId;
    let sum50 = 0;
    let sum200 = 0;
    let sumVol30 = 0;
    let lastO = 0;
    let lastH = 0;
    let lastL = 0;
    let lastC = 0;
    let prevC = 0;
    // The quote needs the last 200 bars and the close before them; each bar is rounded on its own, so skipping the
    // others changes nothing.
    for (let k = statsOnly ? Math.max(0, m - 201) : 0; k < m; k++) {
      const i = open[k] as number;
      const co = tick(o[i] as number);
      const ch = tick(h[i] as number);
      const cl = tick(l[i] as number);
      const cc = tick(c[i] as number);
      const cv = share === 1 ? (v[i] as number) : Math.max(1, Math.round((v[i] as number) * share));
      row[1] = (spec.days[i] as number) * SECONDS_PER_DAY;
      row[2] = co;
      row[3] = ch;
      row[4] = cl;
      row[5] = cc;
      row[6] = cv;
      if (!statsOnly) daily.write(row);
      if (k >= m - 50) sum50 += cc;
      if (k >= m - 200) sum200 += cc;
      if (k >= m - 30) sumVol30 += cv;
      prevC = lastC;
      lastO = co;
      lastH = ch;
      lastL = cl;
      lastC = cc;
    }

    const bars = spec.intradayBars;
    if (bars > 0 && !statsOnly) {
      const from = Math.max(1, n - INTRADAY_DAYS);
      for (let i = from; i < n; i++) {
        const session = sessionOn(hours, spec.days[i] as number);
        if (!session) continue;
        const base = (i - from) * bars;
        for (let j = 0; j < bars; j++) {
          const x = base + j;
          row[1] = session.open + j * 300;
          row[2] = tick(io[x] as number);
          row[3] = tick(ih[x] as number);
          row[4] = tick(il[x] as number);
          row[5] = tick(ic[x] as number);
          row[6] = share === 1 ? (iv[x] as number) : Math.max(1, Math.round((iv[x] as number) * share));
          intraday.write(row);
        }
      }
    }

    const lastDay = spec.days[last] as number;
    const onTick = (x: number) => Math.round(x * mult) / mult;
    return {
      t: (sessionOn(hours, lastDay) as { close: number }).close,
      o: lastO,
      h: lastH,
      l: lastL,
      c: lastC,
      pc: m > 1 ? prevC : lastO,
      v: share === 1 ? (v[last] as number) : Math.max(1, Math.round((v[last] as number) * share)),
      ma50: onTick(sum50 / Math.min(50, m)),
      ma200: onTick(sum200 / Math.min(200, m)),
      // Volumes are whole shares; so is their average.
      avgVolume: Math.round(sumVol30 / Math.min(30, m)),
    };
  }
}

/**
 * A secondary listing's quote: the primary's converted at the day's FX rate,
 * with a small premium or discount of its own. Volume is a fraction of the
 * primary's, as secondary venues trade far less.
 */
export function convertedQuote(
  r: Random,
  primary: QuoteStats,
  rate: number,
  baseDecimals: number,
  kind: TickKind,
  t: number,
): QuoteStats {
  const k = rate * (1 + 0.001 * r.normal());
  const mult = 10 ** tickDecimals(kind, primary.l * k, baseDecimals);
  const round = (x: number) => Math.round(x * k * mult) / mult;
  const share = r.range(0.002, 0.05);
  return {
    t,
    o: round(primary.o),
    h: round(primary.h),
    l: round(primary.l),
    c: round(primary.c),
    pc: round(primary.pc),
    v: Math.max(1, Math.round(primary.v * share)),
    ma50: primary.ma50 === null ? null : round(primary.ma50),
    ma200: primary.ma200 === null ? null : round(primary.ma200),
    avgVolume: primary.avgVolume === null ? null : Math.max(1, Math.round(primary.avgVolume * share)),
  };
}
