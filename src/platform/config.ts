import { availableParallelism } from "node:os";
import { Cron } from "croner";
import { z } from "zod";
import { StartupError } from "./errors";

/** ISO date `YYYY-MM-DD` that is a real calendar day. */
const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "expected YYYY-MM-DD")
  .refine(
    (s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s),
    "not a calendar day",
  );

interface NumberRule {
  fallback: number;
  min: number;
  max: number;
  /** Fractions allowed (rates, MiB); integers otherwise. */
  fraction?: boolean;
  /** Says what the variable counts, in the refusal ("milliseconds"). */
  unit?: string;
}

/**
 * A number from the environment. Unset means the default; anything else must be a number in `[min, max]`. An empty
 * value is refused rather than read as 0 (`PORT=` used to listen on a random port, `MDG_INSTRUMENT_CACHE_MB=`
 * turned the cache off), and the maximum keeps a slip of the finger (`MDG_REQUEST_TIMEOUT_MS=99999999999`) from
 * reaching a timer that Node silently clamps to 1 ms.
 */
function envNumber({ fallback, min, max, fraction = false, unit }: NumberRule) {
  const wanted = `${fraction ? "a number" : "an integer"} from ${min} to ${max}${unit ? ` ${unit}` : ""}`;
  const range = `${min} to ${max}${unit ? ` ${unit}` : ""}${fraction ? ", fractions allowed" : ""}`;
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return fallback;
      const refuse = (what: string) => {
        const message = `${what}; expected ${wanted} (unset it for the default, ${fallback})`;
        ctx.addIssue({ code: "custom", message });
        return z.NEVER;
      };
      const text = raw.trim();
      if (text === "") return refuse("empty");
      const shown = JSON.stringify(text.length > 24 ? `${text.slice(0, 24)}…` : text);
      const n = Number(text);
      if (!Number.isFinite(n)) return refuse(`${shown} is not a number`);
      if (!fraction && !Number.isInteger(n)) return refuse(`${shown} is not a whole number`);
      if (n < min || n > max) return refuse(`${shown} is out of range`);
      return n;
    })
    .meta({ default: String(fallback), range } satisfies EnvMeta);
}

/** What the configuration reference (docs/configuration.md, scripts/config-reference.ts) shows of a number. */
export interface EnvMeta {
  default: string;
  range: string;
}

const MINUTE_MS = 60_000;

/** MDG_MAX_CONNECTIONS and MDG_HEADERS_TIMEOUT_MS unset; also what a server built without a config gets. */
export const DEFAULT_MAX_CONNECTIONS = 900;
export const DEFAULT_HEADERS_TIMEOUT_MS = 30_000;

/** `redis://` or `rediss://` with a host; the value is never echoed, since it may hold a password. */
function redisUrlProblem(value: string): string | undefined {
  const expected = "expected redis://[[user]:password@]host[:port][/db] or rediss://…";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `not a valid redis:// URL (it does not parse; ${expected})`;
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    return `not a valid redis:// URL (the scheme must be redis: or rediss:; ${expected})`;
  }
  if (url.hostname === "") return `not a valid redis:// URL (no host; ${expected})`;
  if (url.pathname !== "" && url.pathname !== "/" && !/^\/\d+$/.test(url.pathname)) {
    return `not a valid redis:// URL (the path must be a database number; ${expected})`;
  }
  return undefined;
}

/** `postgres://` or `postgresql://` with a host or a socket path; the value is never echoed (it may hold a password). */
function postgresUrlProblem(value: string): string | undefined {
  const expected = "expected postgres://[user[:password]@]host[:port]/database or postgresql://…";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `not a valid postgres:// URL (it does not parse; ${expected})`;
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    return `not a valid postgres:// URL (the scheme must be postgres: or postgresql:; ${expected})`;
  }
  if (url.hostname === "" && !url.searchParams.has("host")) return `not a valid postgres:// URL (no host; ${expected})`;
  return undefined;
}

/** `true`/`false` (also `1`/`0`, `on`/`off`, `yes`/`no`); unset or empty means "not given". */
const optionalBool = z
  .enum(["true", "false", "1", "0", "on", "off", "yes", "no", ""], { error: "expected true or false" })
  .optional()
  .transform((v) => (v === undefined || v === "" ? undefined : ["true", "1", "on", "yes"].includes(v)));

/**
 * `MDG_CORS_ORIGINS`: unset or empty, no cross-origin access; `*`, any origin; otherwise a comma list of origins
 * (`https://app.example.com,http://localhost:5173`), each exactly as a browser sends it in `Origin`: a scheme, a host
 * and an optional port, nothing after. A path or a trailing slash would never match, so it is refused at start.
 */
const corsOrigins = z
  .string()
  .optional()
  .transform((raw, ctx): "*" | readonly string[] => {
    const text = raw?.trim() ?? "";
    if (text === "") return [];
    if (text === "*") return "*";
    const origins: string[] = [];
    for (const item of text.split(",").map((o) => o.trim())) {
      const problem = originProblem(item);
      if (problem) {
        ctx.addIssue({ code: "custom", message: problem });
        return z.NEVER;
      }
      if (!origins.includes(item)) origins.push(item);
    }
    return origins;
  });

