import type { Principal } from "../platform/auth/auth.types";
import type { Clock } from "../platform/clock";
import type { Config } from "../platform/config";
import type { SearchIndexReader } from "./search/search.live";
import type { MarketDataSource } from "./ports/source.capabilities";
import type { Loaders } from "./ports/source.loaders";
import type { IngestJobStatus } from "./status/status.ingest";

/**
 * Whether a request's answers are fresh: gateway mode serves the last good upstream answer when the upstream fails
 * (stale-if-error), and each door marks such a response (REST `x-data-stale` and `Age`, GraphQL
 * `extensions.stale`). A row store's answers are always fresh.
 */
export class Freshness {
  /** The age in seconds of the oldest stale answer this request used; null when none was stale. */
  staleAgeSeconds: number | null = null;

  noteStale(ageSeconds: number): void {
    this.staleAgeSeconds = Math.max(this.staleAgeSeconds ?? 0, Math.max(0, Math.floor(ageSeconds)));
  }
}

/**
 * What a service or an answers implementation sees of one request, REST and GraphQL alike: the source behind its
 * capability ports, this request's DataLoaders over them, and the process's clock, config and search index. The
 * doors add what only they need (http/http.context.ts).
 */
export interface RequestContext {
  requestId: string;
  principal: Principal | null;
  clock: Clock;
  config: Config;
  source: MarketDataSource;
  searchIndex: SearchIndexReader;
  loaders: Loaders;
  freshness: Freshness;
  /** The ingest jobs this process runs on a schedule (MDG_INGEST); absent when it runs none. */
  ingestStatus?: () => readonly IngestJobStatus[];
}
