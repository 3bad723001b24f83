import { setImmediate as turn } from "node:timers/promises";
import type { RequestContext } from "../request.context";
import { BusyError, InvalidArgumentError } from "../../platform/errors";
import { dayOf, fxConverter } from "../fx/fx.service";
import { requireCapability, type MarketDataSource } from "../ports/source.capabilities";
import type { QuarterlyFinancialsRow, SecurityRow } from "../ports/source.types";
import { computeMetrics, quotient } from "../stock/stock.metrics";
import { computeTtm, TTM_QUARTERS } from "../stock/stock.service";
import {
  SCREENER_METRICS,
  SCREENER_METRICS_NOT_HELD,
  SCREENER_OPERATORS,
  ScreenerIndex,
  type ScreenedStock,
  type ScreenerCondition,
  type ScreenerMetric,
  type ScreenerOperator,
  type ScreenerSort,
} from "./screener.index";

export const SCREENER_DEFAULT_LIMIT = 100;
export const SCREENER_MAX_LIMIT = 1_000;
export const SCREENER_MAX_CONDITIONS = 20;

/** A stock the screener answers, with the value of each metric the query or its sort names. */
export interface ScreenerHit {
  symbol: string;
  name: string;
  isin: string | null;
  values: { metric: ScreenerMetric; value: number }[];
}

/** What the caller sent, before checking. */
export interface ScreenerRequest {
  query: readonly { metric: string; operator: string; value: number }[];
  sort?: readonly { metric: string; order?: string | null }[] | null;
  offset?: number | null;
  limit?: number | null;
}

/**
 * Stocks read and computed per turn of the event loop. SQLite answers synchronously, so a build that never yielded
 * held every other request until it ended: 12 s on the generated sample's 91,000 stocks. A page of 100 is about
 * 15 ms of work there.
 */
const PAGE = 100;
const IS_METRIC = new Set<string>(SCREENER_METRICS);
const IS_OPERATOR = new Set<string>(SCREENER_OPERATORS);

function metricOf(field: string, name: string): ScreenerMetric {
  if (IS_METRIC.has(name)) return name as ScreenerMetric;
  const missing = SCREENER_METRICS_NOT_HELD[name];
  const message = missing
    ? `${field}: ${JSON.stringify(name)} is not computed: the store holds no ${missing}`
    : `${field}: unknown metric ${JSON.stringify(name)}; expected one of ${SCREENER_METRICS.join(", ")}`;
  throw new InvalidArgumentError(message, [{ field, issue: missing ? "metric not held" : "unknown metric" }]);
}

/** The request checked: known metrics and operators, finite values, offset and limit in range. */
export function screenerArgs(r: ScreenerRequest): {
  conditions: ScreenerCondition[];
  sort: ScreenerSort[];
  offset: number;
  limit: number;
} {
  if (r.query.length === 0 || r.query.length > SCREENER_MAX_CONDITIONS)
    throw new InvalidArgumentError(`query: from 1 to ${SCREENER_MAX_CONDITIONS} items`, [
      { field: "query", issue: "out of range" },
    ]);
  const conditions = r.query.map((q, i) => {
    const metric = metricOf(`query[${i}].metric`, q.metric);
    if (!IS_OPERATOR.has(q.operator))
      throw new InvalidArgumentError(
        `query[${i}].operator: unknown operator ${JSON.stringify(q.operator)}; expected one of ` +
          SCREENER_OPERATORS.join(", "),
        [{ field: `query[${i}].operator`, issue: "unknown operator" }],
      );
    if (!Number.isFinite(q.value))
      throw new InvalidArgumentError(`query[${i}].value: expected a finite number`, [
        { field: `query[${i}].value`, issue: "not a number" },
      ]);
    return { metric, operator: q.operator as ScreenerOperator, value: q.value };
  });
  const sort = (r.sort ?? []).map((s, i) => {
    const order = (s.order ?? "asc").toLowerCase();
    if (order !== "asc" && order !== "desc")
      throw new InvalidArgumentError(`sort[${i}].order: expected asc or desc`, [
        { field: `sort[${i}].order`, issue: "unknown order" },
      ]);
    return { metric: metricOf(`sort[${i}].metric`, s.metric), order: order as "asc" | "desc" };
  });
  const offset = r.offset ?? 0;
  const limit = r.limit ?? SCREENER_DEFAULT_LIMIT;
  if (!Number.isInteger(offset) || offset < 0)
    throw new InvalidArgumentError("offset: expected a whole number from 0", [{ field: "offset", issue: "bad" }]);
  if (!Number.isInteger(limit) || limit < 1 || limit > SCREENER_MAX_LIMIT)
    throw new InvalidArgumentError(`limit: expected a whole number from 1 to ${SCREENER_MAX_LIMIT}`, [
      { field: "limit", issue: "out of range" },
    ]);
  return { conditions, sort, offset, limit };
}

