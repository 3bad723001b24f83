import { z } from "zod";

/** ISO date `YYYY-MM-DD` that is a real calendar day. */
const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "expected YYYY-MM-DD")
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), "not a calendar day");

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** `true`/`false` (also `1`/`0`, `on`/`off`, `yes`/`no`); unset or empty means "not given". */
const optionalBool = z
  .enum(["true", "false", "1", "0", "on", "off", "yes", "no", ""], { error: "expected true or false" })
  .optional()
  .transform((v) => (v === undefined || v === "" ? undefined : ["true", "1", "on", "yes"].includes(v)));

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().min(1).default("0.0.0.0"),
  MDG_DATA_SOURCE: z.enum(["sqlite", "postgres", "upstream"]).default("sqlite"),
  MDG_SQLITE_PATH: z.string().min(1).default("./data/market.db"),
  // Empty means unset (`KEY=` as .env.example writes it), not an invalid value.
  MDG_BOOTSTRAP_API_KEY: z.preprocess((v) => (v === "" ? undefined : v), z.string().min(1).optional()),
  MDG_SAMPLE_ANCHOR_DATE: z.preprocess((v) => (v === "" ? undefined : v), isoDay.optional()),
  MDG_SAMPLE_SEED: z.coerce.number().int().min(0).max(2 ** 31 - 1).default(42),
  MDG_BODY_LIMIT_BYTES: positiveInt(100 * 1024),
  MDG_BULK_MAX_SYMBOLS: positiveInt(100),
  MDG_SEARCH_LIMIT: positiveInt(20),
  MDG_LIST_MAX_LIMIT: positiveInt(1000),
  /** Heap (MiB, estimated) for instrument lookups kept across requests; 0 turns the cache off. */
  MDG_INSTRUMENT_CACHE_MB: z.coerce.number().min(0).max(1024).default(8),
  /** Annual risk-free rate in percent, used by ETF metrics' Sharpe ratio. */
  MDG_RISK_FREE_RATE: z.coerce.number().min(-100).max(100).default(0),
  /** Hardening (README "Limits and hardening"). */
  MDG_REQUEST_TIMEOUT_MS: positiveInt(10_000),
  MDG_SHUTDOWN_TIMEOUT_MS: positiveInt(20_000),
  MDG_GRAPHQL_MAX_DEPTH: positiveInt(15),
  MDG_GRAPHQL_MAX_ALIASES: positiveInt(100),
  MDG_GRAPHQL_MAX_ROOT_FIELDS: positiveInt(100),
  MDG_GRAPHQL_MAX_TOKENS: positiveInt(5_000),
  MDG_GRAPHQL_MAX_COST: positiveInt(10_000),
  MDG_GRAPHQL_INTROSPECTION: optionalBool,
  MDG_GRAPHQL_BATCHING: optionalBool,
  REDIS_URL: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()))
    .refine((v) => v === undefined || /^rediss?:\/\//.test(v), "expected redis://host:port or rediss://…"),
  MDG_REDIS_KEY_PREFIX: z.string().min(1).default("mdg:"),
  MDG_REDIS_TIMEOUT_MS: positiveInt(250),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** GET /metrics (Prometheus); README "Metrics and logs". */
  MDG_METRICS_ENABLED: optionalBool,
  MDG_METRICS_TOKEN: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === "" ? undefined : v)),
});

export type Env = z.infer<typeof envSchema>;

