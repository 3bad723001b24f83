import { InvalidArgumentError } from "../common/errors";
import type { Context } from "../context";
import type { SecurityKind } from "../security/security.types";
import type { SecurityType } from "../sources/data-source";
import type { AssetListPage, ListArgs } from "./list.types";

export const DEFAULT_LIST_LIMIT = 100;

// Cursors are opaque to clients; they carry the last id and the list they belong to.
function encodeCursor(list: string, lastId: number): string {
  return Buffer.from(`${list}:${lastId}`).toString("base64url");
}

function decodeCursor(list: string, cursor: string): number {
  const m = /^([a-z]+):(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!m || m[1] !== list) throw new InvalidArgumentError("cursor: not a cursor of this list", [{ field: "cursor", issue: "invalid" }]);
  return Number(m[2]);
}

export async function listAssets(ctx: Context, list: string, types: SecurityType[], args: ListArgs): Promise<AssetListPage> {
  const max = ctx.config.limits.listMaxLimit;
  const limit = args.limit ?? Math.min(DEFAULT_LIST_LIMIT, max);
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new InvalidArgumentError(`limit: expected an integer from 1 to ${max}`, [{ field: "limit", issue: "out of range" }]);
  }
  const afterId = args.cursor ? decodeCursor(list, args.cursor) : undefined;
  // One extra row tells whether another page exists without a count query.
  const rows = await ctx.source.listSecurities({ types, afterId, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const listings = await ctx.loaders.listings.loadMany(page.map((s) => s.id));
  return {
    results: page.map((s, i) => {
      const ls = listings[i];
      const all = Array.isArray(ls) ? ls : [];
      const primary = all[0];
      return {
        symbol: primary?.symbol ?? s.isin ?? String(s.id),
        name: s.name,
        isin: s.isin,
        type: s.type as SecurityKind,
        exchange: primary?.exchange ?? "",
        currency: primary?.currency ?? s.currency,
        country: s.country,
        sector: s.sector,
        marketCapitalization: s.marketCap,
        listings: all.map((l) => ({ symbol: l.symbol, exchange: l.exchange, currency: l.currency, isPrimary: l.isPrimary })),
      };
    }),
    nextCursor: rows.length > limit ? encodeCursor(list, page[page.length - 1]!.id) : null,
  };
}
