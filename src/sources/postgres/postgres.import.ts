import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Pool, PoolClient } from "pg";
import { from as copyFrom } from "pg-copy-streams";
import {
  type BarRow,
  columnOf,
  FINANCIAL_FIGURES,
  OPTIONAL_FINANCIAL_FIGURES,
  type SecurityType,
} from "../../domain/ports/source.types";
import type {
  DailyBarImportRow,
  DividendImportRow,
  IpoImportRow,
  EtfProfileImportRow,
  ExchangeImportRow,
  ExposureImportRow,
  FinancialsImportRow,
  FundProfileImportRow,
  FxImportRow,
  HoldingImportRow,
  IntradayBarImportRow,
  ImportCounts,
  ImportListing,
  ImportResult,
  ImportSink,
  ImportSplit,
  QuoteImportRow,
  SecurityImportRow,
  SplitImportRow,
} from "../../domain/ports/source.import";
import type {
  IngestCompanies,
  IngestCompany,
  IngestListingRef,
  IngestStateStore,
} from "../../domain/ports/source.ingest";
import { BinaryRows, type ColumnType } from "./postgres.sample";
import { PgSampleSeriesBars } from "./postgres.synthetic";

/** The security columns an import may set, as named in the row and in the table (as SQLite's sink). */
const SECURITY_FIELDS = [
  ["type", "type"],
  ["name", "name"],
  ["isin", "isin"],
  ["cusip", "cusip"],
  ["wkn", "wkn"],
  ["cik", "cik"],
  ["country", "country"],
  ["sector", "sector"],
  ["industry", "industry"],
] as const;

/**
 * A batch's own statements may run longer than a request's (MDG_PG_STATEMENT_TIMEOUT_MS guards the service's
 * reads): a split rescales every earlier bar of a security, and a batch waits for another writer's commit.
 */
const IMPORT_STATEMENT_TIMEOUT = "5min";

const UNIQUE_VIOLATION = "23505";
/** The SQLSTATE the check before a COPY of new bars raises when the store holds some of them (see newBars). */
const HELD_BARS = "MDG01";

/** A table written by staging a batch and upserting it in one statement; `types` are the key then value columns'. */
interface StagedTable<R> {
  table: string;
  keys: readonly string[];
  values: readonly string[];
  types: readonly ColumnType[];
  row(r: R): unknown[];
  /** The row's key as one value, to tell a batch that repeats a key. */
  key(r: R): string;
  /** The batch as COPY's binary format at once (`sequenced`: each row's index first), where rows are all numbers. */
  binary?(rows: readonly R[], sequenced: boolean): Buffer;
  /** True when no two rows of the batch share a key, where telling so is cheaper than a set of `key`s. */
  unique?(rows: readonly R[]): boolean;
}

const COPY_SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

/** A whole number as a bigint field's 8 bytes; refused as BinaryRows refuses it when it is not a safe integer. */
function setBigint(view: DataView, at: number, n: number): void {
  if (!Number.isSafeInteger(n)) throw new Error(`not a whole number for a bigint column: ${String(n)}`);
  const high = Math.floor(n / 2 ** 32);
  view.setInt32(at, high);
  view.setUint32(at + 4, n - high * 2 ** 32);
}

/** A double precision field (its length, then its 8 bytes); answers where the next field starts. */
function setDouble(view: DataView, at: number, x: number): number {
  view.setInt32(at, 8);
  view.setFloat64(at + 4, x);
  return at + 12;
}

/**
 * Bars as COPY's binary format in one buffer (the manual's "Binary Format", as BinaryRows writes it): a bar is seven
 * numbers, written field by field without an array per row, the import's hottest write.
 */
function binaryBars(rows: readonly DailyBarImportRow[], sequenced: boolean): Buffer {
  const rowBytes = 2 + (sequenced ? 8 : 0) + 2 * 12 + 5 * 12;
  const buf = Buffer.allocUnsafe(COPY_SIGNATURE.length + 8 + rows.length * rowBytes + 2);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let at = COPY_SIGNATURE.copy(buf, 0);
  view.setInt32(at, 0); // flags
  view.setInt32(at + 4, 0); // header extension length
  at += 8;
  const fields = sequenced ? 8 : 7;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    view.setInt16(at, fields);
    at += 2;
    if (sequenced) {
      view.setInt32(at, 4);
      view.setInt32(at + 4, i);
      at += 8;
    }
    view.setInt32(at, 8);
    setBigint(view, at + 4, r.listingId);
    view.setInt32(at + 12, 8);
    setBigint(view, at + 16, r.t);
    at = setDouble(view, at + 24, r.o);
    at = setDouble(view, at, r.h);
    at = setDouble(view, at, r.l);
    at = setDouble(view, at, r.c);
    at = setDouble(view, at, r.v);
  }
  view.setInt16(at, -1); // trailer
  return buf.subarray(0, at + 2);
}

