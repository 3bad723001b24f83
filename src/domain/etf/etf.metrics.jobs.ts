import DataLoader from "dataloader";
import type { RequestContext } from "../request.context";
import { NotFoundError } from "../../platform/errors";
import { runInWorker, workerFile } from "../../platform/workers/worker.pool";
import { dayOfUnix, type SeriesPoint } from "./etf.metrics";
import type { MetricsJob, MetricsJobItem, MetricsJobResult, MetricsScalars } from "./etf.metrics.worker";

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

const WORKER = workerFile(__dirname, "etf.metrics.worker");

const keyOf = (i: MetricsJobItem) => `${i.listingId}:${i.from}:${i.to}:${i.resolution}:${i.currency}`;

/**
 * The request's metrics, by (listing, range, resolution, currency): aliases
 * and bulk items that ask the same thing share one computation, and the
 * items asked in one tick go to the worker as one job (one statement for
 * their closes, one for their FX rates), as the request's DataLoaders batch
 * store reads. Per request, like every loader: never shared between keys.
 */
const LOADERS = new WeakMap<RequestContext, DataLoader<MetricsJobItem, OffloadedMetrics, string>>();

function loaderOf(ctx: RequestContext, dbPath: string): DataLoader<MetricsJobItem, OffloadedMetrics, string> {
  let loader = LOADERS.get(ctx);
  if (!loader) {
    loader = new DataLoader<MetricsJobItem, OffloadedMetrics, string>(
      async (items): Promise<(OffloadedMetrics | Error)[]> => {
        const job: MetricsJob = { dbPath, riskFreeRatePercent: ctx.config.riskFreeRatePercent, items: [...items] };
        const result = await runInWorker<MetricsJobResult>(WORKER, job, ctx.requestId);
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
 * Where the worker can read the store itself: the SQLite file the service
 * serves (each worker opens it read-only). Other sources compute in process
 * (etf.service.ts) until their reads move to workers too.
 */
export function offloadPath(ctx: RequestContext): string | null {
  if (ctx.source.kind !== "sqlite") return null;
  const path = ctx.config.sqlitePath;
  return path === ":memory:" || path === "" ? null : path;
}

export function helperMetrics(ctx: RequestContext, dbPath: string, item: MetricsJobItem): Promise<OffloadedMetrics> {
  return loaderOf(ctx, dbPath).load(item);
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
