import type { IndexedSecurity } from "../../domain/search/search.index";
import type { SearchIndexReader } from "../../domain/search/search.live";

/**
 * The examples of the OpenAPI document: a request body for every operation, which the docs page's "Try it out"
 * sends as it is, and an answer for every 200. Requests name the first security of each kind in the store's own
 * lists (`list/stocks`, `list/etfs`, `list/funds`, `list/crypto` with limit 1), so that "Execute" answers 200 on the
 * store the service runs on. Each body names its security by one identifier only: two are refused.
 */

type Json = Record<string, unknown>;

/** The securities the examples name, one of each kind. */
export interface ExampleSecurities {
  /** The symbol of the first stock (its primary listing). */
  stock: string;
  etf: string;
  /** Funds are named by ISIN (their symbol in the sample is the ISIN too). */
  fundIsin: string;
  /** A crypto pair, BASE-QUOTE. */
  crypto: string;
  forex: string;
}

/**
 * The first securities of the sample `npm start` builds by default (`MDG_SAMPLE_SEED` 42, `MDG_SAMPLE_SCALE` 1).
 * They are what docs/openapi.json names, since that file is written without a store. The sample's symbols depend on
 * the seed and the scale, not on the anchor day; a test rebuilds the default sample's securities and fails when these
 * differ. A running service names its own store's securities instead (`exampleSecurities`).
 */
export const DEFAULT_SAMPLE_SECURITIES: ExampleSecurities = {
  stock: "TRVP.F",
  etf: "SUGO",
  fundIsin: "LU0120611610",
  crypto: "BTC-USD",
  forex: "EURUSD",
};

/** The index the removed `/v0/index/constituents` example names (every sample has it). */
const EXAMPLE_INDEX = "MDG100";

/**
 * The first security of each kind in the store's lists, taken from the search index the service builds at start
 * (every security, with its listings primary first): no store query, so a slow or stuck store cannot hold up the
 * start. A kind the store lacks keeps the default sample's, as does gateway mode, whose index is empty (the upstream
 * searches itself).
 */
export function exampleSecurities(
  index: Pick<SearchIndexReader, "first">,
  fallback: ExampleSecurities = DEFAULT_SAMPLE_SECURITIES,
): ExampleSecurities {
  // As list/* names an item: by its primary listing's symbol.
  const symbolOf = (s: IndexedSecurity | undefined) => (s?.listings.find((l) => l.isPrimary) ?? s?.listings[0])?.symbol;
  return {
    stock: symbolOf(index.first("stock")) ?? fallback.stock,
    etf: symbolOf(index.first("etf")) ?? fallback.etf,
    fundIsin: index.first("fund")?.isin ?? fallback.fundIsin,
    crypto: symbolOf(index.first("crypto")) ?? fallback.crypto,
    forex: symbolOf(index.first("forex")) ?? fallback.forex,
  };
}

export interface NamedExample {
  summary: string;
  value: Json;
}

const one = (summary: string, value: Json): NamedExample => ({ summary, value });

