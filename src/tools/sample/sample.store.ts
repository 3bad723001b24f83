import Database from "better-sqlite3";
import { SingleBar } from "cli-progress";
import { existsSync, linkSync, mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { SampleGenerator, type SampleSink } from "./sample.generator";
import { migrate } from "../../sources/sqlite/sqlite.migrate";
import { SERIES_TABLE_SQL } from "../../sources/sample/sample.series";
import { BatchInserter, BUILD_CACHE_KIB, BUILD_THREAD_LIMITS } from "./sample.insert";
import type { RowWriter } from "../../sources/sample/sample.prices";
import type { SampleOptions, SampleSummary } from "./sample.types";
import { collectGarbage, withTightHeap } from "./sample.memory";
import { acquireStoreLock, removeBuildLeftovers, removeLeftoverScratchFiles, removeScratchFiles } from "./sample.lock";

export type { SampleOptions, SampleSummary } from "./sample.types";

/**
 * The embedded SQLite store filled with the generated sample data set.
 */

const PROGRESS_EVERY_ROWS = 1 << 16;

class SqliteSink implements SampleSink {
  private readonly inserters = new Map<string, BatchInserter>();
  private stage = "";
  rows = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly progress: (rows: number, stage: string) => void,
  ) {}

  beginStage(name: string): void {
    this.stage = name;
    this.db.exec("BEGIN");
    this.progress(this.rows, name);
  }

  table(name: string, columns: readonly string[]): RowWriter {
    let ins = this.inserters.get(name);
    if (!ins) {
      ins = new BatchInserter(this.db, name, columns, () => {
        if ((++this.rows & (PROGRESS_EVERY_ROWS - 1)) === 0) this.progress(this.rows, this.stage);
      });
      this.inserters.set(name, ins);
    }
    return ins;
  }

  endStage(): void {
    for (const ins of this.inserters.values()) ins.flush();
    this.db.exec("COMMIT");
    this.progress(this.rows, this.stage);
  }

  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, ins] of this.inserters) out[name] = ins.count;
    for (const [name, n] of this.adopted) out[name] = (out[name] ?? 0) + n;
    return out;
  }

  private readonly adopted = new Map<string, number>();

  /** A database in a file may take tables built beside it (a helper thread's); an in-memory one writes every row. */
  get side(): SampleSink["side"] {
    return this.db.memory || !this.db.name
      ? undefined
      : {
          file: `${this.db.name}.side`,
          schema: (table) =>
            (this.db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(table) as
              string | undefined) ?? "",
          adopt: (file, tables) => {
            // Same schema, empty target, foreign keys off: SQLite copies the records as they are (its transfer path).
            this.db.prepare("ATTACH ? AS side").run(file);
            try {
              this.db.exec("BEGIN");
              for (const t of tables) {
                const n = this.db.prepare(`INSERT INTO main.${t} SELECT * FROM side.${t}`).run().changes;
                this.adopted.set(t, (this.adopted.get(t) ?? 0) + n);
                this.rows += n;
              }
              this.db.exec("COMMIT");
            } finally {
              this.db.exec("DETACH side");
            }
            this.progress(this.rows, this.stage);
          },
        };
  }
}

/**
 * Fills an EMPTY database whose migrations have been applied.
 * Deterministic: same seed + anchor => identical content.
 *
 * Runs with journal_mode=OFF and synchronous=OFF for speed, so a failure
 * midway leaves the database unusable: build into a scratch file (as
 * ensureSampleStore does). Ends in WAL mode with fresh planner statistics.
 */
