import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { systemClock, type Clock } from "../../platform/clock";
import type { Config } from "../../platform/config";
import { UpstreamUnavailableError } from "../../platform/errors";
import { requestKey, splitVersion } from "./upstream.keys";
import { AttemptFailure, UpstreamTransport, type AttemptResult } from "./upstream.transport";
import type { UpstreamClient, UpstreamRequest, UpstreamResult, UpstreamState } from "./upstream.types";

export interface UpstreamClientDeps {
  logger?: Logger;
  /** Time for the breaker, the retry budget and the cache's ages (timeouts use real timers). */
  clock?: Clock;
  /** Where the upstream metrics are registered (the app's /metrics registry). */
  registry?: Registry;
  /**
   * Endpoints (`quote`, `etf/profile`: paths after the version) that `POST /<version>/bulk` serves: the route
   * table's single-security endpoints (`bulkPathsOf(ROUTES)`). Without it nothing goes as bulk.
   */
  bulkPaths?: ReadonlySet<string>;
}

/** The route table's single-security endpoints: what bulk may name (docs/contract.md section 6). */
export function bulkPathsOf(routes: readonly { path: string; singleSecurity: boolean }[]): ReadonlySet<string> {
  return new Set(routes.filter((r) => r.singleSecurity).map((r) => r.path));
}

/** The message of every failure a client sees: the kind, never a host, a key or an upstream body. */
function unavailable(kind: string): UpstreamUnavailableError {
  return new UpstreamUnavailableError(`the upstream data source is unavailable (${kind})`);
}

function asResult(r: AttemptResult): UpstreamResult {
  return { status: r.status, body: r.body, stale: false, ageSeconds: 0 };
}

/** Runs `fn` over `items` with at most `limit` in flight, results in order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** A bulk group: every item the same bulk-able path with the same params, each naming its security by `symbol`. */
interface BulkGroup {
  version: string;
  endpoint: string;
  params: Record<string, unknown>;
}

class Client implements UpstreamClient {
  private readonly transport: UpstreamTransport;
  private readonly inFlight = new Map<string, Promise<UpstreamResult>>();
  private lastFailure: string | undefined;

  constructor(
    private readonly config: Config["upstream"],
    private readonly deps: UpstreamClientDeps,
  ) {
    this.transport = new UpstreamTransport(config);
  }

