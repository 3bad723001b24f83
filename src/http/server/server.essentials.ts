import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { HeldHeaders, holdHeaders } from "../http.held";
import type { RequestObserver } from "./server.metrics";
import { answerTimeout } from "./server.request-timeout";

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export interface EssentialsOptions {
  /** MDG_REQUEST_TIMEOUT_MS. */
  timeoutMs: number;
  logger: Logger;
  /** Metrics and access log of each answered request; null records nothing. */
  observe: RequestObserver | null;
}

/**
 * One request in flight, in the order requests began (so also in the order of their deadlines); also the header
 * fields its answer carries (http.held.ts), so a request costs one object here.
 */
class InFlight extends HeldHeaders {
  next: InFlight | null = null;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    requestId: string,
    readonly started: number,
    public prev: InFlight | null,
  ) {
    super(requestId);
  }
}

const IN_FLIGHT = Symbol("mdg.inFlight");
type Tracked = ServerResponse & { [IN_FLIGHT]?: InFlight };

/**
 * What every request gets before any door sees it, REST, /graphql or the
 * rest: a request id (a sane incoming `x-request-id` is kept so traces line
 * up across hops) held for its answer (http.held.ts), the timeout that
 * answers for a stuck handler, and one `close` hook that ends its watch and
 * records the answer. Returns the request id.
 *
 * Every request has the same timeout, so deadlines come in the order requests
 * began: one list in that order and one timer armed for the oldest replace a
 * timer per request, and the `close` hook is one function shared by every
 * response rather than a closure each (BENCHMARKS.md, "The hot path against
 * the peers"). The timer fires when the oldest request's time is up, as its
 * own timer would have.
 */
export function requestEssentials({
  timeoutMs,
  logger,
  observe,
}: EssentialsOptions): (req: IncomingMessage, res: ServerResponse) => string {
  let oldest: InFlight | null = null;
  let newest: InFlight | null = null;
  /** Armed for the oldest request's deadline; a newer request's deadline is never earlier, so it never re-arms. */
  let timer: NodeJS.Timeout | null = null;

  const unlink = (f: InFlight) => {
    if (f.prev) f.prev.next = f.next;
    else if (oldest === f) oldest = f.next;
    if (f.next) f.next.prev = f.prev;
    else if (newest === f) newest = f.prev;
    f.prev = f.next = null;
  };

  const arm = (at: number, now: number) => {
    timer = setTimeout(sweep, Math.max(0, at - now));
    // A request in flight keeps the process alive by its socket; the watch alone must not.
    timer.unref();
  };

  const sweep = () => {
    timer = null;
    const now = performance.now();
    while (oldest && oldest.started + timeoutMs <= now) {
      const due = oldest;
      unlink(due);
      answerTimeout(due.req, due.res, due.requestId, timeoutMs, logger);
    }
    if (oldest) arm(oldest.started + timeoutMs, now);
  };

  function onClose(this: Tracked) {
    const f = this[IN_FLIGHT];
    if (!f) return;
    this[IN_FLIGHT] = undefined;
    unlink(f);
    // A response the client abandoned before its end was never answered: nothing to record.
    if (observe && this.writableFinished) observe(f.req, this, f.requestId, performance.now() - f.started);
  }

  return (req, res) => {
    const incoming = req.headers["x-request-id"];
    const requestId = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const started = performance.now();
    const f = new InFlight(req, res, requestId, started, newest);
    holdHeaders(res, f);
    if (newest) newest.next = f;
    else oldest = f;
    newest = f;
    if (timer === null) arm(started + timeoutMs, started);
    (res as Tracked)[IN_FLIGHT] = f;
    res.on("close", onClose);
    return requestId;
  };
}
