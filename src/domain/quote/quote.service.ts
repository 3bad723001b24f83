import { requireScope, SCOPE_OF_TYPE } from "../instrument/instrument.access";
import { InvalidArgumentError, NotFoundError } from "../../platform/errors";
import type { RequestContext } from "../request.context";
import { dayOf, fxConverter, normalizeCurrency, roundMoney } from "../fx/fx.service";
import { resolveInstrument, type SecurityRef } from "../instrument/instrument.service";
import { SecurityTypeEnum } from "../instrument/instrument.types";
import type { InstrumentRow } from "../ports/source.types";
import { Quote, type QuoteMetrics } from "./quote.types";

const round = (x: number, digits = 6) => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

/** Builds the quote of a resolved instrument, optionally converted into `currency` at the quote day's rate. */
export async function quoteOf(ctx: RequestContext, row: InstrumentRow, currency?: string | null): Promise<Quote> {
  requireScope(ctx, SCOPE_OF_TYPE[row.security.type]);
  const q = row.quote;
  if (!q) throw new NotFoundError(`no quote for ${row.listing.symbol}`);
  const target = currency ? normalizeCurrency(currency) : row.listing.currency;
  let f = 1;
  if (target !== row.listing.currency) {
    const day = dayOf(q.t);
    f = (await fxConverter(ctx, row.listing.currency, target, day, day))(day);
  }
  // Stored prices pass through untouched; converted ones are rounded to the target currency's tick.
  const px = (x: number) => (f === 1 ? x : roundMoney(x * f, target));
  const c = px(q.c);
  const pc = px(q.pc);
  // A Quote instance, not a plain object: type-graphql would copy a plain root into one for every field resolver.
  return Object.assign(new Quote(), {
    symbol: row.listing.symbol,
    name: row.security.name,
    type: row.security.type as SecurityTypeEnum,
    isin: row.security.isin,
    c,
    d: round(c - pc, 10),
    dp: pc === 0 ? 0 : round(((q.c - q.pc) / q.pc) * 100, 4),
    h: px(q.h),
    l: px(q.l),
    o: px(q.o),
    pc,
    t: q.t,
    v: q.v,
    currency: target,
    exchange: row.listing.exchange,
    earningsAnnouncement: row.security.nextEarningsDate,
    historicalPrice: {
      day: c,
      // Averages are derived, not stored prices: rounded so they carry no float noise.
      fiftyDays: q.ma50 == null ? null : f === 1 ? round(q.ma50) : roundMoney(q.ma50 * f, target),
      twoHundredDays: q.ma200 == null ? null : f === 1 ? round(q.ma200) : roundMoney(q.ma200 * f, target),
    },
    securityId: row.security.id,
    securityType: row.security.type as SecurityTypeEnum,
    marketCap: row.security.marketCap,
    sharesOutstanding: row.security.sharesOutstanding,
    avgVolume: q.avgVolume,
    epsTtm: row.security.epsTtm,
    netIncomeTtm: row.security.netIncomeTtm,
  });
}

export async function getQuote(ctx: RequestContext, ref: SecurityRef & { currency?: string | null }): Promise<Quote> {
  return quoteOf(ctx, await resolveInstrument(ctx, ref), ref.currency);
}

/**
 * Quotes by symbol in request order, for GraphQL's `quotes`: null where a
 * symbol names nothing, and an Error in place of a quote the key may not read
 * (or that cannot be converted), which GraphQL reports at that item's path
 * while the others answer. All symbols go through one batched lookup.
 */
export async function getQuotes(
  ctx: RequestContext,
  symbols: readonly string[],
  currency?: string | null,
): Promise<(Quote | Error | null)[]> {
  const max = ctx.config.sizes.bulkMaxSymbols;
  if (symbols.length > max) {
    throw new InvalidArgumentError(`symbols: at most ${max} symbols per call`, [
      { field: "symbols", issue: "too many" },
    ]);
  }
  const rows = await ctx.loaders.instrumentBySymbol.loadMany(symbols);
  return Promise.all(
    rows.map(async (row) => {
      if (row === null || row instanceof Error) return row;
      try {
        return await quoteOf(ctx, row, currency);
      } catch (e) {
        return e instanceof Error ? e : new Error(String(e));
      }
    }),
  );
}

/**
 * The quote's company metrics (docs/contract.md section 4). Client models require market cap, average volume, EPS
 * and shares outstanding as numbers, so metrics are null wherever one of them does not exist for the security (EPS
 * of an ETF or a fund, any of them for crypto and forex) or is not known; P/E alone may be missing (not positive
 * earnings).
 */
export function metricsOf(quote: Quote): QuoteMetrics | null {
  if (quote.securityType !== SecurityTypeEnum.stock) return null;
  const { marketCap, avgVolume, epsTtm, sharesOutstanding } = quote;
  if (marketCap == null || avgVolume == null || epsTtm == null || sharesOutstanding == null) return null;
  // Trailing figures stored with the security (sums of the latest four quarters): no second query on the hot path.
  const netIncome = quote.netIncomeTtm;
  // Market cap over TTM net income is P/E without converting the listing's price into the reporting currency.
  const pe = netIncome != null && netIncome > 0 ? round(marketCap / netIncome, 4) : null;
  return {
    marketCapitalization: marketCap,
    avgVolume,
    eps: round(epsTtm, 4),
    peRatio: pe,
    sharesOutstanding,
  };
}
