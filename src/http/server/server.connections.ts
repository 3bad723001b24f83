import { readFileSync } from "node:fs";
import type { Server, ServerOptions } from "node:http";
import { availableParallelism } from "node:os";
import type { Logger } from "pino";
import {
  type Config,
  type ConnectionLimitsConfig,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
} from "../../platform/config";

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimitsConfig = Object.freeze({
  max: DEFAULT_MAX_CONNECTIONS,
  headersTimeoutMs: DEFAULT_HEADERS_TIMEOUT_MS,
});

/**
 * Between two requests of a keep-alive connection: above nginx's 60 s (deploy/nginx.conf), so it is nginx that
 * closes an idle upstream connection, never this process under its feet.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * The createServer options that close a connection whose request head has not arrived within `headersTimeoutMs`.
 *
 * Node checks that deadline only in a sweep of its open connections every `connectionsCheckingInterval` (30 s by
 * default; a connection that never sends a byte is swept too: its clock starts when it opens). A connection is thus
 * closed between `headersTimeout` and `headersTimeout` + one interval after it opened: the sweep runs every tenth of
 * the limit (at most every second), and Node's own deadline is set one interval earlier, so "closed within
 * `headersTimeoutMs`" holds. A sweep walks only the connections whose request is under way, a few microseconds.
 *
 * `requestTimeout` (the whole request, body included) stays Node's 300 s, or the head's limit if longer (Node refuses
 * a head allowed longer than the whole request): a slow body is answered at MDG_REQUEST_TIMEOUT_MS by the app
 * (server.request-timeout.ts), which sees it first.
 *
 * An upgraded connection (WebSocket) leaves Node's HTTP parser, and with it these sweeps and the keep-alive timeout:
 * its idle rule is the WebSocket door's own (docs/contract.md section 10). It still counts against `max`.
 */
export function headersDeadline(
  headersTimeoutMs: number,
): Pick<ServerOptions, "headersTimeout" | "requestTimeout" | "connectionsCheckingInterval"> {
  const sweepMs = Math.min(1_000, Math.max(10, Math.floor(headersTimeoutMs / 10)));
  return {
    headersTimeout: headersTimeoutMs - sweepMs,
    requestTimeout: Math.max(NODE_REQUEST_TIMEOUT_MS, headersTimeoutMs),
    connectionsCheckingInterval: sweepMs,
  };
}

/** Node's own default for `requestTimeout`. */
const NODE_REQUEST_TIMEOUT_MS = 300_000;

const REFUSAL_LOG_EVERY_MS = 10_000;

/**
 * Past `max` open connections Node closes each new one as soon as it is accepted (`server.maxConnections`): the client
 * sees its connection end before any answer, and retries or goes elsewhere, while established connections go on being
 * served. One warning per 10 s says how many were refused, never one line per connection (that would be a log flood
 * under exactly the load that causes it).
 */
export function capConnections(server: Server, max: number, logger: Logger): void {
  server.maxConnections = max;
  let refused = 0;
  let lastLog = Number.NEGATIVE_INFINITY;
  let pending: NodeJS.Timeout | undefined;
  const report = () => {
    pending = undefined;
    lastLog = Date.now();
    logger.warn({ refused, max }, `connections refused: ${refused}, with ${max} open already (MDG_MAX_CONNECTIONS)`);
    refused = 0;
  };
  server.on("drop", () => {
    refused++;
    if (pending !== undefined) return;
    // The first refusal at once; those that follow within the period, counted in one line at its end.
    const wait = lastLog + REFUSAL_LOG_EVERY_MS - Date.now();
    if (wait <= 0) report();
    else (pending = setTimeout(report, wait)).unref();
  });
}

/**
 * File descriptors the process needs beside its client connections: standard streams, the event loops of the main
 * and worker threads, the SQLite store (file, WAL, shared memory), a store build's scratch files, PostgreSQL's pool,
 * Redis, the upstream's connections. Generous: measured at 24 on a two-core host with the SQLite store.
 */
export function descriptorReserve(config: Config): number {
  let reserve = 64 + 4 * availableParallelism();
  if (config.dataSource === "postgres" || config.gatewayKeys === "postgres") reserve += config.postgres.poolSize + 2;
  if (config.rateLimit.redisUrl !== undefined) reserve += 2;
  if (config.dataSource === "upstream") reserve += config.upstream.concurrency;
  return reserve;
}

/** The soft limit on open files of this process, where the system says it cheaply (Linux); undefined elsewhere. */
export function openFilesLimit(limitsText?: string): number | undefined {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync("/proc/self/limits", "utf8");
    } catch {
      return undefined;
    }
  }
  const soft = /^Max open files\s+(\d+|unlimited)\s/m.exec(text)?.[1];
  if (soft === undefined) return undefined;
  return soft === "unlimited" ? Number.POSITIVE_INFINITY : Number(soft);
}

/**
 * A warning at start when MDG_MAX_CONNECTIONS and what the store needs do not fit in the process's limit on open
 * files: the cap would then not protect the store, whose next connection or file would fail with EMFILE before the
 * cap refuses a client. Only a warning: the limit may be raised later, and a smaller cap is the operator's call.
 */
export function checkDescriptorHeadroom(config: Config, logger: Logger, limit = openFilesLimit()): boolean {
  if (limit === undefined) return true;
  const reserve = descriptorReserve(config);
  const needed = config.connections.max + reserve;
  if (needed <= limit) return true;
  logger.warn(
    { maxConnections: config.connections.max, reserve, openFilesLimit: limit },
    `MDG_MAX_CONNECTIONS=${config.connections.max} and about ${reserve} descriptors for the store and threads need ` +
      `${needed} open files, but this process may open ${limit}: raise the limit (ulimit -n, LimitNOFILE=) ` +
      `or lower MDG_MAX_CONNECTIONS to ${Math.max(1, limit - reserve)}`,
  );
  return false;
}
