import type { GraphQLSchema } from "graphql";
import { buildSchemaSync, type AuthCheckerFn, type NonEmptyArray } from "type-graphql";
import { requireScope } from "../../platform/auth/auth.scope-of";
import type { Scope } from "../../platform/auth/auth.scopes";
import { UnauthenticatedError } from "../../platform/errors";
import type { Context } from "../../context";
import { CandleResolver } from "../../domains/candle/candle.resolver";
import { CryptoResolver } from "../../domains/crypto/crypto.resolver";
import { DividendResolver } from "../../domains/dividend/dividend.resolver";
import { EtfResolver } from "../../domains/etf/etf.resolver";
import { FundResolver } from "../../domains/fund/fund.resolver";
import { IndicesResolver } from "../../domains/indices/indices.resolver";
import { ListResolver } from "../../domains/list/list.resolver";
import { QuoteResolver } from "../../domains/quote/quote.resolver";
import { SearchResolver } from "../../domains/search/search.resolver";
import { StockResolver } from "../../domains/stock/stock.resolver";

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const RESOLVERS: NonEmptyArray<Function> = [
  QuoteResolver,
  CryptoResolver,
  SearchResolver,
  ListResolver,
  EtfResolver,
  FundResolver,
  StockResolver,
  CandleResolver,
  DividendResolver,
  IndicesResolver,
];

/**
 * `@Authorized()` means "a valid key"; `@Authorized("etf")` also needs that
 * scope. Throwing (not returning false) keeps the specific reason, which the
 * error mapping turns into 401 or 403.
 */
const authChecker: AuthCheckerFn<Context, Scope> = ({ context }, scopes) => {
  if (!context.principal) throw new UnauthenticatedError();
  for (const scope of scopes) requireScope(context, scope);
  return true;
};

let cached: GraphQLSchema | undefined;

const QUERY_DESCRIPTION =
  "Market data: quotes, candles, ETFs, funds, stocks, dividends, search, lists and index constituents. " +
  "Every field needs a valid x-api-key; data fields also need the key's scope for the security or data kind.";

/** The one schema both doors execute against; built once per process. */
export function getSchema(): GraphQLSchema {
  if (cached) return cached;
  cached = buildSchemaSync({
    resolvers: RESOLVERS,
    authChecker,
    validate: false,
  });
  // type-graphql has no option for the root type's description; the SDL and introspection show this one.
  cached.getQueryType()!.description = QUERY_DESCRIPTION;
  return cached;
}
