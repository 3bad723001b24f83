import Database from "better-sqlite3";
import { rmSync } from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { generateFx } from "../../sources/sample/sample.forex";
import { type ExchangeDef, EXCHANGES } from "../../sources/sample/sample.markets";
import { BatchInserter, BUILD_THREAD_LIMITS } from "./sample.insert";
import { BarSimulator, type QuoteStats, type RowWriter } from "../../sources/sample/sample.prices";
import { Random } from "../../sources/sample/sample.random";
import { SeriesCalendar, type SeriesRow } from "../../sources/sample/sample.series";

/**
 * The work of a sample build that runs beside it, in a helper thread: first
 * the stored paths' bars, then the quotes of the paths that are not stored.
 *
 * The stored bars (10 M rows on the full sample) cost the build thread about
 * as much again in SQLite as everything else it writes; the helper writes them
 * into a scratch database of its own, which the build adopts whole (SQLite
 * copies the records as they are) once its other tables are written.
 *
 * Running ~97,000 paths only for their last bar is about a third of the
 * build's CPU (8 s of 25 on the full sample) and needs nothing the build
 * writes, so a helper thread runs them while the build thread writes the
 * other tables. Both threads take paths from one shared counter; when the
 * build needs the quotes it runs whatever is left itself and waits only for
 * the paths the helper has in hand. A path's quote is a pure function of its
 * row and the seed, so which thread ran it changes nothing in the store, and
 * a helper that never starts, or dies, only makes the build slower.
 */

/** Numbers per packed row (SeriesRow without `stored`, strings as codes). */
const ROW_WIDTH = 18;
/** Numbers per packed quote. */
const QUOTE_WIDTH = 10;
/**
 * The helper's SQLite page cache, in KiB: it only appends two tables in key order, so the pages on their right edges
 * are all it reads back (the build thread's 4 MiB also serves its foreign-key check and its ANALYZE).
 */
const HELPER_CACHE_KIB = 1024;
/** How long the build waits for one path the helper took before running it itself. */
const STALL_MS = 10_000;

/** A stored path as the helper is given it: its row, and the currencies of an fx path. */
export type StoredPath = SeriesRow & { fxBase?: string; fxQuote?: string };

/** The stored paths' bars the build asks for, to be written into `file`. */
export interface BarsRequest {
  file: string;
  /** CREATE TABLE statements of daily_bars and intraday_bars, as the store has them. */
  tables: string[];
  paths: readonly StoredPath[];
}

/**
 * The stored paths' bars as the helper is given them: the rows packed as the quote-only paths are (a structured clone
 * of ~3,700 row objects is a 2 MB block, whose free raises glibc's thresholds: see sharedColumns), and the currencies
 * of the fx paths by index.
 */
interface BarsJob {
  file: string;
  tables: string[];
  count: number;
  rows: SharedArrayBuffer[];
  fx: Record<number, { base: string; quote: string }>;
  /** Int32: [0 running, 1 done, 2 failed; paths written]. */
  control: SharedArrayBuffer;
}

/** What the helper thread is given. */
export interface HelperJob {
  bars: BarsJob | null;
  quotes: QuoteJob;
}

const BAR_COLUMNS = ["listing_id", "t", "o", "h", "l", "c", "v"];
const NO_PROGRESS = () => undefined;

