import { z } from "zod";

/** ISO date `YYYY-MM-DD` that is a real calendar day. */
const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "expected YYYY-MM-DD")
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), "not a calendar day");

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().min(1).default("0.0.0.0"),
  MDG_DATA_SOURCE: z.enum(["sqlite", "postgres", "upstream"]).default("sqlite"),
  MDG_SQLITE_PATH: z.string().min(1).default("./data/market.db"),
  MDG_BOOTSTRAP_API_KEY: z
    .string()
    .min(1)
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  MDG_SAMPLE_ANCHOR_DATE: isoDay.optional(),
  MDG_SAMPLE_SEED: z.coerce.number().int().min(0).max(2 ** 31 - 1).default(42),
  MDG_BODY_LIMIT_BYTES: positiveInt(100 * 1024),
  MDG_BULK_MAX_SYMBOLS: positiveInt(100),
  MDG_SEARCH_LIMIT: positiveInt(20),
  MDG_LIST_MAX_LIMIT: positiveInt(1000),
  /** Annual risk-free rate in percent, used by ETF metrics' Sharpe ratio. */
  MDG_RISK_FREE_RATE: z.coerce.number().min(-100).max(100).default(0),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
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
  /** Annual risk-free rate in percent (2.5 means 2.5 %), for Sharpe ratios. */
  riskFreeRatePercent: number;
  logLevel: Env["LOG_LEVEL"];
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
    riskFreeRatePercent: e.MDG_RISK_FREE_RATE,
    logLevel: e.LOG_LEVEL,
  };
}
