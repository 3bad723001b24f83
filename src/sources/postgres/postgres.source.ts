import pg from "pg";
import type { Pool, QueryResultRow } from "pg";
import type {
  BarCoverageRow,
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
  LatestBarRow,
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
import { PostgresApiKeyStore } from "./postgres.keys";
import { PgSampleSeriesBars } from "./postgres.synthetic";

const INT8_OID = 20;

/**
 * The pool's type parsers: bigint (ids, Unix seconds, counts) as a JavaScript number, as SQLite answers them.
 * node-postgres answers strings by default, since int8 can exceed 2^53; no id or instant of this store comes near.
 * Set on the pool, not on pg's global table, so nothing else in the process changes.
 */
export const PG_TYPES = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === INT8_OID && format !== "binary") return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

const INSTRUMENT_COLUMNS = `${LISTING_COLUMNS}, ${SECURITY_COLUMNS}, ${QUOTE_COLUMNS}, ${ETF_PROFILE_COLUMNS}`;
const INSTRUMENT_JOINS = `LEFT JOIN quotes q ON q.listing_id = l.id LEFT JOIN etf_profiles p ON p.security_id = s.id`;

/*
 * Keys as array parameters. A key that cannot be stored (a fraction or an unsafe integer as an id, a string with a
 * NUL byte, which PostgreSQL's text refuses) becomes NULL, which matches nothing, so it answers "not found" as on
 * SQLite instead of failing the batch.
 */
const idParam = (ids: readonly number[]) => [...new Set(ids)].map((id) => (Number.isSafeInteger(id) ? id : null));
const textParam = (keys: readonly string[]) => [...new Set(keys)].map((k) => (k.includes("\0") ? null : k));
/** Range bounds as whole seconds: bar times are whole, and bigint bounds keep the (listing_id, t) index seek. */
const lowSecond = (x: number) => (Number.isFinite(x) ? Math.ceil(x) : x > 0 ? Number.MAX_SAFE_INTEGER : -1);
const highSecond = (x: number) => (Number.isFinite(x) ? Math.floor(x) : x > 0 ? Number.MAX_SAFE_INTEGER : -1);

function oneByValue<T>(keys: readonly unknown[], rows: Raw[], map: (r: Raw) => T): (T | null)[] {
  const found = new Map<unknown, T>();
  // Rows come in the statement's order; the first row of a key wins (e.g. the lowest id among shared CUSIPs).
  for (const r of rows) if (!found.has(r.k)) found.set(r.k, map(r));
  return keys.map((k) => found.get(k) ?? null);
}

function groupByValue<T>(keys: readonly unknown[], rows: Raw[], map: (r: Raw) => T): T[][] {
  const groups = new Map<unknown, T[]>();
  for (const r of rows) {
    let g = groups.get(r.k);
    if (!g) groups.set(r.k, (g = []));
    g.push(map(r));
  }
  // A key asked twice gets its own list, as on SQLite.
  return keys.map((k) => groups.get(k)?.slice() ?? []);
}

/** Units of the security's currency per US dollar: its latest stored rate (null for a currency without one). */
const usdRate = (alias: string) =>
  `(CASE ${alias}.currency WHEN 'USD' THEN 1.0::double precision ELSE (SELECT f.per_usd FROM fx_daily f
     WHERE f.currency = ${alias}.currency ORDER BY f.day DESC LIMIT 1) END)`;

function groupByIndex<T>(n: number, rows: Raw[], map: (r: Raw) => T): T[][] {
  const out: T[][] = Array.from({ length: n }, () => []);
  for (const r of rows) out[(r.k as number) - 1]!.push(map(r));
  return out;
}

/* Cursors: the same text as SQLite's (sqlite.source.ts), so a cursor is valid on either store of the same data. */
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

export interface PostgresSourceOptions {
  /** Close the pool with the source (the factory's pool); false when the caller owns it. */
  ownsPool?: boolean;
}

/**
 * The PostgreSQL store, on a `pg.Pool`. Every batch method is one statement: the keys go in as one array parameter
 * (`= ANY($1)`, or `unnest(...) WITH ORDINALITY` for range keys, whose answers are grouped by the key's position),
 * so a DataLoader batch of N keys costs one query, as on SQLite (`json_each`). Statements are named, so each
 * connection parses and plans each of them once.
 */
