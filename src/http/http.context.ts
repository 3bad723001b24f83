import type { Registry } from "prom-client";
import type { Clock } from "../platform/clock";
import type { Config } from "../platform/config";
import type { Principal } from "../platform/auth/auth.types";
import type { RateLimiter } from "../platform/quotas/quota.service";
import type { Answers } from "../domain/answers";
import type { MarketDataSource } from "../domain/ports/source.capabilities";
import type { UpstreamState } from "../domain/ports/source.health";
import { createLoaders } from "../domain/ports/source.loaders";
import { Freshness, type RequestContext } from "../domain/request.context";
import type { SearchIndexReader } from "../domain/search/search.live";
import type { IngestJobStatus } from "../domain/status/status.ingest";
import type { LiveHub } from "../domain/live/live.hub";
import type { LiveTopic } from "../domain/live/live.iterator";
import type { LiveEvent } from "../domain/live/live.types";

/** What lives as long as the process: pools, clients, indexes. Never per-user state. Built by the composition root. */
export interface AppDeps {
  config: Config;
  source: MarketDataSource;
  clock: Clock;
  searchIndex: SearchIndexReader;
  /** Where answers come from: the row-store services, or the upstream adapter's. */
  answers: Answers;
  /** Per-key rate and quota; createApp builds one from the config when absent. */
  rateLimiter?: RateLimiter;
  /** Gateway mode: the upstream client's metrics, served on /metrics with the app's. */
  metricsRegistry?: Registry;
  /** Gateway mode: the upstream's state, which /readyz reports. */
  upstreamState?: () => UpstreamState;
  /** The scheduled ingest jobs (MDG_INGEST), which /v1/status reports. */
  ingestStatus?: () => readonly IngestJobStatus[];
  /** The live prices' subscriptions and delivery (src/domain/live/live.hub.ts); createApp makes one when absent. */
  liveHub?: LiveHub;
}

/** One per request, for /graphql and REST alike: the domain's request context and the answers the resolvers call. */
export interface Context extends RequestContext {
  answers: Answers;
  /**
   * The live changes a GraphQL subscription streams: set only on `/graphql`'s WebSocket (graphql.live.ts), the one
   * place subscriptions run; absent on every HTTP request.
   */
  live?: LiveStreams;
}

/** What a subscription field asks for its stream: the topics, checked and charged, as events until it ends. */
export interface LiveStreams {
  events(ctx: Context, topics: readonly LiveTopic[]): Promise<AsyncIterable<LiveEvent>>;
}

export function createContext(deps: AppDeps, requestId: string, principal: Principal | null): Context {
  return {
    requestId,
    principal,
    clock: deps.clock,
    config: deps.config,
    source: deps.source,
    searchIndex: deps.searchIndex,
    answers: deps.answers,
    loaders: createLoaders(deps.source),
    freshness: new Freshness(),
    ingestStatus: deps.ingestStatus,
  } satisfies Context;
}
