import { z } from "zod";
import { envSchema, type EnvMeta } from "./config";

/**
 * What each environment variable means, for the configuration reference that scripts/config-reference.ts writes to
 * docs/configuration.md. Defaults and ranges are read from the schema itself; a default is written here only where
 * the schema cannot state it (a value computed at start). The type makes a variable without an entry a compile error.
 */
export interface ConfigReferenceEntry {
  meaning: string;
  /** Shown as the default when the schema has none of its own. */
  default?: string;
}

export const CONFIG_REFERENCE: Record<keyof z.input<typeof envSchema>, ConfigReferenceEntry> = {
  NODE_ENV: {
    meaning:
      "`development`, `production` or `test`; `production` turns GraphQL introspection off (unless " +
      "overridden) and logs are never pretty-printed",
  },
  PORT: { meaning: "HTTP port; `0`, written out, takes a free port" },
  HOST: { meaning: "bind address" },
  MDG_DATA_SOURCE: {
    meaning:
      "where data comes from (`src/sources/source.factory.ts`): `sqlite` (the embedded store), " +
      "`postgres` (see [postgres.md](postgres.md)) or `upstream` (gateway mode, see " +
      "[gateway.md](gateway.md))",
  },
  MDG_GATEWAY_KEYS: {
    meaning:
      "gateway mode: where its own API keys live, `sqlite` (the file at `MDG_SQLITE_PATH`) or " +
      "`postgres` (the `api_keys` table of `DATABASE_URL`'s database, shared by every gateway replica; " +
      "migrated at start, never given sample data)",
  },
  MDG_SQLITE_PATH: {
    meaning:
      "the embedded store; built with sample data when missing, once however many instances start (see " +
      "[sample.md](sample.md#first-start)); in gateway mode it holds the gateway's own API keys only, " +
      "and no sample data is built there",
  },
  DATABASE_URL: {
    meaning:
      "with `MDG_DATA_SOURCE=postgres` (required then): " +
      "`postgres://[user[:password]@]host[:port]/database`; the value is never repeated in errors or " +
      "logs",
  },
  MDG_PG_POOL_SIZE: { meaning: "connections each process keeps to PostgreSQL" },
  MDG_PG_STATEMENT_TIMEOUT_MS: {
    meaning:
      "longest one PostgreSQL statement may run (`statement_timeout`; the request then fails with 500); " +
      "migrations and the sample load are exempt",
  },
  MDG_BOOTSTRAP_API_KEY: { meaning: "one key with every scope, for trial and tests (held in memory as a hash)" },
  MDG_SAMPLE_ANCHOR_DATE: { meaning: "last day of the generated sample history", default: "today (UTC)" },
  MDG_SAMPLE_SEED: { meaning: "seed of the generated sample data (same seed and anchor, same data)" },
  MDG_SAMPLE_SCALE: {
    meaning:
      "fraction of the documented sample data set to generate; small values build a small store in " +
      "seconds, for tests and trials",
  },
  MDG_BODY_LIMIT_BYTES: { meaning: "largest request body; larger ones answer 404 `INVALID_ARGUMENT`" },
  MDG_BULK_MAX_SYMBOLS: { meaning: "most symbols in one bulk call (and in GraphQL's `quotes`, `etfs`, `funds`)" },
  MDG_PORTFOLIO_MAX_ITEMS: {
    meaning:
      "most `portfolio_items` in one `portfolio/*` call (and in GraphQL's `portfolio`); more are refused with " +
      "404 `INVALID_ARGUMENT`",
  },
  MDG_SEARCH_LIMIT: { meaning: "default number of search results (at most 100 per call)" },
  MDG_LIST_MAX_LIMIT: { meaning: "largest page of the list endpoints and the dividend calendar (default page 100)" },
  MDG_INSTRUMENT_CACHE_MB: {
    meaning:
      "heap (estimated, MiB) for instrument lookups by symbol or ISIN kept across requests: about 6,000 " +
      "instruments, 1.0-1.7 KB each; a key is kept from its second miss on, least recently used dropped " +
      "first; `0` turns the cache off (see [performance.md](performance.md))",
  },
  MDG_RISK_FREE_RATE: {
    meaning: "annual risk-free rate in percent for the Sharpe ratio of `etf/metrics` (2.5 means 2.5 %)",
  },
  MDG_REQUEST_TIMEOUT_MS: { meaning: "longest a REST or `/graphql` request may take; then 500 `INTERNAL`" },
  MDG_MAX_CONNECTIONS: {
    meaning:
      "client connections open at once, upgraded ones included; one more is closed as soon as it is accepted, while " +
      "established ones go on being served. 900 fits the common limit of 1,024 open files with room for the store, " +
      "logs and threads; start-up warns when the process's limit (`ulimit -n`) is too low for this value (see " +
      "[operations.md](operations.md#limits-and-hardening))",
  },
  MDG_HEADERS_TIMEOUT_MS: {
    meaning:
      "a connection that has not sent a whole request head this long after it opened (or after the first byte of a " +
      "later request) is closed: silently if it sent nothing, with 404 `INVALID_ARGUMENT` otherwise; idle keep-alive " +
      "connections between requests are closed after 65 s instead",
  },
  MDG_SHUTDOWN_TIMEOUT_MS: { meaning: "longest SIGTERM waits for in-flight requests before closing their connections" },
  MDG_SHUTDOWN_DELAY_MS: {
    meaning:
      "after SIGTERM, how long `/readyz` answers 503 while everything else is still served, before the " +
      "listener closes (for balancers that poll readiness; leave 0 behind nginx)",
  },
  MDG_LISTEN_WHEN_READY: {
    meaning:
      "listen only once the API is ready instead of at once (then nothing answers during the start, not " +
      "even `/healthz`): behind nginx a starting replica refuses connections, which nginx retries on " +
      "another replica (see [operations.md](operations.md#running-n-replicas))",
    default: "`false`",
  },
  MDG_WS_IDLE_TIMEOUT_MS: {
    meaning:
      "a WebSocket (`/v0`, `/v1`, `/graphql`) with no message either way for this long is closed with code 1000 " +
      "and a reason (see [live.md](live.md)); a tenth of it (at most 30 s) is how often revoked keys are looked for",
  },
  MDG_WS_MAX_CONNECTIONS_PER_KEY: {
    meaning:
      "WebSocket connections one key may hold open at once on one replica, `/v0`, `/v1` and `/graphql` together; " +
      "one more is refused with 403 (on `/graphql`, closed with 4403)",
  },
  MDG_WS_MAX_SUBSCRIPTIONS: {
    meaning: "live subscriptions one key may hold at once on one replica, over all its connections",
  },
  MDG_WS_MAX_MESSAGE_BYTES: {
    meaning:
      "largest WebSocket message a client may send: a larger one is answered with a 404 `INVALID_ARGUMENT` message, " +
      "and one over four times this closes the connection with 1009",
  },
  MDG_WS_MAX_BUFFERED_BYTES: {
    meaning:
      "bytes waiting to be sent to one WebSocket past which it is closed as a slow consumer (code 1013), so a client " +
      "that stops reading costs the server no more memory than this",
  },
  MDG_LIVE_STORE_POLL_MS: {
    meaning:
      "while a replica has live subscribers, how often it looks for store commits (imports, provider runs, any " +
      "writer) and pushes the subscribed quotes they changed; a look without a commit reads nothing",
  },
  MDG_UPSTREAM_POLL_MS: {
    meaning:
      "gateway mode: while a replica has live subscribers, how often it reads the upstream's quotes of the " +
      "subscribed symbols (batched through the upstream's bulk) and pushes those that changed; nothing is read " +
      "while nobody subscribes",
  },
  MDG_SIMULATE_TICKS: {
    meaning:
      "the tick simulator: moves the quotes of subscribed symbols in a seeded random walk from their last quote and " +
      "pushes them (simulated prices, for trials and demos); on by default only when the store is the generated sample",
    default: "on for the generated sample, off otherwise",
  },
  MDG_SIMULATE_TICK_MS: { meaning: "how often the tick simulator moves each subscribed symbol" },
  MDG_PG_CHANGE_POLL_MS: {
    meaning:
      "with `MDG_DATA_SOURCE=postgres`, how often each replica reads the store's change version (one " +
      "tiny statement)",
  },
  MDG_GRAPHQL_MAX_DEPTH: { meaning: "deepest selection of a `/graphql` operation" },
  MDG_GRAPHQL_MAX_ALIASES: { meaning: "most aliases in one operation" },
  MDG_GRAPHQL_MAX_ROOT_FIELDS: { meaning: "most root fields in one operation" },
  MDG_GRAPHQL_MAX_TOKENS: { meaning: "most tokens in one operation's text" },
  MDG_GRAPHQL_MAX_COST: {
    meaning: "highest computed cost of one operation, and of one bulk call (list and range fields cost " + "more)",
  },
  MDG_GRAPHQL_MAX_SAME_NAME_FIELDS: {
    meaning:
      "most fields sharing one response name or one field name in one selection of a `/graphql` document, " +
      "checked before validation",
  },
  MDG_GRAPHQL_MAX_SELECTION_FIELDS: {
    meaning: "most fields in one selection (fragments merged in), checked before validation",
  },
  MDG_GRAPHQL_MAX_FRAGMENT_SPREADS: {
    meaning: "most fragment spreads met expanding one selection, checked before validation",
  },
  MDG_GRAPHQL_MAX_FIELDS: {
    meaning: "most fields of a whole document once fragments are expanded, checked before validation",
  },
  MDG_MAX_HEAVY_PER_KEY: {
    meaning:
      "heavy operations (priced at 1,000 or more) one key may run at once in one process; one more gets " +
      "403 `QUOTA_EXCEEDED` with `Retry-After`",
  },
  MDG_HEAVY_CAPACITY: {
    meaning: "heavy operations the process runs at once, every key together; more wait in line",
    default: "cores − 1, at least 1",
  },
  MDG_HEAVY_QUEUE_MS: {
    meaning:
      "longest a heavy operation waits in line for `MDG_HEAVY_CAPACITY`; then it gets 500 `BUSY` with `Retry-After`",
  },
  MDG_WORKER_NICE: {
    meaning:
      "how far below the main thread's OS priority the worker threads of heavy work run (nice value added, per " +
      "thread on Linux; 19 the lowest): when the cores are busy, light requests go first",
  },
  MDG_GRAPHQL_INTROSPECTION: {
    meaning: 'GraphQL introspection and "did you mean" suggestions',
    default: "on, off under `NODE_ENV=production`",
  },
  MDG_GRAPHQL_BATCHING: { meaning: "accept an array of operations in one `/graphql` request", default: "`false`" },
  REDIS_URL: {
    meaning:
      "`redis://[[user]:password@]host[:port][/db]` or `rediss://…`: per-key rate and quota counters " +
      "shared by every replica; unset or empty: in this process's memory",
  },
  MDG_REDIS_KEY_PREFIX: { meaning: "prefix of the counters' Redis keys" },
  MDG_REDIS_TIMEOUT_MS: { meaning: "a Redis command slower than this counts as Redis being unreachable" },
  MDG_REDIS_COOLDOWN_MS: {
    meaning:
      "after a Redis timeout or connection error, how long the limits count in memory before one " +
      "request tries Redis again",
  },
  MDG_METRICS_ENABLED: {
    meaning: "serve `GET /metrics` and collect the metrics (see " + "[operations.md](operations.md#metrics-and-logs))",
    default: "`true`",
  },
  MDG_METRICS_TOKEN: { meaning: "when set, `/metrics` needs `Authorization: Bearer <token>` (else it answers 404)" },
  MDG_CORS_ORIGINS: {
    meaning:
      "origins whose pages may call `/graphql`, `/v0` and `/v1` from a browser: a comma list " +
      "(`https://app.example.com,http://localhost:5173`, exact origins, checked at start), or `*` for " +
      "any; unset or empty: none (see [clients.md](clients.md))",
  },
  MDG_UPSTREAM_URL: {
    meaning:
      "gateway mode (`MDG_DATA_SOURCE=upstream`): the Bavest-compatible API to front, " +
      "`http(s)://host[:port][/base path]`; required in that mode, never echoed (see " +
      "[gateway.md](gateway.md#gateway-resilience))",
  },
  MDG_UPSTREAM_API_KEY: {
    meaning:
      "the upstream's key, sent as `x-api-key`; required in gateway mode; never logged, echoed, put in " +
      "an error or a metric",
  },
  MDG_UPSTREAM_TIMEOUT_MS: { meaning: "longest one upstream call may take, retries and their waits included" },
  MDG_UPSTREAM_BULK_MAX: { meaning: "symbols per upstream `POST /bulk` call" },
  MDG_UPSTREAM_CONCURRENCY: {
    meaning: "upstream calls of one batch in flight at once, and keep-alive connections to the " + "upstream",
  },
  MDG_UPSTREAM_RETRIES: {
    meaning: "retries of one upstream call at most (connection errors, 5xx, 429), inside the retry " + "budget",
  },
  MDG_UPSTREAM_RETRY_BASE_MS: { meaning: "full-jitter exponential backoff between retries" },
  MDG_UPSTREAM_RETRY_MAX_MS: { meaning: "full-jitter exponential backoff between retries" },
  MDG_UPSTREAM_RETRY_BUDGET_PERCENT: {
    meaning: "retries allowed over 10 s: this share of calls, plus this floor per second [0-100] /",
  },
  MDG_UPSTREAM_RETRY_MIN_PER_SEC: {
    meaning: "retries allowed over 10 s: this share of calls, plus this floor per second [0-100] /",
  },
  MDG_UPSTREAM_BREAKER_FAILURE_PERCENT: {
    meaning:
      "the circuit breaker opens when this share of at least this many calls failed in its " + "window [1-100] /",
  },
  MDG_UPSTREAM_BREAKER_MIN_CALLS: {
    meaning:
      "the circuit breaker opens when this share of at least this many calls failed in its " + "window [1-100] /",
  },
  MDG_UPSTREAM_BREAKER_WINDOW_MS: {
    meaning: "the breaker's rolling window, and how long it stays open before one probe [100-600000] /",
  },
  MDG_UPSTREAM_BREAKER_OPEN_MS: {
    meaning: "the breaker's rolling window, and how long it stays open before one probe [100-600000] /",
  },
  MDG_UPSTREAM_TTL_QUOTE_S: { meaning: "how long an upstream quote is fresh" },
  MDG_UPSTREAM_TTL_BARS_S: { meaning: "how long upstream bars (candles, series) are fresh" },
  MDG_UPSTREAM_TTL_REFERENCE_S: {
    meaning: "how long upstream reference data (profiles, holdings, …) and 404s are fresh",
  },
  MDG_UPSTREAM_STALE_S: {
    meaning: "how long past its TTL a good answer may still be served, marked stale, when the upstream " + "fails",
  },
  MDG_UPSTREAM_CACHE_MB: {
    meaning: "heap (estimated, MiB) for upstream answers in this process; with `REDIS_URL` they are in " + "Redis too",
  },
  MDG_PROVIDER_ECB_URL: {
    meaning:
      "`npm run ingest -- ecb`: base URL of the ECB's euro reference rates (`/stats/eurofxref/…` below it); " +
      "a mirror or a local copy (see [providers.md](providers.md))",
  },
  MDG_PROVIDER_SEC_URL: {
    meaning: "`npm run ingest -- sec`: base URL of SEC EDGAR's `www.sec.gov` (`/files/company_tickers_exchange.json`)",
  },
  MDG_PROVIDER_SEC_DATA_URL: {
    meaning: "`npm run ingest -- sec`: base URL of SEC EDGAR's `data.sec.gov` (submissions, company facts)",
  },
  MDG_PROVIDER_TIINGO_URL: {
    meaning: "`npm run ingest -- tiingo`: base URL of Tiingo's REST API (`/tiingo/daily/<ticker>/prices`)",
  },
  MDG_PROVIDER_KRAKEN_URL: {
    meaning: "`npm run ingest -- kraken`: base URL of Kraken's REST API (`/0/public/OHLC`)",
  },
  MDG_PROVIDER_TIINGO_KEY: {
    meaning:
      "`npm run ingest -- tiingo`: the Tiingo API key; without it `tiingo` refuses to run. Sent in the query " +
      "string as Tiingo asks, never logged, answered or counted: errors show it as `***`",
  },
  MDG_SEC_USER_AGENT: {
    meaning:
      "`npm run ingest -- sec`: the `User-Agent` the SEC requires of every caller, naming the operator and an " +
      "e-mail address (`Example Corp admin@example.com`); without it `sec` refuses to run",
  },
  MDG_PROVIDER_TIMEOUT_MS: {
    meaning: "`npm run ingest`: longest one call to a provider may take, its body included, before it is retried",
  },
  MDG_PROVIDER_RETRIES: {
    meaning:
      "`npm run ingest`: attempts after the first when a provider answers 429 (its `Retry-After` waited out), " +
      "a 5xx, or does not answer (full-jitter backoff between them)",
  },
  MDG_INGEST: {
    meaning:
      "ingest jobs the service runs itself: `;`-separated `provider[:dataset]=<cron expression>[@<IANA zone>]` " +
      "(`ecb=30 16 * * 1-5@Europe/Berlin;sec:tickers=0 6 * * *`), five cron fields read in the zone (UTC when " +
      "none); an unknown provider or dataset, a bad expression or zone stops the start; refused in gateway mode. " +
      "With PostgreSQL one replica runs each job (see [providers.md](providers.md#scheduling))",
  },
  MDG_INGEST_RETRIES: {
    meaning: "runs of a failed scheduled ingest after the first, before it waits for its next scheduled run",
  },
  MDG_INGEST_RETRY_BASE_MS: {
    meaning: "backoff of a failed scheduled ingest: retry n waits a random time up to this × 2^(n-1) (full jitter)",
  },
  LOG_LEVEL: {
    meaning: "pino level: `fatal`, `error`, `warn`, `info` (one line per request), `debug`, `trace` or " + "`silent`",
  },
};