export class PostgresSource implements RowStore {
  readonly kind = "postgres" as const;
  readonly stats: SourceStats = { queries: 0 };
  readonly capabilities: ReadonlySet<CapabilityName> = new Set(CAPABILITY_NAMES);
  /** The service's API keys, in the same database (and counted in the same `stats`), but not market data. */
  readonly keys: PostgresApiKeyStore;
  /** Daily paths the generated sample computes when read; answers nothing on any other store. */
  readonly sampleSeries: PgSampleSeriesBars;
  private readonly names = new Map<string, string>();
  private closed: Promise<void> | undefined;

  constructor(
    readonly pool: Pool,
    private readonly opts: PostgresSourceOptions = {},
  ) {
    this.keys = new PostgresApiKeyStore(pool, this.stats);
    this.sampleSeries = new PgSampleSeriesBars((sql, params) => this.all(sql, params));
  }

  /** One statement; counted in `stats.queries`. */
  private async all(sql: string, params: unknown[] = []): Promise<Raw[]> {
    this.stats.queries++;
    let name = this.names.get(sql);
    if (name === undefined) this.names.set(sql, (name = `mdg_${this.names.size + 1}`));
    const res = await this.pool.query<QueryResultRow>({ name, text: sql, values: params });
    return res.rows;
  }

  /**
   * Instruments by a text key: `l.symbol` answers that listing, a security's code (`s.isin`, `s.cusip`, `s.wkn`) its
   * primary listing. Ordered by security id so that a code two securities share answers the lowest id.
   */
  private async instruments(keys: readonly string[], column: string): Promise<(InstrumentRow | null)[]> {
    if (keys.length === 0) return [];
    const primary = column.startsWith("s.") ? "AND l.is_primary" : "";
    const rows = await this.all(
      `SELECT ${column} AS k, ${INSTRUMENT_COLUMNS}
       FROM listings l JOIN securities s ON s.id = l.security_id ${INSTRUMENT_JOINS}
       WHERE ${column} = ANY($1::text[]) ${primary} ORDER BY s.id`,
      [textParam(keys)],
    );
    return oneByValue(keys, rows, toInstrument);
  }

  async getInstrumentsBySymbols(symbols: readonly string[]): Promise<(InstrumentRow | null)[]> {
    return this.instruments(symbols, "l.symbol");
  }

  async getInstrumentsByIsins(isins: readonly string[]): Promise<(InstrumentRow | null)[]> {
    return this.instruments(isins, "s.isin");
  }

  /** A code two securities share (real CUSIPs can) answers the one of lowest id. */
  async getInstrumentsByCusips(cusips: readonly string[]): Promise<(InstrumentRow | null)[]> {
    return this.instruments(cusips, "s.cusip");
  }

  async getInstrumentsByWkns(wkns: readonly string[]): Promise<(InstrumentRow | null)[]> {
    return this.instruments(wkns, "s.wkn");
  }

  async getSecuritiesByIds(ids: readonly number[]): Promise<(SecurityRow | null)[]> {
    if (ids.length === 0) return [];
    const rows = await this.all(
      `SELECT s.id AS k, ${SECURITY_COLUMNS} FROM securities s WHERE s.id = ANY($1::bigint[])`,
      [idParam(ids)],
    );
    return oneByValue(ids, rows, toSecurity);
  }

  async getListingsBySecurityIds(securityIds: readonly number[]): Promise<ListingRow[][]> {
    if (securityIds.length === 0) return [];
    const rows = await this.all(
      `SELECT l.security_id AS k, ${LISTING_COLUMNS} FROM listings l WHERE l.security_id = ANY($1::bigint[])
       ORDER BY l.security_id, l.is_primary DESC, l.id`,
      [idParam(securityIds)],
    );
    return groupByValue(securityIds, rows, toListing);
  }

  async getQuotes(listingIds: readonly number[]): Promise<(QuoteRow | null)[]> {
    if (listingIds.length === 0) return [];
    const rows = await this.all(
      `SELECT q.listing_id AS k, ${QUOTE_COLUMNS} FROM quotes q WHERE q.listing_id = ANY($1::bigint[])`,
      [idParam(listingIds)],
    );
    return oneByValue(listingIds, rows, toQuote);
  }