function originProblem(item: string): string | undefined {
  const expected = "expected a comma list of origins such as https://app.example.com,http://localhost:5173, or *";
  if (item === "") return `an empty item in the list; ${expected}`;
  const shown = JSON.stringify(item.length > 60 ? `${item.slice(0, 60)}…` : item);
  if (item === "*") return `* cannot be mixed with origins; ${expected}`;
  let url: URL;
  try {
    url = new URL(item);
  } catch {
    return `${shown} is not an origin; ${expected}`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `${shown} is not an http(s) origin; ${expected}`;
  // A browser's Origin is lower-case, without a default port, path, query or trailing slash: only that form matches.
  if (url.origin !== item) return `${shown} is not an origin as a browser sends it (write ${url.origin}); ${expected}`;
  return undefined;
}

/** `http://` or `https://` with a host; the value is never echoed, since it may hold credentials. */
function upstreamUrlProblem(value: string): string | undefined {
  const expected = "expected http(s)://host[:port][/base path] of a Bavest-compatible API";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `not a valid URL (it does not parse; ${expected})`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `not an http(s) URL; ${expected}`;
  if (url.hostname === "") return `not a valid URL (no host; ${expected})`;
  if (url.search !== "" || url.hash !== "") return `not a valid URL (no query or fragment allowed; ${expected})`;
  return undefined;
}

/**
 * A provider's base URL: unset or empty means the provider's real address; otherwise `http(s)://host[:port][/base
 * path]` (a mirror, or a local copy in tests). A bad value is refused without being repeated.
 */
function providerUrl(fallback: string) {
  return z
    .string()
    .optional()
    .transform((v, ctx) => {
      const text = v === undefined || v.trim() === "" ? fallback : v.trim();
      const problem = upstreamUrlProblem(text);
      if (problem === undefined) return text.replace(/\/+$/, "");
      ctx.addIssue({ code: "custom", message: problem.replace("of a Bavest-compatible API", "of the provider") });
      return z.NEVER;
    })
    .meta({ default: fallback, range: "an http(s) URL" } satisfies EnvMeta);
}

/**
 * The providers and datasets `MDG_INGEST` may name. The provider registry (src/sources/providers/provider.registry.ts)
 * is typed by this table, so a provider cannot be registered without its entry here; a test checks the datasets.
 */
export const INGEST_PROVIDERS = {
  ecb: ["hist", "daily"],
  sec: ["tickers", "companies"],
  tiingo: ["eod"],
  kraken: ["daily"],
} as const;

export type IngestProviderName = keyof typeof INGEST_PROVIDERS;

/** One job of `MDG_INGEST`: a provider (and dataset) fetched on a cron schedule, in a time zone. */
export interface IngestJobConfig {
  /** `provider` or `provider:dataset`, as written: the job's name in `/v1/status`, logs, metrics and its lock. */
  name: string;
  provider: IngestProviderName;
  /** Unset: the provider picks (the history the first time, then only what is new). */
  dataset: string | undefined;
  /** Five fields: minute, hour, day of month, month, day of week (croner's syntax, `@daily` and the like too). */
  cron: string;
  /** IANA zone the expression is read in; UTC when the entry names none. */
  timezone: string;
}

/** A time zone the runtime knows by its IANA name. */
function knownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** One entry of MDG_INGEST, or why it is refused (the entry is named, the whole value never repeated). */
function ingestEntry(text: string): IngestJobConfig | string {
  const shown = JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
  const expected = "expected provider[:dataset]=<cron expression>[@<IANA zone>], e.g. ecb=30 16 * * 1-5@Europe/Berlin";
  const eq = text.indexOf("=");
  if (eq < 0) return `${shown}: no "="; ${expected}`;
  const name = text.slice(0, eq).trim();
  const [provider = "", dataset, ...extra] = name.split(":");
  const providers = Object.keys(INGEST_PROVIDERS).join(", ");
  if (!Object.hasOwn(INGEST_PROVIDERS, provider))
    return `${shown}: unknown provider "${provider}"; expected ${providers}`;
  const datasets: readonly string[] = INGEST_PROVIDERS[provider as IngestProviderName];
  if (extra.length > 0 || (dataset !== undefined && !datasets.includes(dataset))) {
    const asked = name.slice(provider.length + 1);
    return `${shown}: unknown dataset "${asked}" of ${provider}; expected ${datasets.join(", ")}`;
  }
  const schedule = text.slice(eq + 1).trim();
  // The zone follows the last "@" that is not the first character (`@daily` is an expression; `@daily@UTC` too).
  const at = schedule.lastIndexOf("@");
  const cron = (at > 0 ? schedule.slice(0, at) : schedule).trim();
  const timezone = at > 0 ? schedule.slice(at + 1).trim() : "UTC";
  if (cron === "") return `${shown}: no cron expression; ${expected}`;
  if (!knownZone(timezone))
    return `${shown}: unknown time zone "${timezone}"; expected an IANA name such as Europe/Berlin`;
  try {
    // Parsed only: a paused job with no function never fires.
    new Cron(cron, { mode: "5-part", timezone, paused: true }).stop();
  } catch (e) {
    const why = e instanceof Error ? e.message.replace(/^CronPattern: /, "") : String(e);
    const fields = "minute hour day-of-month month day-of-week";
    return `${shown}: bad cron expression "${cron}" (${why}); expected five fields: ${fields}`;
  }
  return { name, provider: provider as IngestProviderName, dataset, cron, timezone };
}

/**
 * `MDG_INGEST`: unset or empty, no job; otherwise `;`-separated entries, each checked here so that a typo is a
 * start-up error naming its entry rather than a job that never runs.
 */
const ingestJobs = z
  .string()
  .optional()
  .transform((raw, ctx): readonly IngestJobConfig[] => {
    const jobs: IngestJobConfig[] = [];
    for (const item of (raw ?? "").split(";").map((e) => e.trim())) {
      if (item === "") continue;
      const job = ingestEntry(item);
      if (typeof job === "string") {
        ctx.addIssue({ code: "custom", message: job });
        continue;
      }
      if (jobs.some((j) => j.name === job.name)) {
        ctx.addIssue({ code: "custom", message: `"${job.name}" is scheduled twice; give each job one entry` });
        continue;
      }
      jobs.push(job);
    }
    return jobs;
  });

export const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  // 0 (a free port chosen by the system) only when written out: an empty PORT is a mistake, not a request for one.
  PORT: envNumber({ fallback: 4000, min: 0, max: 65535 }),
  HOST: z.string().min(1).default("0.0.0.0"),
  MDG_DATA_SOURCE: z.enum(["sqlite", "postgres", "upstream"]).default("sqlite"),
  MDG_SQLITE_PATH: z.string().min(1).default("./data/market.db"),
  /** Gateway mode: where the gateway's own API keys live (DATABASE_URL's database shares them among replicas). */
  MDG_GATEWAY_KEYS: z.enum(["sqlite", "postgres"]).default("sqlite"),
  // Empty means unset, as for REDIS_URL; required (checked in loadConfig) only with MDG_DATA_SOURCE=postgres.
  DATABASE_URL: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()))
    .transform((v, ctx) => {
      const problem = v === undefined ? undefined : postgresUrlProblem(v);
      if (problem === undefined) return v;
      ctx.addIssue({ code: "custom", message: problem });
      return z.NEVER;
    }),
  /** Connections each process keeps to PostgreSQL. */
  MDG_PG_POOL_SIZE: envNumber({ fallback: 10, min: 1, max: 1_000 }),
  /** Longest one PostgreSQL statement may run; below MDG_REQUEST_TIMEOUT_MS so a slow query fails its request. */
  MDG_PG_STATEMENT_TIMEOUT_MS: envNumber({ fallback: 5_000, min: 1, max: 10 * MINUTE_MS, unit: "milliseconds" }),
  // Empty means unset (`KEY=` as .env.example writes it), not an invalid value.
  MDG_BOOTSTRAP_API_KEY: z.preprocess((v) => (v === "" ? undefined : v), z.string().min(1).optional()),
  MDG_SAMPLE_ANCHOR_DATE: z.preprocess((v) => (v === "" ? undefined : v), isoDay.optional()),
  MDG_SAMPLE_SEED: envNumber({ fallback: 42, min: 0, max: 2 ** 31 - 1 }),
  /** Fraction of the documented sample data set built on first start; small values give a tiny store for tests. */
  MDG_SAMPLE_SCALE: envNumber({ fallback: 1, min: 0.001, max: 1, fraction: true }),
  MDG_BODY_LIMIT_BYTES: envNumber({ fallback: 100 * 1024, min: 1, max: 100 * 2 ** 20, unit: "bytes" }),
  MDG_BULK_MAX_SYMBOLS: envNumber({ fallback: 100, min: 1, max: 10_000 }),
  MDG_PORTFOLIO_MAX_ITEMS: envNumber({ fallback: 100, min: 1, max: 10_000 }),
  MDG_SEARCH_LIMIT: envNumber({ fallback: 20, min: 1, max: 1_000 }),
  MDG_LIST_MAX_LIMIT: envNumber({ fallback: 1000, min: 1, max: 100_000 }),
  /** Heap (MiB, estimated) for instrument lookups kept across requests; 0 turns the cache off. */
  MDG_INSTRUMENT_CACHE_MB: envNumber({ fallback: 8, min: 0, max: 1024, fraction: true, unit: "MiB" }),
  /** Annual risk-free rate in percent, used by ETF metrics' Sharpe ratio. */
  MDG_RISK_FREE_RATE: envNumber({ fallback: 0, min: -100, max: 100, fraction: true, unit: "percent" }),
  /** Hardening (docs/operations.md "Limits and hardening"). */
  MDG_REQUEST_TIMEOUT_MS: envNumber({ fallback: 10_000, min: 1, max: 10 * MINUTE_MS, unit: "milliseconds" }),
  MDG_SHUTDOWN_TIMEOUT_MS: envNumber({ fallback: 20_000, min: 1, max: 60 * MINUTE_MS, unit: "milliseconds" }),
  /**
   * Open client connections at once; one more is closed as soon as it is accepted. The default fits the most common
   * file-descriptor limit, 1,024 (a desktop's soft `ulimit -n`), with 124 left for the store, the logs and the threads:
   * a fixed number rather than one computed from the limit, so every host behaves alike (start-up warns when the
   * process's limit is lower than the cap needs: src/http/server/server.connections.ts).
   */
  MDG_MAX_CONNECTIONS: envNumber({ fallback: DEFAULT_MAX_CONNECTIONS, min: 1, max: 1_000_000 }),
  /** A connection whose request head has not all arrived this long after it opened (or its request began) closes. */
  MDG_HEADERS_TIMEOUT_MS: envNumber({
    fallback: DEFAULT_HEADERS_TIMEOUT_MS,
    min: 100,
    max: 10 * MINUTE_MS,
    unit: "milliseconds",
  }),
  /** Behind a load balancer: no listening socket until the API is ready (docs/operations.md "Running N replicas"). */
  MDG_SHUTDOWN_DELAY_MS: envNumber({ fallback: 0, min: 0, max: 10 * MINUTE_MS, unit: "milliseconds" }),
  MDG_LISTEN_WHEN_READY: optionalBool,
  /** How often each replica reads PostgreSQL's change version (src/sources/postgres/postgres.changes.ts). */
  MDG_PG_CHANGE_POLL_MS: envNumber({ fallback: 250, min: 10, max: MINUTE_MS, unit: "milliseconds" }),
  MDG_GRAPHQL_MAX_DEPTH: envNumber({ fallback: 15, min: 1, max: 1_000 }),
  MDG_GRAPHQL_MAX_ALIASES: envNumber({ fallback: 100, min: 1, max: 100_000 }),
  MDG_GRAPHQL_MAX_ROOT_FIELDS: envNumber({ fallback: 100, min: 1, max: 100_000 }),
  MDG_GRAPHQL_MAX_TOKENS: envNumber({ fallback: 5_000, min: 1, max: 1_000_000 }),
  MDG_GRAPHQL_MAX_COST: envNumber({ fallback: 10_000, min: 1, max: 100_000_000 }),
  /**
   * Bounds on a parsed document checked before validation (src/http/graphql/graphql.document-bounds.ts). The
   * service's own operations use 1 same-named field, 23 fields in one selection, 1 fragment spread and 226 fields in
   * all (GraphiQL's introspection query).
   */
  MDG_GRAPHQL_MAX_SAME_NAME_FIELDS: envNumber({ fallback: 100, min: 1, max: 100_000 }),
  MDG_GRAPHQL_MAX_SELECTION_FIELDS: envNumber({ fallback: 300, min: 1, max: 100_000 }),
  MDG_GRAPHQL_MAX_FRAGMENT_SPREADS: envNumber({ fallback: 50, min: 1, max: 100_000 }),
  MDG_GRAPHQL_MAX_FIELDS: envNumber({ fallback: 5_000, min: 1, max: 1_000_000 }),
  /** Heavy operations (priced at 1,000 or more) one key may run at once in this process; the next gets 403. */
  MDG_MAX_HEAVY_PER_KEY: envNumber({ fallback: 2, min: 1, max: 1_000 }),
  /**
   * Heavy operations the process runs at once, whatever their keys (quota.heavy.ts); by default one per worker
   * thread (cores - 1, at least 1), the threads that do heavy work. More wait in line.
   */
  MDG_HEAVY_CAPACITY: envNumber({ fallback: Math.max(1, availableParallelism() - 1), min: 1, max: 1_000 }),
  /** Longest a heavy operation waits in line for MDG_HEAVY_CAPACITY; then it gets 500 BUSY with Retry-After. */
  MDG_HEAVY_QUEUE_MS: envNumber({ fallback: 1_000, min: 0, max: 10 * MINUTE_MS, unit: "milliseconds" }),
  /**
   * How much lower the worker threads' OS priority is than the main thread's (their nice value above it, per thread
   * on Linux; src/platform/workers/worker.pool.ts). 19, the lowest: when the cores are busy, heavy work waits and the
   * loop answering every request runs; on idle cores the workers run at full speed all the same.
   */
  MDG_WORKER_NICE: envNumber({ fallback: 19, min: 0, max: 19 }),
  MDG_GRAPHQL_INTROSPECTION: optionalBool,
  MDG_GRAPHQL_BATCHING: optionalBool,
  REDIS_URL: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()))
    .transform((v, ctx) => {
      const problem = v === undefined ? undefined : redisUrlProblem(v);
      if (problem === undefined) return v;
      ctx.addIssue({ code: "custom", message: problem });
      return z.NEVER;
    }),
  MDG_REDIS_KEY_PREFIX: z.string().min(1).default("mdg:"),
  MDG_REDIS_TIMEOUT_MS: envNumber({ fallback: 250, min: 1, max: MINUTE_MS, unit: "milliseconds" }),
  MDG_REDIS_COOLDOWN_MS: envNumber({ fallback: 5_000, min: 1, max: 10 * MINUTE_MS, unit: "milliseconds" }),
  MDG_CORS_ORIGINS: corsOrigins,
  /** The WebSocket door and live prices (docs/live.md). */
  MDG_WS_IDLE_TIMEOUT_MS: envNumber({
    fallback: 15 * MINUTE_MS,
    min: 1_000,
    max: 24 * 60 * MINUTE_MS,
    unit: "milliseconds",
  }),
  MDG_WS_MAX_CONNECTIONS_PER_KEY: envNumber({ fallback: 10, min: 1, max: 100_000 }),
  MDG_WS_MAX_SUBSCRIPTIONS: envNumber({ fallback: 100, min: 1, max: 1_000_000 }),
  MDG_WS_MAX_MESSAGE_BYTES: envNumber({ fallback: 16 * 1024, min: 64, max: 16 * 2 ** 20, unit: "bytes" }),
  MDG_WS_MAX_BUFFERED_BYTES: envNumber({ fallback: 2 ** 20, min: 1_024, max: 1_024 * 2 ** 20, unit: "bytes" }),
  MDG_LIVE_STORE_POLL_MS: envNumber({ fallback: 250, min: 10, max: MINUTE_MS, unit: "milliseconds" }),
  MDG_UPSTREAM_POLL_MS: envNumber({ fallback: 5_000, min: 10, max: 60 * MINUTE_MS, unit: "milliseconds" }),
  MDG_SIMULATE_TICKS: optionalBool,
  MDG_SIMULATE_TICK_MS: envNumber({ fallback: 1_000, min: 10, max: 10 * MINUTE_MS, unit: "milliseconds" }),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** GET /metrics (Prometheus); docs/operations.md "Metrics and logs". */
  MDG_METRICS_ENABLED: optionalBool,
  MDG_METRICS_TOKEN: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === "" ? undefined : v)),
  /** Gateway mode (MDG_DATA_SOURCE=upstream); docs/gateway.md "Gateway: resilience" states each default's origin. */
  MDG_UPSTREAM_URL: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()))
    .transform((v, ctx) => {
      const problem = v === undefined ? undefined : upstreamUrlProblem(v);
      if (problem === undefined) return v;
      ctx.addIssue({ code: "custom", message: problem });
      return z.NEVER;
    }),
  MDG_UPSTREAM_API_KEY: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim())),
  MDG_UPSTREAM_TIMEOUT_MS: envNumber({ fallback: 2_000, min: 1, max: 10 * MINUTE_MS, unit: "milliseconds" }),
  MDG_UPSTREAM_BULK_MAX: envNumber({ fallback: 100, min: 1, max: 10_000 }),
  MDG_UPSTREAM_CONCURRENCY: envNumber({ fallback: 16, min: 1, max: 1_024 }),
  MDG_UPSTREAM_RETRIES: envNumber({ fallback: 2, min: 0, max: 10 }),
  MDG_UPSTREAM_RETRY_BASE_MS: envNumber({ fallback: 25, min: 1, max: MINUTE_MS, unit: "milliseconds" }),
  MDG_UPSTREAM_RETRY_MAX_MS: envNumber({ fallback: 250, min: 1, max: MINUTE_MS, unit: "milliseconds" }),
  MDG_UPSTREAM_RETRY_BUDGET_PERCENT: envNumber({ fallback: 20, min: 0, max: 100, fraction: true, unit: "percent" }),
  MDG_UPSTREAM_RETRY_MIN_PER_SEC: envNumber({ fallback: 10, min: 0, max: 10_000, fraction: true }),
  MDG_UPSTREAM_BREAKER_FAILURE_PERCENT: envNumber({ fallback: 50, min: 1, max: 100, fraction: true, unit: "percent" }),
  MDG_UPSTREAM_BREAKER_MIN_CALLS: envNumber({ fallback: 10, min: 1, max: 1_000_000 }),
  MDG_UPSTREAM_BREAKER_WINDOW_MS: envNumber({ fallback: 10_000, min: 100, max: 10 * MINUTE_MS, unit: "milliseconds" }),
  MDG_UPSTREAM_BREAKER_OPEN_MS: envNumber({ fallback: 30_000, min: 1, max: 60 * MINUTE_MS, unit: "milliseconds" }),
  MDG_UPSTREAM_TTL_QUOTE_S: envNumber({ fallback: 5, min: 0, max: 7 * 86_400, unit: "seconds" }),
  MDG_UPSTREAM_TTL_BARS_S: envNumber({ fallback: 86_400, min: 0, max: 7 * 86_400, unit: "seconds" }),
  MDG_UPSTREAM_TTL_REFERENCE_S: envNumber({ fallback: 3_600, min: 0, max: 7 * 86_400, unit: "seconds" }),
  MDG_UPSTREAM_STALE_S: envNumber({ fallback: 86_400, min: 0, max: 7 * 86_400, unit: "seconds" }),
  MDG_UPSTREAM_CACHE_MB: envNumber({ fallback: 64, min: 0.01, max: 64 * 1024, fraction: true, unit: "MiB" }),
  /** Public data providers of `npm run ingest` (docs/providers.md): one base URL per host a provider calls. */
  MDG_PROVIDER_ECB_URL: providerUrl("https://www.ecb.europa.eu"),
  MDG_PROVIDER_SEC_URL: providerUrl("https://www.sec.gov"),
  MDG_PROVIDER_SEC_DATA_URL: providerUrl("https://data.sec.gov"),
  MDG_SEC_USER_AGENT: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim())),
  MDG_PROVIDER_TIINGO_URL: providerUrl("https://api.tiingo.com"),
  MDG_PROVIDER_KRAKEN_URL: providerUrl("https://api.kraken.com"),
  MDG_PROVIDER_TIINGO_KEY: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim())),
  MDG_PROVIDER_TIMEOUT_MS: envNumber({ fallback: 60_000, min: 1, max: 10 * MINUTE_MS, unit: "milliseconds" }),
  MDG_PROVIDER_RETRIES: envNumber({ fallback: 3, min: 0, max: 10 }),
  /** Ingest jobs the service runs on a schedule (docs/providers.md "Scheduling"). */
  MDG_INGEST: ingestJobs,
  MDG_INGEST_RETRIES: envNumber({ fallback: 3, min: 0, max: 10 }),
  MDG_INGEST_RETRY_BASE_MS: envNumber({ fallback: MINUTE_MS, min: 1, max: 60 * MINUTE_MS, unit: "milliseconds" }),
});

