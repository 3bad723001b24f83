import { ROW_STORE_CANDLE_ANSWERS, type CandleAnswers } from "./candle/candle.answers";
import { ROW_STORE_CRYPTO_ANSWERS, type CryptoAnswers } from "./crypto/crypto.answers";
import { ROW_STORE_DIVIDEND_ANSWERS, type DividendAnswers } from "./dividend/dividend.answers";
import { ROW_STORE_ETF_ANSWERS, type EtfAnswers } from "./etf/etf.answers";
import { ROW_STORE_FUND_ANSWERS, type FundAnswers } from "./fund/fund.answers";
import { ROW_STORE_INDICES_ANSWERS, type IndicesAnswers } from "./indices/indices.answers";
import { ROW_STORE_LIST_ANSWERS, type ListAnswers } from "./list/list.answers";
import { ROW_STORE_QUOTE_ANSWERS, type QuoteAnswers } from "./quote/quote.answers";
import { ROW_STORE_SEARCH_ANSWERS, type SearchAnswers } from "./search/search.answers";
import { ROW_STORE_STOCK_ANSWERS, type StockAnswers } from "./stock/stock.answers";

/**
 * The answers port: what the resolvers ask for, by area (docs/architecture.md). Over a row store the domain services
 * answer (ROW_STORE_ANSWERS); over an upstream that answers documents, the upstream adapter's own
 * (src/sources/upstream/upstream.answers.ts). Every GraphQL field, and so every REST endpoint, is answered through
 * one of these. The composition root picks which.
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

/** Every area's answers computed from a row store's rows. */
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