  /** SQLite's statement (sqlite.source.ts), in PostgreSQL's words: the same order, the same float arithmetic. */
  async getStockPeers(keys: readonly PeersKey[]): Promise<InstrumentRow[][]> {
    if (keys.length === 0) return [];
    const rows = await this.all(
      `SELECT r.k AS k, ${INSTRUMENT_COLUMNS}
       FROM (SELECT me.k, me.lim, c.id AS cid, row_number() OVER (PARTITION BY me.k ORDER BY
               (c.industry IS NOT DISTINCT FROM me.industry) DESC,
               CASE WHEN me.usd IS NULL THEN 0 WHEN c.usd >= me.usd THEN c.usd / me.usd ELSE me.usd / c.usd END,
               c.usd DESC, c.id) AS rn
             FROM (SELECT k.k, k.lim, s.id, s.sector, s.industry,
                     CASE WHEN s.market_cap > 0 THEN s.market_cap / ${usdRate("s")} END AS usd
                   FROM unnest($1::bigint[], $2::int[]) WITH ORDINALITY AS k(id, lim, k)
                   JOIN securities s ON s.id = k.id AND s.type = 'stock') me
             JOIN (SELECT c.id, c.sector, c.industry, c.market_cap / ${usdRate("c")} AS usd FROM securities c
                   WHERE c.type = 'stock' AND c.is_active AND c.market_cap > 0) c
               ON c.sector = me.sector AND c.id <> me.id AND c.usd IS NOT NULL) r
       JOIN securities s ON s.id = r.cid JOIN listings l ON l.security_id = s.id AND l.is_primary ${INSTRUMENT_JOINS}
       WHERE r.rn <= r.lim ORDER BY r.k, r.rn`,
      [
        keys.map((k) => (Number.isSafeInteger(k.securityId) ? k.securityId : null)),
        keys.map((k) => Math.max(0, Math.min(2 ** 31 - 1, Math.floor(k.limit)))),
      ],
    );
    return groupByIndex(keys.length, rows, toInstrument);
  }

  private async bars(table: "daily_bars" | "intraday_bars", keys: readonly BarRangeKey[]): Promise<BarRow[][]> {
    if (keys.length === 0) return [];
    const rows = await this.all(
      `SELECT k.i AS k, b.t, b.o, b.h, b.l, b.c, b.v
       FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS k(listing_id, lo, hi, i)
       JOIN ${table} b ON b.listing_id = k.listing_id AND b.t BETWEEN k.lo AND k.hi
       ORDER BY k.i, b.t`,
      [
        keys.map((k) => (Number.isSafeInteger(k.listingId) ? k.listingId : null)),
        keys.map((k) => lowSecond(k.from)),
        keys.map((k) => highSecond(k.to)),
      ],
    );
    return groupByIndex(keys.length, rows, toBar);
  }

  async getDailyBars(keys: readonly BarRangeKey[]): Promise<BarRow[][]> {
    const out = await this.bars("daily_bars", keys);
    // The generated sample computes the paths it does not store (postgres.synthetic.ts).
    await this.sampleSeries.fill(keys, out);
    return out;
  }

  async getIntradayBars(keys: readonly BarRangeKey[]): Promise<BarRow[][]> {
    return this.bars("intraday_bars", keys);
  }

