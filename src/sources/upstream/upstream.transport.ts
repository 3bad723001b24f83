import { Pool } from "undici";
import type { UpstreamConfig } from "../../platform/config";

/** Why one attempt did not give a 200 or a 404: the words of `UpstreamState.lastFailure` and of metric labels. */
export type FailureKind =
  "timeout" | "5xx" | "429" | "quota" | "connection" | "malformed" | "unauthorised" | "rejected" | "breaker_open";

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
    return ["timeout", "5xx", "429", "quota", "connection"].includes(this.kind);
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
  // An HTTP date names its day and month; Date.parse alone would read "-5" as a year.
  if (!/[a-z]{3}/i.test(text)) return undefined;
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
    const retryAfter = parseRetryAfter(res.headers["retry-after"], Date.now());
    // This contract's spent quota is a 403 with Retry-After (docs/contract.md section 2): a wait, not a wrong key.
    if (status === 403 && retryAfter !== undefined) throw new AttemptFailure("quota", retryAfter);
    if (status === 401 || status === 403) throw new AttemptFailure("unauthorised");
    if (status === 429) throw new AttemptFailure("429", retryAfter);
    if (status >= 500) throw new AttemptFailure("5xx", retryAfter);
    throw new AttemptFailure("rejected");
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