/** True when every bar's key follows the one before (a file's bars listing by listing, day after day). */
function ascendingBars(rows: readonly DailyBarImportRow[]): boolean {
  for (let i = 1; i < rows.length; i++) {
    const a = rows[i - 1]!;
    const b = rows[i]!;
    if (b.listingId < a.listingId || (b.listingId === a.listingId && b.t <= a.t)) return false;
  }
  return true;
}

/** True when no two rows of the batch share a key. */
function uniqueKeys<R>(t: StagedTable<R>, rows: readonly R[]): boolean {
  return t.unique?.(rows) || new Set(rows.map(t.key)).size === rows.length;
}

const DAILY_BARS: StagedTable<DailyBarImportRow> = {
  table: "daily_bars",
  keys: ["listing_id", "t"],
  values: ["o", "h", "l", "c", "v"],
  types: [
    "bigint",
    "bigint",
    "double precision",
    "double precision",
    "double precision",
    "double precision",
    "double precision",
  ],
  row: (r) => [r.listingId, r.t, r.o, r.h, r.l, r.c, r.v],
  key: (r) => `${r.listingId}:${r.t}`,
  binary: binaryBars,
  unique: ascendingBars,
};

const INTRADAY_BARS: StagedTable<IntradayBarImportRow> = {
  ...(DAILY_BARS as unknown as StagedTable<IntradayBarImportRow>),
  table: "intraday_bars",
};

const FX: StagedTable<FxImportRow> = {
  table: "fx_daily",
  keys: ["currency", "day"],
  values: ["per_usd"],
  types: ["text", "text", "double precision"],
  row: (r) => [r.currency, r.day, r.perUsd],
  key: (r) => `${r.currency}:${r.day}`,
};

const QUOTES: StagedTable<QuoteImportRow> = {
  table: "quotes",
  keys: ["listing_id"],
  values: ["t", "c", "o", "h", "l", "pc", "v", "ma50", "ma200", "avg_volume"],
  types: ["bigint", "bigint", ...Array<ColumnType>(9).fill("double precision")],
  row: (r) => [r.listingId, r.t, r.c, r.o, r.h, r.l, r.pc, r.v, r.ma50, r.ma200, r.avgVolume],
  key: (r) => String(r.listingId),
};

const EXCHANGES: StagedTable<ExchangeImportRow> = {
  table: "exchanges",
  keys: ["code"],
  values: ["name", "country", "currency", "timezone"],
  types: ["text", "text", "text", "text", "text"],
  row: (r) => [r.code, r.name, r.country, r.currency, r.timezone],
  key: (r) => r.code,
};

/** A column as named in the import row, in the table, and its type there. */
type Column = readonly [field: string, column: string, type: ColumnType];

/** A StagedTable of rows whose fields map one to one onto the table's columns (an absent field is NULL). */
function shaped<R extends object>(table: string, keys: readonly Column[], values: readonly Column[]): StagedTable<R> {
  const all = [...keys, ...values];
  return {
    table,
    keys: keys.map(([, c]) => c),
    values: values.map(([, c]) => c),
    types: all.map(([, , t]) => t),
    row: (r) => all.map(([f]) => (r as Record<string, unknown>)[f] ?? null),
    key: (r) => keys.map(([f]) => String((r as Record<string, unknown>)[f])).join(":"),
  };
}

const text = (field: string, column = field): Column => [field, column, "text"];
const num = (field: string, column = field): Column => [field, column, "double precision"];
const int = (field: string, column = field): Column => [field, column, "integer"];
const id = (field: string, column: string): Column => [field, column, "bigint"];

const ETF_PROFILES = shaped<EtfProfileImportRow>(
  "etf_profiles",
  [id("securityId", "security_id")],
  [
    text("issuer"),
    text("assetClass", "asset_class"),
    num("aum"),
    num("nav"),
    text("navCurrency", "nav_currency"),
    num("expenseRatio", "expense_ratio"),
    text("inceptionDate", "inception_date"),
    text("domicile"),
    text("replication"),
    text("distributionPolicy", "distribution_policy"),
    text("benchmark"),
    int("holdingsCount", "holdings_count"),
    text("holdingsDate", "holdings_date"),
  ],
);

const FUND_PROFILES = shaped<FundProfileImportRow>(
  "fund_profiles",
  [id("securityId", "security_id")],
  [
    text("fundCompany", "fund_company"),
    text("category"),
    text("assetClass", "asset_class"),
    num("aum"),
    num("nav"),
    text("navCurrency", "nav_currency"),
    num("ongoingCharge", "ongoing_charge"),
    num("entryCharge", "entry_charge"),
    text("inceptionDate", "inception_date"),
    text("domicile"),
    text("benchmark"),
    int("riskClass", "risk_class"),
    text("distributionPolicy", "distribution_policy"),
    num("minInvestment", "min_investment"),
    int("holdingsCount", "holdings_count"),
    text("holdingsDate", "holdings_date"),
  ],
);