  async getBarCoverage(listingIds: readonly number[]): Promise<BarCoverageRow[]> {
    if (listingIds.length === 0) return [];
    // min/max over the (listing_id, t) primary keys are index seeks (one each way), not scans.
    const rows = await this.all(
      `SELECT k.id AS k,
         (SELECT min(t) FROM daily_bars WHERE listing_id = k.id) AS daily_from,
         (SELECT max(t) FROM daily_bars WHERE listing_id = k.id) AS daily_to,
         (SELECT min(t) FROM intraday_bars WHERE listing_id = k.id) AS intraday_from,
         (SELECT max(t) FROM intraday_bars WHERE listing_id = k.id) AS intraday_to
       FROM unnest($1::bigint[]) AS k(id)`,
      [idParam(listingIds)],
    );
    const found = oneByValue(listingIds, rows, (r) => ({
      dailyFrom: r.daily_from as number | null,
      dailyTo: r.daily_to as number | null,
      intradayFrom: r.intraday_from as number | null,
      intradayTo: r.intraday_to as number | null,
    }));
    const all = found.map((c) => c ?? { dailyFrom: null, dailyTo: null, intradayFrom: null, intradayTo: null });
    const bare = listingIds.filter((_, i) => all[i]!.dailyFrom === null);
    if (bare.length > 0) {
      const computed = await this.sampleSeries.coverage(bare);
      let j = 0;
      all.forEach((c, i) => {
        if (c.dailyFrom !== null) return;
        const range = computed[j++];
        if (range) all[i] = { ...c, dailyFrom: range.from, dailyTo: range.to };
      });
    }
    return all;
  }

  async getFxRates(keys: readonly FxRangeKey[]): Promise<FxRow[][]> {
    if (keys.length === 0) return [];
    const rows = await this.all(
      `SELECT k.i AS k, f.day, f.per_usd
       FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS k(currency, lo, hi, i)
       JOIN fx_daily f ON f.currency = k.currency AND f.day BETWEEN k.lo AND k.hi
       ORDER BY k.i, f.day`,
      [keys.map((k) => noNul(k.currency)), keys.map((k) => noNul(k.fromDay)), keys.map((k) => noNul(k.toDay))],
    );
    return groupByIndex(keys.length, rows, (r) => ({ day: r.day as string, perUsd: r.per_usd as number }));
  }

  async getEtfProfiles(securityIds: readonly number[]): Promise<(EtfProfileRow | null)[]> {
    if (securityIds.length === 0) return [];
    const rows = await this.all(
      `SELECT p.security_id AS k, ${ETF_PROFILE_COLUMNS} FROM etf_profiles p WHERE p.security_id = ANY($1::bigint[])`,
      [idParam(securityIds)],
    );
    return oneByValue(securityIds, rows, toEtfProfile);
  }

  private async holdings(table: "etf_holdings" | "fund_holdings", idColumn: string, ids: readonly number[]) {
    if (ids.length === 0) return [];
    const rows = await this.all(
      `SELECT h.${idColumn} AS k, h.* FROM ${table} h WHERE h.${idColumn} = ANY($1::bigint[])
       ORDER BY h.${idColumn}, h.position`,
      [idParam(ids)],
    );
    return groupByValue(ids, rows, toHolding);
  }

  async getEtfHoldings(securityIds: readonly number[]): Promise<HoldingRow[][]> {
    return this.holdings("etf_holdings", "etf_id", securityIds);
  }

  private async exposure(
    table: string,
    idColumn: string,
    nameColumn: string,
    securityIds: readonly number[],
  ): Promise<ExposureRow[][]> {
    if (securityIds.length === 0) return [];
    const rows = await this.all(
      `SELECT e.${idColumn} AS k, e.${nameColumn} AS name, e.weight FROM ${table} e
       WHERE e.${idColumn} = ANY($1::bigint[]) ORDER BY e.${idColumn}, e.weight DESC, e.${nameColumn}`,
      [idParam(securityIds)],
    );
    return groupByValue(securityIds, rows, toExposure);
  }

  async getEtfSectorExposure(ids: readonly number[]): Promise<ExposureRow[][]> {
    return this.exposure("etf_sector_exposure", "etf_id", "sector", ids);
  }

  async getEtfCountryExposure(ids: readonly number[]): Promise<ExposureRow[][]> {
    return this.exposure("etf_country_exposure", "etf_id", "country", ids);
  }

  async getFundProfiles(securityIds: readonly number[]): Promise<(FundProfileRow | null)[]> {
    if (securityIds.length === 0) return [];
    const rows = await this.all(
      `SELECT p.security_id AS k, p.* FROM fund_profiles p WHERE p.security_id = ANY($1::bigint[])`,
      [idParam(securityIds)],
    );
    return oneByValue(securityIds, rows, (r) => {
      const { k: _k, ...rest } = r;
      return snakeToCamel(rest) as unknown as FundProfileRow;
    });
  }

