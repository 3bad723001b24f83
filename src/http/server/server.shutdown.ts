import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface DrainResult {
  /** True when every in-flight request was answered before the deadline. */
  drained: boolean;
  /** Requests still running when the deadline cut their connections. */
  abandoned: number;
  ms: number;
}

export interface ConnectionTracker {
  /** Requests being answered right now. */
  readonly inFlight: number;
  /** True from the moment `drain` is called: `/readyz` then answers 503. */
  readonly draining: boolean;
  /**
   * Stops accepting connections, closes idle keep-alive connections, lets
   * every in-flight request finish (its answer carries `Connection: close`),
   * and after `deadlineMs` destroys whatever connection is left. Upgraded connections (WebSockets) are their door's
   * to close: `requestsDone` is called once no request is in flight, for it to close them (the drain ends when they
   * are closed too).
   */
  drain(deadlineMs: number, requestsDone?: () => void): Promise<DrainResult>;
}

/**
 * Follows the server's connections and requests so a shutdown can wait for
 * exactly the requests under way (what http-terminator does): `server.close()`
 * alone stops accepting but keeps busy keep-alive connections open forever.
 * Install it before the server listens.
 */
export function trackConnections(server: Server): ConnectionTracker {
  const active = new Map<Socket, number>();
  let draining = false;
  let inFlight = 0;

  let whenDone: (() => void) | undefined;
  const checkDone = () => {
    if (!draining || inFlight > 0 || !whenDone) return;
    const done = whenDone;
    whenDone = undefined;
    done();
  };

  server.on("connection", (socket: Socket) => {
    active.set(socket, 0);
    socket.once("close", () => active.delete(socket));
  });
  // An upgraded socket no longer carries requests: the WebSocket door closes it with its own close code.
  server.on("upgrade", (_req: IncomingMessage, socket: Socket) => active.delete(socket));

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    active.set(socket, (active.get(socket) ?? 0) + 1);
    inFlight++;
    if (draining && !res.headersSent) res.setHeader("connection", "close");
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      inFlight--;
      const left = (active.get(socket) ?? 1) - 1;
      if (active.has(socket)) active.set(socket, left);
      // The answer is out: while draining, an idle connection is closed (the client reconnects elsewhere).
      if (draining && left === 0) socket.end();
      checkDone();
    };
    // A response emits `close` once, after its last byte or when its socket goes first: one plain listener (no `once`
    // wrappers, no `finish` as well) is what this costs per request.
    res.on("close", finish);
  };
  server.on("request", onRequest);
  server.on("checkExpectation", onRequest);

  return {
    get inFlight() {
      return inFlight;
    },
    get draining() {
      return draining;
    },
    drain(deadlineMs: number, requestsDone?: () => void): Promise<DrainResult> {
      const started = Date.now();
      draining = true;
      whenDone = requestsDone;
      return new Promise<DrainResult>((resolve) => {
        let settled = false;
        const settle = (drained: boolean) => {
          if (settled) return;
          settled = true;
          clearTimeout(deadline);
          resolve({ drained, abandoned: drained ? 0 : inFlight, ms: Date.now() - started });
        };
        const deadline = setTimeout(() => {
          const abandoned = inFlight;
          for (const socket of active.keys()) socket.destroy();
          server.closeAllConnections();
          settled = true;
          resolve({ drained: abandoned === 0, abandoned, ms: Date.now() - started });
        }, deadlineMs);
        server.close(() => settle(true));
        // Busy connections get `Connection: close` on their pending answers; idle ones go now.
        for (const [socket, count] of active) {
          if (count === 0) socket.end();
          else {
            const res = (socket as unknown as { _httpMessage?: ServerResponse })._httpMessage;
            if (res && !res.headersSent) res.setHeader("connection", "close");
          }
        }
        server.closeIdleConnections();
        checkDone();
      });
    },
  };
}
