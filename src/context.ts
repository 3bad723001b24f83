import type { Principal } from "./auth/auth.types";
import type { Clock } from "./common/clock";
import type { Config } from "./config";
import type { DataSource } from "./sources/data-source";
import type { RateLimiter } from "./limits/limits.service";
import { createLoaders, type Loaders } from "./sources/source.loaders";
import type { SearchIndex } from "./search/search.index";

/** What lives as long as the process: pools, clients, indexes. Never per-user state. */
export interface AppDeps {
  config: Config;
  source: DataSource;
  clock: Clock;
  searchIndex: SearchIndex;
  /** Per-key rate and quota; createApp builds one from the config when absent. */
  limits?: RateLimiter;
}

/** One per request, for /graphql and REST alike. */
export interface Context {
  requestId: string;
  principal: Principal | null;
  clock: Clock;
  config: Config;
  source: DataSource;
  searchIndex: SearchIndex;
  loaders: Loaders;
}

export function createContext(deps: AppDeps, requestId: string, principal: Principal | null): Context {
  return {
    requestId,
    principal,
    clock: deps.clock,
    config: deps.config,
    source: deps.source,
    searchIndex: deps.searchIndex,
    loaders: createLoaders(deps.source),
  } satisfies Context;
}
