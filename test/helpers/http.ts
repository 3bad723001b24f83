import { Agent, request, type IncomingHttpHeaders, type OutgoingHttpHeaders, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** Listens on 127.0.0.1 on a free port; answers the base URL and a closer. */
export async function listen(server: Server): Promise<{ port: number; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/**
 * One request with full control of method, headers and body bytes (supertest
 * would normalise them). Rejects when no answer arrives within `timeoutMs`:
 * a hang is a failure, never a pass.
 */
export function send(
  port: number,
  opts: {
    method: string;
    path: string;
    headers?: OutgoingHttpHeaders;
    body?: Buffer;
    agent?: Agent;
    timeoutMs?: number;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: "127.0.0.1",
      port,
      method: opts.method,
      path: opts.path,
      headers: opts.headers,
      agent: opts.agent ?? false,
    });
    const timer = setTimeout(() => {
      req.destroy(
        new Error(`no answer within ${opts.timeoutMs ?? 15_000} ms: ${opts.method} ${opts.path.slice(0, 80)}`),
      );
    }, opts.timeoutMs ?? 15_000);
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        clearTimeout(timer);
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: parseJson(body) });
      });
      res.on("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
    req.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(opts.body);
  });
}

/** Writes raw bytes on a fresh connection and reads until the server closes it (or `timeoutMs`). */
export function sendRaw(
  port: number,
  bytes: Buffer | string,
  timeoutMs = 5_000,
): Promise<{ status: number; head: string; json: unknown; raw: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`raw request: no complete answer within ${timeoutMs} ms: ${String(bytes).slice(0, 60)}`));
    }, timeoutMs);
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString("latin1");
      const [head = "", ...rest] = raw.split("\r\n\r\n");
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, head, json: parseJson(Buffer.from(rest.join("\r\n\r\n"), "latin1")), raw });
    });
    socket.write(bytes);
  });
}