/** What only gateway mode needs: checked when MDG_DATA_SOURCE=upstream, so other modes start without it. */
const checkedEnvSchema = envSchema.superRefine((e, ctx) => {
  if (e.MDG_INGEST.some((j) => j.provider === "sec") && e.MDG_SEC_USER_AGENT === undefined) {
    const message = "a sec job needs MDG_SEC_USER_AGENT (the SEC requires a User-Agent naming who calls)";
    ctx.addIssue({ code: "custom", path: ["MDG_INGEST"], message });
  }
  if (e.MDG_INGEST.some((j) => j.provider === "tiingo") && e.MDG_PROVIDER_TIINGO_KEY === undefined) {
    const message = "a tiingo job needs MDG_PROVIDER_TIINGO_KEY (Tiingo answers only with a key)";
    ctx.addIssue({ code: "custom", path: ["MDG_INGEST"], message });
  }
  if (e.MDG_DATA_SOURCE !== "upstream") return;
  if (e.MDG_INGEST.length > 0) {
    const message =
      "MDG_DATA_SOURCE=upstream (gateway mode) has no store of its own to ingest into; " +
      "schedule the jobs on the service that owns the SQLite or PostgreSQL store the upstream reads";
    ctx.addIssue({ code: "custom", path: ["MDG_INGEST"], message });
  }
  if (e.MDG_UPSTREAM_URL === undefined) {
    ctx.addIssue({ code: "custom", path: ["MDG_UPSTREAM_URL"], message: "required when MDG_DATA_SOURCE=upstream" });
  }
  if (e.MDG_UPSTREAM_API_KEY === undefined) {
    ctx.addIssue({ code: "custom", path: ["MDG_UPSTREAM_API_KEY"], message: "required when MDG_DATA_SOURCE=upstream" });
  }
});

