import pino, { type DestinationStream, type Logger, type LoggerOptions } from "pino";
import { redactKeys, redactKeysDeep } from "./auth/auth.keys";
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

/** pino-pretty is a development dependency: absent from a production install, where logs stay JSON. */
function prettyAvailable(): boolean {
  try {
    require.resolve("pino-pretty");
    return true;
  } catch {
    return false;
  }
}

/**
 * JSON lines (one object per event, with `service`, `level`, `time`, `msg`),
 * keys redacted. A person at a terminal in development (NODE_ENV=development,
 * stdout a TTY) gets pino-pretty's coloured lines instead. `destination`
 * (tests) receives the JSON lines.
 */
export function createLogger(config: Pick<Config, "logLevel" | "nodeEnv">, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level: config.logLevel,
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    base: { service: "market-data-gateway" },
    // Defence in depth: a key-shaped token anywhere in a line (a path a client got wrong) is replaced (auth.keys.ts).
    formatters: { log: (object) => redactKeysDeep(object) },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === "string" ? redactKeys(a) : a)) as Parameters<typeof method>);
      },
    },
  };
  if (destination) return pino(options, destination);
  if (config.nodeEnv === "development" && process.stdout.isTTY && prettyAvailable()) {
    return pino({
      ...options,
      transport: {
        target: "pino-pretty",
        options: { colorize: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname,service" },
      },
    });
  }
  return pino(options);
}
