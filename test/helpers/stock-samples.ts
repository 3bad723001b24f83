import type { Database } from "better-sqlite3";
import type { DividendRow } from "../../src/domain/ports/source.types";
import { TEST_ANCHOR } from "./constants";

/**
 * Picks sample securities of the generated test store and reads stored rows,
 * so the stock, candle and dividend tests compute expected values from the
 * store independently of the service.
 */

export interface SampleListing {
  listingId: number;
  securityId: number;
  symbol: string;
  isin: string | null;
  type: string;
  currency: string;
  reportingCurrency: string;
  c: number;
  t: number;
}

const LISTING = `SELECT l.id AS listingId, s.id AS securityId, l.symbol, s.isin, s.type, l.currency,
  s.currency AS reportingCurrency, q.c, q.t
  FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1 JOIN quotes q ON q.listing_id = l.id`;

function one(db: Database, sql: string, ...params: unknown[]): SampleListing {
  const row = db.prepare(sql).get(...params) as SampleListing | undefined;
  if (!row)
    throw new Error(`test store has no sample for: ${sql.replace(/\s+/g, " ").slice(-160)} ${JSON.stringify(params)}`);
  return row;
}

/** The largest security of a type whose primary listing has daily bars. */
export function withDailyBars(db: Database, type: string): SampleListing {
  return one(
    db,
    `${LISTING} WHERE s.type = ? AND EXISTS (SELECT 1 FROM daily_bars b WHERE b.listing_id = l.id)
      ORDER BY s.rank, s.id LIMIT 1`,
    type,
  );
}

/** The largest security of a type whose primary listing has 5-minute bars. */
export function withIntradayBars(db: Database, type: string): SampleListing {
  return one(
    db,
    `${LISTING} WHERE s.type = ? AND EXISTS (SELECT 1 FROM intraday_bars b WHERE b.listing_id = l.id)
      ORDER BY s.rank, s.id LIMIT 1`,
    type,
  );
}

/** A listing of a type with daily bars but no intraday bars. */
export function withoutIntradayBars(db: Database, type: string): SampleListing {
  return one(
    db,
    `${LISTING} WHERE s.type = ? AND EXISTS (SELECT 1 FROM daily_bars b WHERE b.listing_id = l.id)
     AND NOT EXISTS (SELECT 1 FROM intraday_bars b WHERE b.listing_id = l.id) ORDER BY s.rank, s.id LIMIT 1`,
    type,
  );
}

/** A stock with at least `n` quarters reported on or before the anchor, the largest first. */
export function stockWithQuarters(db: Database, n: number): SampleListing {
  return one(
    db,
    `${LISTING} WHERE s.type = 'stock' AND (SELECT count(*) FROM quarterly_financials f WHERE f.security_id = s.id
      AND f.reported_date <= ?) >= ?
     ORDER BY s.rank, s.id LIMIT 1`,
    TEST_ANCHOR,
    n,
  );
}

/** A stock whose listing currency differs from its reporting currency, with financials (for the FX in P/E). */
export function stockReportingInOtherCurrency(db: Database): SampleListing | undefined {
  return db
    .prepare(
      `SELECT l.id AS listingId, s.id AS securityId, l.symbol, s.isin, s.type, l.currency,
        s.currency AS reportingCurrency, q.c, q.t
       FROM securities s JOIN listings l ON l.security_id = s.id JOIN quotes q ON q.listing_id = l.id
       WHERE s.type = 'stock' AND l.currency <> s.currency
       AND (SELECT count(*) FROM quarterly_financials f WHERE f.security_id = s.id AND f.reported_date <= ?) >= 4
       ORDER BY s.rank, l.id LIMIT 1`,
    )
    .get(TEST_ANCHOR) as SampleListing | undefined;
}

/** A security of a type that paid a dividend in the year before the anchor and has an announced one after it. */
export function dividendPayer(db: Database, type: string, opts: { announced?: boolean } = {}): SampleListing {
  const announced = opts.announced
    ? `AND EXISTS (SELECT 1 FROM dividends d WHERE d.security_id = s.id AND d.ex_date > '${TEST_ANCHOR}')`
    : "";
  return one(
    db,
    `${LISTING} WHERE s.type = ? AND EXISTS (SELECT 1 FROM dividends d WHERE d.security_id = s.id AND d.ex_date <= ?
      AND d.ex_date > date(?, '-1 year'))
     ${announced} ORDER BY s.rank, s.id LIMIT 1`,
    type,
    TEST_ANCHOR,
    TEST_ANCHOR,
  );
}

/** A security of a type with no dividend at all. */
export function nonPayer(db: Database, type: string): SampleListing {
  return one(
    db,
    `${LISTING} WHERE s.type = ? AND NOT EXISTS (SELECT 1 FROM dividends d WHERE d.security_id = s.id)
      ORDER BY s.rank, s.id LIMIT 1`,
    type,
  );
}

export interface StoredBar {
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
}

export function storedBars(
  db: Database,
  table: "daily_bars" | "intraday_bars",
  listingId: number,
  from: number,
  to: number,
): StoredBar[] {
  return db
    .prepare(`SELECT t, o, h, l, c, v FROM ${table} WHERE listing_id = ? AND t BETWEEN ? AND ? ORDER BY t`)
    .all(listingId, from, to) as StoredBar[];
}

/** Units of `currency` per USD on the last stored day on or before `day`. */
export function perUsd(db: Database, currency: string, day: string): number {
  if (currency === "USD") return 1;
  const row = db
    .prepare(`SELECT per_usd FROM fx_daily WHERE currency = ? AND day <= ? ORDER BY day DESC LIMIT 1`)
    .get(currency, day) as { per_usd: number } | undefined;
  if (!row) throw new Error(`no FX rate for ${currency} on or before ${day}`);
  return row.per_usd;
}

/** A dividend as stored, without its security. */
export type StoredDividend = Omit<DividendRow, "securityId">;

export function storedDividends(db: Database, securityId: number): StoredDividend[] {
  return db
    .prepare(
      `SELECT ex_date AS exDate, record_date AS recordDate, pay_date AS payDate, declaration_date AS declarationDate,
       amount, adjusted_amount AS adjustedAmount, currency, frequency FROM dividends WHERE security_id = ?
         ORDER BY ex_date`,
    )
    .all(securityId) as StoredDividend[];
}

export const unix = (iso: string) => Date.parse(iso.length === 10 ? `${iso}T00:00:00Z` : iso) / 1000;
export const dayText = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().slice(0, 10);

/** Symbols of the primary listings of `n` securities of a type, largest first (`where` narrows on `s`). */
export function primarySymbols(db: Database, type: string, n: number, where = ""): string[] {
  return (
    db
      .prepare(
        `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
         WHERE s.type = ? ${where} ORDER BY s.rank, s.id LIMIT ?`,
      )
      .all(type, n) as { symbol: string }[]
  ).map((r) => r.symbol);
}
