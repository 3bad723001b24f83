import { request } from "undici";

/** How one provider is called: its base URL, its published rate limit, and how patient to be with it. */
export interface ProviderHttpOptions {
  /** The provider's name, the first word of every error. */
  provider: string;
  /** `http(s)://host[:port][/base path]`, from the configuration (a mirror or a local copy in tests). */
  baseUrl: string;
  /**
   * Other hosts of the same provider by name (the SEC's `data.sec.gov` beside `www.sec.gov`), sharing the client's
   * rate limit, which the provider publishes for all of them together.
   */
  hosts?: Readonly<Record<string, string>>;
  /** Longest one attempt may take, body included. */
  timeoutMs: number;
  /** Attempts after the first, for a 429, a 5xx, a timeout or a network error. */
  retries: number;
  /** Full-jitter exponential backoff between attempts: a wait drawn from [0, min(max, base × 2^n)]. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** The longest `Retry-After` waited out; a provider asking for more fails the call with what it asked. */
  maxRetryAfterMs?: number;
  /** Requests a second at most (the provider's published limit), across every call of this client. */
  perSecond: number;
  /** Sent with every request (a `User-Agent` a provider requires). */
  headers?: Record<string, string>;
  /** Values that must never appear in an error (API keys), whatever field they travel in. */
  secrets?: readonly string[];
  /** The provider's API key, for its fetchers to send; give it in `secrets` too. */
  key?: string;
  /** A body larger than this fails the call rather than filling the memory. */
  maxBytes?: number;
}

/** A provider's answer: the status (always 2xx here) and the whole body. */
export interface ProviderResponse {
  status: number;
  body: Buffer;
  contentType: string | undefined;
}

