import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Config, IngestJobConfig } from "../../platform/config";
import { IngestMetrics } from "../../platform/metrics/metrics.ingest";
import type { ImportSink } from "../../domain/ports/source.import";
import type { JobLocks } from "../../domain/ports/source.locks";
import { PROVIDERS, providerHttp, providerSecrets } from "../../sources/providers/provider.registry";
import { DEFAULT_MAX_ERRORS, EXIT_FAILURE } from "../import/import.run";
import { runIngest } from "./ingest.run";
import { IngestScheduler, type JobRunResult, type SchedulerDeps, type SchedulerLog } from "./ingest.scheduler";

/**
 * Rows per write transaction of a scheduled ingest: a fifth of the CLI's, so that a SQLite store (whose writes
 * hold the event loop) answers requests between batches within a few milliseconds.
 */
export const SERVICE_BATCH_ROWS = 1_000;

export interface IngestServiceDeps {
  config: Config;
  /** The store's import sink, opened for one run and closed after it. */
  openSink(): Promise<{ sink: ImportSink; close(): Promise<void> }>;
  locks?: JobLocks;
  log: SchedulerLog;
  /** Overrides for tests: the clock, the jitter and the waits between retries. */
  scheduler?: Partial<Pick<SchedulerDeps, "now" | "random" | "sleep" | "work">>;
}

/** Where a scheduled run's rejected rows go (the log line of a run with rejections names the file). */
function reportPath(job: IngestJobConfig): string {
  const dir = join(tmpdir(), "mdg-ingest");
  mkdirSync(dir, { recursive: true });
  return join(dir, `${job.name.replace(/[^a-z0-9]+/gi, "-")}-rejections.csv`);
}

/** One scheduled run: the ingest `npm run ingest -- <provider> [dataset]` runs, into the service's own store. */
export function ingestWork(
  deps: IngestServiceDeps,
): (job: IngestJobConfig, signal: AbortSignal) => Promise<JobRunResult> {
  return async (job, signal) => {
    const provider = PROVIDERS[job.provider]!;
    const result = await runIngest(
      {
        query: { dataset: job.dataset },
        maxErrors: DEFAULT_MAX_ERRORS,
        reportPath: reportPath(job),
        batchRows: SERVICE_BATCH_ROWS,
        signal,
      },
      {
        provider,
        http: providerHttp(provider.name, deps.config.providers),
        storeExists: () => true,
        openSink: deps.openSink,
        progress: () => ({ update: () => undefined, stop: () => undefined }),
        log: (line) => deps.log.info(`ingest ${job.name}: ${line}`),
      },
    );
    const rows = { inserted: 0, changed: 0, unchanged: 0 };
    let rejected = 0;
    for (const s of result.imports) {
      rows.inserted += s.inserted;
      rows.changed += s.changed;
      rows.unchanged += s.unchanged;
      rejected += s.rejected;
    }
    const failure = result.interrupted
      ? "interrupted by the shutdown between two batches; the next run resumes"
      : result.exitCode === EXIT_FAILURE
        ? `stopped after ${rejected} rejected rows (the rejections limit)`
        : undefined;
    return { dataset: result.dataset, rows, rejected, ...(failure !== undefined && { failure }) };
  };
}

/** The scheduler of MDG_INGEST's jobs, with its metrics when /metrics is on; `start()` arms it. */
export function createIngestScheduler(deps: IngestServiceDeps): {
  scheduler: IngestScheduler;
  metrics?: IngestMetrics;
} {
  const metrics = deps.config.metrics.enabled ? new IngestMetrics() : undefined;
  const scheduler = new IngestScheduler({
    jobs: deps.config.ingest.jobs,
    retries: deps.config.ingest.retries,
    retryBaseMs: deps.config.ingest.retryBaseMs,
    work: ingestWork(deps),
    locks: deps.locks,
    metrics,
    log: deps.log,
    secrets: providerSecrets(deps.config.providers),
    ...deps.scheduler,
  });
  return { scheduler, metrics };
}
