import { NotFoundError } from "../../platform/errors";
import type { RequestContext } from "../request.context";
import { resolveInstrument } from "../instrument/instrument.service";
import { CryptoPrice } from "./crypto.types";

export async function getCryptoPrice(ctx: RequestContext, symbol: string): Promise<CryptoPrice> {
  const row = await resolveInstrument(ctx, { symbol }, ["crypto"]);
  const q = row.quote;
  if (!q) throw new NotFoundError(`no price for ${row.listing.symbol}`);
  const [base] = row.listing.symbol.split("-");
  // An instance of the GraphQL type, as the other services build theirs: its field resolvers take it as it is.
  return Object.assign(new CryptoPrice(), {
    symbol: row.listing.symbol,
    base: base!,
    name: row.security.name,
    currency: row.listing.currency,
    price: q.c,
    // Rounded to 10 decimals: enough for the smallest-priced tokens, without float noise like 536.4599999999991.
    change: Math.round((q.c - q.pc) * 1e10) / 1e10,
    changePercent: q.pc === 0 ? 0 : Math.round(((q.c - q.pc) / q.pc) * 100 * 1e4) / 1e4,
    open: q.o,
    high: q.h,
    low: q.l,
    previousClose: q.pc,
    volume: q.v,
    marketCapitalization: row.security.marketCap,
    t: q.t,
  });
}
