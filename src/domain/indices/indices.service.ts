import { InvalidArgumentError, NotFoundError } from "../../platform/errors";
import type { RequestContext } from "../request.context";
import type { IndexConstituents } from "./indices.types";

/** Members of an index with their weights, heaviest first. */
export async function getIndexConstituents(ctx: RequestContext, rawSymbol: string): Promise<IndexConstituents> {
  const symbol = rawSymbol.trim().toUpperCase();
  if (symbol === "")
    throw new InvalidArgumentError("symbol: expected a non-empty string", [{ field: "symbol", issue: "required" }]);
  const rows = await ctx.loaders.indexConstituents.load(symbol);
  if (rows.length === 0) throw new NotFoundError(`no index found for ${JSON.stringify(rawSymbol)}`);
  const ids = rows.map((r) => r.securityId);
  const [securities, listings] = await Promise.all([
    ctx.loaders.security.loadMany(ids),
    ctx.loaders.listings.loadMany(ids),
  ]);
  return {
    symbol,
    name: rows[0]!.indexName,
    constituents: rows.map((r, i) => {
      const s = securities[i];
      const ls = listings[i];
      const security = s && !(s instanceof Error) ? s : null;
      const primary = Array.isArray(ls) ? ls[0] : undefined;
      return {
        symbol: primary?.symbol ?? security?.isin ?? String(r.securityId),
        name: security?.name ?? "",
        isin: security?.isin ?? null,
        weight: r.weight,
      };
    }),
  };
}
