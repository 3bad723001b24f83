import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * What the proxy does to the requests it receives, until changed:
 * - `latency`: waits `ms`, then forwards;
 * - `status`: answers `status` itself (500, 429, 401, …) with an error body and, if given, `Retry-After`;
 * - `reset`: destroys the client's connection without a byte;
 * - `hang`: never answers (the connection stays open until the caller gives up or the proxy closes);
 * - `truncate`: forwards, then sends the headers and half the body and closes the connection;
 * - `malformed`: answers 200 with a body that is not JSON.
 * `times` limits the fault to that many requests, after which requests pass again.
 */
export type Fault = (
  | { kind: "latency"; ms: number }
  | { kind: "status"; status: number; retryAfter?: string }
  | { kind: "reset" }
  | { kind: "hang" }
  | { kind: "truncate" }
  | { kind: "malformed" }
) & { times?: number };

/** One request that reached the proxy: its path, when, and whether it went on to the upstream. */
export interface ProxyCall {
  path: string;
  at: number;
  forwarded: boolean;
  /** The request's body, as sent (JSON text). */
  body: string;
}

/**
 * A real HTTP proxy on loopback in front of `target` (an `http://host:port` origin), injecting faults and counting
 * calls. Requests pass unchanged (headers included) unless a fault says otherwise.
 *
 *     const proxy = await startFaultProxy(upstream.url);
 *     proxy.fault({ kind: "status", status: 429, retryAfter: "1", times: 1 });
 *     proxy.count("/v0/quote"); // requests received for that path (faulted or forwarded)
 *     proxy.forwarded();         // requests that reached the upstream
 */
export interface FaultProxy {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  fault(f: Fault | null): void;
  /** Requests received, for one path or all. */
  count(path?: string): number;
  /** Requests passed to the upstream, for one path or all. */
  forwarded(path?: string): number;
  calls(): readonly ProxyCall[];
  /** Most requests open at once (received, not yet answered) since the last `resetCounts`. */
  peakInFlight(): number;
  /** Forgets the calls counted so far, and the peak (faults stay). */
  resetCounts(): void;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const to = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let fault: Fault | null = null;
  let left = Infinity;
  let calls: ProxyCall[] = [];
  let open = 0;
  let peak = 0;

  const current = (): Fault | null => {
    if (!fault) return null;
    if (left <= 0) return null;
    left -= 1;
    return fault;
  };

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, call: ProxyCall, cut: boolean) => {
    call.forwarded = true;
    const out = request(
      {
        host: to.hostname,
        port: to.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: to.host },
        agent,
      },
      (up) => {
        const chunks: Buffer[] = [];
        up.on("data", (c: Buffer) => chunks.push(c));
        up.on("end", () => {
          const whole = Buffer.concat(chunks);
          const headers = { ...up.headers, "content-length": String(whole.length) };
          delete headers["transfer-encoding"];
          res.writeHead(up.statusCode ?? 502, headers);
          if (cut) {
            res.write(whole.subarray(0, Math.floor(whole.length / 2)));
            // Flushed, then the connection dies mid-body.
            setImmediate(() => req.socket.destroy());
          } else {
            res.end(whole);
          }
        });
      },
    );
    out.on("error", () => req.socket.destroy());
    out.end(body);
  };

  const server: Server = createServer((req, res) => {
    open += 1;
    peak = Math.max(peak, open);
    res.once("close", () => (open -= 1));
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const call: ProxyCall = { path: req.url ?? "", at: Date.now(), forwarded: false, body: body.toString("utf8") };
      calls.push(call);
      const f = current();
      switch (f?.kind) {
        case undefined:
          return forward(req, res, body, call, false);
        case "latency": {
          const t = setTimeout(() => {
            timers.delete(t);
            if (!req.socket.destroyed) forward(req, res, body, call, false);
          }, f.ms);
          timers.add(t);
          return;
        }
        case "status": {
          const headers: Record<string, string> = { "content-type": "application/json" };
          if (f.retryAfter !== undefined) headers["retry-after"] = f.retryAfter;
          res.writeHead(f.status, headers);
          return res.end(JSON.stringify({ statusCode: f.status, error: "injected", message: "fault proxy" }));
        }
        case "reset":
          return req.socket.resetAndDestroy();
        case "hang":
          return;
        case "truncate":
          return forward(req, res, body, call, true);
        case "malformed":
          res.writeHead(200, { "content-type": "application/json" });
          return res.end("{not json");
      }
    });
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const matching = (path?: string) => calls.filter((c) => path === undefined || c.path === path);

  return {
    url: `http://127.0.0.1:${port}`,
    fault(f) {
      fault = f;
      left = f?.times ?? Infinity;
    },
    count: (path) => matching(path).length,
    forwarded: (path) => matching(path).filter((c) => c.forwarded).length,
    calls: () => calls,
    peakInFlight: () => peak,
    resetCounts() {
      calls = [];
      peak = open;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
