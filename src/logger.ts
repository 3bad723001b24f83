import pino, { type Logger } from "pino";
import type { Config } from "./config";

/** Header and field paths that may hold a key; pino replaces them before a line is written. */
export const REDACT_PATHS = [
  "req.headers['x-api-key']",
  "headers['x-api-key']",
  "*.headers['x-api-key']",
  "apiKey",
  "*.apiKey",
  "key",
  "*.key",
];

export function createLogger(config: Pick<Config, "logLevel" | "nodeEnv">): Logger {
  return pino({
    level: config.logLevel,
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    base: { service: "market-data-gateway" },
  });
}
