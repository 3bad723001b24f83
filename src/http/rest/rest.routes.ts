import { CANDLE_ROUTES } from "../../domains/candle/candle.routes";
import { CRYPTO_ROUTES } from "../../domains/crypto/crypto.routes";
import { DIVIDEND_ROUTES } from "../../domains/dividend/dividend.routes";
import { ETF_ROUTES } from "../../domains/etf/etf.routes";
import { FUND_ROUTES } from "../../domains/fund/fund.routes";
import { INDICES_ROUTES } from "../../domains/indices/indices.routes";
import { LIST_ROUTES } from "../../domains/list/list.routes";
import { QUOTE_ROUTES } from "../../domains/quote/quote.routes";
import { SEARCH_ROUTES } from "../../domains/search/search.routes";
import { STOCK_ROUTES } from "../../domains/stock/stock.routes";
import type { RouteEntry } from "./rest.route";

/**
 * The REST route table: every endpoint of both versions, gathered from the
 * domains. Add a domain's routes here and its resolver to graphql/schema.ts.
 */
export const ROUTES: readonly RouteEntry[] = [
  ...CRYPTO_ROUTES,
  ...QUOTE_ROUTES,
  ...SEARCH_ROUTES,
  ...LIST_ROUTES,
  ...ETF_ROUTES,
  ...FUND_ROUTES,
  ...STOCK_ROUTES,
  ...CANDLE_ROUTES,
  ...DIVIDEND_ROUTES,
  ...INDICES_ROUTES,
];
