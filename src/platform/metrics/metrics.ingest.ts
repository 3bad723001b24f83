import { Counter, Histogram, Registry } from "prom-client";

/** Seconds: a daily file in well under a second, the ECB's whole history or a large SEC file in a minute or more. */
const DURATION_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

/** How one scheduled run ended: `skipped` when another replica held the job or had run this scheduled time. */
export type IngestOutcome = "ok" | "rejected" | "failed" | "skipped";

/**
 * The scheduled ingest's metrics (src/application/ingest/ingest.scheduler.ts), in a registry of their own that
 * /metrics serves after the app's. Labels come from MDG_INGEST's providers and datasets (`auto` when the provider
 * picks), a set fixed at start; never a symbol, a URL or an error text.
 */
export class IngestMetrics {
  readonly registry = new Registry();
  private readonly runs: Counter<"provider" | "dataset" | "outcome">;
  private readonly rows: Counter<"provider" | "dataset" | "kind">;
  private readonly failures: Counter<"provider" | "dataset">;
  private readonly duration: Histogram<"provider" | "dataset">;

  constructor() {
    const registers = [this.registry];
    this.runs = new Counter({
      name: "mdg_ingest_runs_total",
      help: "Scheduled ingest runs (retries included), by provider, dataset and outcome: ok, rejected, failed, skipped",
      labelNames: ["provider", "dataset", "outcome"],
      registers,
    });
    this.rows = new Counter({
      name: "mdg_ingest_rows_total",
      help:
        "Rows scheduled ingest runs wrote or refused, by provider, dataset and kind: " +
        "inserted, changed, unchanged, rejected",
      labelNames: ["provider", "dataset", "kind"],
      registers,
    });
    this.failures = new Counter({
      name: "mdg_ingest_failures_total",
      help: "Scheduled ingest runs that failed (each retry counts), by provider and dataset",
      labelNames: ["provider", "dataset"],
      registers,
    });
    this.duration = new Histogram({
      name: "mdg_ingest_duration_seconds",
      help: "Time one scheduled ingest run took, from the lock to the last import, by provider and dataset",
      labelNames: ["provider", "dataset"],
      buckets: DURATION_BUCKETS,
      registers,
    });
  }

  observeRun(
    labels: { provider: string; dataset: string },
    outcome: IngestOutcome,
    seconds: number | undefined,
    rows?: { inserted: number; changed: number; unchanged: number; rejected: number },
  ): void {
    this.runs.inc({ ...labels, outcome });
    if (outcome === "failed") this.failures.inc(labels);
    if (seconds !== undefined) this.duration.observe(labels, seconds);
    if (rows) for (const [kind, n] of Object.entries(rows)) if (n > 0) this.rows.inc({ ...labels, kind }, n);
  }
}