const INTRODUCTION = `# Configuration

<!-- Written by \`npm run config:docs\` (scripts/config-reference.ts) from src/platform/config.ts and
src/platform/config.reference.ts; a test fails when it is stale. Edit those, not this file. -->

One validated module (\`src/platform/config.ts\`) reads the environment at start and refuses to start with a clear
message when a value is wrong. A \`.env\` file in the working directory is read if present (see \`.env.example\`).
Every number has a range; an empty value is refused, never read as 0: unset a variable to get its default.

The service refuses to start, with exit code 1 and one line on stderr that names the variable or the path and what
is wrong (no stack), when a value is invalid (\`invalid configuration: MDG_REQUEST_TIMEOUT_MS: "99999999999" is out
of range; expected an integer from 1 to 600000 milliseconds …\`), when \`PORT\` is in use, when \`HOST\` does not
resolve or is not an address of this machine, when \`REDIS_URL\` is not a \`redis://\` or \`rediss://\` URL (the value is
never repeated: it may hold a password), and when \`MDG_SQLITE_PATH\` is a folder, not a SQLite database, not
readable, not writable (the store is migrated and journaled at start), or cannot be created (a file stands where a
folder of its path should be).
`;

/** A variable's default as the schema states it: a number's own, an enum's or string's `.default()`, else unset. */
function schemaDefault(schema: z.ZodType): string | undefined {
  const meta = z.globalRegistry.get(schema) as Partial<EnvMeta> | undefined;
  if (meta?.default !== undefined) return meta.default;
  const def = (schema as unknown as { def: { type: string; defaultValue?: unknown } }).def;
  if (def.type === "default") return String(def.defaultValue);
  return undefined;
}