const HOLDING_COMMON: readonly Column[] = [
  id("holdingSecurityId", "holding_security_id"),
  text("symbol"),
  text("name"),
  text("isin"),
  text("sector"),
  text("country"),
  num("weight"),
  num("marketValue", "market_value"),
];

const HOLDINGS: Readonly<Record<HoldingImportRow["holder"], StagedTable<HoldingImportRow>>> = {
  etf: shaped(
    "etf_holdings",
    [id("holderId", "etf_id"), int("position")],
    [...HOLDING_COMMON, text("cusip"), num("shares")],
  ),
  fund: shaped(
    "fund_holdings",
    [id("holderId", "fund_id"), int("position")],
    [...HOLDING_COMMON, text("assetClass", "asset_class")],
  ),
};

/** The exposure tables, by holder and exposure. */
const EXPOSURES: Readonly<Record<string, StagedTable<ExposureImportRow>>> = Object.fromEntries(
  (
    [
      ["etf", "sector", "etf_sector_exposure", "etf_id", "sector"],
      ["etf", "country", "etf_country_exposure", "etf_id", "country"],
      ["fund", "sector", "fund_sector_exposure", "fund_id", "sector"],
      ["fund", "country", "fund_country_exposure", "fund_id", "country"],
      ["fund", "allocation", "fund_allocation", "fund_id", "asset_class"],
    ] as const
  ).map(([holder, exposure, table, holderColumn, name]) => [
    `${holder}:${exposure}`,
    shaped<ExposureImportRow>(table, [id("holderId", holderColumn), text("name", name)], [num("weight")]),
  ]),
);

const FINANCIALS = shaped<FinancialsImportRow>(
  "quarterly_financials",
  [id("securityId", "security_id"), text("periodEnd", "period_end")],
  [
    int("fiscalYear", "fiscal_year"),
    int("fiscalQuarter", "fiscal_quarter"),
    text("reportedDate", "reported_date"),
    text("currency"),
    ...[...FINANCIAL_FIGURES, ...OPTIONAL_FINANCIAL_FIGURES].map((f) => num(f, columnOf(f))),
  ],
);

const IPOS = shaped<IpoImportRow>(
  "ipos",
  [id("securityId", "security_id"), text("day")],
  [
    text("exchange"),
    num("sharesOffered", "shares_offered"),
    num("offerPrice", "offer_price"),
    text("currency"),
    text("status"),
  ],
);

const DIVIDENDS = shaped<DividendImportRow & { adjustedAmount: number }>(
  "dividends",
  [id("securityId", "security_id"), text("exDate", "ex_date")],
  [
    text("recordDate", "record_date"),
    text("payDate", "pay_date"),
    text("declarationDate", "declaration_date"),
    num("amount"),
    num("adjustedAmount", "adjusted_amount"),
    text("currency"),
    int("frequency"),
  ],
);

/**
 * The one statement that upserts a staged batch and counts it as SQLite's sink does row by row: a row is
 * inserted when its key is new to the store and to the batch so far, changed when its values differ from what
 * the key held just before it (the stored row, or the batch's previous row of the key), unchanged otherwise. The
 * last row of each key is what the store keeps. Every part of a statement reads the same snapshot, so the counts
 * compare with the store as it was before the upsert. The stored rows are looked up one by one through the key's
 * index (LIMIT keeps the lateral subquery from becoming a join): a temporary table has no statistics, and a hash
 * join would read the whole table for every batch.
 */
function upsertSql(t: StagedTable<unknown>, stage: string): string {
  const { table, keys, values } = t;
  const key = keys.join(", ");
  const all = [...keys, ...values].join(", ");
  const tuple = (prefix: string, cols: readonly string[]) => `(${cols.map((c) => prefix + c).join(", ")})`;
  return `
    WITH s AS (
      SELECT ${all}, ${values.map((c) => `lag(${c}) OVER w AS p_${c}`).join(", ")},
        row_number() OVER w AS n, count(*) OVER (PARTITION BY ${key}) AS k
      FROM ${stage} WINDOW w AS (PARTITION BY ${key} ORDER BY seq)
    ), up AS (
      INSERT INTO ${table} (${all}) SELECT ${all} FROM s WHERE n = k
      ON CONFLICT (${key}) DO UPDATE SET ${values.map((c) => `${c} = excluded.${c}`).join(", ")}
      WHERE ${tuple(`${table}.`, values)} IS DISTINCT FROM ${tuple("excluded.", values)}
    ), c AS (
      SELECT s.n = 1 AND d.held IS NULL AS new,
        ${values.map((v) => `CASE WHEN s.n = 1 THEN d.${v} ELSE s.p_${v} END AS e_${v}`).join(", ")},
        ${values.map((v) => `s.${v}`).join(", ")}
      FROM s LEFT JOIN LATERAL (
        SELECT ${values.join(", ")}, true AS held FROM ${table}
        WHERE s.n = 1 AND ${keys.map((k) => `${table}.${k} = s.${k}`).join(" AND ")} LIMIT 1
      ) d ON true
    )
    SELECT count(*) FILTER (WHERE new)::int AS inserted,
      count(*) FILTER (WHERE NOT new AND ${tuple("e_", values)} IS DISTINCT FROM ${tuple("", values)})::int AS changed,
      count(*) FILTER (WHERE NOT new AND ${tuple("e_", values)} IS NOT DISTINCT FROM ${tuple("", values)})::int
        AS unchanged
    FROM c`;
}