/** A call that failed for good, with a message fit for a log line, `/v1/status` or a terminal: no key in it. */
export class ProviderHttpError extends Error {
  override name = "ProviderHttpError";
  constructor(
    message: string,
    /** The provider's last status, when it answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}

const SECRET_PARAM = /(key|token|secret|password|passwd|signature|sig)$/i;

/**
 * The text with every secret replaced, and the value of every query parameter whose name says it is one
 * (`apikey=…`, `token=…`, `api_token=…`) hidden too, so a key a provider takes in its query string never reaches a
 * message.
 */
export function scrub(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join("***");
  // A value ends before a punctuation mark that ends the URL in a sentence ("…&token=abc: answered 500").
  return out.replace(/([?&])([^=&\s#]+)=([^&\s#]*?)(?=[:;,.)]?(?:[&\s#]|$))/g, (whole, sep: string, name: string) =>
    SECRET_PARAM.test(name) ? `${sep}${name}=***` : whole,
  );
}

/** `Retry-After` as seconds or an HTTP date, in ms from `nowMs`; undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, nowMs: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === "") return undefined;
  if (/^\s*\d+\s*$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]{3}/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What the client waits with and draws jitter from: the real clock and timers unless a test gives its own. */
export interface ProviderHttpDeps {
  random?: () => number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Why one attempt failed, and whether another may succeed. */
interface Failure {
  reason: string;
  retryable: boolean;
  status?: number;
  waitMs?: number;
}

/**
 * The one HTTP client of the providers: GET with a timeout per attempt; a 429 waits out its `Retry-After` (or the
 * backoff when it gives none); a 5xx, a timeout or a network error is retried after a full-jitter backoff; calls
 * are spaced to the provider's published rate. Any other status fails at once. Errors name the provider, the path
 * and what happened, never a key.
 */
export class ProviderHttp {
  private readonly base: URL;
  private readonly hostBases: ReadonlyMap<string, URL>;
  /** When each of the latest calls (at most the rate's burst) was allowed to go. */
  private readonly sent: number[] = [];
  /** Requests sent, retries included. */
  requests = 0;

  constructor(
    readonly options: ProviderHttpOptions,
    private readonly deps: ProviderHttpDeps = {},
  ) {
    const baseOf = (url: string) => new URL(url.replace(/\/+$/, "") + "/");
    this.base = baseOf(options.baseUrl);
    this.hostBases = new Map(Object.entries(options.hosts ?? {}).map(([name, url]) => [name, baseOf(url)]));
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  private wait(ms: number): Promise<void> {
    return (this.deps.sleep ?? sleep)(ms);
  }

  /** The URL of `path` under the base URL (a base path of a mirror kept), or under a named host's, with `query`. */
  url(path: string, query: Record<string, string> = {}, host?: string): URL {
    const base = host === undefined ? this.base : this.hostBases.get(host);
    if (!base) throw new ProviderHttpError(`${this.options.provider}: no base URL for the host ${host}`);
    const url = new URL(path.replace(/^\/+/, ""), base);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    return url;
  }

  async get(path: string, query: Record<string, string> = {}, host?: string): Promise<ProviderResponse> {
    const o = this.options;
    const url = this.url(path, query, host);
    const shown = scrub(`${url.pathname}${url.search}`, o.secrets);
    const attempts = o.retries + 1;
    let last: Failure | undefined;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await this.wait(this.backoff(attempt, last));
      await this.slot();
      const outcome = await this.attempt(url);
      if ("body" in outcome) return outcome;
      last = outcome;
      if (!outcome.retryable) break;
      if (outcome.waitMs !== undefined && outcome.waitMs > (o.maxRetryAfterMs ?? 120_000)) {
        const seconds = Math.ceil(outcome.waitMs / 1000);
        throw new ProviderHttpError(
          `${o.provider}: GET ${shown}: ${outcome.reason}, asking to wait ${seconds} s (longer than this client waits)`,
          outcome.status,
        );
      }
    }
    const tries = last?.retryable ? ` after ${attempts} attempt${attempts === 1 ? "" : "s"}` : "";
    throw new ProviderHttpError(`${o.provider}: GET ${shown}: ${last?.reason ?? "failed"}${tries}`, last?.status);
  }

  /**
   * Waits for this client's next turn under the provider's rate limit, read as a window: "10 a second" lets 10
   * calls go at once and the 11th a second after the first. A company's two SEC calls then go back to back instead
   * of 100 ms apart, and a long run is no faster than the published rate. Under one a second the burst is one call.
   */
  private async slot(): Promise<void> {
    const burst = Math.max(1, Math.floor(this.options.perSecond));
    const window = (burst * 1000) / this.options.perSecond;
    const now = this.now();
    const at = this.sent.length < burst ? now : Math.max(now, this.sent[this.sent.length - burst]! + window);
    this.sent.push(at);
    if (this.sent.length > burst) this.sent.shift();
    if (at > now) await this.wait(at - now);
  }

  private backoff(attempt: number, last: Failure | undefined): number {
    if (last?.waitMs !== undefined) return last.waitMs;
    const base = this.options.retryBaseMs ?? 500;
    const max = this.options.retryMaxMs ?? 10_000;
    return Math.floor((this.deps.random ?? Math.random)() * Math.min(max, base * 2 ** (attempt - 1)));
  }

  private async attempt(url: URL): Promise<ProviderResponse | Failure> {
    const o = this.options;
    const signal = AbortSignal.timeout(o.timeoutMs);
    this.requests++;
    let res;
    try {
      res = await request(url, { method: "GET", headers: { "accept-encoding": "identity", ...o.headers }, signal });
    } catch (e) {
      return { reason: signal.aborted ? `no answer within ${o.timeoutMs} ms` : networkReason(e, o), retryable: true };
    }
    const status = res.statusCode;
    const header = (name: string) => {
      const v = res.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    if (status < 200 || status >= 300) {
      // The socket is reused only once the body is consumed; an error page is not worth reading.
      await res.body.dump().catch(() => undefined);
      const wait = retryAfterMs(res.headers["retry-after"], this.now());
      if (status === 429) return { reason: "429 Too Many Requests", retryable: true, status, waitMs: wait };
      if (status >= 500) return { reason: `answered ${status}`, retryable: true, status, waitMs: wait };
      const hint = status === 401 || status === 403 ? " (a key or a User-Agent refused?)" : "";
      return { reason: `answered ${status}${hint}`, retryable: false, status };
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    const limit = o.maxBytes ?? 512 * 2 ** 20;
    try {
      for await (const chunk of res.body) {
        const b = chunk as Buffer;
        bytes += b.length;
        if (bytes > limit) {
          res.body.destroy();
          return { reason: `a body larger than ${limit} bytes`, retryable: false, status };
        }
        chunks.push(b);
      }
    } catch (e) {
      return { reason: signal.aborted ? `no answer within ${o.timeoutMs} ms` : networkReason(e, o), retryable: true };
    }
    return { status, body: Buffer.concat(chunks, bytes), contentType: header("content-type") };
  }
}

function networkReason(e: unknown, o: ProviderHttpOptions): string {
  const err = e as { code?: unknown; message?: unknown; cause?: { code?: unknown } };
  const code = typeof err.code === "string" ? err.code : typeof err.cause?.code === "string" ? err.cause.code : "";
  const message = typeof err.message === "string" ? err.message : String(e);
  return scrub(`network error: ${code ? `${code} ` : ""}${message}`.trim(), o.secrets);
}