export type Env = z.infer<typeof envSchema>;

export interface Config {
  nodeEnv: Env["NODE_ENV"];
  port: number;
  host: string;
  dataSource: Env["MDG_DATA_SOURCE"];
  sqlitePath: string;
  /** Gateway mode: the store of the gateway's own API keys (`sqlite` at sqlitePath, or `postgres` at DATABASE_URL). */
  gatewayKeys: Env["MDG_GATEWAY_KEYS"];
  /** MDG_DATA_SOURCE=postgres: where the store is, and how this process uses it (src/sources/postgres/). */
  postgres: PostgresConfig;
  bootstrapApiKey: string | undefined;
  /** The generated sample store built when `sqlitePath` is missing; `scale` (0 < scale <= 1) shrinks every count. */
  sample: { anchorDate: string; seed: number; scale: number };
  /**
   * How large one request may be and how much one answer holds (distinct from the per-key rate limits in
   * `rateLimit` and the GraphQL operation limits in `graphql`).
   */
  sizes: {
    bodyBytes: number;
    bulkMaxSymbols: number;
    /** Most items (positions) in one portfolio call. */
    portfolioMaxItems: number;
    searchResults: number;
    listMaxLimit: number;
  };
  /**
   * Bytes of heap (estimated) for instrument lookups cached across requests, invalidated by the store's data version
   * (src/sources/source.cache.ts); 0: off.
   */
  instrumentCacheBytes: number;
  /** Annual risk-free rate in percent (2.5 means 2.5 %), for Sharpe ratios. */
  riskFreeRatePercent: number;
  logLevel: Env["LOG_LEVEL"];
  /** Longest a REST or /graphql request may take before it answers 500 INTERNAL. */
  requestTimeoutMs: number;
  /** Heavy operations one key may run at once in this process (src/platform/quotas/quota.heavy.ts). */
  maxHeavyPerKey: number;
  /** Heavy operations this process runs at once, every key together (src/platform/quotas/quota.heavy.ts). */
  heavyCapacity: number;
  /** Longest a heavy operation waits for `heavyCapacity` before it is refused with BUSY. */
  heavyQueueMs: number;
  /** Nice value the worker threads add to the main thread's (src/platform/workers/worker.pool.ts). */
  workerNice: number;
  /** Longest SIGTERM waits for in-flight requests before closing their connections. */
  shutdownTimeoutMs: number;
  /** Client connections: how many at once, and how long one may take to send its request headers. */
  connections: ConnectionLimitsConfig;
  /**
   * Listen only once the API is ready (a load balancer's connection attempt is then refused and retried elsewhere)
   * instead of listening at once and answering 500 with the start-up phase.
   */
  listenWhenReady: boolean;
  /**
   * After SIGTERM, how long `/readyz` answers 503 while everything else is still served, before the listener closes:
   * time for a balancer that polls readiness to stop sending here.
   */
  shutdownDelayMs: number;
  /** MDG_DATA_SOURCE=postgres: how often the change version is read (every replica sees a commit within 1 s). */
  pgChangePollMs: number;
  graphql: GraphqlLimitsConfig;
  rateLimit: RateLimitConfig;
  /** `GET /metrics`: on by default; with a token it needs `Authorization: Bearer <token>`. */
  metrics: { enabled: boolean; token: string | undefined };
  /**
   * Origins whose pages may call `/graphql`, `/v0` and `/v1` (src/http/server/server.cors.ts): `*` any, an empty list
   * none (MDG_CORS_ORIGINS).
   */
  corsOrigins: "*" | readonly string[];
  upstream: UpstreamConfig;
  providers: ProvidersConfig;
  ingest: IngestConfig;
  live: LiveConfig;
}

