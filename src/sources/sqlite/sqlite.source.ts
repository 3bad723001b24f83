import { setImmediate as turn } from "node:timers/promises";
import Database from "better-sqlite3";
import { openingStore } from "./sqlite.open";
import type { Database as Db, Statement } from "better-sqlite3";
import type {
  BarCoverageRow,
  LatestBarRow,
  BarRangeKey,
  BarRow,
  DividendCalendarParams,
  DividendRow,
  EarningsCalendarParams,
  EarningsDateRow,
  EtfProfileRow,
  ExposureRow,
  FundProfileRow,
  IpoCalendarParams,
  IpoRow,
  FxRangeKey,
  FxRow,
  HoldingRow,
  IndexConstituentRow,
  InstrumentRow,
  ListSecuritiesParams,
  ListingRow,
  PeersKey,
  QuarterlyFinancialsRow,
  QuoteRow,
  SearchDocument,
  SecurityRow,
  SecurityType,
  SplitRow,
} from "../../domain/ports/source.types";
import {
  CAPABILITY_NAMES,
  type CapabilityName,
  type MetricsWorker,
  type Page,
  type RowStore,
  type SourceStats,
} from "../../domain/ports/source.capabilities";
import {
  ETF_PROFILE_COLUMNS,
  LISTING_COLUMNS,
  QUOTE_COLUMNS,
  SECURITY_COLUMNS,
  snakeToCamel,
  toBar,
  toDividend,
  toEtfProfile,
  toExposure,
  toHolding,
  toInstrument,
  toListing,
  toQuote,
  toSecurity,
  type Raw,
  searchDocumentsOf,
  SEARCH_COLUMNS,
} from "../source.rows";
import { SqliteApiKeyStore } from "./sqlite.keys";
import { SampleSeriesBars } from "./sqlite.synthetic";
import { migrate } from "./sqlite.migrate";
import { workerFile } from "../../platform/workers/worker.pool";

const JSON_EACH_KEYS = "json_each(?) k";
/** Batches up to this many scalar keys bind them one by one (most REST calls name one or two keys). */
const FEW_KEYS = 4;

/**
 * The same statement with `json_each(?) k` replaced by the keys bound one by
 * one (`SELECT 0 AS key, ? AS value UNION ALL ...`): for one or two keys,
 * encoding them as JSON and unpacking them again costs more than the lookup.
 * Null when the statement or the keys do not allow it (array keys read
 * `k.value ->> n`).
 */
function fewKeysSql(sql: string, keys: readonly unknown[], cache: Map<string, (string | null)[]>): string | null {
  const strings = keys.every((k) => typeof k === "string");
  if (!strings && !keys.every((k) => Number.isSafeInteger(k))) return null;
  const slot = (strings ? 0 : FEW_KEYS) + keys.length - 1;
  let variants = cache.get(sql);
  if (!variants) cache.set(sql, (variants = []));
  let out = variants[slot];
  if (out === undefined) {
    // Integers bind as REAL from JavaScript; the cast keeps the comparison (and the index) integer.
    const value = strings ? "?" : "CAST(? AS INTEGER)";
    const rows = keys
      .map((_, i) => (i === 0 ? `SELECT 0 AS key, ${value} AS value` : `SELECT ${i}, ${value}`))
      .join(" UNION ALL ");
    out = variants[slot] = sql.includes(JSON_EACH_KEYS) ? sql.replace(JSON_EACH_KEYS, `(${rows}) k`) : null;
  }
  return out;
}

/** A prepared reading statement in raw mode, with the builder of its row objects (see `SqliteSource.reader`). */
interface Reader {
  stmt: Statement;
  toRow: (values: unknown[]) => Raw;
}

/**
 * `(values) => ({ name0: values[0], name1: values[1], ... })` for a statement's
 * column names, compiled once: every row of the statement gets the same shape.
 * A repeated name keeps its last value, as better-sqlite3's own row objects do.
 */
function rowBuilder(names: readonly string[]): (values: unknown[]) => Raw {
  const last = new Map<string, number>();
  names.forEach((n, i) => last.set(n, i));
  const fields = [...last].map(([n, i]) => `${JSON.stringify(n)}: v[${i}]`).join(", ");
  return new Function("v", `return { ${fields} };`) as (values: unknown[]) => Raw;
}

