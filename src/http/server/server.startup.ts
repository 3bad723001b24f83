import { randomUUID } from "node:crypto";
import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { sendJson } from "../http.send";
import { createHttpServer } from "./server.http";
import { listen } from "./server.listen";
import { type ConnectionTracker, trackConnections } from "./server.shutdown";

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
  port: number;
  setPhase(phase: StartupPhase): void;
  mount(app: RequestListener): void;
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

/** Listens on the configured port and host; a bind failure rejects with a StartupError naming PORT or HOST. */
export async function listenEarly(options: { port: number; host: string }, logger: Logger): Promise<EarlyServer> {
  let phase: StartupPhase = "starting";
  let current: RequestListener = startupListener(() => phase);
  // One indirection per request, so the app replaces the start-up answers without closing the socket.
  const server = createHttpServer((req, res) => current(req, res), logger);
  const connections = trackConnections(server);
  const port = await listen(server, options.port, options.host);
  logger.info({ port }, `health checks answered on port ${port}; /readyz says ready once the store is open`);
  return {
    server,
    connections,
    port,
    setPhase: (next) => (phase = next),
    mount: (app) => (current = app),
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
