import type { IndexedSecurity } from "../../domain/search/search.index";
import type { SearchIndexReader } from "../../domain/search/search.live";
import type { ExampleSecurities } from "../rest/rest.examples";

export type { ExampleSecurities, NamedExample } from "../rest/rest.examples";

/**
 * The examples of the OpenAPI document: a request body for every operation, which the docs page's "Try it out"
 * sends as it is, and an answer for every 200. Each endpoint's declaration holds its requests (`examples`), written
 * over the securities picked here: the first of each kind in the store's own lists (`list/stocks`, `list/etfs`,
 * `list/funds`, `list/crypto` with limit 1), so that "Execute" answers 200 on the store the service runs on.
 */

type Json = Record<string, unknown>;

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
  reportedCurrency: () => "USD",
  calendarYear: () => EXAMPLE_DAY.slice(0, 4),
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