/** The WebSocket door at `/v0` and `/v1` and the live prices it pushes (src/http/ws/, src/domain/live/). */
export interface LiveConfig {
  /** A socket with no frame either way for this long is closed (1000). */
  idleTimeoutMs: number;
  /** Open WebSocket connections one key may hold at once in this process. */
  maxConnectionsPerKey: number;
  /** Subscriptions one key may hold at once in this process, over all its connections. */
  maxSubscriptionsPerKey: number;
  /** Largest message a client may send; a larger one is answered with an error, four times larger closes (1009). */
  maxMessageBytes: number;
  /** Bytes waiting to be sent to one socket past which it is closed as a slow consumer (1013). */
  maxBufferedBytes: number;
  /** How often a replica with subscribers looks for store commits (imports, provider runs) that changed quotes. */
  storePollMs: number;
  /** Gateway mode: how often the upstream's quotes of the subscribed symbols are read while any are subscribed. */
  upstreamPollMs: number;
  /**
   * The tick simulator of the generated sample (src/domain/live/live.simulator.ts): unset, on only when the store is
   * the generated sample.
   */
  simulateTicks: boolean | undefined;
  simulateTickMs: number;
}

/** The public data providers `npm run ingest` calls (src/sources/providers/). */
export interface ProvidersConfig {
  /** Base URL of each host, by provider (and host, for a provider with several: `sec`, `secData`). */
  urls: { ecb: string; sec: string; secData: string; tiingo: string; kraken: string };
  /** API keys of the keyed providers; unset: that provider refuses to run. Never logged nor answered. */
  keys: { tiingo: string | undefined };
  /** The `User-Agent` the SEC requires of every caller (a name and an e-mail address); unset: `sec` refuses to run. */
  secUserAgent: string | undefined;
  /** Longest one attempt may take, the body included. */
  timeoutMs: number;
  /** Attempts after the first, for a 429, a 5xx, a timeout or a network error. */
  retries: number;
}