/** Writes the stored paths' bars into the job's file, in listing order (the helper runs this first). */
export function runBarsJob(job: BarsJob, seed: number, historyStart: number, anchorDay: number): void {
  const control = new Int32Array(job.control);
  try {
    const db = new Database(job.file);
    try {
      db.pragma("journal_mode = OFF");
      db.pragma("synchronous = OFF");
      db.pragma(`cache_size = -${HELPER_CACHE_KIB}`);
      for (const sql of job.tables) db.exec(sql);
      const calendar = new SeriesCalendar(seed, historyStart, anchorDay);
      const sim = new BarSimulator(
        calendar.allDays.length,
        generateFx(Random.fromSeed(seed, "fx"), historyStart, anchorDay),
      );
      const bars = Random.fromSeed(seed, "bars");
      const daily: RowWriter & { flush(): void } = new BatchInserter(db, "daily_bars", BAR_COLUMNS, NO_PROGRESS);
      const intraday: RowWriter & { flush(): void } = new BatchInserter(db, "intraday_bars", BAR_COLUMNS, NO_PROGRESS);
      db.exec("BEGIN");
      const rows = views(job.rows);
      for (let i = 0; i < job.count; i++) {
        const spec = calendar.spec(unpackRow(rows, i));
        const fx = job.fx[i];
        if (fx) {
          spec.fxBase = fx.base;
          spec.fxQuote = fx.quote;
        }
        sim.run(spec, bars.fork(spec.stream), daily, intraday);
        Atomics.add(control, 1, 1);
      }
      daily.flush();
      intraday.flush();
      db.exec("COMMIT");
    } finally {
      db.close();
    }
    Atomics.store(control, 0, 1);
  } catch {
    Atomics.store(control, 0, 2);
  }
  Atomics.notify(control, 0);
}

/** The quote-only paths; both threads take them from a shared counter. Shared buffers only, so nothing is copied. */
export interface QuoteJob {
  seed: number;
  historyStart: number;
  anchorDay: number;
  count: number;
  /** A buffer per number of a packed row (ROW_WIDTH of them), a path per index. */
  rows: SharedArrayBuffer[];
  /** A buffer per number of a quote (QUOTE_WIDTH of them), a path per index. */
  quotes: SharedArrayBuffer[];
  /** Int32: [next path to take, then one done flag per path]. */
  control: SharedArrayBuffer;
}

/**
 * Buffers of `count` numbers, `width` of them. One per number rather than one for all: glibc raises its mmap and
 * trim thresholds to the size of the largest block it unmaps, and a 10 MB one left ~30 MiB of freed memory resident
 * in the threads' arenas for the service's start (BENCHMARKS.md, "Sample store").
 */
function sharedColumns(width: number, count: number): SharedArrayBuffer[] {
  return Array.from({ length: width }, () => new SharedArrayBuffer(Math.max(1, count) * 8));
}

function views(buffers: readonly SharedArrayBuffer[]): Float64Array[] {
  return buffers.map((b) => new Float64Array(b));
}

function packRow(out: readonly Float64Array[], at: number, r: SeriesRow): void {
  const values = [
    r.listingId,
    r.stream,
    r.market === "daily" ? 1 : 0,
    r.style === "nav" ? 1 : r.style === "fx" ? 2 : 0,
    r.firstDay,
    r.lastDay,
    r.finalPrice,
    r.baseDecimals,
    r.volatility,
    r.beta,
    r.drift,
    r.volume,
    r.volumeShare,
    r.meanReversion,
    r.withFactor ? 1 : 0,
    r.gaps ? 1 : 0,
    r.intradayBars,
    EXCHANGES.findIndex((e) => e.code === r.exchange),
  ];
  if (values.length !== ROW_WIDTH) throw new Error(`a packed row has ${ROW_WIDTH} numbers`);
  for (let k = 0; k < ROW_WIDTH; k++) (out[k] as Float64Array)[at] = values[k] as number;
}

function unpackRow(rows: readonly Float64Array[], i: number): SeriesRow {
  const x = (k: number) => (rows[k] as Float64Array)[i] as number;
  return {
    listingId: x(0),
    stream: x(1),
    market: x(2) === 1 ? "daily" : "weekday",
    style: x(3) === 1 ? "nav" : x(3) === 2 ? "fx" : "ohlc",
    firstDay: x(4),
    lastDay: x(5),
    finalPrice: x(6),
    baseDecimals: x(7),
    volatility: x(8),
    beta: x(9),
    drift: x(10),
    volume: x(11),
    volumeShare: x(12),
    meanReversion: x(13),
    withFactor: x(14) === 1,
    gaps: x(15) === 1,
    intradayBars: x(16),
    exchange: (EXCHANGES[x(17)] as ExchangeDef).code,
    stored: false,
  };
}