export interface Config {
  nodeEnv: Env["NODE_ENV"];
  port: number;
  host: string;
  dataSource: Env["MDG_DATA_SOURCE"];
  sqlitePath: string;
  bootstrapApiKey: string | undefined;
  sample: { anchorDate: string; seed: number };
  limits: { bodyBytes: number; bulkMaxSymbols: number; searchResults: number; listMaxLimit: number };
  /** Bytes of heap (estimated) for instrument lookups cached across requests, invalidated by the store's data version (src/sources/source.cache.ts); 0: off. */
  instrumentCacheBytes: number;
  /** Annual risk-free rate in percent (2.5 means 2.5 %), for Sharpe ratios. */
  riskFreeRatePercent: number;
  logLevel: Env["LOG_LEVEL"];
  /** Longest a REST or /graphql request may take before it answers 500 INTERNAL. */
  requestTimeoutMs: number;
  /** Longest SIGTERM waits for in-flight requests before closing their connections. */
  shutdownTimeoutMs: number;
  graphql: GraphqlLimitsConfig;
  rateLimit: RateLimitConfig;
  /** `GET /metrics`: on by default; with a token it needs `Authorization: Bearer <token>`. */
  metrics: { enabled: boolean; token: string | undefined };
}

/** Limits on client operations of /graphql, enforced before execution (src/graphql/graphql.limits.ts). */
export interface GraphqlLimitsConfig {
  maxDepth: number;
  maxAliases: number;
  maxRootFields: number;
  maxTokens: number;
  maxCost: number;
  /** Introspection and "did you mean" suggestions; off under NODE_ENV=production unless MDG_GRAPHQL_INTROSPECTION says otherwise. */
  introspection: boolean;
  /** Whether an array body (several operations in one request) is accepted. */
  batching: boolean;
}

/** Where per-key rate and quota counters live (src/limits/). */
export interface RateLimitConfig {
  /** Unset: counters in this process's memory. Set: shared by every replica through Redis. */
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** A Redis command slower than this counts as Redis being unreachable. */
  redisTimeoutMs: number;
}

export class ConfigError extends Error {
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
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  if (e.MDG_DATA_SOURCE !== "sqlite") {
    throw new ConfigError(`MDG_DATA_SOURCE=${e.MDG_DATA_SOURCE} is not available yet; only "sqlite" is implemented`);
  }
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataSource: e.MDG_DATA_SOURCE,
    sqlitePath: e.MDG_SQLITE_PATH,
    bootstrapApiKey: e.MDG_BOOTSTRAP_API_KEY,
    sample: { anchorDate: e.MDG_SAMPLE_ANCHOR_DATE ?? utcToday(), seed: e.MDG_SAMPLE_SEED },
    limits: {
      bodyBytes: e.MDG_BODY_LIMIT_BYTES,
      bulkMaxSymbols: e.MDG_BULK_MAX_SYMBOLS,
      searchResults: e.MDG_SEARCH_LIMIT,
      listMaxLimit: e.MDG_LIST_MAX_LIMIT,
    },
    instrumentCacheBytes: Math.round(e.MDG_INSTRUMENT_CACHE_MB * 2 ** 20),
    riskFreeRatePercent: e.MDG_RISK_FREE_RATE,
    logLevel: e.LOG_LEVEL,
    requestTimeoutMs: e.MDG_REQUEST_TIMEOUT_MS,
    shutdownTimeoutMs: e.MDG_SHUTDOWN_TIMEOUT_MS,
    graphql: {
      maxDepth: e.MDG_GRAPHQL_MAX_DEPTH,
      maxAliases: e.MDG_GRAPHQL_MAX_ALIASES,
      maxRootFields: e.MDG_GRAPHQL_MAX_ROOT_FIELDS,
      maxTokens: e.MDG_GRAPHQL_MAX_TOKENS,
      maxCost: e.MDG_GRAPHQL_MAX_COST,
      introspection: e.MDG_GRAPHQL_INTROSPECTION ?? e.NODE_ENV !== "production",
      batching: e.MDG_GRAPHQL_BATCHING ?? false,
    },
    rateLimit: { redisUrl: e.REDIS_URL, redisKeyPrefix: e.MDG_REDIS_KEY_PREFIX, redisTimeoutMs: e.MDG_REDIS_TIMEOUT_MS },
    metrics: { enabled: e.MDG_METRICS_ENABLED ?? true, token: e.MDG_METRICS_TOKEN },
  };
}