/** Request examples by route path, the one "Try it out" fills in first. */
const REQUESTS: Record<string, (s: ExampleSecurities) => Record<string, NamedExample>> = {
  "crypto/price": (s) => ({ crypto: one("The first crypto pair", { symbol: s.crypto }) }),
  quote: (s) => ({
    stock: one("The first stock, by symbol", { symbol: s.stock }),
    etf: one("The first ETF", { symbol: s.etf }),
    fund: one("The first fund, by ISIN", { isin: s.fundIsin }),
    crypto: one("A crypto pair", { symbol: s.crypto }),
    forex: one("A forex pair", { symbol: s.forex }),
    converted: one("The first stock, prices in another currency", { symbol: s.stock, currency: "JPY" }),
  }),
  search: (s) => ({
    symbol: one("A symbol", { query: s.stock, limit: 5 }),
    words: one("Words of a name, ETFs only", { query: "growth", limit: 5, types: ["etf"] }),
  }),
  "search/aggregated": (s) => ({ symbol: one("A symbol", { query: s.stock, limit: 5 }) }),
  "list/stocks": () => ({ firstPage: one("The first page of ten", { limit: 10 }) }),
  "list/etfs": () => ({ firstPage: one("The first page of ten", { limit: 10 }) }),
  "list/funds": () => ({ firstPage: one("The first page of ten", { limit: 10 }) }),
  "list/crypto": () => ({ firstPage: one("The first page of ten", { limit: 10 }) }),
  "etf/metrics": (s) => ({
    monthly: one("The first ETF's monthly returns", { symbol: s.etf, resolution: "M" }),
    daily: one("Daily returns of 2026 so far", { symbol: s.etf, from: "2026-01-01" }),
  }),
  "etf/fundamentals": (s) => ({ etf: one("The first ETF", { symbol: s.etf }) }),
  "etf/profile": (s) => ({ etf: one("The first ETF", { symbol: s.etf }) }),
  "etf/holdings": (s) => ({ etf: one("The first ETF", { symbol: s.etf }) }),
  "etf/sector": (s) => ({ etf: one("The first ETF", { symbol: s.etf }) }),
  "etf/country": (s) => ({ etf: one("The first ETF", { symbol: s.etf }) }),
  "etf/dividend-estimate": (s) => ({ etf: one("The first ETF", { symbol: s.etf }) }),
  "fund/profile": (s) => ({ fund: one("The first fund, by ISIN", { isin: s.fundIsin }) }),
  "fund/sector": (s) => ({ fund: one("The first fund, by ISIN", { isin: s.fundIsin }) }),
  "fund/country": (s) => ({ fund: one("The first fund, by ISIN", { isin: s.fundIsin }) }),
  "fund/holding": (s) => ({ fund: one("The first fund, by ISIN", { isin: s.fundIsin }) }),
  "fund/allocation-exposure": (s) => ({ fund: one("The first fund, by ISIN", { isin: s.fundIsin }) }),
  "stock/financials/ttm": (s) => ({ stock: one("The first stock", { symbol: s.stock }) }),
  "stock/dividend-estimate": (s) => ({ stock: one("The first stock", { symbol: s.stock }) }),
  "dividends/annual": (s) => ({
    stock: one("The first stock", { symbol: s.stock }),
    etf: one("The first ETF", { symbol: s.etf }),
  }),
  candle: (s) => ({
    daily: one("The first stock's daily bars (the default range)", { symbol: s.stock, resolution: "D" }),
    weekly: one("Weekly bars of 2026", { symbol: s.etf, resolution: "W", from: "2026-01-01" }),
    crypto: one("A crypto pair's daily bars in euros", { symbol: s.crypto, resolution: "D", currency: "EUR" }),
  }),
  "stock/candle": (s) => ({ daily: one("The first stock's daily bars", { symbol: s.stock, resolution: "D" }) }),
  "calendar/dividends": (s) => ({
    upcoming: one("The next ten ex-dates", { limit: 10 }),
    etf: one("The first ETF's dividends of 2026", { symbol: s.etf, from: "2026-01-01", to: "2026-12-31" }),
  }),
  "index/constituents": () => ({ index: one("A sample index", { symbol: EXAMPLE_INDEX }) }),
  bulk: (s) => ({
    quotes: one("Quotes of four securities, one identifier each", {
      endpoint: "quote",
      symbols: [{ symbol: s.stock }, { symbol: s.etf }, { isin: s.fundIsin }, { symbol: s.crypto }],
    }),
    candles: one("Weekly candles of two", {
      endpoint: "candle",
      symbols: [{ symbol: s.stock }, { symbol: s.etf }],
      params: { resolution: "W", from: "2026-01-01" },
    }),
  }),
  status: () => ({ empty: one("No fields", {}) }),
  quota: () => ({ empty: one("No fields", {}) }),
};

/** The request examples of a route, or undefined for a route without any (a test names it). */
export function requestExamples(path: string, securities: ExampleSecurities): Record<string, NamedExample> | undefined {
  return REQUESTS[path]?.(securities);
}

/** What an answer's example names: the security of the request it answers. */
export interface AnswerHints {
  symbol: string;
  isin?: string;
  endpoint?: string;
}

export function answerHints(request: Json | undefined, securities: ExampleSecurities): AnswerHints {
  const symbol = typeof request?.symbol === "string" ? request.symbol : undefined;
  const isin = typeof request?.isin === "string" ? request.isin : undefined;
  return {
    symbol: symbol ?? isin ?? securities.stock,
    ...(isin ? { isin } : {}),
    ...(typeof request?.endpoint === "string" ? { endpoint: request.endpoint } : {}),
  };
}