/** The screener metrics of one stock, from its reported quarters and its price in the reporting currency. */
export function screenerMetricsOf(
  reported: readonly QuarterlyFinancialsRow[],
  price: number | null,
): Record<ScreenerMetric, number | null> {
  const none = Object.fromEntries(SCREENER_METRICS.map((m) => [m, null])) as Record<ScreenerMetric, number | null>;
  if (reported.length < TTM_QUARTERS) return none;
  const { ttm: t, balanceSheet: b, marketCapitalization } = computeTtm(reported, price);
  const f = computeMetrics({
    ttm: t,
    balanceSheet: b,
    price,
    marketCap: marketCapitalization,
    reported: [],
    quote: null,
    bars: [],
  });
  const ev = f.enterpriseValue;
  return {
    equityRatio: quotient(b.totalEquity, b.totalAssets),
    debtRatio: quotient(b.totalLiabilities, b.totalAssets),
    debtToEquityRatio: f.debtToEquity,
    dynamicLeverage: quotient(b.totalDebt - b.cash, t.operatingCashFlow),
    returnOnEquity: f.roe,
    salesReturn: quotient(t.netIncome, t.revenue),
    ebitMargin: quotient(t.operatingIncome, t.revenue),
    capitalTurnover: quotient(t.revenue, b.totalAssets),
    assetsReturn: quotient(t.netIncome, b.totalAssets),
    ev,
    "ev/revenue": f.evToSales,
    "ev/ebit": ev == null ? null : quotient(ev, t.operatingIncome),
    "ev/fcf": f.evToFreeCashFlow,
    priceEarningsRatio: f.peRatio,
    priceBookRatio: f.pbRatio,
    priceCashflowRatio: f.pocfratio,
    priceSalesRatio: f.priceToSalesRatio,
  };
}

/**
 * Every stock's metrics from the store, page by page (a few statements per page of 500 stocks): the quarters
 * reported on or before today, the primary listing's latest price in the reporting currency at its day's rate.
 */
async function buildIndex(ctx: RequestContext): Promise<ScreenerIndex> {
  const lists = requireCapability(ctx.source, "lists");
  const instruments = requireCapability(ctx.source, "instruments");
  const fundamentals = requireCapability(ctx.source, "fundamentals");
  const today = dayOf(Math.floor(ctx.clock.now().getTime() / 1000));
  const stocks: ScreenedStock[] = [];
  const metrics: Record<ScreenerMetric, number | null>[] = [];
  const rates = new Map<string, Promise<number | null>>();
  const rate = (from: string, to: string, day: string) => {
    const key = `${from}:${to}:${day}`;
    let r = rates.get(key);
    if (!r) {
      r = fxConverter(ctx, from, to, day, day).then(
        (f) => f(day),
        // A currency without a rate that day: the stock's price figures are null, as stock/metric's are.
        () => null,
      );
      rates.set(key, r);
    }
    return r;
  };
  let cursor: string | undefined;
  do {
    const page = await lists.listSecurities({ list: "screener", types: ["stock"], cursor, limit: PAGE });
    if (!page) break;
    const rows: SecurityRow[] = page.rows;
    const ids = rows.map((s) => s.id);
    const [listings, quarters] = await Promise.all([
      instruments.getListingsBySecurityIds(ids),
      fundamentals.getQuarterlyFinancials(ids),
    ]);
    const primaries = listings.map((ls) => ls.find((l) => l.isPrimary) ?? ls[0] ?? null);
    const quotes = await instruments.getQuotes(primaries.flatMap((l) => (l ? [l.id] : [])));
    let qi = 0;
    for (let k = 0; k < rows.length; k++) {
      const s = rows[k]!;
      const listing = primaries[k];
      if (!listing) continue;
      const quote = quotes[qi++] ?? null;
      const reported = quarters[k]!.filter((q) => q.reportedDate <= today);
      const reporting = reported[reported.length - 1]?.currency ?? s.currency;
      let price: number | null = null;
      if (quote && reported.length >= TTM_QUARTERS) {
        const r = listing.currency === reporting ? 1 : await rate(listing.currency, reporting, dayOf(quote.t));
        if (r != null) price = Math.round(quote.c * r * 1e6) / 1e6;
      }
      stocks.push({ symbol: listing.symbol, name: s.name, isin: s.isin });
      metrics.push(screenerMetricsOf(reported, price));
    }
    cursor = page.nextCursor ?? undefined;
    // Requests that arrived meanwhile are served before the next page.
    await turn();
  } while (cursor);
  return ScreenerIndex.build(stocks, metrics);
}

