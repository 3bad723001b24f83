import { CANDLE_ROUTES } from "./routes/candle.routes";
import { CRYPTO_ROUTES } from "./routes/crypto.routes";
import { DIVIDEND_ROUTES } from "./routes/dividend.routes";
import { ETF_ROUTES } from "./routes/etf.routes";
import { FUND_ROUTES } from "./routes/fund.routes";
import { INDICES_ROUTES } from "./routes/indices.routes";
import { LIST_ROUTES } from "./routes/list.routes";
import { QUOTE_ROUTES } from "./routes/quote.routes";
import { SEARCH_ROUTES } from "./routes/search.routes";
import { STOCK_ROUTES } from "./routes/stock.routes";
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