export function fillSampleData(db: Database.Database, opts: SampleOptions): SampleSummary {
  const existing = db.prepare("SELECT (SELECT count(*) FROM securities) + (SELECT count(*) FROM meta) AS n").get() as {
    n: number;
  };
  if (existing.n > 0) throw new Error("fillSampleData needs an empty, migrated database");

  // Rows are batched, so a child row may reach SQLite before its parent's
  // batch; the keys are checked once at the end instead.
  const foreignKeys = db.pragma("foreign_keys", { simple: true }) as number;
  const cacheSize = db.pragma("cache_size", { simple: true }) as number;
  const tempStore = db.pragma("temp_store", { simple: true }) as number;
  const mmapSize = db.pragma("mmap_size", { simple: true }) as number;
  db.pragma("foreign_keys = OFF");
  db.pragma("journal_mode = OFF");
  db.pragma("synchronous = OFF");
  db.pragma("locking_mode = EXCLUSIVE");
  // Every table is filled in primary-key order, so each insert appends to the right edge of its B-tree and a small
  // cache holds the pages being written: 256 MiB here cost ~180 MiB of peak RSS for no measurable speed (nor did
  // 16 MiB against 4).
  db.pragma(`cache_size = -${BUILD_CACHE_KIB}`);
  db.pragma("temp_store = FILE");
  db.pragma("mmap_size = 0");

  const report = opts.onProgress;
  report?.(0, 1, "planning");
  const gen = new SampleGenerator({
    seed: opts.seed,
    anchorDate: opts.anchorDate,
    scale: opts.scale,
    helperThread: opts.helperThread,
    compact: collectGarbage,
  });
  // The generator's own table, beside its meta row: a store no generator filled never has it (sample.series.ts).
  db.exec(SERIES_TABLE_SQL);
  const total = gen.estimateRows() + 1;
  const sink = new SqliteSink(db, (rows, stage) => report?.(Math.min(rows, total - 1), total, stage));
  gen.write(sink);

  report?.(total - 1, total, "checks");
  const violations = db.pragma("foreign_key_check") as unknown[];
  if (violations.length > 0)
    throw new Error(`Generated data violates foreign keys: ${JSON.stringify(violations.slice(0, 5))}`);
  db.pragma(`foreign_keys = ${foreignKeys ? "ON" : "OFF"}`);
  // A bounded ANALYZE gives the planner its statistics in well under a second.
  db.pragma("analysis_limit = 1000");
  db.exec("ANALYZE");
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("locking_mode = NORMAL");
  db.pragma(`cache_size = ${cacheSize}`);
  db.pragma(`temp_store = ${tempStore}`);
  db.pragma(`mmap_size = ${mmapSize}`);
  db.prepare("SELECT 1 FROM meta LIMIT 1").get(); // releases the exclusive lock
  report?.(total, total, "done");

  return {
    seed: opts.seed,
    anchorDate: opts.anchorDate,
    historyStart: (db.prepare("SELECT value FROM meta WHERE key = 'history_start'").get() as { value: string }).value,
    generatorVersion: (db.prepare("SELECT value FROM meta WHERE key = 'generator_version'").get() as { value: string })
      .value,
    scale: opts.scale ?? 1,
    rows: sink.counts(),
  };
}

interface ProgressDisplay {
  update(done: number, total: number, stage: string): void;
  stop(): void;
}

/**
 * The time left, from the average rate since the build began. cli-progress's own ETA reads the rate of the last few
 * updates, and the build's stages advance at rates a hundred times apart, so it jumped between "INF" and hours; the
 * average over the whole build moves smoothly. Nothing is promised before 5 % and 3 s: too little to average.
 */
export function etaText(elapsedMs: number, done: number, total: number): string {
  if (total <= 0 || done <= 0 || done / total < 0.05 || elapsedMs < 3_000) return "estimating the time left";
  const seconds = Math.max(0, Math.round(((elapsedMs / done) * (total - done)) / 1000));
  if (seconds < 60) return `about ${seconds} s left`;
  return `about ${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s left`;
}