  async getFundHoldings(securityIds: readonly number[]): Promise<HoldingRow[][]> {
    return this.holdings("fund_holdings", "fund_id", securityIds);
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
    if (securityIds.length === 0) return [];
    const rows = await this.all(
      `SELECT f.security_id AS k, f.* FROM quarterly_financials f WHERE f.security_id = ANY($1::bigint[])
       ORDER BY f.security_id, f.period_end`,
      [idParam(securityIds)],
    );
    return groupByValue(securityIds, rows, (r) => {
      const { k: _k, security_id: _s, ...rest } = r;
      return snakeToCamel(rest) as unknown as QuarterlyFinancialsRow;
    });
  }

  async getDividends(securityIds: readonly number[]): Promise<DividendRow[][]> {
    if (securityIds.length === 0) return [];
    const rows = await this.all(
      `SELECT d.security_id AS k, d.* FROM dividends d WHERE d.security_id = ANY($1::bigint[])
       ORDER BY d.security_id, d.ex_date`,
      [idParam(securityIds)],
    );
    return groupByValue(securityIds, rows, toDividend);
  }

  async getSplits(securityIds: readonly number[]): Promise<SplitRow[][]> {
    if (securityIds.length === 0) return [];
    const rows = await this.all(
      `SELECT sp.security_id AS k, sp.day, sp.numerator, sp.denominator FROM splits sp
       WHERE sp.security_id = ANY($1::bigint[]) ORDER BY sp.security_id, sp.day`,
      [idParam(securityIds)],
    );
    return groupByValue(securityIds, rows, (r) => ({
      day: r.day as string,
      numerator: r.numerator as number,
      denominator: r.denominator as number,
    }));
  }

  async getEarningsCalendar(p: EarningsCalendarParams): Promise<EarningsDateRow[]> {
    const rows = await this.all(
      `SELECT security_id AS "securityId", day, fiscal_year AS "fiscalYear", fiscal_quarter AS "fiscalQuarter" FROM (
         SELECT f.security_id, f.reported_date AS day, f.fiscal_year, f.fiscal_quarter FROM quarterly_financials f
         WHERE f.reported_date BETWEEN $1 AND $2
         UNION ALL
         SELECT s.id, s.next_earnings_date, NULL, NULL FROM securities s
         WHERE s.next_earnings_date BETWEEN $1 AND $2 AND s.type = 'stock' AND NOT EXISTS (SELECT 1
           FROM quarterly_financials f WHERE f.security_id = s.id AND f.reported_date = s.next_earnings_date)
       ) e ORDER BY day, security_id, fiscal_year, fiscal_quarter LIMIT $3`,
      [noNul(p.fromDay), noNul(p.toDay), p.limit],
    );
    return rows as unknown as EarningsDateRow[];
  }

  async getIpoCalendar(p: IpoCalendarParams): Promise<IpoRow[]> {
    const rows = await this.all(
      `SELECT security_id AS "securityId", day, exchange, shares_offered AS "sharesOffered",
         offer_price AS "offerPrice", currency, status FROM ipos WHERE day BETWEEN $1 AND $2
       ORDER BY day, security_id LIMIT $3`,
      [noNul(p.fromDay), noNul(p.toDay), p.limit],
    );
    return rows as unknown as IpoRow[];
  }

  async getDividendCalendar(p: DividendCalendarParams): Promise<Page<DividendRow> | null> {
    const after = p.cursor === undefined ? { exDate: "", securityId: -1 } : decodeCalendarCursor(p.cursor);
    if (!after) return null;
    // One extra row tells whether another page exists without a count query.
    const range = [noNul(p.fromDay), noNul(p.toDay), after.exDate, after.securityId, p.limit + 1];
    const rows = p.securityIds
      ? await this.all(
          `SELECT d.* FROM dividends d WHERE d.security_id = ANY($6::bigint[])
           AND d.ex_date BETWEEN $1 AND $2 AND (d.ex_date, d.security_id) > ($3, $4)
           ORDER BY d.ex_date, d.security_id LIMIT $5`,
          [...range, idParam(p.securityIds)],
        )
      : await this.all(
          `SELECT d.* FROM dividends d JOIN securities s ON s.id = d.security_id AND s.type IN ('stock','etf')
           WHERE d.ex_date BETWEEN $1 AND $2 AND (d.ex_date, d.security_id) > ($3, $4)
           ORDER BY d.ex_date, d.security_id LIMIT $5`,
          range,
        );
    const page = rows.slice(0, p.limit).map(toDividend);
    const last = page[page.length - 1];
    return { rows: page, nextCursor: rows.length > p.limit && last ? encodeCalendarCursor(last) : null };
  }