/** Units of the security's currency per US dollar: its latest stored rate (null for a currency without one). */
const usdRate = (alias: string) =>
  `(CASE ${alias}.currency WHEN 'USD' THEN 1.0 ELSE (SELECT f.per_usd FROM fx_daily f
     WHERE f.currency = ${alias}.currency ORDER BY f.day DESC LIMIT 1) END)`;

/**
 * Rows one statement of a long read (`getDailyBars`, `getFxRates`) reads at most, by its keys' spans (a key is never
 * split): reading and making 10,000 rows holds the loop some 10-25 ms, where 25,000 held it 40-100 ms on a busy
 * machine.
 */
const ROWS_PER_TURN = 10_000;
/** Trading days in a calendar day, to estimate a span's daily bars; a span is counted up to 50 years. */
const TRADING_DAYS_PER_DAY = 252 / 365;
const LONGEST_SPAN_DAYS = 50 * 365;

/** The calendar days from `from` to `to` (`unit` of theirs a day: 86,400 seconds, 86,400,000 ms), at most 50 years. */
const spanDays = (from: number, to: number, unit: number) => Math.min(Math.max(0, to - from) / unit, LONGEST_SPAN_DAYS);

/** A key's daily bars, estimated from its span. */
const barsIn = (k: BarRangeKey) => spanDays(k.from, k.to, 86_400) * TRADING_DAYS_PER_DAY;
/** A key's FX rows (one a calendar day), estimated from its span. */
const fxRowsIn = (k: FxRangeKey) => spanDays(Date.parse(k.fromDay), Date.parse(k.toDay), 86_400_000);

/** `keys` in runs of consecutive keys whose estimated rows add up to at most `rows` (at least one key each). */
function rowChunks<K>(keys: readonly K[], estimate: (k: K) => number, rows: number): K[][] {
  const out: K[][] = [];
  let run: K[] = [];
  let n = 0;
  for (const k of keys) {
    const e = estimate(k);
    if (run.length > 0 && n + e > rows) {
      out.push(run);
      run = [];
      n = 0;
    }
    run.push(k);
    n += e;
  }
  if (run.length > 0 || out.length === 0) out.push(run);
  return out;
}

/** Groups rows carrying a `k` column (the key's position in the batch) into one list per key. */
function groupByKey<T>(rows: Raw[], n: number, map: (r: Raw) => T): T[][] {
  const out: T[][] = Array.from({ length: n }, () => []);
  for (const r of rows) out[r.k as number]!.push(map(r));
  return out;
}

function oneByKey<T>(rows: Raw[], n: number, map: (r: Raw) => T): (T | null)[] {
  const out: (T | null)[] = new Array(n).fill(null);
  for (const r of rows) out[r.k as number] = map(r);
  return out;
}

/*
 * Cursors carry the last row's persisted key (security ids are kept by the
 * file, so a cursor stays valid across restarts and on every replica reading
 * the same data), base64url so that clients treat them as opaque.
 */
function encodeListCursor(list: string, lastId: number): string {
  return Buffer.from(`${list}:${lastId}`).toString("base64url");
}