/**
 * `upsertSql` for a batch whose keys are all different, in a quarter of its time: no window, no lookup. A row
 * that the upsert did not touch was unchanged; of those it touched, the inserted ones have no deleting
 * transaction (`xmax = 0`), the updated ones are locked by this one.
 */
function uniqueUpsertSql(t: StagedTable<unknown>, stage: string): string {
  const { table, keys, values } = t;
  const all = [...keys, ...values].join(", ");
  const tuple = (prefix: string) => `(${values.map((c) => prefix + c).join(", ")})`;
  return `
    WITH up AS (
      INSERT INTO ${table} (${all}) SELECT ${all} FROM ${stage}
      ON CONFLICT (${keys.join(", ")}) DO UPDATE SET ${values.map((c) => `${c} = excluded.${c}`).join(", ")}
      WHERE ${tuple(`${table}.`)} IS DISTINCT FROM ${tuple("excluded.")}
      RETURNING xmax = 0 AS inserted
    )
    SELECT count(*) FILTER (WHERE inserted)::int AS inserted, count(*) FILTER (WHERE NOT inserted)::int AS changed
    FROM up`;
}

interface StoredSecurity {
  id: number;
  type: string;
  name: string;
  isin: string | null;
  cusip: string | null;
  wkn: string | null;
  cik: number | null;
  country: string | null;
  sector: string | null;
  industry: string | null;
}

/**
 * The import pipeline's writer into a PostgreSQL store, on the service's pool. Each upsert is one transaction,
 * so a batch is wholly in or wholly out, and counts as SQLite's sink counts (src/sources/sqlite/sqlite.import.ts).
 *
 * The kinds that map onto table rows (bars, quotes, fx, exchanges, ETF and fund profiles, holdings, exposures,
 * financials, dividends) go in with binary COPY into a temporary table that the transaction drops at COMMIT, then
 * one upsert statement per table (`upsertSql`): no per-row round trip, and nothing of the session outlives the
 * transaction (PgBouncer in transaction mode carries it). Securities and splits go row by row, as their rules
 * need (an ISIN's holder, the rescale of earlier bars).
 *
 * Other replicas see a batch through the change notices (postgres.changes.ts): the triggers on every data table
 * bump the change version in the batch's own transaction, and the row triggers on `securities` and `listings`
 * name the securities a batch added or renamed; each replica's next poll after the COMMIT drops its instrument
 * cache and patches its search index.
 *
 * In the generated sample store, a listing whose daily bars are computed when read gets its computed path
 * written out as rows (and marked stored) in the transaction of its first imported bar, as on SQLite.
 */
export class PostgresImportSink implements ImportSink, IngestStateStore, IngestCompanies {
  /**
   * Four times the default: each batch costs round trips and a commit besides its rows, and a batch of 20,000
   * bars is still only about 2 MB of COPY data. (1,000,000 daily bars against a raw COPY of them, on 2 cores
   * shared at load 4-5: 0.34-0.53x in batches of 5,000, 0.55-0.79x in batches of 20,000.)
   */
  readonly batchRows = 20_000;
  private readonly series: PgSampleSeriesBars;
  private hasSeriesTable: Promise<boolean> | undefined;
  /** Listings checked for a computed path by a committed batch (the path's own cache outlives `stored`). */
  private readonly checked = new Set<number>();

  constructor(private readonly pool: Pool) {
    this.series = new PgSampleSeriesBars(async (sql, params) => (await pool.query(sql, params)).rows);
  }