/** A bar on an interactive terminal; otherwise a line per stage and per 10 %. */
function progressDisplay(log: (msg: string) => void): ProgressDisplay {
  if (process.stderr.isTTY) {
    const bar = new SingleBar({
      format: "sample store [{bar}] {percentage}% | {stage} | {remaining}",
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: true,
    });
    let started = false;
    const since = Date.now();
    return {
      update(done, total, stage) {
        const remaining = etaText(Date.now() - since, done, total);
        if (!started) {
          bar.start(total, done, { stage, remaining });
          started = true;
        }
        bar.setTotal(total);
        bar.update(done, { stage, remaining });
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let lastStage = "";
  let lastDecile = -1;
  return {
    update(done, total, stage) {
      const decile = Math.floor((done / total) * 10);
      if (stage !== lastStage || decile !== lastDecile) {
        log(`sample store: ${Math.floor((done / total) * 100)}% (${stage})`);
        lastStage = stage;
        lastDecile = decile;
      }
    },
    stop() {},
  };
}

/** What the build worker (sample.worker.ts) is given. */
export interface BuildRequest {
  file: string;
  seed: number;
  anchorDate: string;
  scale?: number;
}

/** What the build worker posts back, as it happens. */
export type BuildMessage =
  { type: "progress"; done: number; total: number; stage: string } | { type: "done"; summary: SampleSummary };

/** Creates, migrates and fills a store at `file` in the calling thread (the worker's). */
export function buildStoreFile(request: BuildRequest, onProgress: SampleOptions["onProgress"]): SampleSummary {
  const db = new Database(request.file);
  try {
    migrate(db);
    return withTightHeap(() =>
      fillSampleData(db, { seed: request.seed, anchorDate: request.anchorDate, scale: request.scale, onProgress }),
    );
  } finally {
    db.close();
  }
}

/**
 * The worker file beside this one, with this file's extension: `.js` under dist/ in production, `.ts` when run from
 * source. A worker does not share the module loader of jest or of `-r @swc-node/register` reliably, so from source
 * it registers the TypeScript loader itself.
 */
function startBuildWorker(request: BuildRequest): Worker {
  const ext = path.extname(__filename);
  const file = path.join(__dirname, `sample.worker${ext}`);
  const resourceLimits = BUILD_THREAD_LIMITS;
  if (ext !== ".ts") return new Worker(file, { workerData: request, resourceLimits });
  const loader = require.resolve("@swc-node/register");
  return new Worker(`require(${JSON.stringify(loader)}); require(${JSON.stringify(file)});`, {
    eval: true,
    workerData: request,
    resourceLimits,
  });
}

/** Runs the build in a worker thread, so the event loop keeps answering (health checks, log lines) meanwhile. */
function buildInWorker(
  request: BuildRequest,
  onProgress: (done: number, total: number, stage: string) => void,
  signal: AbortSignal | undefined,
): Promise<SampleSummary> {
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const worker = startBuildWorker(request);
    let summary: SampleSummary | undefined;
    let failure: unknown;
    const stop = () => void worker.terminate();
    signal?.addEventListener("abort", stop, { once: true });
    worker.on("message", (m: BuildMessage) => {
      if (m.type === "progress") onProgress(m.done, m.total, m.stage);
      else summary = m.summary;
    });
    worker.once("error", (err) => (failure = err));
    // Settles only once the thread is gone, so the caller may remove its scratch file.
    worker.once("exit", (code) => {
      signal?.removeEventListener("abort", stop);
      if (signal?.aborted) reject(signal.reason);
      else if (failure !== undefined) reject(failure);
      else if (summary && code === 0) resolve(summary);
      else reject(new Error(`the sample store build worker exited with code ${code} before finishing`));
    });
  });
}

/**
 * Moves the finished scratch file to `target`. A hard link never replaces an existing file, so a store that another
 * process may already have open is never swapped from under it; a file system without hard links gets a rename.
 * Returns false when a store was already there (ours is then discarded).
 */
function publish(scratch: string, target: string): boolean {
  try {
    linkSync(scratch, target);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") {
      removeScratchFiles(scratch);
      return false;
    }
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS" && code !== "EOPNOTSUPP") throw e;
    renameSync(scratch, target);
    return true;
  }
  rmSync(scratch, { force: true });
  return true;
}

export interface EnsureSampleStoreOptions extends SampleOptions {
  log?: (msg: string) => void;
  /** Ends a build under way (SIGTERM during start-up): the worker stops, its scratch file goes, the lock is freed. */
  signal?: AbortSignal;
}

/**
 * If `file` does not exist: builds the store, once, however many processes ask at the same time. The first takes
 * `<file>.lock`; the others wait for it and then find the finished store. The build runs in a worker thread into
 * `<file>.building-<pid>` and is linked into place at the end, so a crash never leaves a half-built store at `file`.
 * Scratch files of processes that died are removed first. Shows progress on stderr (or through `log`).
 */
export async function ensureSampleStore(
  file: string,
  opts: EnsureSampleStoreOptions,
): Promise<{ built: boolean; summary?: SampleSummary; ms?: number }> {
  const log = opts.log ?? ((msg: string) => process.stderr.write(`${msg}\n`));
  const target = path.resolve(file);
  mkdirSync(path.dirname(target), { recursive: true });
  if (existsSync(target)) {
    // Scratch files are only judged when nobody builds: a live builder's own file is never touched.
    removeBuildLeftovers(target, log);
    return { built: false };
  }

  const lock = await acquireStoreLock(target, log, opts.signal);
  try {
    if (existsSync(target)) {
      log(`Sample store at ${file} was built by another process; opening it`);
      return { built: false };
    }
    removeLeftoverScratchFiles(target, log);
    const scratch = `${target}.building-${process.pid}`;
    removeScratchFiles(scratch);
    const started = performance.now();
    const display = progressDisplay(log);
    log(`Building sample store at ${file} (seed ${opts.seed}, anchor ${opts.anchorDate})`);
    try {
      const request: BuildRequest = { file: scratch, seed: opts.seed, anchorDate: opts.anchorDate, scale: opts.scale };
      const summary = await buildInWorker(
        request,
        (done, total, stage) => {
          display.update(done, total, stage);
          opts.onProgress?.(done, total, stage);
        },
        opts.signal,
      );
      display.stop();
      if (!publish(scratch, target)) {
        log(`Sample store at ${file} appeared meanwhile; keeping it and discarding this build`);
        return { built: false };
      }
      const ms = Math.round(performance.now() - started);
      log(`Sample store ready in ${(ms / 1000).toFixed(1)} s`);
      return { built: true, summary, ms };
    } catch (e) {
      display.stop();
      removeScratchFiles(scratch);
      throw e;
    }
  } finally {
    lock.release();
  }
}