  request(req: UpstreamRequest, signal?: AbortSignal): Promise<UpstreamResult> {
    const key = requestKey(req);
    let shared = this.inFlight.get(key);
    if (!shared) {
      shared = this.fetchOne(req).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, shared);
    }
    return signal ? abortable(shared, signal) : shared;
  }

  async requestMany(reqs: readonly UpstreamRequest[], signal?: AbortSignal): Promise<(UpstreamResult | Error)[]> {
    const settle = (p: Promise<UpstreamResult>) => p.catch((e: unknown) => (e instanceof Error ? e : unavailable("?")));
    const group = this.bulkGroup(reqs);
    if (!group) {
      return mapLimited(reqs, this.config.concurrency, (r) => settle(this.request(r, signal)));
    }
    const out: Promise<UpstreamResult>[] = new Array(reqs.length);
    // Items already asked for by another caller join that call; the rest go as bulk.
    const misses: { index: number; req: UpstreamRequest; key: string }[] = [];
    reqs.forEach((req, index) => {
      const key = requestKey(req);
      const shared = this.inFlight.get(key);
      if (shared) out[index] = shared;
      else misses.push({ index, req, key });
    });
    // Duplicates within the batch are asked once.
    const unique = new Map<string, { req: UpstreamRequest; indexes: number[] }>();
    for (const m of misses) {
      const u = unique.get(m.key);
      if (u) u.indexes.push(m.index);
      else unique.set(m.key, { req: m.req, indexes: [m.index] });
    }
    const entries = [...unique.entries()];
    for (let start = 0; start < entries.length; start += this.config.bulkMax) {
      const chunk = entries.slice(start, start + this.config.bulkMax);
      const answers =
        chunk.length === 1
          ? null
          : this.fetchBulk(
              group,
              chunk.map(([, u]) => u.req),
            );
      chunk.forEach(([key, u], k) => {
        const p = (answers ? answers.then((all) => all[k]!) : this.fetchOne(u.req)).finally(() =>
          this.inFlight.delete(key),
        );
        this.inFlight.set(key, p);
        for (const i of u.indexes) out[i] = p;
      });
    }
    return Promise.all(out.map((p) => settle(signal ? abortable(p, signal) : p)));
  }

  state(): UpstreamState {
    return this.lastFailure ? { breaker: "closed", lastFailure: this.lastFailure } : { breaker: "closed" };
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  /** The group when every request can ride in one bulk call (more than one of them), else null. */
  private bulkGroup(reqs: readonly UpstreamRequest[]): BulkGroup | null {
    if (reqs.length < 2 || !this.deps.bulkPaths) return null;
    const first = reqs[0]!;
    const split = splitVersion(first.path);
    if (!split || !this.deps.bulkPaths.has(split.endpoint)) return null;
    const paramsKey = (r: UpstreamRequest) => {
      const { symbol: _symbol, ...params } = r.body;
      return requestKey({ path: r.path, body: params });
    };
    const want = paramsKey(first);
    for (const r of reqs) {
      if (r.path !== first.path || typeof r.body.symbol !== "string" || paramsKey(r) !== want) return null;
    }
    const { symbol: _symbol, ...params } = first.body;
    return { version: split.version, endpoint: split.endpoint, params };
  }

  private async fetchOne(req: UpstreamRequest): Promise<UpstreamResult> {
    return asResult(await this.call(req.path, req.body));
  }

  /** One `POST /<version>/bulk` for these items: each slot its result, or its own error. */
  private async fetchBulk(group: BulkGroup, reqs: readonly UpstreamRequest[]): Promise<Promise<UpstreamResult>[]> {
    const body = {
      endpoint: group.endpoint,
      params: group.params,
      symbols: reqs.map((r) => ({ symbol: r.body.symbol })),
    };
    let answer: AttemptResult;
    try {
      answer = await this.call(`/${group.version}/bulk`, body);
    } catch (e) {
      return reqs.map(() => Promise.reject(e as Error));
    }
    const results = (answer.body as { results?: unknown } | null)?.results;
    if (answer.status !== 200 || !Array.isArray(results) || results.length !== reqs.length) {
      const err = unavailable("malformed");
      return reqs.map(() => Promise.reject(err));
    }
    return results.map((item: unknown) => {
      const it = item as { statusCode?: unknown; data?: unknown; error?: unknown } | null;
      if (it?.statusCode === 200) return Promise.resolve({ status: 200, body: it.data, stale: false, ageSeconds: 0 });
      if (it?.statusCode === 404) return Promise.resolve({ status: 404, body: it.error, stale: false, ageSeconds: 0 });
      return Promise.reject(unavailable(it?.statusCode === 500 ? "5xx" : "malformed"));
    });
  }

  /** One call under the timeout: the answer, or `UpstreamUnavailableError`. */
  private async call(path: string, body: unknown): Promise<AttemptResult> {
    try {
      return await this.transport.attempt(path, body, AbortSignal.timeout(this.config.timeoutMs));
    } catch (e) {
      const kind = e instanceof AttemptFailure ? e.kind : "connection";
      this.lastFailure = kind;
      throw unavailable(kind);
    }
  }
}

/** The shared call's answer for this caller, or its own abort (the shared call goes on for the others). */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(unavailable("aborted"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(unavailable("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Gateway mode's client (docs/contract.md section 9): keep-alive connections to `MDG_UPSTREAM_URL`, each call
 * within `MDG_UPSTREAM_TIMEOUT_MS`, identical calls in flight shared, batches sent as bulk.
 */
export function createUpstreamClient(config: Config, deps: UpstreamClientDeps = {}): UpstreamClient {
  return new Client(config.upstream, { clock: systemClock, ...deps });
}
