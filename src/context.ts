import type { Principal } from "./platform/auth/auth.types";
import type { Clock } from "./platform/clock";
import type { Config } from "./platform/config";
import type { Registry } from "prom-client";
import type { MarketDataSource } from "./sources/source.capabilities";
import type { UpstreamState } from "./sources/upstream/upstream.types";
import type { RateLimiter } from "./platform/quotas/quota.service";
import { createLoaders, type Loaders } from "./sources/source.loaders";
import type { SearchIndexReader } from "./domains/search/search.live";
import { ROW_STORE_ETF_ANSWERS, type EtfAnswers } from "./domains/etf/etf.answers";
import { ROW_STORE_FUND_ANSWERS, type FundAnswers } from "./domains/fund/fund.answers";
import { ROW_STORE_QUOTE_ANSWERS, type QuoteAnswers } from "./domains/quote/quote.answers";
import { ROW_STORE_STOCK_ANSWERS, type StockAnswers } from "./domains/stock/stock.answers";
import { ROW_STORE_CANDLE_ANSWERS, type CandleAnswers } from "./domains/candle/candle.answers";
import { ROW_STORE_CRYPTO_ANSWERS, type CryptoAnswers } from "./domains/crypto/crypto.answers";
import { ROW_STORE_DIVIDEND_ANSWERS, type DividendAnswers } from "./domains/dividend/dividend.answers";
import { ROW_STORE_SEARCH_ANSWERS, type SearchAnswers } from "./domains/search/search.answers";
import { ROW_STORE_LIST_ANSWERS, type ListAnswers } from "./domains/list/list.answers";
import { ROW_STORE_INDICES_ANSWERS, type IndicesAnswers } from "./domains/indices/indices.answers";

/**
 * The answers the resolvers ask for, by domain (docs/architecture.md): over a
 * row store, the domain services; over an upstream that answers documents,
 * the upstream adapter's own (src/sources/upstream/upstream.answers.ts).
 * Every GraphQL field, and so every REST endpoint, is answered through one
 * of these.
 */
export interface Answers {
  etf: EtfAnswers;
  fund: FundAnswers;
  quote: QuoteAnswers;
  stock: StockAnswers;
  candle: CandleAnswers;
  crypto: CryptoAnswers;
  dividend: DividendAnswers;
  search: SearchAnswers;
  list: ListAnswers;
  indices: IndicesAnswers;
}

/** Every domain's answers computed from a row store's rows. */
export const ROW_STORE_ANSWERS: Answers = Object.freeze({
  etf: ROW_STORE_ETF_ANSWERS,
  fund: ROW_STORE_FUND_ANSWERS,
  quote: ROW_STORE_QUOTE_ANSWERS,
  stock: ROW_STORE_STOCK_ANSWERS,
  candle: ROW_STORE_CANDLE_ANSWERS,
  crypto: ROW_STORE_CRYPTO_ANSWERS,
  dividend: ROW_STORE_DIVIDEND_ANSWERS,
  search: ROW_STORE_SEARCH_ANSWERS,
  list: ROW_STORE_LIST_ANSWERS,
  indices: ROW_STORE_INDICES_ANSWERS,
});

/** What lives as long as the process: pools, clients, indexes. Never per-user state. */
export interface AppDeps {
  config: Config;
  source: MarketDataSource;
  clock: Clock;
  searchIndex: SearchIndexReader;
  /** Where answers come from; the row-store services when absent. */
  answers?: Answers;
  /** Per-key rate and quota; createApp builds one from the config when absent. */
  rateLimiter?: RateLimiter;
  /** Gateway mode: the upstream client's metrics, served on /metrics with the app's. */
  metricsRegistry?: Registry;
  /** Gateway mode: the upstream's state, which /readyz reports. */
  upstreamState?: () => UpstreamState;
}

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

/** One per request, for /graphql and REST alike. */
export interface Context {
  requestId: string;
  principal: Principal | null;
  clock: Clock;
  config: Config;
  source: MarketDataSource;
  searchIndex: SearchIndexReader;
  answers: Answers;
  loaders: Loaders;
  freshness: Freshness;
}

export function createContext(deps: AppDeps, requestId: string, principal: Principal | null): Context {
  return {
    requestId,
    principal,
    clock: deps.clock,
    config: deps.config,
    source: deps.source,
    searchIndex: deps.searchIndex,
    answers: deps.answers ?? ROW_STORE_ANSWERS,
    loaders: createLoaders(deps.source),
    freshness: new Freshness(),
  } satisfies Context;
}