function rangeOf(schema: z.ZodType): string {
  const meta = z.globalRegistry.get(schema) as Partial<EnvMeta> | undefined;
  if (meta?.range !== undefined) return meta.range;
  const def = (schema as unknown as { def: { type: string; innerType?: z.ZodType; entries?: object } }).def;
  const inner = def.type === "default" ? def.innerType : schema;
  const entries = (inner as unknown as { def: { entries?: Record<string, string> } } | undefined)?.def.entries;
  return entries
    ? Object.values(entries)
        .map((v) => `\`${v}\``)
        .join(", ")
    : "";
}

/** docs/configuration.md: every variable of the schema, in its order, with default, range and meaning. */
export function renderConfigReference(): string {
  const rows = Object.entries(envSchema.shape).map(([name, schema]) => {
    const entry = CONFIG_REFERENCE[name as keyof typeof CONFIG_REFERENCE];
    const fromSchema = schemaDefault(schema as z.ZodType);
    const shown = entry.default ?? (fromSchema === undefined ? "unset" : `\`${fromSchema}\``);
    const range = rangeOf(schema as z.ZodType);
    return `| \`${name}\` | ${shown} | ${range} | ${entry.meaning} |`;
  });
  return `${INTRODUCTION}\n| variable | default | values | meaning |\n|---|---|---|---|\n${rows.join("\n")}\n`;
}
