/** One scheduled ingest job as `/v1/status` shows it (the runs this process made; another replica's are its own). */
export interface IngestJobStatus {
  /** `provider` or `provider:dataset`, as MDG_INGEST names it. */
  job: string;
  provider: string;
  /** The dataset the entry names; null when the provider picks. */
  dataset: string | null;
  schedule: string;
  timezone: string;
  /** Unix seconds of the next scheduled run; null when stopped. */
  nextRun: number | null;
  running: boolean;
  lastRun: IngestRunStatus | null;
  /** The last failure, kept after later runs succeed; scrubbed of keys. */
  lastError: { at: number; message: string } | null;
}

export interface IngestRunStatus {
  /** Unix seconds. */
  startedAt: number;
  /** Unix seconds; null while it runs. */
  endedAt: number | null;
  /** ok: every row went in; rejected: some rows were rejected; failed: the run failed (retried while attempts last). */
  outcome: "ok" | "rejected" | "failed" | null;
  /** The dataset the provider fetched (`hist`, `daily`), once known. */
  dataset: string | null;
  /** 1 for the scheduled run, 2 and more for its retries. */
  attempt: number;
  rows: { inserted: number; changed: number; unchanged: number };
  rejected: number;
  /** Why the run failed, scrubbed of keys; null otherwise. */
  error: string | null;
}
