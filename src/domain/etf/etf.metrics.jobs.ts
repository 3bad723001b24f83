import DataLoader from "dataloader";
import type { RequestContext } from "../request.context";
import { NotFoundError } from "../../platform/errors";
import { runInWorker } from "../../platform/workers/worker.pool";
import type { MetricsWorker } from "../ports/source.capabilities";
import { dayOfUnix, type MetricResolution, type MetricsScalars, type SeriesPoint } from "./etf.metrics";

/**
 * The messages of the ETF metrics worker: a worker module a source names
 * (`MarketDataSource.etfMetricsWorker`; SQLite's is
 * src/sources/sqlite/sqlite.etf-metrics.worker.ts) reads the closes and FX
 * rates of a job's items from its store itself and computes them with
 * etf.metrics.ts. What comes back is small: the scalar metrics per item, and
 * every item's series packed in one Float64Array that is transferred, not
 * copied; the main thread builds point objects only when a client asks for
 * the series.
 */
export interface MetricsJobItem {
  listingId: number;
  from: number;
  to: number;
  resolution: MetricResolution;
  /** The listing's currency. */
  listingCurrency: string;
  /** The currency to compute in. */
  currency: string;
  /** For messages. */
  symbol: string;
}

export interface MetricsJob {
  /** The store the worker reads (`MetricsWorker.store`). */
  store: string;
  riskFreeRatePercent: number;
  items: MetricsJobItem[];
}

export type MetricsJobAnswer =
  | {
      ok: true;
      scalars: MetricsScalars;
      /** Points of the series; they start at `offset` points into `MetricsJobResult.packed`. */
      points: number;
      offset: number;
      bars: number;
      filledDays: number;
      firstFilledDay: string | null;
    }
  | { ok: false; notFound: string; noCloses?: true };

export interface MetricsJobResult {
  answers: MetricsJobAnswer[];
  /** Four numbers a point: t, value, period return (NaN at the start), cumulative return. */
  packed: Float64Array;
  /** Statements run against the store, for the source's query counter. */
  queries: number;
}

/** One item's metrics as the worker answered them; the series is built on first read. */
export interface OffloadedMetrics extends MetricsScalars {
  readonly series: SeriesPoint[];
  /** Length of the series. */
  points: number;
  bars: number;
  filledDays: number;
  firstFilledDay: string | null;
}

/** The range holds no close of the ETF: an empty answer, not an error (docs/contract.md section 4). */
export class NoClosesError extends NotFoundError {
  override name = "NoClosesError";
}

const keyOf = (i: MetricsJobItem) => `${i.listingId}:${i.from}:${i.to}:${i.resolution}:${i.currency}`;

/**
 * The request's metrics, by (listing, range, resolution, currency): aliases
 * and bulk items that ask the same thing share one computation, and the
 * items asked in one tick go to the worker as one job (one statement for
 * their closes, one for their FX rates), as the request's DataLoaders batch
 * store reads. Per request, like every loader: never shared between keys.
 */
const LOADERS = new WeakMap<RequestContext, DataLoader<MetricsJobItem, OffloadedMetrics, string>>();

function loaderOf(ctx: RequestContext, worker: MetricsWorker): DataLoader<MetricsJobItem, OffloadedMetrics, string> {
  let loader = LOADERS.get(ctx);
  if (!loader) {
    loader = new DataLoader<MetricsJobItem, OffloadedMetrics, string>(
      async (items): Promise<(OffloadedMetrics | Error)[]> => {
        const { file, store } = worker;
        const job: MetricsJob = { store, riskFreeRatePercent: ctx.config.riskFreeRatePercent, items: [...items] };
        const result = await runInWorker<MetricsJobResult>(file, job, ctx.requestId);
        // The worker's statements are this request's store reads: tests and the bench count them.
        ctx.source.stats.queries += result.queries;
        return result.answers.map((a) =>
          a.ok ? helper(a, result.packed) : a.noCloses ? new NoClosesError(a.notFound) : new NotFoundError(a.notFound),
        );
      },
      { cacheKeyFn: keyOf },
    );
    LOADERS.set(ctx, loader);
  }
  return loader;
}

type Answered = Extract<MetricsJobResult["answers"][number], { ok: true }>;

function helper(a: Answered, packed: Float64Array): OffloadedMetrics {
  let series: SeriesPoint[] | undefined;
  const view = packed.subarray(a.offset * 4, (a.offset + a.points) * 4);
  return {
    ...a.scalars,
    points: a.points,
    bars: a.bars,
    filledDays: a.filledDays,
    firstFilledDay: a.firstFilledDay,
    // Most clients ask for the figures, not the thousands of points: those are made only when read.
    get series(): SeriesPoint[] {
      return (series ??= unpack(view));
    },
  };
}

function unpack(view: Float64Array): SeriesPoint[] {
  const out = new Array<SeriesPoint>(view.length / 4);
  for (let i = 0; i < out.length; i++) {
    const t = view[i * 4]!;
    const r = view[i * 4 + 2]!;
    const periodReturn = i === 0 ? null : r;
    out[i] = { t, date: dayOfUnix(t), value: view[i * 4 + 1]!, periodReturn, cumulativeReturn: view[i * 4 + 3]! };
  }
  return out;
}

/**
 * The worker that can read the source's store itself (SQLite: each worker
 * opens the file read-only), or null: other sources, and a store no other
 * thread can open, compute in process (etf.service.ts).
 */
export function offloadTo(ctx: RequestContext): MetricsWorker | null {
  return ctx.source.etfMetricsWorker?.() ?? null;
}

export function helperMetrics(
  ctx: RequestContext,
  worker: MetricsWorker,
  item: MetricsJobItem,
): Promise<OffloadedMetrics> {
  return loaderOf(ctx, worker).load(item);
}

const TURNS = new WeakMap<RequestContext, Promise<void>>();

/**
 * Resolves in a later event-loop turn than the request's previous caller:
 * the items of one job all come back at once, and what each then costs the
 * main thread (its series made into points, completed and serialised) would
 * otherwise run back to back in one turn. One item a turn lets other
 * requests' I/O in between.
 */
export function nextTurn(ctx: RequestContext): Promise<void> {
  const mine = (TURNS.get(ctx) ?? Promise.resolve()).then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  TURNS.set(ctx, mine);
  return mine;
}