const nullable = (v: number | null) => (v === null ? NaN : v);
const orNull = (v: number) => (Number.isNaN(v) ? null : v);

function packBars(request: BarsRequest): BarsJob {
  const count = request.paths.length;
  const rows = sharedColumns(ROW_WIDTH, count);
  const packed = views(rows);
  const fx: BarsJob["fx"] = {};
  request.paths.forEach((p, i) => {
    packRow(packed, i, p);
    if (p.fxBase !== undefined && p.fxQuote !== undefined) fx[i] = { base: p.fxBase, quote: p.fxQuote };
  });
  return { file: request.file, tables: request.tables, count, rows, fx, control: new SharedArrayBuffer(8) };
}

/** Runs the paths of a job from its shared counter until none is left (both threads run this). */
export function runQuoteJob(job: QuoteJob): void {
  const rows = views(job.rows);
  const quotes = views(job.quotes);
  const control = new Int32Array(job.control);
  const calendar = new SeriesCalendar(job.seed, job.historyStart, job.anchorDay);
  const sim = new BarSimulator(calendar.allDays.length, null);
  const bars = Random.fromSeed(job.seed, "bars");
  for (;;) {
    const i = Atomics.add(control, 0, 1);
    if (i >= job.count) return;
    const q = quoteOf(calendar, sim, bars, unpackRow(rows, i));
    const fields = [q.t, q.o, q.h, q.l, q.c, q.pc, q.v, nullable(q.ma50), nullable(q.ma200), nullable(q.avgVolume)];
    for (let k = 0; k < QUOTE_WIDTH; k++) (quotes[k] as Float64Array)[i] = fields[k] as number;
    Atomics.store(control, 1 + i, 1);
    Atomics.notify(control, 1 + i);
  }
}

function quoteOf(calendar: SeriesCalendar, sim: BarSimulator, bars: Random, row: SeriesRow): QuoteStats {
  const spec = calendar.spec(row);
  return sim.quoteOnly(spec, bars.fork(spec.stream), false);
}

/**
 * The worker file beside this one, with this file's extension: `.js` under dist/, `.ts` from source, where the
 * worker registers the TypeScript loader itself (as sample.store.ts does for the build worker).
 */
function startHelper(job: HelperJob): Worker {
  const ext = path.extname(__filename);
  const file = path.join(__dirname, `sample.helper.worker${ext}`);
  const resourceLimits = BUILD_THREAD_LIMITS;
  if (ext !== ".ts") return new Worker(file, { workerData: job, resourceLimits });
  const loader = require.resolve("@swc-node/register");
  return new Worker(`require(${JSON.stringify(loader)}); require(${JSON.stringify(file)});`, {
    eval: true,
    workerData: job,
    resourceLimits,
  });
}

/**
 * A build's helper thread: its quote-only paths are packed with `add` (in listing-id order), then `start` runs it on
 * the stored bars (when given a file) and those paths. The build starts it once the plans it was packed from are
 * collected, so the new thread's memory does not stack on theirs.
 */
export class BuildHelper {
  private readonly job: QuoteJob;
  private readonly packed: Float64Array[];
  /** The packed paths' listing ids, ascending (searched by `has`). */
  private readonly listingIds: Int32Array;
  private added = 0;
  private worker: Worker | null = null;

  private readonly bars: BarsJob | null;

  constructor(
    seed: number,
    historyStart: number,
    anchorDay: number,
    count: number,
    private readonly helper: boolean,
    bars: BarsRequest | null,
  ) {
    this.job = {
      seed,
      historyStart,
      anchorDay,
      count,
      rows: sharedColumns(ROW_WIDTH, count),
      quotes: sharedColumns(QUOTE_WIDTH, count),
      control: new SharedArrayBuffer((count + 1) * 4),
    };
    this.packed = views(this.job.rows);
    this.listingIds = new Int32Array(count);
    this.bars = helper && bars ? packBars(bars) : null;
    if (this.bars) rmSync(this.bars.file, { force: true });
  }