function decodeListCursor(list: string, cursor: string): number | null {
  const m = /^([a-z]+):(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  return m && m[1] === list ? Number(m[2]) : null;
}

function encodeCalendarCursor(d: DividendRow): string {
  return Buffer.from(`dividends:${d.exDate}:${d.securityId}`).toString("base64url");
}

function decodeCalendarCursor(cursor: string): { exDate: string; securityId: number } | null {
  const m = /^dividends:(\d{4}-\d{2}-\d{2}):(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  return m ? { exDate: m[1]!, securityId: Number(m[2]) } : null;
}

/**
 * The embedded store. Every batch method is one SQL statement: the keys go in
 * as one JSON array and `json_each` joins them against the table, so a
 * DataLoader batch of N keys costs one query.
 */
export class SqliteSource implements RowStore {
  readonly kind = "sqlite" as const;
  readonly stats: SourceStats = { queries: 0 };
  /** A row store serves every capability. */
  readonly capabilities: ReadonlySet<CapabilityName> = new Set(CAPABILITY_NAMES);
  /** The service's API keys, in the same file (and counted in the same `stats`), but not market data. */
  readonly keys: SqliteApiKeyStore;
  /** Daily paths the generated sample computes when read; answers nothing on any other store. */
  readonly sampleSeries: SampleSeriesBars;
  private readonly readers = new Map<string, Reader>();
  private readonly fewKeys = new Map<string, (string | null)[]>();

  private readonly dataVersionStmt: Statement;
  private lastSeenVersion = -1;
  private version = 0;

  constructor(readonly db: Db) {
    this.dataVersionStmt = db.prepare("PRAGMA data_version").pluck();
    this.keys = new SqliteApiKeyStore(db, this.stats);
    this.sampleSeries = new SampleSeriesBars(db, () => this.stats.queries++);
  }

  /**
   * A reading statement in raw mode (rows as arrays) with the function that
   * turns its array into the row object. better-sqlite3 builds row objects
   * property by property through V8's API, which for the 37 columns of an
   * instrument costs more than the lookup; an object literal compiled once per
   * statement costs next to nothing.
   */
  private reader(sql: string): Reader {
    let r = this.readers.get(sql);
    if (!r) {
      const stmt = this.db.prepare(sql).raw(true);
      r = { stmt, toRow: rowBuilder(stmt.columns().map((c) => c.name)) };
      this.readers.set(sql, r);
    }
    return r;
  }

  private all(sql: string, ...params: unknown[]): Raw[] {
    this.stats.queries++;
    const { stmt, toRow } = this.reader(sql);
    const rows = stmt.all(...params) as unknown[][];
    const out = new Array<Raw>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = toRow(rows[i]!);
    return out;
  }

  private get(sql: string, ...params: unknown[]): Raw | undefined {
    this.stats.queries++;
    const { stmt, toRow } = this.reader(sql);
    const row = stmt.get(...params) as unknown[] | undefined;
    return row === undefined ? undefined : toRow(row);
  }

  /** One statement for a batch of scalar keys; rows come back tagged with `k`, the key's index. */
  private batch(keys: readonly unknown[], sql: string): Raw[] {
    if (keys.length === 0) return [];
    const few = keys.length <= FEW_KEYS ? fewKeysSql(sql, keys, this.fewKeys) : null;
    return few ? this.all(few, ...keys) : this.all(sql, JSON.stringify(keys));
  }

  async getInstrumentsBySymbols(symbols: readonly string[]): Promise<(InstrumentRow | null)[]> {
    const rows = this.batch(
      symbols,
      `SELECT k.key AS k, ${LISTING_COLUMNS}, ${SECURITY_COLUMNS}, ${QUOTE_COLUMNS}, ${ETF_PROFILE_COLUMNS}
       FROM json_each(?) k JOIN listings l ON l.symbol = k.value JOIN securities s ON s.id = l.security_id
       LEFT JOIN quotes q ON q.listing_id = l.id LEFT JOIN etf_profiles p ON p.security_id = s.id`,
    );
    return oneByKey(rows, symbols.length, toInstrument);
  }

  async getInstrumentsByIsins(isins: readonly string[]): Promise<(InstrumentRow | null)[]> {
    const rows = this.batch(
      isins,
      `SELECT k.key AS k, ${LISTING_COLUMNS}, ${SECURITY_COLUMNS}, ${QUOTE_COLUMNS}, ${ETF_PROFILE_COLUMNS}
       FROM json_each(?) k JOIN securities s ON s.isin = k.value
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       LEFT JOIN quotes q ON q.listing_id = l.id LEFT JOIN etf_profiles p ON p.security_id = s.id`,
    );
    return oneByKey(rows, isins.length, toInstrument);
  }

  /** A code two securities share (real CUSIPs can) answers the one of lowest id (rows come highest first). */
  async getInstrumentsByCusips(cusips: readonly string[]): Promise<(InstrumentRow | null)[]> {
    return this.byCode(cusips, "cusip");
  }

  async getInstrumentsByWkns(wkns: readonly string[]): Promise<(InstrumentRow | null)[]> {
    return this.byCode(wkns, "wkn");
  }

  /** Lookups by a code column indexed in migration 3 (`cusip`, and `wkn` derived from `DE` ISINs). */
  private byCode(codes: readonly string[], column: "cusip" | "wkn"): (InstrumentRow | null)[] {
    const rows = this.batch(
      codes,
      `SELECT k.key AS k, ${LISTING_COLUMNS}, ${SECURITY_COLUMNS}, ${QUOTE_COLUMNS}, ${ETF_PROFILE_COLUMNS}
       FROM json_each(?) k JOIN securities s ON s.${column} = k.value
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       LEFT JOIN quotes q ON q.listing_id = l.id LEFT JOIN etf_profiles p ON p.security_id = s.id
       ORDER BY k.key, s.id DESC`,
    );
    return oneByKey(rows, codes.length, toInstrument);
  }

  async getSecuritiesByIds(ids: readonly number[]): Promise<(SecurityRow | null)[]> {
    const rows = this.batch(
      ids,
      `SELECT k.key AS k, ${SECURITY_COLUMNS} FROM json_each(?) k JOIN securities s ON s.id = k.value`,
    );
    return oneByKey(rows, ids.length, toSecurity);
  }

  async getListingsBySecurityIds(securityIds: readonly number[]): Promise<ListingRow[][]> {
    const rows = this.batch(
      securityIds,
      `SELECT k.key AS k, ${LISTING_COLUMNS} FROM json_each(?) k JOIN listings l ON l.security_id = k.value
       ORDER BY k.key, l.is_primary DESC, l.id`,
    );
    return groupByKey(rows, securityIds.length, toListing);
  }

  async getQuotes(listingIds: readonly number[]): Promise<(QuoteRow | null)[]> {
    const rows = this.batch(
      listingIds,
      `SELECT k.key AS k, ${QUOTE_COLUMNS} FROM json_each(?) k JOIN quotes q ON q.listing_id = k.value`,
    );
    return oneByKey(rows, listingIds.length, toQuote);
  }

  async getStockPeers(keys: readonly PeersKey[]): Promise<InstrumentRow[][]> {
    const rows = this.batch(
      keys.map((k) => [k.securityId, k.limit]),
      `SELECT r.k AS k, ${LISTING_COLUMNS}, ${SECURITY_COLUMNS}, ${QUOTE_COLUMNS}, ${ETF_PROFILE_COLUMNS}
       FROM (SELECT me.k, me.lim, c.id AS cid, row_number() OVER (PARTITION BY me.k ORDER BY
               (c.industry IS me.industry) DESC,
               CASE WHEN me.usd IS NULL THEN 0 WHEN c.usd >= me.usd THEN c.usd / me.usd ELSE me.usd / c.usd END,
               c.usd DESC, c.id) AS rn
             FROM (SELECT k.key AS k, k.value ->> 1 AS lim, s.id, s.sector, s.industry,
                     CASE WHEN s.market_cap > 0 THEN s.market_cap / ${usdRate("s")} END AS usd
                   FROM json_each(?) k JOIN securities s ON s.id = k.value ->> 0 AND s.type = 'stock') me
             JOIN (SELECT c.id, c.sector, c.industry, c.market_cap / ${usdRate("c")} AS usd FROM securities c
                   WHERE c.type = 'stock' AND c.is_active = 1 AND c.market_cap > 0) c
               ON c.sector = me.sector AND c.id <> me.id AND c.usd IS NOT NULL) r
       JOIN securities s ON s.id = r.cid JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       LEFT JOIN quotes q ON q.listing_id = l.id LEFT JOIN etf_profiles p ON p.security_id = s.id
       WHERE r.rn <= r.lim ORDER BY r.k, r.rn`,
    );
    return groupByKey(rows, keys.length, toInstrument);
  }

  private bars(table: "daily_bars" | "intraday_bars", keys: readonly BarRangeKey[]): BarRow[][] {
    const rows = this.batch(
      keys.map((k) => [k.listingId, k.from, k.to]),
      `SELECT k.key AS k, b.t, b.o, b.h, b.l, b.c, b.v FROM json_each(?) k
       JOIN ${table} b ON b.listing_id = k.value ->> 0 AND b.t BETWEEN k.value ->> 1 AND k.value ->> 2
       ORDER BY k.key, b.t`,
    );
    return groupByKey(rows, keys.length, toBar);
  }

  /**
   * SQLite reads block the event loop: a long read (a 50-position portfolio over ten years is some 126,000 bars, 300
   * ms and more) is split into statements of about ROWS_PER_TURN bars, each on a turn of its own, so requests
   * are answered between them. A read that an import's commit falls between may see its later keys' new bars.
   */
  async getDailyBars(keys: readonly BarRangeKey[]): Promise<BarRow[][]> {
    const out: BarRow[][] = [];
    for (const part of rowChunks(keys, barsIn, ROWS_PER_TURN)) {
      if (out.length > 0) await turn();
      const rows = this.bars("daily_bars", part);
      // The generated sample computes the paths it does not store (only there: sqlite.synthetic.ts).
      this.sampleSeries.fill(part, rows);
      out.push(...rows);
    }
    return out;
  }

  async getIntradayBars(keys: readonly BarRangeKey[]): Promise<BarRow[][]> {
    return this.bars("intraday_bars", keys);
  }

  async getBarCoverage(listingIds: readonly number[]): Promise<BarCoverageRow[]> {
    // min/max over the (listing_id, t) primary keys are index seeks, not scans.
    const rows = this.batch(
      listingIds,
      `SELECT k.key AS k,
         (SELECT min(t) FROM daily_bars WHERE listing_id = k.value) AS daily_from,
         (SELECT max(t) FROM daily_bars WHERE listing_id = k.value) AS daily_to,
         (SELECT min(t) FROM intraday_bars WHERE listing_id = k.value) AS intraday_from,
         (SELECT max(t) FROM intraday_bars WHERE listing_id = k.value) AS intraday_to
       FROM json_each(?) k`,
    );
    const out = oneByKey(rows, listingIds.length, (r) => ({
      dailyFrom: r.daily_from as number | null,
      dailyTo: r.daily_to as number | null,
      intradayFrom: r.intraday_from as number | null,
      intradayTo: r.intraday_to as number | null,
    }));
    const all = out.map((c) => c ?? { dailyFrom: null, dailyTo: null, intradayFrom: null, intradayTo: null });
    const bare = listingIds.filter((_, i) => all[i]!.dailyFrom === null);
    if (bare.length > 0) {
      const computed = this.sampleSeries.coverage(bare);
      let j = 0;
      all.forEach((c, i) => {
        if (c.dailyFrom !== null) return;
        const range = computed[j++];
        if (range) all[i] = { ...c, dailyFrom: range.from, dailyTo: range.to };
      });
    }
    return all;
  }

  /**
   * Split as `getDailyBars` is: the six currencies of a ten-year portfolio are some 22,000 rows, 30 ms in one
   * statement.
   */
  async getFxRates(keys: readonly FxRangeKey[]): Promise<FxRow[][]> {
    const out: FxRow[][] = [];
    for (const part of rowChunks(keys, fxRowsIn, ROWS_PER_TURN)) {
      if (out.length > 0) await turn();
      const rows = this.batch(
        part.map((k) => [k.currency, k.fromDay, k.toDay]),
        `SELECT k.key AS k, f.day, f.per_usd FROM json_each(?) k
         JOIN fx_daily f ON f.currency = k.value ->> 0 AND f.day BETWEEN k.value ->> 1 AND k.value ->> 2
         ORDER BY k.key, f.day`,
      );
      out.push(...groupByKey(rows, part.length, (r) => ({ day: r.day as string, perUsd: r.per_usd as number })));
    }
    return out;
  }

  async getEtfProfiles(securityIds: readonly number[]): Promise<(EtfProfileRow | null)[]> {
    const rows = this.batch(
      securityIds,
      `SELECT k.key AS k, ${ETF_PROFILE_COLUMNS} FROM json_each(?) k JOIN etf_profiles p ON p.security_id = k.value`,
    );
    return oneByKey(rows, securityIds.length, toEtfProfile);
  }

  async getEtfHoldings(securityIds: readonly number[]): Promise<HoldingRow[][]> {
    const rows = this.batch(
      securityIds,
      `SELECT k.key AS k, h.* FROM json_each(?) k JOIN etf_holdings h ON h.etf_id = k.value ORDER BY k.key, h.position`,
    );
    return groupByKey(rows, securityIds.length, toHolding);
  }

  private exposure(
    table: string,
    idColumn: string,
    nameColumn: string,
    securityIds: readonly number[],
  ): ExposureRow[][] {
    const rows = this.batch(
      securityIds,
      `SELECT k.key AS k, e.${nameColumn} AS name, e.weight FROM json_each(?) k
       JOIN ${table} e ON e.${idColumn} = k.value ORDER BY k.key, e.weight DESC, e.${nameColumn}`,
    );
    return groupByKey(rows, securityIds.length, toExposure);
  }

  async getEtfSectorExposure(ids: readonly number[]): Promise<ExposureRow[][]> {
    return this.exposure("etf_sector_exposure", "etf_id", "sector", ids);
  }

  async getEtfCountryExposure(ids: readonly number[]): Promise<ExposureRow[][]> {
    return this.exposure("etf_country_exposure", "etf_id", "country", ids);
  }

  async getFundProfiles(securityIds: readonly number[]): Promise<(FundProfileRow | null)[]> {
    const rows = this.batch(
      securityIds,
      `SELECT k.key AS k, p.* FROM json_each(?) k JOIN fund_profiles p ON p.security_id = k.value`,
    );
    return oneByKey(rows, securityIds.length, (r) => {
      const { k: _k, ...rest } = r;
      return snakeToCamel(rest) as unknown as FundProfileRow;
    });
  }

  async getFundHoldings(securityIds: readonly number[]): Promise<HoldingRow[][]> {
    const rows = this.batch(
      securityIds,
      `SELECT k.key AS k, h.* FROM json_each(?) k JOIN fund_holdings h ON h.fund_id = k.value
       ORDER BY k.key, h.position`,
    );
    return groupByKey(rows, securityIds.length, toHolding);
  }

  async getFundSectorExposure(ids: readonly number[]): Promise<ExposureRow[][]> {
    return this.exposure("fund_sector_exposure", "fund_id", "sector", ids);
  }

  async getFundCountryExposure(ids: readonly number[]): Promise<ExposureRow[][]> {
    return this.exposure("fund_country_exposure", "fund_id", "country", ids);
  }

  async getFundAllocation(ids: readonly number[]): Promise<ExposureRow[][]> {
    return this.exposure("fund_allocation", "fund_id", "asset_class", ids);
  }

  async getQuarterlyFinancials(securityIds: readonly number[]): Promise<QuarterlyFinancialsRow[][]> {
    const rows = this.batch(
      securityIds,
      `SELECT k.key AS k, f.* FROM json_each(?) k JOIN quarterly_financials f ON f.security_id = k.value
       ORDER BY k.key, f.period_end`,
    );
    return groupByKey(rows, securityIds.length, (r) => {
      const { k: _k, security_id: _s, ...rest } = r;
      return snakeToCamel(rest) as unknown as QuarterlyFinancialsRow;
    });
  }

  async getDividends(securityIds: readonly number[]): Promise<DividendRow[][]> {
    const rows = this.batch(
      securityIds,
      `SELECT k.key AS k, d.* FROM json_each(?) k JOIN dividends d ON d.security_id = k.value
       ORDER BY k.key, d.ex_date`,
    );
    return groupByKey(rows, securityIds.length, toDividend);
  }

  async getSplits(securityIds: readonly number[]): Promise<SplitRow[][]> {
    const rows = this.batch(
      securityIds,
      `SELECT k.key AS k, sp.day, sp.numerator, sp.denominator
       FROM json_each(?) k JOIN splits sp ON sp.security_id = k.value ORDER BY k.key, sp.day`,
    );
    return groupByKey(rows, securityIds.length, (r) => ({
      day: r.day as string,
      numerator: r.numerator as number,
      denominator: r.denominator as number,
    }));
  }

  async getEarningsCalendar(p: EarningsCalendarParams): Promise<EarningsDateRow[]> {
    const rows = this.all(
      `SELECT security_id AS securityId, day, fiscal_year AS fiscalYear, fiscal_quarter AS fiscalQuarter FROM (
         SELECT f.security_id, f.reported_date AS day, f.fiscal_year, f.fiscal_quarter FROM quarterly_financials f
         WHERE f.reported_date BETWEEN ? AND ?
         UNION ALL
         SELECT s.id, s.next_earnings_date, NULL, NULL FROM securities s
         WHERE s.next_earnings_date BETWEEN ? AND ? AND s.type = 'stock' AND NOT EXISTS (SELECT 1
           FROM quarterly_financials f WHERE f.security_id = s.id AND f.reported_date = s.next_earnings_date)
       ) ORDER BY day, security_id, fiscal_year, fiscal_quarter LIMIT ?`,
      p.fromDay,
      p.toDay,
      p.fromDay,
      p.toDay,
      p.limit,
    );
    return rows as unknown as EarningsDateRow[];
  }

  async getIpoCalendar(p: IpoCalendarParams): Promise<IpoRow[]> {
    const rows = this.all(
      `SELECT security_id AS securityId, day, exchange, shares_offered AS sharesOffered, offer_price AS offerPrice,
         currency, status FROM ipos WHERE day BETWEEN ? AND ? ORDER BY day, security_id LIMIT ?`,
      p.fromDay,
      p.toDay,
      p.limit,
    );
    return rows as unknown as IpoRow[];
  }

  async getDividendCalendar(p: DividendCalendarParams): Promise<Page<DividendRow> | null> {
    const after = p.cursor === undefined ? { exDate: "", securityId: -1 } : decodeCalendarCursor(p.cursor);
    if (!after) return null;
    // One extra row tells whether another page exists without a count query.
    const rows = p.securityIds
      ? this.all(
          `SELECT d.* FROM dividends d WHERE d.security_id IN (SELECT value FROM json_each(?))
           AND d.ex_date BETWEEN ? AND ? AND (d.ex_date, d.security_id) > (?, ?)
           ORDER BY d.ex_date, d.security_id LIMIT ?`,
          JSON.stringify(p.securityIds),
          p.fromDay,
          p.toDay,
          after.exDate,
          after.securityId,
          p.limit + 1,
        )
      : this.all(
          `SELECT d.* FROM dividends d JOIN securities s ON s.id = d.security_id AND s.type IN ('stock','etf')
           WHERE d.ex_date BETWEEN ? AND ? AND (d.ex_date, d.security_id) > (?, ?)
           ORDER BY d.ex_date, d.security_id LIMIT ?`,
          p.fromDay,
          p.toDay,
          after.exDate,
          after.securityId,
          p.limit + 1,
        );
    const page = rows.slice(0, p.limit).map(toDividend);
    const last = page[page.length - 1];
    return { rows: page, nextCursor: rows.length > p.limit && last ? encodeCalendarCursor(last) : null };
  }

  async getIndexConstituents(indexSymbols: readonly string[]): Promise<IndexConstituentRow[][]> {
    const rows = this.batch(
      indexSymbols,
      `SELECT k.key AS k, c.security_id, c.weight, c.index_name FROM json_each(?) k
       JOIN index_constituents c ON c.index_symbol = k.value ORDER BY k.key, c.weight DESC`,
    );
    return groupByKey(rows, indexSymbols.length, (r) => ({
      securityId: r.security_id as number,
      weight: r.weight as number,
      indexName: r.index_name as string,
    }));
  }

  async listSecurities(p: ListSecuritiesParams): Promise<Page<SecurityRow> | null> {
    const afterId = p.cursor === undefined ? 0 : decodeListCursor(p.list, p.cursor);
    if (afterId === null) return null;
    // One extra row tells whether another page exists without a count query.
    const rows = this.all(
      `SELECT ${SECURITY_COLUMNS} FROM securities s
       WHERE s.type IN (SELECT value FROM json_each(?)) AND s.id > ? ORDER BY s.id LIMIT ?`,
      JSON.stringify(p.types),
      afterId,
      p.limit + 1,
    );
    const page = rows.slice(0, p.limit).map(toSecurity);
    const last = page[page.length - 1];
    return { rows: page, nextCursor: rows.length > p.limit && last ? encodeListCursor(p.list, last.id) : null };
  }

  async *searchDocuments(): AsyncIterable<SearchDocument[]> {
    // Small pages of only the columns the index keeps: the index is built at start and must not spike memory.
    const pageSize = 5_000;
    let afterId = 0;
    for (;;) {
      const docs = searchDocumentsOf(
        this.all(
          `SELECT ${SEARCH_COLUMNS}
           FROM (SELECT * FROM securities WHERE id > ? ORDER BY id LIMIT ?) s
           JOIN listings l ON l.security_id = s.id ORDER BY s.id, l.is_primary DESC, l.id`,
          afterId,
          pageSize,
        ),
      );
      if (docs.length === 0) return;
      afterId = docs[docs.length - 1]!.security.id;
      yield docs;
    }
  }

  /** The search documents of these securities as the store holds them now (one without a listing has none). */
  searchDocumentsFor(ids: readonly number[]): SearchDocument[] {
    return searchDocumentsOf(
      this.all(
        `SELECT ${SEARCH_COLUMNS}
         FROM securities s JOIN listings l ON l.security_id = s.id
         WHERE s.id IN (SELECT value FROM json_each(?)) ORDER BY s.id, l.is_primary DESC, l.id`,
        JSON.stringify(ids),
      ),
    );
  }

  async getLatestBars(): Promise<LatestBarRow[]> {
    // max(t) over every bar would scan the tables; the latest bar of each listing is one seek in its (listing_id, t)
    // primary key, so this costs one seek per listing (about 0.1 s for the full sample's 125,000).
    const rows = this.all(
      `SELECT s.type AS type,
         max((SELECT max(t) FROM daily_bars WHERE listing_id = l.id)) AS daily_to,
         max((SELECT max(t) FROM intraday_bars WHERE listing_id = l.id)) AS intraday_to
       FROM listings l JOIN securities s ON s.id = l.security_id
       GROUP BY s.type ORDER BY s.type`,
    );
    return rows.map((r) => ({
      type: r.type as SecurityType,
      dailyTo: r.daily_to as number | null,
      intradayTo: r.intraday_to as number | null,
    }));
  }

  /**
   * Changes whenever another connection (a loader or another process writing
   * the file) commits. `PRAGMA data_version` reads no table: it opens a read
   * transaction and compares the WAL's header, about 3 µs (two lock calls to
   * the OS), against about 20 µs for an instrument lookup. It does not see
   * this connection's own commits; this connection writes only API keys
   * (`keys`), which no cache of market data holds.
   */
  dataVersion(): number {
    const seen = this.dataVersionStmt.get() as number;
    if (seen !== this.lastSeenVersion) {
      this.lastSeenVersion = seen;
      this.version++;
    }
    return this.version;
  }

  /**
   * ETF metrics run on worker threads that open this file read-only
   * (sqlite.etf-metrics.worker.ts); an in-memory store is this connection's
   * alone, so its metrics are computed in process.
   */
  etfMetricsWorker(): MetricsWorker | null {
    if (this.db.memory) return null;
    return { file: workerFile(__dirname, "sqlite.etf-metrics.worker"), store: this.db.name };
  }

  async ping(): Promise<void> {
    this.get(`SELECT 1`);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

/**
 * Opens (and migrates, unless read-only) the store at `path`. A store that cannot be opened, read or written is a
 * StartupError naming MDG_SQLITE_PATH and the path (src/sources/sqlite/sqlite.open.ts).
 */
export function openSqliteSource(path: string, opts: { readonly?: boolean; mustExist?: boolean } = {}): SqliteSource {
  return openingStore(path, !opts.readonly, () => {
    const readonly = opts.readonly ?? false;
    const db = new Database(path, { readonly, fileMustExist: opts.mustExist ?? readonly });
    try {
      if (!opts.readonly) {
        db.pragma("journal_mode = WAL");
        migrate(db);
      }
      db.pragma("busy_timeout = 5000");
      // 16 MiB of page cache: hot rows (quotes, profiles) stay cached while the process stays well under its memory
      // budget.
      db.pragma("cache_size = -16384");
    } catch (err) {
      db.close();
      throw err;
    }
    return new SqliteSource(db);
  });
}
