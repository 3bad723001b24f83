import type { Registry } from "prom-client";

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
  private readonly series = new Map<string, { labels: Record<L, string>; counts: Float64Array; sum: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  /** The observer of one series. Resolve it once and keep it: label values must come from a bounded set. */
  child(labels: Record<L, string>): (value: number) => void {
    const key = this.labelNames.map((n) => labels[n]).join("\u0000");
    let s = this.series.get(key);
    if (!s) {
      s = { labels: { ...labels }, counts: new Float64Array(this.bounds.length + 1), sum: 0 };
      this.series.set(key, s);
    }
    const series = s;
    const bounds = this.bounds;
    return (value: number) => {
      let i = 0;
      while (i < bounds.length && value > bounds[i]!) i++;
      series.counts[i]!++;
      series.sum += value;
    };
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
