import type { Registry } from "prom-client";

interface Series<L extends string> {
  labels: Record<L, string>;
  /** Per bucket (not cumulative), the last one past every bound. */
  counts: Float64Array;
  sum: number;
  observe: (value: number) => void;
}

/** What prom-client's registry reads from a metric to print it (the shape its own metrics' `get()` returns). */
interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

/**
 * A Prometheus histogram for the request path, exposed through prom-client's
 * registry like any of its metrics. prom-client hashes the label values on
 * every observation, even through a child; here a series is resolved once to
 * a closure over its own counters, so an observation is a bucket search and
 * three additions. The exposition (names, `le` labels, cumulative buckets,
 * `+Inf`, `_sum`, `_count`) is prom-client's, which prints it.
 */
export class RequestHistogram<L extends string> {
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly series = new Map<string, Series<L>>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  /** Records one value in the series of these labels; label values must come from a bounded set. */
  observe(labels: Record<L, string>, value: number): void {
    this.child(labels)(value);
  }

  /** The observer of one series, the same function for the same labels: a caller on a hot path may keep it. */
  child(labels: Record<L, string>): (value: number) => void {
    const key = this.labelNames.map((n) => labels[n]).join("\u0000");
    let s = this.series.get(key);
    if (!s) {
      const counts = new Float64Array(this.bounds.length + 1);
      const bounds = this.bounds;
      const series: Series<L> = {
        labels: { ...labels },
        counts,
        sum: 0,
        observe: (value: number) => {
          let i = 0;
          while (i < bounds.length && value > bounds[i]!) i++;
          counts[i]!++;
          series.sum += value;
        },
      };
      this.series.set(key, (s = series));
    }
    return s.observe;
  }

  /** Observations per series so far: what a request counter of the same labels reads. */
  totals(): { labels: Record<L, string>; count: number }[] {
    return [...this.series.values()].map((s) => ({ labels: s.labels, count: s.counts.reduce((a, b) => a + b, 0) }));
  }

  /** Read by prom-client's registry when /metrics is scraped. */
  async get(): Promise<{ name: string; help: string; type: string; values: MetricValue[]; aggregator: string }> {
    const values: MetricValue[] = [];
    for (const s of this.series.values()) {
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += s.counts[i]!;
        values.push({ labels: { ...s.labels, le }, value: acc, metricName: `${this.name}_bucket` });
      });
      const count = acc + s.counts[this.bounds.length]!;
      values.push({ labels: { ...s.labels, le: "+Inf" }, value: count, metricName: `${this.name}_bucket` });
      values.push({ labels: { ...s.labels }, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...s.labels }, value: count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}
