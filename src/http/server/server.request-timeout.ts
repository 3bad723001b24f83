import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { abortRequestWork } from "../../platform/workers/worker.pool";
import { sendJson, splitUrl } from "../http.send";

/**
 * MDG_REQUEST_TIMEOUT_MS for the REST and /graphql doors: a request still
 * unanswered after `ms` gets an answer at once and nothing its handler writes
 * later reaches the client. Heavy work runs on worker threads, so this timer
 * fires on time; the request's queued and running worker jobs are aborted
 * (the handler's own remaining work cannot be cancelled, but the client is
 * never left hanging).
 *
 * - The service was too slow (the whole request had arrived): 500 INTERNAL,
 *   "the request took longer than N ms".
 * - The client was too slow (its body had not all arrived): 404
 *   INVALID_ARGUMENT on REST, 400 on /graphql: a malformed request.
 */
export function answerTimeout(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  ms: number,
  logger: Logger,
): void {
  if (res.headersSent || res.writableEnded) return;
  const clientSlow = !req.complete;
  const { path } = splitUrl(req);
  const graphql = path === "/graphql" || path.startsWith("/graphql/");
  const message = clientSlow
    ? `body: not received within ${ms} ms`
    : `the request took longer than ${ms} ms (MDG_REQUEST_TIMEOUT_MS) and was abandoned; retry later`;
  let status: number;
  let body: unknown;
  if (graphql) {
    status = clientSlow ? 400 : 500;
    body = {
      errors: [
        { message, extensions: { code: clientSlow ? "BAD_REQUEST" : "INTERNAL_SERVER_ERROR", reason: "TIMEOUT" } },
      ],
    };
  } else if (clientSlow) {
    status = 404;
    body = {
      statusCode: 404,
      error: "Not Found",
      code: "INVALID_ARGUMENT",
      message,
      details: [{ field: "body", issue: "timeout" }],
      requestId,
    };
  } else {
    status = 500;
    body = { statusCode: 500, error: "Internal Server Error", code: "INTERNAL", message, requestId };
  }
  // Its jobs on the worker threads (ETF metrics, …) stop: nobody will read their answer.
  if (!clientSlow) abortRequestWork(requestId);
  if (clientSlow) logger.warn({ requestId, method: req.method, path, ms }, "request body not received in time");
  else logger.error({ requestId, method: req.method, path, ms }, "request timed out");
  // The handler may still be reading the body or working: this connection is not reused.
  sendJson(res, status, body, { connection: "close" });
  silence(res);
}

/** Whatever the abandoned handler writes from now on goes nowhere (and throws nothing). */
function silence(res: ServerResponse): void {
  const self = res as unknown as Record<string, unknown>;
  const chain = function (this: ServerResponse) {
    return this;
  };
  self.writeHead = chain;
  self.setHeader = chain;
  self.removeHeader = chain;
  self.appendHeader = chain;
  self.write = () => true;
  self.end = chain;
}
