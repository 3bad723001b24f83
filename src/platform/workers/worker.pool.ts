import { availableParallelism } from "node:os";
import { Piscina } from "piscina";

/**
 * The worker threads that take heavy work off the event loop (docs/operations.md
 * "Limits and hardening"): the loop that answers every request must never
 * wait for one client's long computation. One pool per process, made on the
 * first heavy job; each task names its worker module.
 *
 * Threads: one less than the cores (at least one), at a lower priority
 * (MDG_WORKER_NICE, `configureWorkerPool`), so the main thread keeps a core
 * for light requests while heavy ones queue here.
 * MDG_HEAVY_CAPACITY (quota.heavy.ts) admits as many heavy operations by
 * default, so this queue stays short and a heavy request waits in that line,
 * bounded by MDG_HEAVY_QUEUE_MS, rather than here until its timeout. Under ts sources
 * (tests, `npm run bench`'s probes) the workers load TypeScript through
 * @swc-node/register, as the main thread does.
 */
let pool: Piscina | undefined;

/** The nice value each worker thread adds to its own at start (config.ts MDG_WORKER_NICE). */
let niceIncrement = 19;

/**
 * The pool's settings from the service's configuration, before its first job (the pool is made then, and keeps
 * them).
 */
export function configureWorkerPool(options: { nice: number }): void {
  niceIncrement = options.nice;
}

function thePool(): Piscina {
  return (pool ??= new Piscina({
    minThreads: 0,
    maxThreads: Math.max(1, availableParallelism() - 1),
    idleTimeout: 30_000,
    // Lower priority than the main thread (Linux: per thread, through @napi-rs/nice): when the cores are busy, the
    // loop answering light requests gets them first and heavy work waits, not the other way round. Sharing one core
    // with the main thread, a worker at 10 gets about a tenth of it (Linux's weights); at 19, about 1.5 %.
    niceIncrement,
    execArgv: __filename.endsWith(".ts") ? ["-r", "@swc-node/register"] : [],
  }));
}

/** A worker module next to the caller, `.ts` or `.js` as this process runs. */
export function workerFile(dir: string, base: string): string {
  return `${dir}/${base}${__filename.endsWith(".ts") ? ".ts" : ".js"}`;
}

/**
 * Work a request started, by request id: a request that timed out
 * (server.request-timeout.ts) aborts its queued and running jobs, so an
 * abandoned request stops costing CPU, and the jobs its handler would start
 * later are refused.
 */
const inFlight = new Map<string, { controller: AbortController; jobs: number }>();
const abandoned = new Set<string>();
/** How long an abandoned request's id is remembered: longer than any handler keeps running after its timeout. */
const ABANDONED_MS = 60_000;

export class WorkAbandonedError extends Error {
  override name = "WorkAbandonedError";
}

/**
 * Runs `task` in a worker; `requestId` ties it to its request for `abortRequestWork`. What `transfer` lists (a large
 * body's memory) moves to the worker rather than being copied, and is unusable here after.
 */
export async function runInWorker<T>(
  filename: string,
  task: unknown,
  requestId: string,
  transfer: readonly ArrayBuffer[] = [],
): Promise<T> {
  if (abandoned.has(requestId)) throw new WorkAbandonedError(`request ${requestId} was abandoned`);
  let entry = inFlight.get(requestId);
  if (!entry) inFlight.set(requestId, (entry = { controller: new AbortController(), jobs: 0 }));
  entry.jobs++;
  try {
    const transferList = transfer.length > 0 ? [...transfer] : undefined;
    return (await thePool().run(task, { filename, signal: entry.controller.signal, transferList })) as T;
  } finally {
    if (--entry.jobs === 0 && inFlight.get(requestId) === entry) inFlight.delete(requestId);
  }
}

/** Aborts every job of a request (queued ones never start; a running one's thread is replaced). */
export function abortRequestWork(requestId: string): void {
  abandoned.add(requestId);
  setTimeout(() => abandoned.delete(requestId), ABANDONED_MS).unref();
  const entry = inFlight.get(requestId);
  if (!entry) return;
  inFlight.delete(requestId);
  entry.controller.abort(new WorkAbandonedError(`request ${requestId} was abandoned`));
}

/** Stops the pool's threads (shutdown, tests). */
export async function closeWorkerPool(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.close({ force: true });
}

/** Jobs waiting and threads running, for tests and the bench. */
export function workerPoolStats(): { queued: number; threads: number; requests: number } {
  return { queued: pool?.queueSize ?? 0, threads: pool?.threads.length ?? 0, requests: inFlight.size };
}