/** The ingest jobs the service runs itself (src/application/ingest/ingest.scheduler.ts). */
export interface IngestConfig {
  jobs: readonly IngestJobConfig[];
  /** Runs after a failed one (the next scheduled run aside), each after a full-jitter backoff from `retryBaseMs`. */
  retries: number;
  retryBaseMs: number;
}

/**
 * Gateway mode's client (src/sources/upstream/upstream.client.ts). `url` and `apiKey` are set whenever
 * `dataSource` is `upstream`; the key is a secret and never appears in a log line, a message or a metric.
 */
export interface UpstreamConfig {
  url: string | undefined;
  apiKey: string | undefined;
  /** The whole call, retries and their waits included. */
  timeoutMs: number;
  /** Symbols per `POST /bulk` call. */
  bulkMax: number;
  /** Calls of one batch in flight at once (and the connection pool's size). */
  concurrency: number;
  retry: {
    /** Retries of one call at most, on top of its first attempt. */
    max: number;
    /** Full-jitter exponential backoff: a wait drawn from [0, min(max, base × 2^n)]. */
    baseMs: number;
    maxMs: number;
    /** Retries allowed as a share of calls over the last 10 s (Finagle's RetryBudget), plus a floor per second. */
    budgetPercent: number;
    minPerSecond: number;
  };
  breaker: { failurePercent: number; minCalls: number; windowMs: number; openMs: number };
  /** Seconds an answer is fresh, by kind of data (404s take `reference`). */
  ttlSeconds: { quote: number; bars: number; reference: number };
  /** How long past its TTL a good answer may still be served stale when the upstream fails. */
  staleSeconds: number;
  /** Heap (estimated) for cached upstream answers in this process. */
  cacheBytes: number;
}

