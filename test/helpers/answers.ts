/**
 * The fixed list of requests of `npm run answers` (scripts/answers.ts), the PostgreSQL parity test
 * (test/sources/postgres.parity.spec.ts) and the gateway's (test/gateway/gateway.answers.spec.ts): every REST
 * endpoint and a set of GraphQL operations, picked by SQL from the test store in a stable order, so two runs on one
 * data set ask the same.
 */
import type Database from "better-sqlite3";
import { TEST_ANCHOR } from "./constants";

export interface Ask {
  name: string;
  path: string;
  body?: unknown;
  key?: string | null;
}

/** Headers whose values a client reads; the rest (date, request id, rate-limit counters) vary by run. */
export const KEPT_HEADERS = ["content-type", "deprecation", "sunset", "link", "retry-after"];

function pick(db: Database.Database, sql: string, ...params: unknown[]): string[] {
  return (db.prepare(sql).all(...params) as { v: string }[]).map((r) => r.v);
}

export function corpus(db: Database.Database): Ask[] {
  const primary = (type: string, n: number, extra = "") =>
    pick(
      db,
      `SELECT l.symbol AS v FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       WHERE s.type = ? ${extra} ORDER BY s.rank, s.id LIMIT ?`,
      type,
      n,
    );
  const withBars = "AND EXISTS (SELECT 1 FROM daily_bars b WHERE b.listing_id = l.id)";
  const withIntraday = "AND EXISTS (SELECT 1 FROM intraday_bars b WHERE b.listing_id = l.id)";
  const reporting = "AND EXISTS (SELECT 1 FROM quarterly_financials f WHERE f.security_id = s.id)";
  const paying = "AND EXISTS (SELECT 1 FROM dividends d WHERE d.security_id = s.id)";
  const stocks = [...primary("stock", 3, withBars), ...primary("stock", 2, reporting), ...primary("stock", 2)];
  const etfs = [...primary("etf", 3, withBars), ...primary("etf", 2, paying), ...primary("etf", 1)];
  const funds = primary("fund", 3);
  const fundIsins = pick(
    db,
    "SELECT isin AS v FROM securities WHERE type = 'fund' AND isin IS NOT NULL ORDER BY rank, id LIMIT 3",
  );
  const crypto = primary("crypto", 2, withBars);
  const forex = primary("forex", 2);
  const intraday = primary("stock", 1, withIntraday);
  const isins = pick(
    db,
    "SELECT isin AS v FROM securities WHERE type IN ('stock', 'etf') AND isin IS NOT NULL ORDER BY rank, id LIMIT 2",
  );
  // A stock with a split (the latest by the clock's day) and stored bars: candles adjusted otherwise than for splits.
  const splitters = pick(
    db,
    `SELECT l.symbol AS v FROM splits sp JOIN securities s ON s.id = sp.security_id AND s.type = 'stock'
     JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
     WHERE sp.day <= ? ${withBars} ORDER BY sp.day DESC, s.id LIMIT 1`,
    TEST_ANCHOR,
  );
  const anchor = Math.floor(Date.parse(`${TEST_ANCHOR}T00:00:00Z`) / 1000);
  const year = 365 * 86_400;
  const asks: Ask[] = [];
  const add = (path: string, body: unknown, name = `${path} ${JSON.stringify(body)}`) =>
    asks.push({ name, path, body });

  for (const v of ["v1", "v0"]) {
    for (const s of [...stocks, ...etfs, ...funds, ...crypto, ...forex, "NOPE-UNKNOWN"])
      add(`/${v}/quote`, { symbol: s });
    for (const isin of isins) add(`/${v}/quote`, { isin });
    add(`/${v}/quote`, { symbol: stocks[0], currency: "EUR" });
    for (const s of [...stocks.slice(0, 3), ...etfs.slice(0, 2), ...crypto, "NOPE-UNKNOWN"]) {
      add(`/${v}/candle`, { symbol: s, from: anchor - year, to: anchor, resolution: "D" });
      add(`/${v}/candle`, { symbol: s, from: anchor - 5 * year, to: anchor, resolution: "W" });
    }
    for (const s of intraday)
      add(`/${v}/candle`, { symbol: s, from: anchor - 3 * 86_400, to: anchor, resolution: "5" });
    add(`/${v}/candle`, { symbol: stocks[0], from: anchor - year, to: anchor, resolution: "7" });
    for (const s of [...splitters, stocks[0], etfs[3] ?? etfs[0]]) {
      for (const adjustment of ["none", "all"])
        add(`/${v}/candle`, { symbol: s, from: anchor - year, to: anchor, resolution: "D", adjustment });
    }
    for (const s of splitters) {
      add(`/${v}/candle`, { symbol: s, from: anchor - 5 * year, to: anchor, resolution: "W", adjustment: "all" });
      add(`/${v}/candle`, { symbol: s, from: anchor - year, to: anchor, currency: "EUR", adjustment: "none" });
    }
    add(`/${v}/candle`, { symbol: stocks[0], adjustment: "dividends" });
    add(`/${v}/stock/candle`, { symbol: stocks[0], from: anchor - year, to: anchor, resolution: "D" });
    add(`/${v}/index/constituents`, { symbol: "SPX" });
    for (const s of [...crypto, "BTCUSD", "BTC/USD", "BTC"]) add(`/${v}/crypto/price`, { symbol: s });
    for (const s of [...etfs, "NOPE-UNKNOWN", stocks[0]]) {
      for (const p of ["profile", "holdings", "sector", "country", "fundamentals", "dividend-estimate"]) {
        add(`/${v}/etf/${p}`, { symbol: s });
      }
      add(`/${v}/etf/metrics`, { symbol: s, from: anchor - 3 * year, resolution: "D" });
      add(`/${v}/etf/metrics`, { symbol: s, from: anchor - year, resolution: "W", currency: "EUR" });
    }
    for (const isin of [...fundIsins, "US0000000000"]) {
      for (const p of ["profile", "holding", "sector", "country", "allocation-exposure"])
        add(`/${v}/fund/${p}`, { isin });
    }
    for (const s of funds) add(`/${v}/fund/profile`, { symbol: s });
    for (const s of [...stocks, etfs[0], "NOPE-UNKNOWN"]) {
      add(`/${v}/stock/financials/ttm`, { symbol: s });
      add(`/${v}/stock/financials`, { symbol: s, freq: "ANNUAL", statement: "INCOME", currency: "EUR" });
      add(`/${v}/stock/financials`, { symbol: s, freq: "quarterly", statement: "bs" });
      add(`/${v}/stock/financials`, { symbol: s, freq: "quarterly", statement: "cf" });
      add(`/${v}/stock/dividend-estimate`, { symbol: s });
      add(`/${v}/dividends/annual`, { symbol: s });
    }
    add(`/${v}/calendar/dividends`, {});
    add(`/${v}/calendar/dividends`, { from: "2026-01-01", to: "2026-03-31", limit: 20 });
    add(`/${v}/calendar/dividends`, { symbol: etfs[3] ?? etfs[0] });
    for (const list of ["stocks", "etfs", "funds", "crypto"]) add(`/${v}/list/${list}`, { limit: 3 });
    for (const q of ["inc", "bitcoin", stocks[0], "zzzzqqq"]) {
      add(`/${v}/search`, { query: q });
      add(`/${v}/search/aggregated`, { query: q });
    }
    add(`/${v}/search`, { query: "inc", types: ["etf"], limit: 5 });
    add(`/${v}/bulk`, {
      endpoint: "etf/profile",
      symbols: [...etfs.slice(0, 3), "NOPE-UNKNOWN"].map((symbol) => ({ symbol })),
    });
    add(`/${v}/bulk`, { endpoint: "/v1/quote", symbols: [...stocks, ...crypto].map((symbol) => ({ symbol })) });
    add(`/${v}/bulk`, { endpoint: "candle", symbols: [{ symbol: stocks[0] }], params: { resolution: "D" } });
    add(`/${v}/bulk`, {
      endpoint: "candle",
      symbols: [...splitters, stocks[0]].map((symbol) => ({ symbol })),
      params: { from: anchor - year, resolution: "D", adjustment: "all" },
    });
    add(`/${v}/bulk`, { endpoint: "nope", symbols: [{ symbol: stocks[0] }] });
    add(`/${v}/quote`, "{not json", "malformed JSON");
    add(`/${v}/quote`, {}, "missing symbol");
    add(`/${v}/nope`, {}, "unknown path");
  }
  asks.push({ name: "no key", path: "/v1/quote", body: { symbol: stocks[0] }, key: null });
  asks.push({ name: "bad key", path: "/v1/quote", body: { symbol: stocks[0] }, key: "not-a-key" });

  const gql = (query: string, variables: Record<string, unknown> = {}) =>
    asks.push({
      name: `graphql ${query.replace(/\s+/g, " ").slice(0, 80)}`,
      path: "/graphql",
      body: { query, variables },
    });
  gql("query($s: String!) { quote(symbol: $s) { symbol c d dp t currency historicalPrice { fiftyDays } } }", {
    s: stocks[0],
  });
  gql("query($s: [String!]!) { quotes(symbols: $s) { symbol c currency } }", { s: [...stocks, "NOPE"] });
  gql(
    `query($s: [String!]!) { etfs(symbols: $s) { symbol profile { name aum } holdings { atDate holdings { symbol
      percent } } sectorExposure { sector weightPercentage } metrics(resolution: "W") { totalReturn } } }`,
    { s: etfs },
  );
  gql("query($i: String!) { fund(isin: $i) { profile { name } holdings { holdings { name percent } } } }", {
    i: fundIsins[0],
  });
  gql("query($q: String!) { search(query: $q) { statusCode results { symbol type isin } } }", { q: "inc" });
  gql("{ listEtfs(limit: 2) { results { symbol } nextCursor } }");
  gql('query($s: String!) { candle(symbol: $s, resolution: "W") { s t c } }', { s: crypto[0] });
  gql(
    `query($s: String!, $f: Int!) { candle(symbol: $s, from: $f, adjustment: NONE) { s t c v key }
      stock(symbol: $s) { candles(from: $f, adjustment: ALL) { s t c key } } }`,
    { s: splitters[0] ?? stocks[0], f: anchor - year },
  );
  gql("{ nope }");
  return asks;
}

/** The body with every `requestId` (top level, bulk items, GraphQL extensions) left out: it differs per run. */
export function withoutRequestIds(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutRequestIds);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => k !== "requestId")
      .map(([k, x]) => [k, withoutRequestIds(x)]),
  );
}
