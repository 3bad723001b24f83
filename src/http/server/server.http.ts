import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type RequestListener, type Server } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import type { ConnectionLimitsConfig } from "../../platform/config";
import {
  capConnections,
  DEFAULT_CONNECTION_LIMITS,
  headersDeadline,
  KEEP_ALIVE_TIMEOUT_MS,
} from "./server.connections";

/**
 * After answering a request it could not read, how long a connection may stay half-open before it is closed: the
 * client reads the answer and closes its side well within it, and a client that never does holds no descriptor.
 */
const LINGER_MS = 2_000;

/**
 * The HTTP server of the service. Node answers some malformed requests by
 * itself, before Express sees them, with statuses the contract forbids (400
 * for a request line or header it cannot parse, 431 for headers over 16 KiB,
 * 408 for a request not received in time, 417 for an unknown `Expect`, 400
 * for a missing Host, and it drops CONNECT). Here each of those becomes the
 * contract's 404 INVALID_ARGUMENT with its JSON error body.
 *
 * Connections are bounded (server.connections.ts): at most `limits.max` open at once, and one whose request head has
 * not arrived within `limits.headersTimeoutMs` is closed: with the 404 above if it had sent part of a request, with
 * nothing if it had sent nothing at all (there is no request to answer). Unset limits are the configuration's defaults.
 */
export function createHttpServer(
  app: RequestListener,
  logger: Logger,
  limits: ConnectionLimitsConfig = DEFAULT_CONNECTION_LIMITS,
): Server {
  const server = createServer({ requireHostHeader: false, ...headersDeadline(limits.headersTimeoutMs) }, app);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  capConnections(server, limits.max, logger);

  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === "ECONNRESET" || err.code === "EPIPE" || !socket.writable) {
      socket.destroy();
      return;
    }
    // A connection that never sent a byte made no request: it is closed without an answer.
    if (err.code === "ERR_HTTP_REQUEST_TIMEOUT" && (socket as Duplex & { bytesRead?: number }).bytesRead === 0) {
      socket.destroy();
      return;
    }
    // Never write into the middle of a response already under way on this socket.
    const inFlight = (socket as unknown as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const [field, issue, message] =
      err.code === "HPE_HEADER_OVERFLOW"
        ? ["headers", "too large", "request headers: larger than the limit of 16 KiB"]
        : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? ["request", "timeout", "request: not received in time"]
          : ["request", "malformed", `request: not a valid HTTP/1.1 message (${err.code ?? "parse error"})`];
    logger.debug({ code: err.code }, "malformed HTTP request");
    // A HEAD answer has no body: a client reading one would take the body for the next response.
    const raw = (err as { rawPacket?: Buffer }).rawPacket;
    const head = raw !== undefined && raw.subarray(0, 5).toString("latin1") === "HEAD ";
    answerAndClose(socket, rawResponse(message, field, issue, "INVALID_ARGUMENT", head));
  });

  // CONNECT is not a method the service answers; without a listener Node would drop the connection silently.
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    if (socket.writable)
      answerAndClose(socket, rawResponse("no endpoint answers CONNECT", "method", "unsupported", "NOT_FOUND"));
    else socket.destroy();
  });

  // Any `Expect` value: answer the request as usual instead of Node's automatic 417.
  server.on("checkExpectation", (req, res) => app(req, res));
  return server;
}

/**
 * Sends `response` and half-closes; Node then parses nothing more from this connection, and the server allows half-open
 * connections, so one whose client never closes its side would stay open for good: it is destroyed after LINGER_MS.
 */
function answerAndClose(socket: Duplex, response: string): void {
  socket.end(response);
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once("close", () => clearTimeout(linger));
}

function rawResponse(
  message: string,
  field: string,
  issue: string,
  code = "INVALID_ARGUMENT",
  headOnly = false,
): string {
  const requestId = randomUUID();
  const body = JSON.stringify({
    statusCode: 404,
    error: "Not Found",
    code,
    message,
    details: [{ field, issue }],
    requestId,
  });
  return [
    "HTTP/1.1 404 Not Found",
    "content-type: application/json; charset=utf-8",
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    "connection: close",
    "",
    headOnly ? "" : body,
  ].join("\r\n");
}
