import { Cron } from "croner";
import type { IngestJobConfig } from "../../platform/config";
import type { IngestMetrics, IngestOutcome } from "../../platform/metrics/metrics.ingest";
import type { JobLocks } from "../../domain/ports/source.locks";
import type { IngestJobStatus, IngestRunStatus } from "../../domain/status/status.ingest";
import { scrub } from "../../sources/providers/provider.http";

/** What one run of a job did: the counts `/v1/status` and the metrics show. */
export interface JobRunResult {
  /** The dataset the provider fetched. */
  dataset: string;
  rows: { inserted: number; changed: number; unchanged: number };
  rejected: number;
  /** Set when the run ended without failing but must count as failed (the rejections limit reached). */
  failure?: string;
}

export interface SchedulerLog {
  info(line: string): void;
  error(line: string): void;
}

export interface SchedulerDeps {
  jobs: readonly IngestJobConfig[];
  /** Runs after a failed one, and the base of their full-jitter backoff. */
  retries: number;
  retryBaseMs: number;
  /** One run of a job: the ingest the CLI runs, in the service (a counter in tests of the locks). */
  /** Runs the job; `signal` asks it to end between two batches (shutdown). */
  work(job: IngestJobConfig, signal: AbortSignal): Promise<JobRunResult>;
  /** Store-wide locks (PostgreSQL): one replica runs each job. Absent: this process alone runs them. */
  locks?: JobLocks;
  metrics?: IngestMetrics;
  log: SchedulerLog;
  /** Values no message may hold (provider keys), on top of the key-like query parameters scrub() hides. */
  secrets?: readonly string[];
  now?: () => number;
  random?: () => number;
  /** Waits between a failed run and its retry; ends early (resolves) when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

function sleepFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    timer.unref();
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

/** A message fit for `/v1/status` and the log: no key, in a query string or anywhere, and no password in a URL. */
export function scrubMessage(e: unknown, secrets: readonly string[] = []): string {
  const message = e instanceof Error ? e.message : String(e);
  return scrub(message, secrets).replace(/\/\/[^\s/@]*@/g, "//***@");
}

interface JobState {
  config: IngestJobConfig;
  cron: Cron | undefined;
  /** The run under way in this process (its retries included); a scheduled time that comes meanwhile is skipped. */
  running: Promise<void> | undefined;
  lastRun: IngestRunStatus | null;
  lastError: { at: number; message: string } | null;
}

const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * The ingest jobs of MDG_INGEST, run inside the service. croner decides when (the expression read in the entry's
 * zone); this runs what it fires: under the job's store-wide lock and claim of that scheduled time when the store
 * has them (one replica runs it, the others skip), with bounded retries after a failure, each after a full-jitter
 * backoff. Nothing a job does can end the process: every failure is caught, logged scrubbed, and kept for
 * `/v1/status`.
 */
export class IngestScheduler {
  private readonly jobs = new Map<string, JobState>();
  private readonly stopping = new AbortController();

  constructor(private readonly deps: SchedulerDeps) {
    for (const config of deps.jobs) {
      this.jobs.set(config.name, { config, cron: undefined, running: undefined, lastRun: null, lastError: null });
    }
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Arms every job's timer. */
  start(): void {
    for (const job of this.jobs.values()) {
      job.cron ??= new Cron(job.config.cron, { mode: "5-part", timezone: job.config.timezone, unref: true }, () =>
        this.fire(job, this.slotOf(this.now())),
      );
    }
  }

  /** The scheduled time a timer fired for: expressions have minute precision, and timers fire just after it. */
  private slotOf(ms: number): string {
    return new Date(Math.floor(ms / 60_000) * 60_000).toISOString();
  }

  /**
   * Runs a job now, as its timer would at scheduled time `slot` (default: this minute), retries included; resolves
   * when done. With a store-wide claim, replicas given the same slot run it once between them.
   */
  runNow(name: string, slot?: Date): Promise<void> {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`no scheduled job ${name}`);
    return this.fire(job, this.slotOf(slot?.getTime() ?? this.now()));
  }

  private fire(job: JobState, slot: string): Promise<void> {
    if (this.stopping.signal.aborted) return Promise.resolve();
    if (job.running) {
      this.deps.log.info(`ingest ${job.config.name}: still running; the run of ${slot} is skipped`);
      this.deps.metrics?.observeRun(this.labels(job), "skipped", undefined);
      return job.running;
    }
    const run = this.runWithRetries(job, slot).finally(() => (job.running = undefined));
    job.running = run;
    return run;
  }

  private labels(job: JobState): { provider: string; dataset: string } {
    return { provider: job.config.provider, dataset: job.config.dataset ?? "auto" };
  }