/** What src/http/server/server.connections.ts applies to the HTTP server. */
export interface ConnectionLimitsConfig {
  /** Open connections at once (upgraded ones included); one more is closed as soon as it is accepted. */
  max: number;
  /**
   * A connection that has not sent a whole request head this long after it opened, or after the first byte of a
   * later request on it, is closed. Idle keep-alive connections between requests are not concerned (65 s for those).
   */
  headersTimeoutMs: number;
}

/**
 * Limits on client operations of /graphql, enforced before execution (src/http/graphql/graphql.operation-limits.ts).
 */
export interface GraphqlLimitsConfig {
  maxDepth: number;
  maxAliases: number;
  maxRootFields: number;
  maxTokens: number;
  maxCost: number;
  /** Fields sharing one response name or one field name in one selection, fragments merged in, before validation. */
  maxSameNameFields: number;
  /** Fields of one selection, fragments merged in, before validation. */
  maxSelectionFields: number;
  /** Fragment spreads met expanding one selection, before validation. */
  maxFragmentSpreads: number;
  /** Fields of the whole document once fragments are expanded, before validation. */
  maxFields: number;
  /**
   * Introspection and "did you mean" suggestions; off under NODE_ENV=production unless MDG_GRAPHQL_INTROSPECTION says
   * otherwise.
   */
  introspection: boolean;
  /** Whether an array body (several operations in one request) is accepted. */
  batching: boolean;
}

export interface PostgresConfig {
  /** DATABASE_URL; set whenever `dataSource` is `postgres` (loadConfig refuses otherwise). */
  url: string | undefined;
  poolSize: number;
  statementTimeoutMs: number;
}

/** Where per-key rate and quota counters live (src/platform/quotas/). */
export interface RateLimitConfig {
  /** Unset: counters in this process's memory. Set: shared by every replica through Redis. */
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** A Redis command slower than this counts as Redis being unreachable. */
  redisTimeoutMs: number;
  /** After a Redis timeout or connection error, how long the limiter counts in memory before it tries Redis again. */
  redisCooldownMs: number;
}

export class ConfigError extends StartupError {
  override name = "ConfigError";
}

