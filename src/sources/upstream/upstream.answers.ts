import type { Answers } from "../../domain/answers";
import type { RequestContext } from "../../domain/request.context";
import { requireScope } from "../../domain/instrument/instrument.access";
import { InvalidArgumentError, NotAvailableError, NotFoundError } from "../../platform/errors";
import type { CandleArgs, CandleRangeArgs, Candles } from "../../domain/candle/candle.types";
import type { CryptoPrice } from "../../domain/crypto/crypto.types";
import type {
  AnnualDividends,
  Dividend,
  DividendCalendarArgs,
  DividendCalendarPage,
  DividendEstimate,
} from "../../domain/dividend/dividend.types";
import type { EtfMetricsArgs } from "../../domain/etf/etf.args";
import {
  Etf,
  type EtfFundamentals,
  type EtfHoldings,
  type EtfMetrics,
  type EtfProfile,
} from "../../domain/etf/etf.types";
import type { AllocationWeight, CountryWeight, SectorWeight } from "../../domain/exposure/exposure.types";
import type { FundArgs } from "../../domain/fund/fund.args";
import { Fund, type FundHoldings, type FundProfile } from "../../domain/fund/fund.types";
import { assignHoldingIds, holdingsId, listingId, securityId } from "../../domain/instrument/instrument.ids";
import type { SecurityRef } from "../../domain/instrument/instrument.service";
import type { ListName } from "../../domain/list/list.answers";
import type { AssetListPage, ListArgs } from "../../domain/list/list.types";
import { Quote, type QuoteMetrics } from "../../domain/quote/quote.types";
import type { AggregatedSearchResult, SearchArgs, SearchResult } from "../../domain/search/search.types";
import { Stock, type FinancialsTtm } from "../../domain/stock/stock.types";
import { bodyOf, UpstreamCalls, type UpstreamBody } from "./upstream.calls";
import type { UpstreamClient } from "./upstream.types";

/*
 * Gateway mode's answers (docs/contract.md section 9): each GraphQL field asks the upstream's own REST
 * endpoint for it and turns the contract's JSON back into our GraphQL types, so that our REST layer, which shapes
 * GraphQL data into the contract, answers what the upstream answered. The upstream is asked in v1 shapes except
 * where v0 carries more (ETF holdings' `cusip`, which our v1 then drops as usual).
 */

