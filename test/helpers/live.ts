import { createServer } from "node:http";
import WebSocket from "ws";
import type { TestApp } from "./app";
import { listen } from "./http";

/** The test app served on a real port, with its WebSocket doors on the same server, as main.ts serves it. */
export async function serveLive(t: Pick<TestApp, "app" | "upgrade">) {
  const server = createServer(t.app);
  server.on("upgrade", t.upgrade);
  const served = await listen(server);
  return {
    server,
    port: served.port,
    url: (path: string) => `ws://127.0.0.1:${served.port}${path}`,
    close: served.close,
  };
}

/** How an upgrade that did not complete was answered. */
export interface Refusal {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** Tries to connect; resolves with the HTTP answer when the upgrade is refused, rejects if it completes. */
export function refusedUpgrade(url: string, headers: Record<string, string> = {}): Promise<Refusal> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on("open", () => {
      ws.close();
      reject(new Error("the upgrade completed"));
    });
    ws.on("unexpected-response", (_req, res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) });
        ws.terminate();
      });
    });
    ws.on("error", (e) => {
      if (!/Unexpected server response/.test(e.message)) reject(e);
    });
  });
}

export type LiveMessage = Record<string, unknown>;

/** A real `ws` client that keeps every message it receives, in order, and waits for the ones a test expects. */
export class LiveClient {
  readonly received: LiveMessage[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: (() => void)[] = [];
  private nextId = 1;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => {
      this.received.push(JSON.parse(data.toString()) as LiveMessage);
      for (const w of this.waiters.splice(0)) w();
    });
    this.closed = new Promise((resolve) =>
      ws.on("close", (code, reason) => {
        resolve({ code, reason: reason.toString() });
        for (const w of this.waiters.splice(0)) w();
      }),
    );
  }

  static open(url: string, key: string | null, options: WebSocket.ClientOptions = {}): Promise<LiveClient> {
    const headers: Record<string, string> = key === null ? {} : { "x-api-key": key };
    const ws = new WebSocket(url, { ...options, headers: { ...headers, ...options.headers } });
    const client = new LiveClient(ws);
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve(client));
      ws.once("error", reject);
    });
  }

  send(message: unknown): void {
    this.ws.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /** Sends the message with a fresh `id` and resolves with the answer that echoes it. */
  async request(message: LiveMessage, timeoutMs = 10_000): Promise<LiveMessage> {
    const id = `r${this.nextId++}`;
    this.send({ ...message, id });
    return this.waitFor((m) => m.id === id, timeoutMs);
  }

  /** The first message received (so far or later) that `match` accepts; rejects after `timeoutMs`. */
  async waitFor(match: (m: LiveMessage) => boolean, timeoutMs = 10_000): Promise<LiveMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(match);
      if (found) return found;
      if (this.ws.readyState === WebSocket.CLOSED) throw new Error("the socket closed before the message came");
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `no such message within ${timeoutMs} ms; received ${JSON.stringify(this.received).slice(0, 500)}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.ws.close();
  }
}