  private async tx<T>(run: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      // One round trip: a batch's few statements each cost one, and they add up on a busy server.
      await client.query(`BEGIN; SET LOCAL statement_timeout = '${IMPORT_STATEMENT_TIMEOUT}'`);
      const out = await run(client);
      await client.query("COMMIT");
      return out;
    } catch (e) {
      await client.query("ROLLBACK").catch((err: Error) => (broken = err));
      throw e;
    } finally {
      client.release(broken);
    }
  }

  async findListing(symbol: string, exchange?: string): Promise<ImportListing | null> {
    const columns = `l.id AS "listingId", l.security_id AS "securityId", l.symbol, l.exchange, l.currency`;
    const own = (
      await this.pool.query<ImportListing>(`SELECT ${columns} FROM listings l WHERE l.symbol = $1`, [symbol])
    ).rows[0];
    if (!own) return null;
    if (exchange === undefined || own.exchange === exchange) return own;
    const other = await this.pool.query<ImportListing>(
      `SELECT ${columns} FROM listings l WHERE l.security_id = $1 AND l.exchange = $2
       ORDER BY l.is_primary DESC, l.id LIMIT 1`,
      [own.securityId, exchange],
    );
    return other.rows[0] ?? null;
  }

  async exchanges(): Promise<ReadonlyMap<string, string>> {
    const { rows } = await this.pool.query<{ code: string; currency: string }>(`SELECT code, currency FROM exchanges`);
    return new Map(rows.map((r) => [r.code, r.currency]));
  }

  async splits(securityId: number): Promise<ImportSplit[]> {
    const { rows } = await this.pool.query<ImportSplit>(
      `SELECT day, numerator, denominator FROM splits WHERE security_id = $1 ORDER BY day`,
      [securityId],
    );
    return rows;
  }

  /**
   * Writes a batch with COPY into a temporary table (in the batch's order, so a repeated key's last row wins), then
   * one upsert statement, and answers its counts. The table is made in the COPY's statement string: a round trip
   * less.
   */
  private async staged<R>(client: PoolClient, t: StagedTable<R>, rows: readonly R[]): Promise<ImportCounts> {
    const stage = `mdg_import_${t.table}`;
    const sql =
      `CREATE TEMP TABLE ${stage} (seq integer, LIKE ${t.table}) ON COMMIT DROP; ` +
      `COPY ${stage} (seq, ${[...t.keys, ...t.values].join(", ")}) FROM STDIN (FORMAT binary)`;
    const chunks = t.binary
      ? [t.binary(rows, true)]
      : new BinaryRows(["integer", ...t.types]).encode(rows.map((r, i) => [i, ...t.row(r)]));
    await pipeline(Readable.from(chunks), client.query(copyFrom(sql)));
    if (!uniqueKeys(t, rows))
      return (await client.query<ImportCounts>(upsertSql(t as StagedTable<unknown>, stage))).rows[0]!;
    const res = await client.query<{ inserted: number; changed: number }>(
      uniqueUpsertSql(t as StagedTable<unknown>, stage),
    );
    const { inserted, changed } = res.rows[0]!;
    return { inserted, changed, unchanged: rows.length - inserted - changed };
  }

  async upsertExchanges(rows: readonly ExchangeImportRow[]): Promise<ImportCounts> {
    if (rows.length === 0) return { inserted: 0, changed: 0, unchanged: 0 };
    return this.tx((c) => this.staged(c, EXCHANGES, rows));
  }

  async upsertFx(rows: readonly FxImportRow[]): Promise<ImportCounts> {
    if (rows.length === 0) return { inserted: 0, changed: 0, unchanged: 0 };
    return this.tx((c) => this.staged(c, FX, rows));
  }

  async upsertQuotes(rows: readonly QuoteImportRow[]): Promise<ImportCounts> {
    if (rows.length === 0) return { inserted: 0, changed: 0, unchanged: 0 };
    return this.tx((c) => this.staged(c, QUOTES, rows));
  }

  async upsertDailyBars(rows: readonly DailyBarImportRow[]): Promise<ImportCounts> {
    if (rows.length === 0) return { inserted: 0, changed: 0, unchanged: 0 };
    const fresh = [...new Set(rows.map((r) => r.listingId))].filter((id) => !this.checked.has(id));
    const out =
      (uniqueKeys(DAILY_BARS, rows) ? await this.newBars(rows, fresh) : undefined) ??
      (await this.tx(async (c) => {
        await this.materialize(c, fresh);
        return this.staged(c, DAILY_BARS, rows);
      }));
    for (const id of fresh) this.checked.add(id);
    return out;
  }

  /**
   * Bars of which the store holds none, COPYed straight into the table in one statement string: the transaction,
   * the check that the store holds no bar of the batch's listings between its first and last day (and no computed
   * sample path of them to write out first), the COPY and the COMMIT. Two round trips a batch where a statement
   * each took six, each of them waiting for the event loop that reads the next batch. Undefined, with nothing
   * written, when the check fails or another writer stored one of the bars meanwhile (the COPY's unique
   * violation): the batch is then upserted.
   */
  private async newBars(
    rows: readonly DailyBarImportRow[],
    fresh: readonly number[],
  ): Promise<ImportCounts | undefined> {
    const spans = new Map<number, [number, number]>();
    for (const r of rows) {
      const s = spans.get(r.listingId);
      if (!s) spans.set(r.listingId, [r.t, r.t]);
      else if (r.t < s[0]) s[0] = r.t;
      else if (r.t > s[1]) s[1] = r.t;
    }
    const ids = [...spans.keys()];
    // Whole numbers only (validated, and checked again by the binary encoding): written into the text as they are.
    const list = (xs: readonly number[]) => `'{${xs.join(",")}}'::bigint[]`;
    const held = [
      `EXISTS (SELECT 1 FROM unnest(${list(ids)}, ${list(ids.map((id) => spans.get(id)![0]))},
         ${list(ids.map((id) => spans.get(id)![1]))}) AS s(listing_id, lo, hi)
       WHERE EXISTS (SELECT 1 FROM daily_bars d WHERE d.listing_id = s.listing_id AND d.t BETWEEN s.lo AND s.hi))`,
    ];
    if (fresh.length > 0 && (await this.seriesTable())) {
      held.push(`EXISTS (SELECT 1 FROM sample_series WHERE listing_id = ANY(${list(fresh)}) AND stored = 0)`);
    }
    const sql = `BEGIN; SET LOCAL statement_timeout = '${IMPORT_STATEMENT_TIMEOUT}';
      DO $$ BEGIN IF ${held.join(" OR ")} THEN RAISE EXCEPTION 'held' USING ERRCODE = '${HELD_BARS}'; END IF; END $$;
      COPY daily_bars (${[...DAILY_BARS.keys, ...DAILY_BARS.values].join(", ")}) FROM STDIN (FORMAT binary);
      COMMIT`;
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await pipeline(Readable.from([binaryBars(rows, false)]), client.query(copyFrom(sql)));
      return { inserted: rows.length, changed: 0, unchanged: 0 };
    } catch (e) {
      // A failed statement skips the rest of the string, COMMIT included: the transaction is left open, aborted.
      await client.query("ROLLBACK").catch((err: Error) => (broken = err));
      const code = (e as { code?: unknown }).code;
      if (code === HELD_BARS || code === UNIQUE_VIOLATION) return undefined;
      throw e;
    } finally {
      client.release(broken);
    }
  }

  private seriesTable(): Promise<boolean> {
    this.hasSeriesTable ??= this.pool
      .query<{ ok: boolean }>(`SELECT to_regclass('sample_series') IS NOT NULL AS ok`)
      .then((r) => r.rows[0]!.ok);
    return this.hasSeriesTable;
  }

  /** Writes out the computed paths of sample listings among `listingIds` (see the class comment). */
  private async materialize(client: PoolClient, listingIds: readonly number[]): Promise<void> {
    if (listingIds.length === 0) return;
    if (!(await this.seriesTable())) return;
    const { rows } = await client.query<{ listing_id: number }>(
      `SELECT listing_id FROM sample_series WHERE listing_id = ANY($1::bigint[]) AND stored = 0`,
      [listingIds],
    );
    if (rows.length === 0) return;
    const ids = rows.map((r) => r.listing_id);
    const paths: BarRow[][] = ids.map(() => []);
    await this.series.fill(
      ids.map((listingId) => ({ listingId, from: Number.MIN_SAFE_INTEGER, to: Number.MAX_SAFE_INTEGER })),
      paths,
    );
    for (const [i, listingId] of ids.entries()) {
      const path = paths[i]!;
      if (path.length > 0) {
        await client.query(
          `INSERT INTO daily_bars (listing_id, t, o, h, l, c, v)
           SELECT $1::bigint, * FROM unnest($2::bigint[], $3::float8[], $4::float8[], $5::float8[],
             $6::float8[], $7::float8[])
           ON CONFLICT DO NOTHING`,
          [
            listingId,
            path.map((b) => b.t),
            path.map((b) => b.o),
            path.map((b) => b.h),
            path.map((b) => b.l),
            path.map((b) => b.c),
            path.map((b) => b.v),
          ],
        );
      }
      await client.query(`UPDATE sample_series SET stored = 1 WHERE listing_id = $1`, [listingId]);
    }
  }

  async upsertSecurities(rows: readonly SecurityImportRow[]): Promise<ImportResult> {
    return this.tx(async (c) => {
      const out: ImportResult = { inserted: 0, changed: 0, unchanged: 0, conflicts: [] };
      const insertListing = (securityId: number, r: SecurityImportRow) =>
        c.query(
          `INSERT INTO listings (security_id, symbol, exchange, currency, is_primary)
           VALUES ($1, $2, $3, $4, NOT EXISTS (SELECT 1 FROM listings WHERE security_id = $1))`,
          [securityId, r.symbol, r.exchange, r.currency],
        );
      for (const [index, row] of rows.entries()) {
        const listing = (
          await c.query<{ id: number; security_id: number; exchange: string; currency: string }>(
            `SELECT id, security_id, exchange, currency FROM listings WHERE symbol = $1`,
            [row.symbol],
          )
        ).rows[0];
        const holder =
          row.isin === undefined
            ? undefined
            : (await c.query<{ id: number }>(`SELECT id FROM securities WHERE isin = $1`, [row.isin])).rows[0]?.id;
        if (listing && holder !== undefined && holder !== listing.security_id) {
          out.conflicts.push({ index, column: "isin", reason: `ISIN already belongs to another security (${holder})` });
          continue;
        }
        const securityId = listing?.security_id ?? holder;
        if (securityId === undefined) {
          const { rows: made } = await c.query<{ id: number }>(
            `INSERT INTO securities (type, name, isin, cusip, wkn, cik, country, sector, industry, currency)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
            [
              row.type,
              row.name,
              row.isin ?? null,
              row.cusip ?? null,
              row.wkn ?? null,
              row.cik ?? null,
              row.country ?? null,
              row.sector ?? null,
              row.industry ?? null,
              row.currency,
            ],
          );
          await insertListing(made[0]!.id, row);
          out.inserted++;
          continue;
        }
        const stored = (
          await c.query<StoredSecurity>(
            `SELECT id, type, name, isin, cusip, wkn, cik::float8 AS cik, country, sector, industry
             FROM securities WHERE id = $1`,
            [securityId],
          )
        ).rows[0]!;
        const sets: string[] = [];
        const values: unknown[] = [];
        for (const [field, column] of SECURITY_FIELDS) {
          const value = row[field];
          if (value !== undefined && value !== stored[column]) {
            values.push(value);
            sets.push(`${column} = $${values.length}`);
          }
        }
        if (sets.length > 0) {
          values.push(securityId);
          await c.query(`UPDATE securities SET ${sets.join(", ")} WHERE id = $${values.length}`, values);
        }
        if (!listing) {
          await insertListing(securityId, row);
          out.inserted++;
          continue;
        }
        const listingDiffers = listing.exchange !== row.exchange || listing.currency !== row.currency;
        if (listingDiffers) {
          await c.query(`UPDATE listings SET exchange = $1, currency = $2 WHERE id = $3`, [
            row.exchange,
            row.currency,
            listing.id,
          ]);
        }
        if (listingDiffers || sets.length > 0) out.changed++;
        else out.unchanged++;
      }
      return out;
    });
  }

  async upsertSplits(rows: readonly SplitImportRow[]): Promise<ImportCounts> {
    const materialized: number[] = [];
    const out = await this.tx(async (c) => {
      const counts: ImportCounts = { inserted: 0, changed: 0, unchanged: 0 };
      for (const r of rows) {
        const s = (
          await c.query<{ numerator: number; denominator: number }>(
            `SELECT numerator, denominator FROM splits WHERE security_id = $1 AND day = $2`,
            [r.securityId, r.day],
          )
        ).rows[0];
        if (s && s.numerator === r.numerator && s.denominator === r.denominator) {
          counts.unchanged++;
          continue;
        }
        const ratio = r.numerator / r.denominator;
        const was = s ? s.numerator / s.denominator : 1;
        await c.query(
          `INSERT INTO splits (security_id, day, numerator, denominator) VALUES ($1, $2, $3, $4)
           ON CONFLICT (security_id, day) DO UPDATE SET numerator = excluded.numerator,
             denominator = excluded.denominator`,
          [r.securityId, r.day, r.numerator, r.denominator],
        );
        if (ratio !== was) {
          // Computed sample paths become rows first, so that they are rescaled with the rest.
          const listings = (
            await c.query<{ id: number }>(`SELECT id FROM listings WHERE security_id = $1`, [r.securityId])
          ).rows
            .map((l) => l.id)
            .filter((id) => !this.checked.has(id) && !materialized.includes(id));
          await this.materialize(c, listings);
          materialized.push(...listings);
          const at = [ratio / was, r.securityId, Date.parse(`${r.day}T00:00:00Z`) / 1000];
          for (const table of ["daily_bars", "intraday_bars"]) {
            await c.query(
              `UPDATE ${table} SET o = o / $1, h = h / $1, l = l / $1, c = c / $1, v = v * $1
               WHERE listing_id IN (SELECT id FROM listings WHERE security_id = $2) AND t < $3`,
              at,
            );
          }
          await c.query(
            `UPDATE dividends SET adjusted_amount = adjusted_amount / $1 WHERE security_id = $2 AND ex_date < $3`,
            [ratio / was, r.securityId, r.day],
          );
        }
        if (s) counts.changed++;
        else counts.inserted++;
      }
      return counts;
    });
    for (const id of materialized) this.checked.add(id);
    return out;
  }

  async securityOfIsin(isin: string): Promise<number | null> {
    return (
      (await this.pool.query<{ id: number }>(`SELECT id FROM securities WHERE isin = $1`, [isin])).rows[0]?.id ?? null
    );
  }

  async securityType(securityId: number): Promise<SecurityType | null> {
    const { rows } = await this.pool.query<{ type: SecurityType }>(`SELECT type FROM securities WHERE id = $1`, [
      securityId,
    ]);
    return rows[0]?.type ?? null;
  }

  async upsertIntradayBars(rows: readonly IntradayBarImportRow[]): Promise<ImportCounts> {
    if (rows.length === 0) return { inserted: 0, changed: 0, unchanged: 0 };
    return this.tx((c) => this.staged(c, INTRADAY_BARS, rows));
  }

  async upsertEtfProfiles(rows: readonly EtfProfileImportRow[]): Promise<ImportCounts> {
    return this.upsertGrouped(rows, () => ETF_PROFILES);
  }

  async upsertFundProfiles(rows: readonly FundProfileImportRow[]): Promise<ImportCounts> {
    return this.upsertGrouped(rows, () => FUND_PROFILES);
  }

  async upsertHoldings(rows: readonly HoldingImportRow[]): Promise<ImportCounts> {
    return this.upsertGrouped(rows, (r) => HOLDINGS[r.holder]);
  }

  async upsertExposures(rows: readonly ExposureImportRow[]): Promise<ImportCounts> {
    return this.upsertGrouped(rows, (r) => EXPOSURES[`${r.holder}:${r.exposure}`]!);
  }

  async upsertFinancials(rows: readonly FinancialsImportRow[]): Promise<ImportCounts> {
    // The trailing twelve months kept with a stock follow its latest four quarters; null with fewer (as SQLite).
    return this.upsertGrouped(
      rows,
      () => FINANCIALS,
      (c) =>
        c.query(
          `UPDATE securities s SET
             eps_ttm = CASE WHEN (SELECT count(*) FROM quarterly_financials f WHERE f.security_id = s.id) >= 4
               THEN (SELECT sum(eps) FROM (SELECT eps FROM quarterly_financials f WHERE f.security_id = s.id
                     ORDER BY f.period_end DESC LIMIT 4) q) END,
             net_income_ttm = CASE WHEN (SELECT count(*) FROM quarterly_financials f WHERE f.security_id = s.id) >= 4
               THEN (SELECT sum(net_income) FROM (SELECT net_income FROM quarterly_financials f
                     WHERE f.security_id = s.id ORDER BY f.period_end DESC LIMIT 4) q) END
           WHERE s.id = ANY($1::bigint[]) AND s.type = 'stock'`,
          [[...new Set(rows.map((r) => r.securityId))]],
        ),
    );
  }

  async upsertDividends(rows: readonly DividendImportRow[]): Promise<ImportCounts> {
    if (rows.length === 0) return { inserted: 0, changed: 0, unchanged: 0 };
    return this.tx(async (c) => {
      // Read inside the transaction, so a split committed by another import is either in the factor or after it.
      const { rows: known } = await c.query<ImportSplit & { security_id: number }>(
        `SELECT security_id, day, numerator, denominator FROM splits WHERE security_id = ANY($1::bigint[])`,
        [[...new Set(rows.map((r) => r.securityId))]],
      );
      const adjusted = rows.map((r) => {
        let f = 1;
        for (const s of known)
          if (Number(s.security_id) === r.securityId && s.day > r.exDate) f *= s.numerator / s.denominator;
        return { ...r, adjustedAmount: r.amount / f };
      });
      return this.staged(c, DIVIDENDS, adjusted);
    });
  }

  async upsertIpos(rows: readonly IpoImportRow[]): Promise<ImportCounts> {
    return this.upsertGrouped(rows, () => IPOS);
  }

  /**
   * Upserts a batch whose rows go to one or more staged tables, in one transaction (then `after`, in it too), and
   * adds up the counts. Rows of different tables never share a key, so each table's counts are those of its rows.
   */
  private async upsertGrouped<R>(
    rows: readonly R[],
    tableOf: (row: R) => StagedTable<R>,
    after?: (client: PoolClient) => Promise<unknown>,
  ): Promise<ImportCounts> {
    if (rows.length === 0) return { inserted: 0, changed: 0, unchanged: 0 };
    const groups = new Map<StagedTable<R>, R[]>();
    for (const r of rows) {
      const t = tableOf(r);
      const group = groups.get(t);
      if (group) group.push(r);
      else groups.set(t, [r]);
    }
    return this.tx(async (c) => {
      const out: ImportCounts = { inserted: 0, changed: 0, unchanged: 0 };
      for (const [t, group] of groups) {
        const n = await this.staged(c, t, group);
        out.inserted += n.inserted;
        out.changed += n.changed;
        out.unchanged += n.unchanged;
      }
      await after?.(c);
      return out;
    });
  }

  async companiesWithCik(): Promise<IngestCompany[]> {
    const r = await this.pool.query<IngestCompany>(
      `SELECT s.cik::float8 AS cik, l.symbol, l.exchange, l.currency, s.type, s.name
       FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary
       WHERE s.cik IS NOT NULL ORDER BY s.cik, l.id`,
    );
    return r.rows;
  }

  async cryptoListings(): Promise<IngestListingRef[]> {
    const r = await this.pool.query<IngestListingRef>(
      `SELECT l.symbol, l.currency FROM listings l JOIN securities s ON s.id = l.security_id
       WHERE s.type = 'crypto' ORDER BY l.symbol`,
    );
    return r.rows;
  }

  /** Kept in the meta table under `ingest:` keys, as on SQLite (the scheduler's slots are `ingest-slot:` keys). */
  async readIngestState(key: string): Promise<string | undefined> {
    const r = await this.pool.query<{ value: string }>("SELECT value FROM meta WHERE key = $1", [`ingest:${key}`]);
    return r.rows[0]?.value;
  }

  async writeIngestState(key: string, value: string): Promise<void> {
    await this.pool.query(
      "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
      [`ingest:${key}`, value],
    );
  }

  /** The pool is the store's: whoever opened the store closes it. */
  async close(): Promise<void> {}
}