interface Held {
  index: Promise<ScreenerIndex>;
  version: number | null;
  day: string;
  builtAt: number;
  rebuilding: boolean;
}

/** Without a data version, an index is rebuilt when this old. */
const UNVERSIONED_MS = 60_000;

const held = new WeakMap<MarketDataSource, Held>();

/**
 * The index of the store behind `ctx`, built on first use. When the store's data version or the clock's day moves,
 * the next request starts a rebuild and the requests until it is done answer from the index they had: the answer is
 * never more than one build behind the store, and no request waits for a rebuild but the first.
 */
export function screenerIndexOf(ctx: RequestContext): Promise<ScreenerIndex> {
  const version = ctx.source.dataVersion?.() ?? null;
  const now = ctx.clock.now().getTime();
  const day = dayOf(Math.floor(now / 1000));
  const h = held.get(ctx.source);
  if (!h) {
    const fresh: Held = { index: buildIndex(ctx), version, day, builtAt: now, rebuilding: false };
    held.set(ctx.source, fresh);
    // A failed first build is not kept: the next request tries again.
    fresh.index.catch(() => held.get(ctx.source) === fresh && held.delete(ctx.source));
    return fresh.index;
  }
  const stale = h.version !== version || h.day !== day || (version == null && now - h.builtAt > UNVERSIONED_MS);
  if (stale && !h.rebuilding) {
    h.rebuilding = true;
    buildIndex(ctx).then(
      (index) => held.set(ctx.source, { index: Promise.resolve(index), version, day, builtAt: now, rebuilding: false }),
      () => (h.rebuilding = false),
    );
  }
  return h.index;
}

/** How long a request waits for the first build of the index before it is told to come back. */
export const FIRST_BUILD_WAIT_MS = 5_000;

/**
 * The index once built, or BUSY with `Retry-After` past `ms`: the first build reads every stock (about 10 s on the
 * generated sample's 91,000), longer than a request may take, and goes on for the requests after.
 */
export async function indexWithin(index: Promise<ScreenerIndex>, ms: number): Promise<ScreenerIndex> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new BusyError(
            "the screener's index of every stock's metrics is being built, which takes some seconds on a large " +
              "store; retry shortly",
            Math.ceil(ms / 1000),
          ),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([index, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The screener's answer over the index: the stocks, each with the values the query and sort name. */
export async function screenerOf(ctx: RequestContext, request: ScreenerRequest): Promise<ScreenerHit[]> {
  const { conditions, sort, offset, limit } = screenerArgs(request);
  const index = await indexWithin(screenerIndexOf(ctx), FIRST_BUILD_WAIT_MS);
  const named = [...new Set([...conditions.map((c) => c.metric), ...sort.map((s) => s.metric)])];
  return index.query(conditions, sort, offset, limit).map((i) => {
    const s = index.stocks[i]!;
    return {
      symbol: s.symbol,
      name: s.name,
      isin: s.isin,
      values: named.map((metric) => ({ metric, value: index.value(i, metric)! })),
    };
  });
}