/** The contract's quote (docs/contract.md section 4). */
interface RestQuote {
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

type RestEtfFundamentals = { symbol: string; isin: string | null; name: string; fundamentals: EtfFundamentals | null };
type RestHoldings<H> = { atDate: string | null; currency?: string; holdings: H[] };
type RestEtfHolding = Omit<EtfHoldings["holdings"][number], "id" | "sector" | "country">;
type RestFundHolding = Omit<FundHoldings["holdings"][number], "id">;
type RestFundProfile = { isin: string; symbol: string; profile: Omit<FundProfile, "id"> | null };

/** What an upstream-made ETF, fund or stock was asked as, for its fields' calls. */
interface Asked {
  body: UpstreamBody;
  /** The ETF's fundamentals, fetched with its identity. */
  fundamentals?: EtfFundamentals | null;
  /** The fund's profile, fetched with its identity. */
  fundProfile?: RestFundProfile["profile"];
}

const ASKED = new WeakMap<object, Asked>();
/** A quote's metrics as the upstream stated them (its security type is not stated, so they cannot be derived). */
const METRICS = new WeakMap<Quote, QuoteMetrics | null>();

const SECURITY_TYPE_SCOPES = ["stock", "etf", "fund", "crypto"] as const;

/**
 * The scope a quote or candles need is their security's type's (auth.scope-of.ts), which the upstream's quote and
 * candle answers do not state: a quote with company metrics is a stock's; anything else needs a key that may read
 * every type. Stricter than the row store for narrow keys, never looser.
 */
function requireTypeScope(ctx: RequestContext, isStock: boolean): void {
  if (isStock) return requireScope(ctx, "stock");
  for (const scope of SECURITY_TYPE_SCOPES) requireScope(ctx, scope);
}

function refBody(ref: SecurityRef): UpstreamBody {
  return bodyOf({ symbol: ref.symbol, isin: ref.isin, cusip: ref.cusip, wkn: ref.wkn });
}

/** A body with the asked `currency`, when one was asked. */
function withCurrency(body: UpstreamBody, currency: string | null | undefined): UpstreamBody {
  return currency == null ? body : { ...body, currency };
}

function askedOf(o: object): Asked {
  const a = ASKED.get(o);
  // Only this module makes the objects its answers receive back; anything else is a wiring fault.
  if (!a) throw new Error("gateway answers got an object they did not make");
  return a;
}

function tooMany(field: string, n: number, max: number, what = "symbols"): void {
  if (n > max)
    throw new InvalidArgumentError(`${field}: at most ${max} ${what} per call`, [{ field, issue: "too many" }]);
}

function toQuote(d: RestQuote): Quote {
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

function toEtf(d: RestEtfFundamentals): Etf {
  const etf = Object.assign(new Etf(), { symbol: d.symbol, name: d.name, isin: d.isin });
  ASKED.set(etf, { body: { symbol: d.symbol }, fundamentals: d.fundamentals });
  return etf;
}

function toFund(d: RestFundProfile): Fund {
  // No name without a profile: left undefined, so asking for it is NOT_AVAILABLE (instrument.served.ts).
  const fund = Object.assign(new Fund(), { isin: d.isin, symbol: d.symbol, name: d.profile?.name });
  ASKED.set(fund, { body: { isin: d.isin }, fundProfile: d.profile });
  return fund;
}

/** A security's id as instrument.ids.ts makes it, from what the upstream's answer names. */
const ownerId = (isin: string | null, symbol: string) => isin ?? symbol;

/** Gateway mode's answers over `client`: one `UpstreamCalls` per request. */
export function createUpstreamAnswers(client: UpstreamClient): Answers {
  const perRequest = new WeakMap<RequestContext, UpstreamCalls>();
  const calls = (ctx: RequestContext): UpstreamCalls => {
    let c = perRequest.get(ctx);
    if (!c) perRequest.set(ctx, (c = new UpstreamCalls(client, ctx)));
    return c;
  };

  const quote: Answers["quote"] = {
    async get(ctx, ref) {
      const q = toQuote(
        await calls(ctx).get<RestQuote>("/v1/quote", "quote", bodyOf({ ...refBody(ref), currency: ref.currency })),
      );
      requireTypeScope(ctx, METRICS.get(q) != null);
      return q;
    },
    async getMany(ctx, symbols, currency) {
      tooMany("symbols", symbols.length, ctx.config.sizes.bulkMaxSymbols);
      const docs = await calls(ctx).getMany<RestQuote>(
        "/v1/quote",
        "quote",
        symbols.map((symbol) => bodyOf({ symbol, currency })),
      );
      return docs.map((d) => {
        // As the row store: null where a symbol names nothing, an Error where the item fails alone.
        if (d instanceof NotFoundError) return null;
        if (d instanceof Error) return d;
        const q = toQuote(d);
        try {
          requireTypeScope(ctx, METRICS.get(q) != null);
        } catch (e) {
          return e as Error;
        }
        return q;
      });
    },
    metrics: (q) => METRICS.get(q) ?? null,
  };

  const candles = async (ctx: RequestContext, ref: SecurityRef, args: CandleRangeArgs): Promise<Candles> => {
    const body = bodyOf({
      ...refBody(ref),
      from: args.from,
      to: args.to,
      resolution: args.resolution,
      currency: args.currency,
    });
    const c = await calls(ctx).get<Candles>("/v1/candle", "bars", body);
    requireTypeScope(ctx, false);
    return c;
  };

  const etf: Answers["etf"] = {
    async get(ctx, ref) {
      return toEtf(await calls(ctx).get<RestEtfFundamentals>("/v1/etf/fundamentals", "reference", refBody(ref)));
    },
    async getMany(ctx, symbols) {
      tooMany("symbols", symbols.length, ctx.config.sizes.bulkMaxSymbols);
      const docs = await calls(ctx).getMany<RestEtfFundamentals>(
        "/v1/etf/fundamentals",
        "reference",
        symbols.map((symbol) => ({ symbol })),
      );
      return docs.map((d) => {
        if (d instanceof NotFoundError) return null;
        if (d instanceof Error) throw d;
        return toEtf(d);
      });
    },
    async profile(ctx, e) {
      const d = await calls(ctx).get<{ profile: Omit<EtfProfile, "id"> | null }>(
        "/v1/etf/profile",
        "reference",
        askedOf(e).body,
      );
      return d.profile && { ...d.profile, id: ownerId(d.profile.isin, e.symbol) };
    },
    async holdings(ctx, e) {
      const d = await calls(ctx).get<RestHoldings<RestEtfHolding>>("/v0/etf/holdings", "reference", askedOf(e).body);
      const id = holdingsId(ownerId(e.isin, e.symbol), d.atDate);
      // The currency of the holdings' values is the NAV's, which the fundamentals carry; the holdings do not.
      const currency = askedOf(e).fundamentals?.navCurrency;
      // The contract's holdings carry no sector or country: null, as for a holding whose sector is unknown.
      const holdings = d.holdings.map((h) => ({ ...h, sector: null, country: null }));
      return { id, atDate: d.atDate, currency: currency!, holdings: assignHoldingIds(id, holdings) };
    },
    async sectorExposure(ctx, e) {
      const d = await calls(ctx).get<{ sectorExposure: SectorWeight[] }>(
        "/v1/etf/sector",
        "reference",
        askedOf(e).body,
      );
      return d.sectorExposure;
    },
    async countryExposure(ctx, e) {
      const d = await calls(ctx).get<{ countryExposure: CountryWeight[] }>(
        "/v1/etf/country",
        "reference",
        askedOf(e).body,
      );
      return d.countryExposure;
    },
    async fundamentals(_ctx, e) {
      return askedOf(e).fundamentals ?? null;
    },
    async metrics(ctx, e, args: EtfMetricsArgs) {
      const body = bodyOf({
        ...askedOf(e).body,
        from: args.from,
        to: args.to,
        resolution: args.resolution,
        currency: args.currency,
      });
      const { symbol: _symbol, ...metrics } = await calls(ctx).get<EtfMetrics & { symbol: string }>(
        "/v1/etf/metrics",
        "reference",
        body,
      );
      return metrics;
    },
  };

  const fundPart = async <K extends string, T>(ctx: RequestContext, f: Fund, path: string, key: K): Promise<T> => {
    const d = await calls(ctx).get<Record<K, T>>(path, "reference", askedOf(f).body);
    return d[key];
  };

  const fund: Answers["fund"] = {
    async get(ctx, args: FundArgs) {
      return toFund(await calls(ctx).get<RestFundProfile>("/v1/fund/profile", "reference", refBody(args)));
    },
    async getMany(ctx, isins) {
      tooMany("isins", isins.length, ctx.config.sizes.bulkMaxSymbols, "ISINs");
      const docs = await calls(ctx).getMany<RestFundProfile>(
        "/v1/fund/profile",
        "reference",
        isins.map((isin) => ({ isin: isin.trim().toUpperCase() })),
      );
      return docs.map((d) => {
        if (d instanceof NotFoundError || d instanceof InvalidArgumentError) return null;
        if (d instanceof Error) throw d;
        return toFund(d);
      });
    },
    async profile(_ctx, f) {
      const p = askedOf(f).fundProfile;
      return p ? { ...p, id: f.isin } : null;
    },
    sectors: (ctx, f) => fundPart<"sectorExposure", SectorWeight[]>(ctx, f, "/v1/fund/sector", "sectorExposure"),
    countries: (ctx, f) => fundPart<"countryExposure", CountryWeight[]>(ctx, f, "/v1/fund/country", "countryExposure"),
    allocation: (ctx, f) =>
      fundPart<"allocationExposure", AllocationWeight[]>(ctx, f, "/v1/fund/allocation-exposure", "allocationExposure"),
    async holdings(ctx, f) {
      const d = await calls(ctx).get<RestHoldings<RestFundHolding>>("/v1/fund/holding", "reference", askedOf(f).body);
      const id = holdingsId(f.isin, d.atDate);
      return { id, atDate: d.atDate, currency: d.currency!, holdings: assignHoldingIds(id, d.holdings) };
    },
  };

  const stock: Answers["stock"] = {
    // No upstream endpoint answers a stock's identity: the fields carry what the client named, the rest is
    // NOT_AVAILABLE (instrument.served.ts), and the data fields ask the upstream with the same identifier.
    async get(_ctx, ref) {
      const s = Object.assign(new Stock(), {
        symbol: ref.symbol?.trim().toUpperCase(),
        isin: ref.isin?.trim().toUpperCase(),
      });
      ASKED.set(s, { body: refBody(ref) });
      return s;
    },
    financialsTtm: async (ctx, s, currency) =>
      calls(ctx).get<FinancialsTtm>("/v1/stock/financials/ttm", "reference", withCurrency(askedOf(s).body, currency)),
    candles: (ctx, s, args) => candles(ctx, askedOf(s).body, args),
    async dividends(): Promise<Dividend[]> {
      throw new NotAvailableError(
        "Stock.dividends is not served by the upstream (no endpoint lists them)",
        "dividends",
      );
    },
    annualDividends: (ctx, s, currency) =>
      calls(ctx).get<AnnualDividends>("/v1/dividends/annual", "reference", withCurrency(askedOf(s).body, currency)),
    dividendEstimate: (ctx, s) =>
      calls(ctx).get<DividendEstimate>("/v1/stock/dividend-estimate", "reference", askedOf(s).body),
  };

  return {
    quote,
    etf,
    fund,
    stock,
    candle: { get: (ctx, args: CandleArgs) => candles(ctx, args, args) },
    crypto: {
      price: (ctx, symbol) => calls(ctx).get<CryptoPrice>("/v1/crypto/price", "quote", { symbol }),
    },
    dividend: {
      calendar: (ctx, args: DividendCalendarArgs) =>
        calls(ctx).get<DividendCalendarPage>("/v1/calendar/dividends", "reference", bodyOf({ ...args })),
      annual: (ctx, ref) =>
        calls(ctx).get<AnnualDividends>("/v1/dividends/annual", "reference", withCurrency(refBody(ref), ref.currency)),
      estimate: (ctx, ref) => calls(ctx).get<DividendEstimate>("/v1/etf/dividend-estimate", "reference", refBody(ref)),
    },
    search: {
      async search(ctx, args: SearchArgs) {
        const d = await calls(ctx).get<SearchResult>("/v1/search", "reference", bodyOf({ ...args }));
        return { ...d, results: d.results.map((h) => ({ ...h, id: listingId(h) })) };
      },
      async aggregated(ctx, args: SearchArgs) {
        const d = await calls(ctx).get<AggregatedSearchResult>(
          "/v1/search/aggregated",
          "reference",
          bodyOf({ ...args }),
        );
        return {
          ...d,
          results: d.results.map((g) => ({
            ...g,
            id: securityId(g, g.listings[0] ?? g),
            listings: g.listings.map((l) => ({ ...l, id: listingId(l) })),
          })),
        };
      },
    },
    list: {
      async page(ctx, list: ListName, args: ListArgs): Promise<AssetListPage> {
        const d = await calls(ctx).get<AssetListPage>(`/v1/list/${list}`, "reference", bodyOf({ ...args }));
        return {
          ...d,
          results: d.results.map((s) => ({
            ...s,
            id: securityId(s, s),
            listings: s.listings.map((l) => ({ ...l, id: listingId(l) })),
          })),
        };
      },
    },
    indices: {
      async constituents() {
        // The upstream's REST removed /v0/index/constituents (2024-05-01); GraphQL keeps it over a row store only.
        throw new NotAvailableError("index constituents are not served by the upstream", "indices");
      },
    },
  };
}