  /** Packs the next quote-only path (listing ids ascending, `count` of them in all). */
  add(row: SeriesRow): void {
    const i = this.added;
    if (i >= this.job.count) throw new Error(`the helper was sized for ${this.job.count} paths`);
    if (i > 0 && row.listingId <= (this.listingIds[i - 1] as number))
      throw new Error(`listing ${row.listingId}: the helper's paths must come in listing-id order`);
    packRow(this.packed, i, row);
    this.listingIds[i] = row.listingId;
    this.added = i + 1;
  }

  /** Starts the helper thread on every path added (none: the build runs them all itself). */
  start(): void {
    if (this.added !== this.job.count) throw new Error(`the helper has ${this.added} of ${this.job.count} paths`);
    if (!this.helper || (this.job.count === 0 && !this.bars)) return;
    try {
      this.worker = startHelper({ bars: this.bars, quotes: this.job });
      // An error in the helper only leaves its paths to the build thread; it must not end the process.
      this.worker.on("error", () => undefined);
      this.worker.unref();
    } catch {
      this.worker = null;
    }
  }

  /** Whether the helper was given the stored paths' bars (the build then only runs them for their quotes). */
  get barsHanded(): boolean {
    return this.bars !== null && this.worker !== null;
  }

  /**
   * The helper's file of stored bars once written, or null when the build must write them itself (no helper, or
   * it failed or made no progress for STALL_MS: it is then stopped, and its quote-only paths fall to the build).
   */
  awaitBars(): string | null {
    const job = this.bars;
    if (!job || !this.worker) return null;
    const control = new Int32Array(job.control);
    let seen = -1;
    for (;;) {
      const status = Atomics.load(control, 0);
      if (status === 1) return job.file;
      if (status === 2) break;
      const done = Atomics.load(control, 1);
      if (done === seen) break;
      seen = done;
      Atomics.wait(control, 0, 0, STALL_MS);
    }
    void this.worker.terminate();
    this.worker = null;
    return null;
  }

  /** Removes the helper's file of bars. */
  discardBars(): void {
    if (this.bars) rmSync(this.bars.file, { force: true });
  }

  /** Whether this listing's quote comes from here. */
  has(listingId: number): boolean {
    const ids = this.listingIds;
    let lo = 0;
    let hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = ids[mid] as number;
      if (at === listingId) return true;
      if (at < listingId) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  /** Every quote, by listing id: runs what the helper has not taken, then waits for what it has. */
  collect(into: { set(listingId: number, q: QuoteStats): void }): void {
    const job = this.job;
    runQuoteJob(job);
    const control = new Int32Array(job.control);
    const quotes = views(job.quotes);
    let fallback: { calendar: SeriesCalendar; sim: BarSimulator; bars: Random } | null = null;
    const rows = views(job.rows);
    for (let i = 0; i < job.count; i++) {
      if (Atomics.load(control, 1 + i) !== 1 && Atomics.wait(control, 1 + i, 0, STALL_MS) === "timed-out") {
        if (Atomics.load(control, 1 + i) !== 1) {
          // The helper took this path and stalled or died: run it here (same numbers).
          if (!fallback) {
            const calendar = new SeriesCalendar(job.seed, job.historyStart, job.anchorDay);
            fallback = {
              calendar,
              sim: new BarSimulator(calendar.allDays.length, null),
              bars: Random.fromSeed(job.seed, "bars"),
            };
          }
          const q = quoteOf(fallback.calendar, fallback.sim, fallback.bars, unpackRow(rows, i));
          into.set(this.listingIds[i] as number, q);
          continue;
        }
      }
      const at = (k: number) => (quotes[k] as Float64Array)[i] as number;
      into.set(this.listingIds[i] as number, {
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
      });
    }
    void this.worker?.terminate();
    this.worker = null;
  }
}