  async getIndexConstituents(indexSymbols: readonly string[]): Promise<IndexConstituentRow[][]> {
    if (indexSymbols.length === 0) return [];
    const rows = await this.all(
      `SELECT c.index_symbol AS k, c.security_id, c.weight, c.index_name FROM index_constituents c
       WHERE c.index_symbol = ANY($1::text[]) ORDER BY c.index_symbol, c.weight DESC`,
      [textParam(indexSymbols)],
    );
    return groupByValue(indexSymbols, rows, (r) => ({
      securityId: r.security_id as number,
      weight: r.weight as number,
      indexName: r.index_name as string,
    }));
  }

  async listSecurities(p: ListSecuritiesParams): Promise<Page<SecurityRow> | null> {
    const afterId = p.cursor === undefined ? 0 : decodeListCursor(p.list, p.cursor);
    if (afterId === null) return null;
    // One type (every list but "all") reads the (type, id) index in order from the cursor on; with `= ANY` the planner
    // read a small type's whole range and sorted it for every page (EXPLAIN: all 1,500 ETFs for a page of 100).
    const one = p.types.length === 1;
    const rows = await this.all(
      `SELECT ${SECURITY_COLUMNS} FROM securities s
       WHERE ${one ? "s.type = $1::text" : "s.type = ANY($1::text[])"} AND s.id > $2 ORDER BY s.id LIMIT $3`,
      [one ? noNul(p.types[0]!) : textParam(p.types), afterId, p.limit + 1],
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
      const rows = await this.all(
        `SELECT ${SEARCH_COLUMNS}
         FROM (SELECT * FROM securities WHERE id > $1 ORDER BY id LIMIT $2) s
         JOIN listings l ON l.security_id = s.id ORDER BY s.id, l.is_primary DESC, l.id`,
        [afterId, pageSize],
      );
      if (rows.length === 0) return;
      const docs = searchDocumentsOf(rows);
      afterId = docs[docs.length - 1]!.security.id;
      yield docs;
    }
  }

  async getLatestBars(): Promise<LatestBarRow[]> {
    // The latest bar of each listing is one backward seek in its (listing_id, t) primary key; max(t) over the whole
    // tables would scan them.
    const rows = await this.all(
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

  async ping(): Promise<void> {
    await this.all(`SELECT 1`);
  }

  async close(): Promise<void> {
    if (this.opts.ownsPool === false) return;
    await (this.closed ??= this.pool.end());
  }
}

function noNul(s: string): string | null {
  return s.includes("\0") ? null : s;
}

export interface PostgresPoolOptions {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  /** Shown in pg_stat_activity, so an operator can tell this service's connections apart. */
  applicationName?: string;
}

/** The pool every PostgreSQL reader of the service shares (one per process). */
export function createPostgresPool(o: PostgresPoolOptions): Pool {
  const pool = new pg.Pool({
    connectionString: o.url,
    max: o.poolSize,
    statement_timeout: o.statementTimeoutMs,
    application_name: o.applicationName ?? "market-data-gateway",
    types: PG_TYPES,
    // Every statement is named (prepared once per connection), but with the default plan_cache_mode PostgreSQL
    // re-plans `= ANY($1)` lookups on every execution: an array parameter makes the generic plan look costlier than
    // the custom ones, so it never switches (pg_prepared_statements: 0 generic, every call custom). The plans are
    // the same index scans; planning was most of the statement's server time (0.3 ms of 0.35 on a small sample).
    // A URL's own `options` parameter still wins.
    options: "-c plan_cache_mode=force_generic_plan",
    // A pool that cannot reach the server fails the request instead of queueing it forever.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection the server drops (restart, failover) emits 'error' on the pool; without a listener that
  // would end the process. The pool replaces the connection on the next checkout.
  pool.on("error", () => undefined);
  return pool;
}
