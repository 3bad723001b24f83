import { InvalidArgumentError } from "../../platform/errors";
import type { RequestContext } from "../request.context";
import { requireCapability } from "../ports/source.capabilities";
import type { SecurityTypeEnum } from "../instrument/instrument.types";
import type { SecurityType } from "../ports/source.types";
import type { AssetListPage, ListArgs } from "./list.types";
import { listingId, securityId } from "../instrument/instrument.ids";

export const DEFAULT_LIST_LIMIT = 100;

export async function listAssets(
  ctx: RequestContext,
  list: string,
  types: SecurityType[],
  args: ListArgs,
): Promise<AssetListPage> {
  const max = ctx.config.sizes.listMaxLimit;
  const limit = args.limit ?? Math.min(DEFAULT_LIST_LIMIT, max);
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new InvalidArgumentError(`limit: expected an integer from 1 to ${max}`, [
      { field: "limit", issue: "out of range" },
    ]);
  }
  // Cursors are the source's, opaque here as to clients; each belongs to one list.
  const source = requireCapability(ctx.source, "lists");
  const found = await source.listSecurities({ list, types, cursor: args.cursor || undefined, limit });
  if (!found) {
    throw new InvalidArgumentError("cursor: not a cursor of this list", [{ field: "cursor", issue: "invalid" }]);
  }
  const page = found.rows;
  const listings = await ctx.loaders.listings.loadMany(page.map((s) => s.id));
  return {
    results: page.map((s, i) => {
      const ls = listings[i];
      const all = Array.isArray(ls) ? ls : [];
      const primary = all[0];
      const symbol = primary?.symbol ?? s.isin ?? String(s.id);
      const exchange = primary?.exchange ?? "";
      return {
        id: securityId(s, { exchange, symbol }),
        symbol,
        name: s.name,
        isin: s.isin,
        type: s.type as SecurityTypeEnum,
        exchange,
        currency: primary?.currency ?? s.currency,
        country: s.country,
        sector: s.sector,
        marketCapitalization: s.marketCap,
        listings: all.map((l) => ({
          id: listingId(l),
          symbol: l.symbol,
          exchange: l.exchange,
          currency: l.currency,
          isPrimary: l.isPrimary,
        })),
      };
    }),
    nextCursor: found.nextCursor,
  };
}