  private async runWithRetries(job: JobState, slot: string): Promise<void> {
    const { retries, retryBaseMs } = this.deps;
    for (let attempt = 1; attempt <= retries + 1; attempt++) {
      // Only the scheduled run claims its time: a retry is the same run, which the other replicas already skipped.
      const outcome = await this.attempt(job, attempt === 1 ? slot : undefined, attempt);
      if (outcome !== "failed" || attempt > retries || this.stopping.signal.aborted) return;
      const waitMs = Math.floor((this.deps.random ?? Math.random)() * retryBaseMs * 2 ** (attempt - 1));
      this.deps.log.info(`ingest ${job.config.name}: retry ${attempt} of ${retries} in ${Math.ceil(waitMs / 1000)} s`);
      await (this.deps.sleep ?? sleepFor)(waitMs, this.stopping.signal);
      if (this.stopping.signal.aborted) return;
    }
  }

  private async attempt(job: JobState, slot: string | undefined, attempt: number): Promise<IngestOutcome> {
    const name = job.config.name;
    let outcome: IngestOutcome = "skipped";
    const work = async () => {
      const started = this.now();
      const run: IngestRunStatus = {
        startedAt: seconds(started),
        endedAt: null,
        outcome: null,
        dataset: job.config.dataset ?? null,
        attempt,
        rows: { inserted: 0, changed: 0, unchanged: 0 },
        rejected: 0,
        error: null,
      };
      job.lastRun = run;
      try {
        const result = await this.deps.work(job.config, this.stopping.signal);
        run.dataset = result.dataset;
        run.rows = result.rows;
        run.rejected = result.rejected;
        if (result.failure !== undefined) throw new Error(result.failure);
        outcome = result.rejected > 0 ? "rejected" : "ok";
        this.deps.log.info(
          `ingest ${name} ${result.dataset}: ${result.rows.inserted} inserted, ${result.rows.changed} changed, ` +
            `${result.rows.unchanged} unchanged, ${result.rejected} rejected`,
        );
      } catch (e) {
        outcome = "failed";
        run.error = scrubMessage(e, this.deps.secrets);
        job.lastError = { at: seconds(this.now()), message: run.error };
        this.deps.log.error(`ingest ${name}: attempt ${attempt} failed: ${run.error}`);
      }
      run.outcome = outcome as IngestRunStatus["outcome"];
      run.endedAt = seconds(this.now());
      this.deps.metrics?.observeRun(this.labels(job), outcome, (this.now() - started) / 1000, {
        ...run.rows,
        rejected: run.rejected,
      });
    };
    try {
      const locked = this.deps.locks ? await this.deps.locks.runExclusive(name, slot, work) : (await work(), "ran");
      if (locked !== "ran") {
        this.deps.log.info(`ingest ${name}: ${locked === "busy" ? "another replica is running it" : "already run"}`);
        this.deps.metrics?.observeRun(this.labels(job), "skipped", undefined);
      }
    } catch (e) {
      // The lock itself failed (the store unreachable): a failed run like any other, retried the same way.
      outcome = "failed";
      const message = scrubMessage(e, this.deps.secrets);
      job.lastError = { at: seconds(this.now()), message };
      this.deps.log.error(`ingest ${name}: attempt ${attempt} failed: ${message}`);
      this.deps.metrics?.observeRun(this.labels(job), "failed", undefined);
    }
    return outcome;
  }

  status(): IngestJobStatus[] {
    return [...this.jobs.values()].map((job) => {
      const next = job.cron?.nextRun() ?? null;
      return {
        job: job.config.name,
        provider: job.config.provider,
        dataset: job.config.dataset ?? null,
        schedule: job.config.cron,
        timezone: job.config.timezone,
        nextRun: next === null ? null : seconds(next.getTime()),
        running: job.running !== undefined,
        lastRun: job.lastRun && { ...job.lastRun, rows: { ...job.lastRun.rows } },
        lastError: job.lastError && { ...job.lastError },
      };
    });
  }

  /**
   * Disarms the timers, ends retry waits, asks runs under way to end after their current batch, and waits for them
   * (shutdown: before the store closes) up to `deadlineMs`. Answers false when one was still running then: it is
   * waiting on its provider, and the process exits without it (nothing of its batch is half-written).
   */
  async stop(deadlineMs = 10_000): Promise<boolean> {
    this.stopping.abort();
    for (const job of this.jobs.values()) job.cron?.stop();
    const runs = Promise.all([...this.jobs.values()].map((j) => j.running?.catch(() => undefined))).then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), deadlineMs)));
    try {
      const ended = await Promise.race([runs, deadline]);
      if (!ended) this.deps.log.error(`ingest: a run was still waiting on its provider after ${deadlineMs} ms`);
      return ended;
    } finally {
      clearTimeout(timer);
    }
  }
}
