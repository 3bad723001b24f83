import type { SecurityRef } from "../../../domain/instrument/instrument.service";
import { Quote, type QuoteMetrics } from "../../../domain/quote/quote.types";
import { bodyOf, refBody } from "../upstream.calls";
import type { UpstreamFetcher } from "../upstream.fetcher";

/** The contract's quote (docs/contract.md section 4). */
export interface RestQuote {
  symbol: string;
  c: number;
  d: number;
  dp: number;
  h: number;
  l: number;
  o: number;
  pc: number;
  t: number;
  v: number;
  currency: string;
  exchange: string;
  earningsAnnouncement: string | null;
  historical_price: { day: number | null; "50days": number | null; "200days": number | null };
  metrics: {
    marketCapitalization: number;
    avgVolume: number;
    eps: number;
    "pe/ratio"?: number;
    sharesOutstanding: number;
  } | null;
}

export type QuoteQuery = SecurityRef & { currency?: string | null };

/** A quote's metrics as the upstream stated them (its security type is not stated, so they cannot be derived). */
const METRICS = new WeakMap<Quote, QuoteMetrics | null>();

/** The metrics that came with an upstream-made quote; null for a quote without company metrics. */
export function quoteMetrics(q: Quote): QuoteMetrics | null {
  return METRICS.get(q) ?? null;
}

export function toQuote(d: RestQuote): Quote {
  const hp = d.historical_price;
  // A Quote instance, as the row store makes: type-graphql would copy a plain root for every field resolver.
  const q = Object.assign(new Quote(), {
    symbol: d.symbol,
    c: d.c,
    d: d.d,
    dp: d.dp,
    h: d.h,
    l: d.l,
    o: d.o,
    pc: d.pc,
    t: d.t,
    v: d.v,
    currency: d.currency,
    exchange: d.exchange,
    earningsAnnouncement: d.earningsAnnouncement,
    historicalPrice: { day: hp.day, fiftyDays: hp["50days"], twoHundredDays: hp["200days"] },
  });
  const m = d.metrics;
  METRICS.set(
    q,
    m && {
      marketCapitalization: m.marketCapitalization,
      avgVolume: m.avgVolume,
      eps: m.eps,
      peRatio: m["pe/ratio"] ?? null,
      sharesOutstanding: m.sharesOutstanding,
    },
  );
  return q;
}

export const quoteFetcher: UpstreamFetcher<QuoteQuery, RestQuote, Quote> = {
  path: "/v1/quote",
  kind: "quote",
  request: (q) => bodyOf({ ...refBody(q), currency: q.currency }),
  transform: toQuote,
};
