import { Pool } from "undici";
import type { UpstreamConfig } from "../../platform/config";

/** Why one attempt did not give a 200 or a 404: the words of `UpstreamState.lastFailure` and of metric labels. */
export type FailureKind =
  "timeout" | "5xx" | "429" | "connection" | "malformed" | "unauthorised" | "rejected" | "breaker_open";

/**
 * One failed attempt. Its message is the kind alone: no host, no key, no upstream body ever reaches a log line or
 * a client through it.
 */
export class AttemptFailure extends Error {
  override name = "AttemptFailure";
  constructor(
    readonly kind: FailureKind,
    /** The upstream's `Retry-After`, in milliseconds, when it sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(`upstream ${kind}`);
  }

  /** Worth another attempt: the same request may succeed (not a refused key, a malformed body or a 4xx). */
  get retryable(): boolean {
    return this.kind === "timeout" || this.kind === "5xx" || this.kind === "429" || this.kind === "connection";
  }
}

export interface AttemptResult {
  status: 200 | 404;
  body: unknown;
  /** Length of the JSON text: the cache's size estimate. */
  bytes: number;
}

/** `Retry-After` as seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === "") return undefined;
  if (/^\s*\d+\s*$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * Keep-alive connections to the upstream and one attempt of one call: `POST` JSON with the key, under a signal.
 * Reads the whole body (undici needs it consumed to reuse the socket) and parses it.
 */
export class UpstreamTransport {
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly headers: Record<string, string>;

  constructor(config: UpstreamConfig) {
    if (!config.url || !config.apiKey) throw new Error("upstream client: MDG_UPSTREAM_URL and its key are required");
    const url = new URL(config.url);
    this.basePath = url.pathname.replace(/\/+$/, "");
    this.pool = new Pool(url.origin, {
      connections: config.concurrency,
      // Idle sockets kept for reuse; the upstream's own keep-alive hint wins when shorter.
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 60_000,
      connect: { timeout: config.timeoutMs },
    });
    this.headers = {
      "content-type": "application/json",
      accept: "application/json",
      "x-api-key": config.apiKey,
    };
  }

  async attempt(path: string, body: unknown, signal: AbortSignal): Promise<AttemptResult> {
    let res;
    try {
      res = await this.pool.request({
        path: this.basePath + path,
        method: "POST",
        headers: this.headers,
        body: JSON.stringify(body),
        signal,
      });
    } catch {
      throw new AttemptFailure(signal.aborted ? "timeout" : "connection");
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch {
      // A body cut short (the connection closed mid-answer) is a connection failure, and worth a retry.
      throw new AttemptFailure(signal.aborted ? "timeout" : "connection");
    }
    const status = res.statusCode;
    if (status === 200 || status === 404) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new AttemptFailure("malformed");
      }
      return { status, body: parsed, bytes: text.length };
    }
    if (status === 401 || status === 403) throw new AttemptFailure("unauthorised");
    if (status === 429) throw new AttemptFailure("429", parseRetryAfter(res.headers["retry-after"], Date.now()));
    if (status >= 500) throw new AttemptFailure("5xx", parseRetryAfter(res.headers["retry-after"], Date.now()));
    throw new AttemptFailure("rejected");
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
