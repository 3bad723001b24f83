import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { RequestObserver } from "../../platform/metrics/metrics.http";
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
 * What every request gets before any door sees it, REST, /graphql or the
 * rest: a request id (a sane incoming `x-request-id` is kept so traces line
 * up across hops) on the response, the timeout that answers for a stuck
 * handler, and one `close` hook that clears the timer and records the answer.
 * Returns the request id.
 *
 * One listener instead of one per concern: on the hot path each `once`
 * wrapper is measurable (BENCHMARKS.md).
 */
export function requestEssentials({
  timeoutMs,
  logger,
  observe,
}: EssentialsOptions): (req: IncomingMessage, res: ServerResponse) => string {
  return (req, res) => {
    const incoming = req.headers["x-request-id"];
    const requestId = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader("x-request-id", requestId);
    const started = performance.now();
    const timer = setTimeout(answerTimeout, timeoutMs, req, res, requestId, timeoutMs, logger);
    res.on("close", () => {
      clearTimeout(timer);
      // A response the client abandoned before its end was never answered: nothing to record.
      if (observe && res.writableFinished) observe(req, res, requestId, performance.now() - started);
    });
    return requestId;
  };
}
