import { randomUUID } from "node:crypto";
import { type IncomingMessage, type RequestListener, type Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import type { ConnectionLimitsConfig } from "../../platform/config";
import { sendJson } from "../http.send";
import { createHttpServer } from "./server.http";
import { listen } from "./server.listen";
import { type ConnectionTracker, trackConnections } from "./server.shutdown";

type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** What the service is doing before the app is mounted; `/readyz` and every data path say so. */
export type StartupPhase = "building" | "starting";

const PHASE_MESSAGE: Record<StartupPhase, string> = {
  building: "the service is starting: building the sample store",
  starting: "the service is starting: opening the store",
};

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The server of the service from its first moment: it listens before the store is built or opened, so a process
 * supervisor sees it alive (`/healthz` 200) and a load balancer sees it not ready (`/readyz` 500, `status` saying
 * why) instead of a refused connection for up to a minute. `mount` then hands every later request to the full app on
 * the same listening socket.
 */
export interface EarlyServer {
  server: Server;
  connections: ConnectionTracker;
  /** The port bound (the configured one until then, with `listenWhenReady`). */
  readonly port: number;
  setPhase(phase: StartupPhase): void;
  /** From now on `/readyz` answers 503 (SIGTERM); `connections.drain` then stops accepting. */
  markUnready(): void;
  /**
   * Hands every later request to `app`, and upgrades (WebSockets) to `upgrade`; with `listenWhenReady`, starts
   * listening (a bind failure rejects). Before, an upgrade is answered as any request: the start-up phase's 500.
   */
  mount(app: RequestListener, upgrade?: UpgradeListener): Promise<void>;
  /** Stops listening and closes every connection (SIGTERM before the app was mounted: nothing worth finishing). */
  close(): Promise<void>;
}

/**
 * Answers while the app is not there yet. `/healthz` answers 200 as the app does: the process is alive. Everything
 * else answers the contract's 500 INTERNAL body with `status`: a data path cannot be served yet, and that is a fault
 * of the service, not of the request (404 would tell a client its symbol or path does not exist; 401 would tell it
 * its key is wrong, which cannot be checked before the store is open). Load balancers route by `/readyz`, so clients
 * rarely see it.
 */
export function startupListener(phase: () => StartupPhase): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const incoming = req.headers["x-request-id"];
    const requestId = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader("x-request-id", requestId);
    const url = req.url ?? "/";
    const pathname = url.split("?", 1)[0];
    if ((req.method === "GET" || req.method === "HEAD") && pathname === "/healthz") {
      sendJson(res, 200, { status: "ok" });
      return;
    }
    const now = phase();
    sendJson(res, 500, {
      statusCode: 500,
      error: "Internal Server Error",
      code: "INTERNAL",
      message: PHASE_MESSAGE[now],
      status: now,
      requestId,
    });
  };
}

/**
 * `/readyz` once SIGTERM came: 503, before the app (which would still ping the store and answer 200), so whatever
 * routes by readiness (an orchestrator, a balancer with active checks) stops sending here while the listener is kept
 * open for MDG_SHUTDOWN_DELAY_MS. 503 rather than the contract's 500: it is not a fault, and it is the status
 * balancers treat as "try another".
 */
function drainingReadyz(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  if ((req.url ?? "/").split("?", 1)[0] !== "/readyz") return false;
  const incoming = req.headers["x-request-id"];
  res.setHeader("x-request-id", typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID());
  sendJson(res, 503, { status: "draining" });
  return true;
}

/**
 * Listens on the configured port and host; a bind failure rejects with a StartupError naming PORT or HOST. With
 * `listenWhenReady` nothing listens until `mount`: behind a load balancer a starting replica then refuses
 * connections (which the balancer retries on another replica) rather than answering 500 with its phase.
 */
export async function listenEarly(
  options: { port: number; host: string; listenWhenReady?: boolean; connections?: ConnectionLimitsConfig },
  logger: Logger,
): Promise<EarlyServer> {
  let phase: StartupPhase = "starting";
  let unready = false;
  let current: RequestListener = startupListener(() => phase);
  // Until the app is mounted an upgrade (WebSocket) is answered as any other request: the phase's 500.
  let currentUpgrade: UpgradeListener = (req, socket) => {
    const res = new ServerResponse(req);
    res.assignSocket(socket as Socket);
    res.shouldKeepAlive = false;
    res.on("finish", () => socket.end());
    current(req, res);
  };
  // One indirection per request, so the app replaces the start-up answers without closing the socket.
  const server = createHttpServer(
    (req, res) => {
      if ((unready || connections.draining) && drainingReadyz(req, res)) return;
      current(req, res);
    },
    logger,
    options.connections,
  );
  const connections = trackConnections(server);
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => currentUpgrade(req, socket, head));
  let port = options.port;
  if (!options.listenWhenReady) {
    port = await listen(server, options.port, options.host);
    logger.info({ port }, `health checks answered on port ${port}; /readyz says ready once the store is open`);
  }
  return {
    server,
    connections,
    get port() {
      return port;
    },
    setPhase: (next) => (phase = next),
    markUnready: () => (unready = true),
    mount: async (app, upgrade) => {
      current = app;
      if (upgrade) currentUpgrade = upgrade;
      if (options.listenWhenReady) port = await listen(server, options.port, options.host);
    },
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