/** The day and instant answers' examples show: a fixed day, so the committed document does not change daily. */
const EXAMPLE_DAY = "2026-11-20";
const EXAMPLE_INSTANT = Date.UTC(2026, 10, 20, 21, 0, 0) / 1000;

/** Example values by property name, where a type's plain default would read oddly. */
const STRINGS: Record<string, (h: AnswerHints) => string> = {
  symbol: (h) => h.symbol,
  isin: (h) => h.isin ?? "US0000000000",
  currency: () => "USD",
  priceCurrency: () => "USD",
  navCurrency: () => "USD",
  exchange: () => "XNYS",
  country: () => "US",
  key: (h) => `${h.symbol}:D:USD`,
  resolution: () => "D",
  frequency: () => "quarterly",
  s: () => "ok",
};

const NUMBERS: Record<string, number> = {
  t: EXAMPLE_INSTANT,
  time: EXAMPLE_INSTANT,
  latestIntradayBar: EXAMPLE_INSTANT - 300,
  year: 2026,
  c: 101.25,
  price: 101.25,
  nav: 101.25,
  o: 100.5,
  open: 100.5,
  h: 102,
  high: 102,
  l: 99.75,
  low: 99.75,
  pc: 100,
  previousClose: 100,
  d: 1.25,
  change: 1.25,
  dp: 1.25,
  changePercent: 1.25,
  from: EXAMPLE_INSTANT - 365 * 86_400,
  to: EXAMPLE_INSTANT,
  v: 1_250_000,
  volume: 1_250_000,
  marketCapitalization: 125_000_000_000,
  statusCode: 200,
};

/**
 * An instance of a JSON Schema of the document, for a 200 answer's example: every property present (one item an
 * array), values by name where the name says what they are. It shows the shape, not the store's numbers; a test
 * validates each against its schema.
 */
export function exampleOf(
  schema: Json,
  resolve: (ref: string) => Json,
  hints: AnswerHints,
  name?: string,
  depth = 0,
): unknown {
  if (depth > 12) return null;
  if (typeof schema.$ref === "string") return exampleOf(resolve(schema.$ref), resolve, hints, name, depth + 1);
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) {
    const values = schema.enum as unknown[];
    const wanted = name === "endpoint" ? hints.endpoint : name && STRINGS[name] ? STRINGS[name](hints) : undefined;
    return values.includes(wanted) ? wanted : values[0];
  }
  const branches = (schema.oneOf ?? schema.anyOf) as Json[] | undefined;
  if (branches) {
    const matching = branches.find((b) => {
      const endpoint = ((b.properties as Json | undefined)?.endpoint as Json | undefined)?.const;
      return endpoint !== undefined && endpoint === hints.endpoint;
    });
    const branch = matching ?? branches.find((b) => b.type !== "null") ?? branches[0]!;
    return exampleOf(branch, resolve, hints, name, depth + 1);
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  const type = types.find((t) => t !== "null") ?? types[0];
  switch (type) {
    case "object": {
      const out: Json = {};
      for (const [key, prop] of Object.entries((schema.properties ?? {}) as Record<string, Json>))
        out[key] = exampleOf(prop, resolve, hints, key, depth + 1);
      return out;
    }
    case "array": {
      const items = (schema.items ?? {}) as Json;
      const count = Math.max(1, typeof schema.minItems === "number" ? schema.minItems : 1);
      return Array.from({ length: count }, () => exampleOf(items, resolve, hints, name, depth + 1));
    }
    case "string":
      if (schema.format === "date") return EXAMPLE_DAY;
      if (name && STRINGS[name]) return STRINGS[name](hints);
      return name ?? "text";
    case "integer":
    case "number": {
      let n = name && NUMBERS[name] !== undefined ? NUMBERS[name] : type === "integer" ? 1 : 12.5;
      if (typeof schema.minimum === "number" && n < schema.minimum) n = schema.minimum;
      if (typeof schema.maximum === "number" && n > schema.maximum) n = schema.maximum;
      return n;
    }
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return null;
  }
}