/** Today's UTC day, the default anchor of the sample data set. */
export function utcToday(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/**
 * Reads and validates the environment once. Fails fast with every problem
 * listed, so a misconfigured replica never starts half-working.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = checkedEnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  if (e.MDG_DATA_SOURCE === "upstream" && e.MDG_GATEWAY_KEYS === "postgres" && e.DATABASE_URL === undefined) {
    throw new ConfigError(
      "invalid configuration: DATABASE_URL: unset; MDG_GATEWAY_KEYS=postgres needs postgres://[user[:password]@]host[:port]/database",
    );
  }
  if (e.MDG_DATA_SOURCE === "postgres" && e.DATABASE_URL === undefined) {
    throw new ConfigError(
      "invalid configuration: DATABASE_URL: unset; MDG_DATA_SOURCE=postgres needs postgres://[user[:password]@]host[:port]/database",
    );
  }
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataSource: e.MDG_DATA_SOURCE,
    sqlitePath: e.MDG_SQLITE_PATH,
    gatewayKeys: e.MDG_GATEWAY_KEYS,
    postgres: {
      url: e.DATABASE_URL,
      poolSize: e.MDG_PG_POOL_SIZE,
      statementTimeoutMs: e.MDG_PG_STATEMENT_TIMEOUT_MS,
    },
    bootstrapApiKey: e.MDG_BOOTSTRAP_API_KEY,
    sample: { anchorDate: e.MDG_SAMPLE_ANCHOR_DATE ?? utcToday(), seed: e.MDG_SAMPLE_SEED, scale: e.MDG_SAMPLE_SCALE },
    sizes: {
      bodyBytes: e.MDG_BODY_LIMIT_BYTES,
      bulkMaxSymbols: e.MDG_BULK_MAX_SYMBOLS,
      portfolioMaxItems: e.MDG_PORTFOLIO_MAX_ITEMS,
      searchResults: e.MDG_SEARCH_LIMIT,
      listMaxLimit: e.MDG_LIST_MAX_LIMIT,
    },
    instrumentCacheBytes: Math.round(e.MDG_INSTRUMENT_CACHE_MB * 2 ** 20),
    riskFreeRatePercent: e.MDG_RISK_FREE_RATE,
    logLevel: e.LOG_LEVEL,
    requestTimeoutMs: e.MDG_REQUEST_TIMEOUT_MS,
    shutdownTimeoutMs: e.MDG_SHUTDOWN_TIMEOUT_MS,
    connections: { max: e.MDG_MAX_CONNECTIONS, headersTimeoutMs: e.MDG_HEADERS_TIMEOUT_MS },
    listenWhenReady: e.MDG_LISTEN_WHEN_READY ?? false,
    shutdownDelayMs: e.MDG_SHUTDOWN_DELAY_MS,
    pgChangePollMs: e.MDG_PG_CHANGE_POLL_MS,
    maxHeavyPerKey: e.MDG_MAX_HEAVY_PER_KEY,
    heavyCapacity: e.MDG_HEAVY_CAPACITY,
    heavyQueueMs: e.MDG_HEAVY_QUEUE_MS,
    workerNice: e.MDG_WORKER_NICE,
    graphql: {
      maxDepth: e.MDG_GRAPHQL_MAX_DEPTH,
      maxAliases: e.MDG_GRAPHQL_MAX_ALIASES,
      maxRootFields: e.MDG_GRAPHQL_MAX_ROOT_FIELDS,
      maxTokens: e.MDG_GRAPHQL_MAX_TOKENS,
      maxCost: e.MDG_GRAPHQL_MAX_COST,
      maxSameNameFields: e.MDG_GRAPHQL_MAX_SAME_NAME_FIELDS,
      maxSelectionFields: e.MDG_GRAPHQL_MAX_SELECTION_FIELDS,
      maxFragmentSpreads: e.MDG_GRAPHQL_MAX_FRAGMENT_SPREADS,
      maxFields: e.MDG_GRAPHQL_MAX_FIELDS,
      introspection: e.MDG_GRAPHQL_INTROSPECTION ?? e.NODE_ENV !== "production",
      batching: e.MDG_GRAPHQL_BATCHING ?? false,
    },
    rateLimit: {
      redisUrl: e.REDIS_URL,
      redisKeyPrefix: e.MDG_REDIS_KEY_PREFIX,
      redisTimeoutMs: e.MDG_REDIS_TIMEOUT_MS,
      redisCooldownMs: e.MDG_REDIS_COOLDOWN_MS,
    },
    metrics: { enabled: e.MDG_METRICS_ENABLED ?? true, token: e.MDG_METRICS_TOKEN },
    corsOrigins: e.MDG_CORS_ORIGINS,
    upstream: {
      url: e.MDG_UPSTREAM_URL,
      apiKey: e.MDG_UPSTREAM_API_KEY,
      timeoutMs: e.MDG_UPSTREAM_TIMEOUT_MS,
      bulkMax: e.MDG_UPSTREAM_BULK_MAX,
      concurrency: e.MDG_UPSTREAM_CONCURRENCY,
      retry: {
        max: e.MDG_UPSTREAM_RETRIES,
        baseMs: e.MDG_UPSTREAM_RETRY_BASE_MS,
        maxMs: e.MDG_UPSTREAM_RETRY_MAX_MS,
        budgetPercent: e.MDG_UPSTREAM_RETRY_BUDGET_PERCENT,
        minPerSecond: e.MDG_UPSTREAM_RETRY_MIN_PER_SEC,
      },
      breaker: {
        failurePercent: e.MDG_UPSTREAM_BREAKER_FAILURE_PERCENT,
        minCalls: e.MDG_UPSTREAM_BREAKER_MIN_CALLS,
        windowMs: e.MDG_UPSTREAM_BREAKER_WINDOW_MS,
        openMs: e.MDG_UPSTREAM_BREAKER_OPEN_MS,
      },
      ttlSeconds: {
        quote: e.MDG_UPSTREAM_TTL_QUOTE_S,
        bars: e.MDG_UPSTREAM_TTL_BARS_S,
        reference: e.MDG_UPSTREAM_TTL_REFERENCE_S,
      },
      staleSeconds: e.MDG_UPSTREAM_STALE_S,
      cacheBytes: Math.round(e.MDG_UPSTREAM_CACHE_MB * 2 ** 20),
    },
    providers: {
      urls: {
        ecb: e.MDG_PROVIDER_ECB_URL,
        sec: e.MDG_PROVIDER_SEC_URL,
        secData: e.MDG_PROVIDER_SEC_DATA_URL,
        tiingo: e.MDG_PROVIDER_TIINGO_URL,
        kraken: e.MDG_PROVIDER_KRAKEN_URL,
      },
      keys: { tiingo: e.MDG_PROVIDER_TIINGO_KEY },
      secUserAgent: e.MDG_SEC_USER_AGENT,
      timeoutMs: e.MDG_PROVIDER_TIMEOUT_MS,
      retries: e.MDG_PROVIDER_RETRIES,
    },
    ingest: { jobs: e.MDG_INGEST, retries: e.MDG_INGEST_RETRIES, retryBaseMs: e.MDG_INGEST_RETRY_BASE_MS },
    live: {
      idleTimeoutMs: e.MDG_WS_IDLE_TIMEOUT_MS,
      maxConnectionsPerKey: e.MDG_WS_MAX_CONNECTIONS_PER_KEY,
      maxSubscriptionsPerKey: e.MDG_WS_MAX_SUBSCRIPTIONS,
      maxMessageBytes: e.MDG_WS_MAX_MESSAGE_BYTES,
      maxBufferedBytes: e.MDG_WS_MAX_BUFFERED_BYTES,
      storePollMs: e.MDG_LIVE_STORE_POLL_MS,
      upstreamPollMs: e.MDG_UPSTREAM_POLL_MS,
      simulateTicks: e.MDG_SIMULATE_TICKS,
      simulateTickMs: e.MDG_SIMULATE_TICK_MS,
    },
  };
}
