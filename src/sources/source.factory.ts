import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { ApiKeyStore } from "../platform/auth/auth.types";
import { StartupError } from "../platform/errors";
import type { Config } from "../platform/config";
import type { MarketDataSource } from "./source.capabilities";
import { assertStorePath } from "./sqlite/sqlite.open";

/** What the service reads: its market data, and its own API keys (apart: a gateway keeps its keys). */
export interface Sources {
  market: MarketDataSource;
  keys: ApiKeyStore;
  /** Set when the sample data set was built for this start (how long it took, and where). */
  sampleBuilt?: { ms: number; path: string };
  /** Closes whatever was opened, once. */
  close(): Promise<void>;
}

export interface OpenSourcesOptions {
  log?: (msg: string) => void;
  /**
   * Build the generated sample data set when the SQLite file is missing
   * (default: yes). The keys CLI says no: it never fills a store by accident.
   */
  buildSample?: boolean;
  /** Open the store read-only (and refuse a missing one). */
  readonly?: boolean;
  /** Ends a sample build under way (SIGTERM during start-up): its worker, scratch file and lock go with it. */
  signal?: AbortSignal;
}

/** Why the service refuses to start with this MDG_DATA_SOURCE: a clear message, no stack. */
export class SourceUnavailableError extends StartupError {
  override name = "SourceUnavailableError";
}

const NOT_YET: Record<"postgres" | "upstream", string> = {
  postgres: "MDG_DATA_SOURCE=postgres is not available yet: the PostgreSQL adapter is not implemented; use sqlite",
  upstream:
    "MDG_DATA_SOURCE=upstream is not available yet: the upstream (gateway) adapter is not implemented; use sqlite",
};

/**
 * The one place that turns `MDG_DATA_SOURCE` into sources: used by main.ts,
 * the keys CLI and the benchmarks. The sample generator (src/tools/sample/)
 * is loaded from here only, and only when a SQLite store must be built:
 * nothing that serves a request imports it.
 */
export async function openSources(config: Config, opts: OpenSourcesOptions = {}): Promise<Sources> {
  switch (config.dataSource) {
    case "sqlite":
      return openSqlite(config, opts);
    case "postgres":
    case "upstream":
      throw new SourceUnavailableError(NOT_YET[config.dataSource]);
  }
}

async function openSqlite(config: Config, opts: OpenSourcesOptions): Promise<Sources> {
  const path = config.sqlitePath;
  // A path that cannot work (a folder, not SQLite, unwritable) is refused in one line naming MDG_SQLITE_PATH.
  assertStorePath(path);
  let sampleBuilt: Sources["sampleBuilt"];
  if (!opts.readonly && opts.buildSample !== false) {
    mkdirSync(dirname(path), { recursive: true });
    // Loaded here only, at start-up: the generator is a tool, and no module that serves a request imports it.
    // It returns at once when the store exists (after removing dead builders' scratch files).
    const { ensureSampleStore } = await import("../tools/sample/sample.store");
    const { seed, anchorDate, scale } = config.sample;
    const built = await ensureSampleStore(path, { seed, anchorDate, scale, log: opts.log, signal: opts.signal });
    if (built.built) sampleBuilt = { ms: built.ms ?? 0, path };
  }
  // Loaded lazily too, so that importing this module (the keys CLI's tests) does not load the SQLite driver.
  const { openSqliteSource } = await import("./sqlite/sqlite.source");
  const source = openSqliteSource(path, { readonly: opts.readonly });
  let closed: Promise<void> | undefined;
  return { market: source, keys: source.keys, sampleBuilt, close: () => (closed ??= source.close()) };
}
