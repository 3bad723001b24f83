import type { Database as Db, Statement } from "better-sqlite3";
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
import { CHANGE_LOG_KEEP_ROWS } from "./sqlite.changes";
import { SampleSeriesBars } from "./sqlite.synthetic";

/** Bars a multi-row INSERT takes at once (7 parameters each, far below SQLite's 32,766). */
const BAR_RUN = 64;

/** A table's natural key and the other columns an import sets, each as named in the row and in the table. */
interface TableShape {
  table: string;
  key: readonly (readonly [string, string])[];
  values: readonly (readonly [string, string])[];
}

const ETF_PROFILE_SHAPE: TableShape = {
  table: "etf_profiles",
  key: [["securityId", "security_id"]],
  values: [
    ["issuer", "issuer"],
    ["assetClass", "asset_class"],
    ["aum", "aum"],
    ["nav", "nav"],
    ["navCurrency", "nav_currency"],
    ["expenseRatio", "expense_ratio"],
    ["inceptionDate", "inception_date"],
    ["domicile", "domicile"],
    ["replication", "replication"],
    ["distributionPolicy", "distribution_policy"],
    ["benchmark", "benchmark"],
    ["holdingsCount", "holdings_count"],
    ["holdingsDate", "holdings_date"],
  ],
};

const FUND_PROFILE_SHAPE: TableShape = {
  table: "fund_profiles",
  key: [["securityId", "security_id"]],
  values: [
    ["fundCompany", "fund_company"],
    ["category", "category"],
    ["assetClass", "asset_class"],
    ["aum", "aum"],
    ["nav", "nav"],
    ["navCurrency", "nav_currency"],
    ["ongoingCharge", "ongoing_charge"],
    ["entryCharge", "entry_charge"],
    ["inceptionDate", "inception_date"],
    ["domicile", "domicile"],
    ["benchmark", "benchmark"],
    ["riskClass", "risk_class"],
    ["distributionPolicy", "distribution_policy"],
    ["minInvestment", "min_investment"],
    ["holdingsCount", "holdings_count"],
    ["holdingsDate", "holdings_date"],
  ],
};

const HOLDING_COMMON = [
  ["holdingSecurityId", "holding_security_id"],
  ["symbol", "symbol"],
  ["name", "name"],
  ["isin", "isin"],
  ["sector", "sector"],
  ["country", "country"],
  ["weight", "weight"],
  ["marketValue", "market_value"],
] as const;

const ETF_HOLDING_SHAPE: TableShape = {
  table: "etf_holdings",
  key: [
    ["holderId", "etf_id"],
    ["position", "position"],
  ],
  values: [...HOLDING_COMMON, ["cusip", "cusip"], ["shares", "shares"]],
};

const FUND_HOLDING_SHAPE: TableShape = {
  table: "fund_holdings",
  key: [
    ["holderId", "fund_id"],
    ["position", "position"],
  ],
  values: [...HOLDING_COMMON, ["assetClass", "asset_class"]],
};

/** The exposure tables, by holder and exposure. */
const EXPOSURE_SHAPES: Readonly<Record<string, TableShape>> = Object.fromEntries(
  (
    [
      ["etf", "sector", "etf_sector_exposure", "etf_id", "sector"],
      ["etf", "country", "etf_country_exposure", "etf_id", "country"],
      ["fund", "sector", "fund_sector_exposure", "fund_id", "sector"],
      ["fund", "country", "fund_country_exposure", "fund_id", "country"],
      ["fund", "allocation", "fund_allocation", "fund_id", "asset_class"],
    ] as const
  ).map(([holder, exposure, table, id, name]) => [
    `${holder}:${exposure}`,
    {
      table,
      key: [
        ["holderId", id],
        ["name", name],
      ],
      values: [["weight", "weight"]],
    },
  ]),
);

const FINANCIALS_SHAPE: TableShape = {
  table: "quarterly_financials",
  key: [
    ["securityId", "security_id"],
    ["periodEnd", "period_end"],
  ],
  values: (
    [
      "fiscalYear",
      "fiscalQuarter",
      "reportedDate",
      "currency",
      ...FINANCIAL_FIGURES,
      ...OPTIONAL_FINANCIAL_FIGURES,
    ] as const
  ).map((f) => [f, columnOf(f)] as const),
};

const DIVIDEND_SHAPE: TableShape = {
  table: "dividends",
  key: [
    ["securityId", "security_id"],
    ["exDate", "ex_date"],
  ],
  values: [
    ["recordDate", "record_date"],
    ["payDate", "pay_date"],
    ["declarationDate", "declaration_date"],
    ["amount", "amount"],
    ["adjustedAmount", "adjusted_amount"],
    ["currency", "currency"],
    ["frequency", "frequency"],
  ],
};

const IPO_SHAPE: TableShape = {
  table: "ipos",
  key: [
    ["securityId", "security_id"],
    ["day", "day"],
  ],
  values: [
    ["exchange", "exchange"],
    ["sharesOffered", "shares_offered"],
    ["offerPrice", "offer_price"],
    ["currency", "currency"],
    ["status", "status"],
  ],
};

/** The security columns an import may set, as named in the row and in the table. */
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
 * The import pipeline's writer into a SQLite store, on its own connection. Each upsert runs in one transaction
 * (better-sqlite3's `transaction`, BEGIN IMMEDIATE … COMMIT), so after a crash a batch is wholly in or wholly out.
 * A service on the same file sees the commit through `PRAGMA data_version` (SqliteSource.dataVersion), which
 * changes for every connection but the writer's: its instrument cache drops what it held on its next request.
 *
 * In the generated sample store, a listing whose daily bars are computed when read gets its computed path
 * written out as rows (and marked stored) in the transaction of its first imported bar: the imported rows then
 * replace the computed ones on their days, and the listing keeps answering its other days as before.
 */
export class SqliteImportSink implements ImportSink, IngestStateStore, IngestCompanies {
  private readonly stmts = new Map<string, Statement>();
  private readonly series: SampleSeriesBars;
  private hasSeriesTable: boolean | undefined;
  /** Listings already checked for a computed path this run (the path's own cache outlives its `stored` flag). */
  private readonly checked = new Set<number>();
  private hasChangeLog: boolean | undefined;
  /** Bars go in runs (insertRun) until a run meets a stored bar. */
  private barRuns = true;
  private runValues: number[] | undefined;
  private pruned = false;

  constructor(private readonly db: Db) {
    this.series = new SampleSeriesBars(db);
    // In WAL mode a commit then appends to the log without waiting for the disk: a killed import still leaves each
    // batch wholly in or out (and a rerun finishes it); only a power cut may lose the last batches, never part of
    // one. Waiting for the disk at every commit cost a third of an import's time. This connection alone.
    db.pragma("synchronous = NORMAL");
  }

  /**
   * Notes, in the batch's transaction, that a security's search document (name, type, ISIN, CUSIP, listings)
   * changed: a service on this file patches its search index with it on its next request (sqlite.changes.ts).
   * The first note of a run also prunes the log to its last CHANGE_LOG_KEEP_ROWS notes.
   */
  private logChange(securityId: number | bigint): void {
    this.hasChangeLog ??=
      this.stmt(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'mdg_change_log'`).pluck().get() ===
      1;
    if (!this.hasChangeLog) return;
    if (!this.pruned) {
      this.pruned = true;
      this.stmt(
        `DELETE FROM mdg_change_log
         WHERE version <= (SELECT max(version) FROM mdg_change_log) - ${CHANGE_LOG_KEEP_ROWS}`,
      ).run();
    }
    this.stmt(`INSERT INTO mdg_change_log (security_id) VALUES (?)`).run(securityId);
  }

  private stmt(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  async findListing(symbol: string, exchange?: string): Promise<ImportListing | null> {
    const columns = `l.id AS listingId, l.security_id AS securityId, l.symbol, l.exchange, l.currency`;
    const own = this.stmt(`SELECT ${columns} FROM listings l WHERE l.symbol = ?`).get(symbol) as
      ImportListing | undefined;
    if (!own) return null;
    if (exchange === undefined || own.exchange === exchange) return own;
    const other = this.stmt(
      `SELECT ${columns} FROM listings l WHERE l.security_id = ? AND l.exchange = ? ORDER BY l.is_primary DESC, l.id`,
    ).get(own.securityId, exchange) as ImportListing | undefined;
    return other ?? null;
  }

  async exchanges(): Promise<ReadonlyMap<string, string>> {
    const rows = this.stmt(`SELECT code, currency FROM exchanges`).all() as { code: string; currency: string }[];
    return new Map(rows.map((r) => [r.code, r.currency]));
  }

  async splits(securityId: number): Promise<ImportSplit[]> {
    return this.stmt(`SELECT day, numerator, denominator FROM splits WHERE security_id = ? ORDER BY day`).all(
      securityId,
    ) as ImportSplit[];
  }

  async upsertExchanges(rows: readonly ExchangeImportRow[]): Promise<ImportCounts> {
    const out: ImportCounts = { inserted: 0, changed: 0, unchanged: 0 };
    const insert = this.stmt(
      `INSERT OR IGNORE INTO exchanges (code, name, country, currency, timezone)
       VALUES (@code, @name, @country, @currency, @timezone)`,
    );
    const update = this.stmt(
      `UPDATE exchanges SET name = @name, country = @country, currency = @currency, timezone = @timezone
       WHERE code = @code AND (name IS NOT @name OR country IS NOT @country OR currency IS NOT @currency
         OR timezone IS NOT @timezone)`,
    );
    this.db
      .transaction(() => {
        for (const r of rows) {
          if (insert.run(r).changes === 1) out.inserted++;
          else if (update.run(r).changes === 1) out.changed++;
          else out.unchanged++;
        }
      })
      .immediate();
    return out;
  }

  async upsertSecurities(rows: readonly SecurityImportRow[]): Promise<ImportResult> {
    const out: ImportResult = { inserted: 0, changed: 0, unchanged: 0, conflicts: [] };
    const listingOf = this.stmt(`SELECT id, security_id, exchange, currency FROM listings WHERE symbol = ?`);
    const securityOf = this.stmt(
      `SELECT id, type, name, isin, cusip, wkn, cik, country, sector, industry FROM securities WHERE id = ?`,
    );
    const byIsin = this.stmt(`SELECT id FROM securities WHERE isin = ?`).pluck();
    const insertSecurity = this.stmt(
      `INSERT INTO securities (type, name, isin, cusip, wkn, cik, country, sector, industry, currency)
       VALUES (@type, @name, @isin, @cusip, @wkn, @cik, @country, @sector, @industry, @currency)`,
    );
    const insertListing = this.stmt(
      `INSERT INTO listings (security_id, symbol, exchange, currency, is_primary)
       VALUES (?, ?, ?, ?, NOT EXISTS (SELECT 1 FROM listings WHERE security_id = ?))`,
    );
    const updateListing = this.stmt(`UPDATE listings SET exchange = ?, currency = ? WHERE id = ?`);
    this.db
      .transaction(() => {
        rows.forEach((row, index) => {
          const listing = listingOf.get(row.symbol) as
            { id: number; security_id: number; exchange: string; currency: string } | undefined;
          const holder = row.isin === undefined ? undefined : (byIsin.get(row.isin) as number | undefined);
          if (listing && holder !== undefined && holder !== listing.security_id) {
            out.conflicts.push({
              index,
              column: "isin",
              reason: `ISIN already belongs to another security (${holder})`,
            });
            return;
          }
          const securityId = listing?.security_id ?? holder;
          if (securityId === undefined) {
            const id = insertSecurity.run({
              type: row.type,
              name: row.name,
              isin: row.isin ?? null,
              cusip: row.cusip ?? null,
              wkn: row.wkn ?? null,
              cik: row.cik ?? null,
              country: row.country ?? null,
              sector: row.sector ?? null,
              industry: row.industry ?? null,
              currency: row.currency,
            }).lastInsertRowid;
            insertListing.run(id, row.symbol, row.exchange, row.currency, id);
            this.logChange(id);
            out.inserted++;
            return;
          }
          const stored = securityOf.get(securityId) as StoredSecurity;
          const sets: string[] = [];
          const values: unknown[] = [];
          for (const [field, column] of SECURITY_FIELDS) {
            const value = row[field];
            if (value !== undefined && value !== stored[column]) {
              sets.push(`${column} = ?`);
              values.push(value);
            }
          }
          if (sets.length > 0)
            this.stmt(`UPDATE securities SET ${sets.join(", ")} WHERE id = ?`).run(...values, securityId);
          if (!listing) {
            insertListing.run(securityId, row.symbol, row.exchange, row.currency, securityId);
            this.logChange(securityId);
            out.inserted++;
            return;
          }
          const listingDiffers = listing.exchange !== row.exchange || listing.currency !== row.currency;
          if (listingDiffers) updateListing.run(row.exchange, row.currency, listing.id);
          if (listingDiffers || sets.length > 0) this.logChange(securityId);
          if (listingDiffers || sets.length > 0) out.changed++;
          else out.unchanged++;
        });
      })
      .immediate();
    return out;
  }

  async upsertDailyBars(rows: readonly DailyBarImportRow[]): Promise<ImportCounts> {
    const out: ImportCounts = { inserted: 0, changed: 0, unchanged: 0 };
    // A new row costs one statement; a stored one a second, which writes only when a value differs.
    const insert = this.stmt(
      `INSERT OR IGNORE INTO daily_bars (listing_id, t, o, h, l, c, v) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    const update = this.stmt(
      `UPDATE daily_bars SET o = @o, h = @h, l = @l, c = @c, v = @v WHERE listing_id = @listingId AND t = @t
       AND (o IS NOT @o OR h IS NOT @h OR l IS NOT @l OR c IS NOT @c OR v IS NOT @v)`,
    );
    const one = (r: DailyBarImportRow) => {
      if (insert.run(r.listingId, r.t, r.o, r.h, r.l, r.c, r.v).changes === 1) out.inserted++;
      else if (update.run(r).changes === 1) out.changed++;
      else out.unchanged++;
    };
    this.db
      .transaction(() => {
        for (let at = 0; at < rows.length; at += BAR_RUN) {
          const end = Math.min(at + BAR_RUN, rows.length);
          for (let i = at; i < end; i++)
            if (!this.checked.has(rows[i]!.listingId)) this.materialize(rows[i]!.listingId);
          if (end - at < BAR_RUN || !this.barRuns || !this.insertRun(rows, at)) {
            for (let i = at; i < end; i++) one(rows[i]!);
          } else out.inserted += BAR_RUN;
        }
      })
      .immediate();
    return out;
  }

  /**
   * New bars, BAR_RUN at a time in one statement: a statement per bar cost more in calls from JavaScript than SQLite's
   * own work. When a bar of the run was already stored, the run is undone and goes bar by bar (to count what
   * changed), and so do the runs after it: a file seen before is mostly stored bars.
   */
  private insertRun(rows: readonly DailyBarImportRow[], at: number): boolean {
    const values = (this.runValues ??= new Array<number>(BAR_RUN * 7));
    for (let i = 0, k = 0; i < BAR_RUN; i++) {
      const r = rows[at + i]!;
      values[k++] = r.listingId;
      values[k++] = r.t;
      values[k++] = r.o;
      values[k++] = r.h;
      values[k++] = r.l;
      values[k++] = r.c;
      values[k++] = r.v;
    }
    this.stmt("SAVEPOINT bar_run").run();
    const inserted = this.stmt(
      `INSERT OR IGNORE INTO daily_bars (listing_id, t, o, h, l, c, v) VALUES ${Array.from(
        { length: BAR_RUN },
        () => "(?, ?, ?, ?, ?, ?, ?)",
      ).join(", ")}`,
    ).run(values).changes;
    if (inserted === BAR_RUN) {
      this.stmt("RELEASE bar_run").run();
      return true;
    }
    this.stmt("ROLLBACK TO bar_run").run();
    this.stmt("RELEASE bar_run").run();
    this.barRuns = false;
    return false;
  }

  /** Writes out the computed path of a sample listing (see the class comment); nothing on any other listing. */
  private materialize(listingId: number): void {
    this.checked.add(listingId);
    this.hasSeriesTable ??=
      this.stmt(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'sample_series'`).pluck().get() ===
      1;
    if (!this.hasSeriesTable || !this.series.enabled()) return;
    const out: BarRow[][] = [[]];
    this.series.fill([{ listingId, from: Number.MIN_SAFE_INTEGER, to: Number.MAX_SAFE_INTEGER }], out);
    const path = out[0] as BarRow[];
    if (path.length === 0) return;
    const insert = this.stmt(
      `INSERT OR IGNORE INTO daily_bars (listing_id, t, o, h, l, c, v) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const b of path) insert.run(listingId, b.t, b.o, b.h, b.l, b.c, b.v);
    this.stmt(`UPDATE sample_series SET stored = 1 WHERE listing_id = ?`).run(listingId);
  }

  async upsertFx(rows: readonly FxImportRow[]): Promise<ImportCounts> {
    const out: ImportCounts = { inserted: 0, changed: 0, unchanged: 0 };
    const existing = this.stmt(`SELECT per_usd FROM fx_daily WHERE currency = ? AND day = ?`).pluck();
    const upsert = this.stmt(
      `INSERT INTO fx_daily (currency, day, per_usd) VALUES (?, ?, ?)
       ON CONFLICT (currency, day) DO UPDATE SET per_usd = excluded.per_usd`,
    );
    this.db
      .transaction(() => {
        for (const r of rows) {
          const s = existing.get(r.currency, r.day) as number | undefined;
          if (s === r.perUsd) {
            out.unchanged++;
            continue;
          }
          upsert.run(r.currency, r.day, r.perUsd);
          if (s === undefined) out.inserted++;
          else out.changed++;
        }
      })
      .immediate();
    return out;
  }

  async upsertQuotes(rows: readonly QuoteImportRow[]): Promise<ImportCounts> {
    const out: ImportCounts = { inserted: 0, changed: 0, unchanged: 0 };
    const existing = this.stmt(
      `SELECT t, c, o, h, l, pc, v, ma50, ma200, avg_volume AS avgVolume FROM quotes WHERE listing_id = ?`,
    );
    const upsert = this.stmt(
      `INSERT INTO quotes (listing_id, t, c, o, h, l, pc, v, ma50, ma200, avg_volume)
       VALUES (@listingId, @t, @c, @o, @h, @l, @pc, @v, @ma50, @ma200, @avgVolume)
       ON CONFLICT (listing_id) DO UPDATE SET t = excluded.t, c = excluded.c, o = excluded.o, h = excluded.h,
         l = excluded.l, pc = excluded.pc, v = excluded.v, ma50 = excluded.ma50, ma200 = excluded.ma200,
         avg_volume = excluded.avg_volume`,
    );
    const fields = ["t", "c", "o", "h", "l", "pc", "v", "ma50", "ma200", "avgVolume"] as const;
    this.db
      .transaction(() => {
        for (const r of rows) {
          const s = existing.get(r.listingId) as Record<(typeof fields)[number], number | null> | undefined;
          if (s && fields.every((f) => s[f] === r[f])) {
            out.unchanged++;
            continue;
          }
          upsert.run(r);
          if (s) out.changed++;
          else out.inserted++;
        }
      })
      .immediate();
    return out;
  }

  async upsertSplits(rows: readonly SplitImportRow[]): Promise<ImportCounts> {
    const out: ImportCounts = { inserted: 0, changed: 0, unchanged: 0 };
    const existing = this.stmt(`SELECT numerator, denominator FROM splits WHERE security_id = ? AND day = ?`);
    const upsert = this.stmt(
      `INSERT INTO splits (security_id, day, numerator, denominator) VALUES (?, ?, ?, ?)
       ON CONFLICT (security_id, day) DO UPDATE SET numerator = excluded.numerator, denominator = excluded.denominator`,
    );
    const listings = this.stmt(`SELECT id FROM listings WHERE security_id = ?`).pluck();
    const rescale = this.stmt(
      `UPDATE daily_bars SET o = o / @f, h = h / @f, l = l / @f, c = c / @f, v = v * @f
       WHERE listing_id IN (SELECT id FROM listings WHERE security_id = @securityId) AND t < @before`,
    );
    const rescaleIntraday = this.stmt(
      `UPDATE intraday_bars SET o = o / @f, h = h / @f, l = l / @f, c = c / @f, v = v * @f
       WHERE listing_id IN (SELECT id FROM listings WHERE security_id = @securityId) AND t < @before`,
    );
    const rescaleDividends = this.stmt(
      `UPDATE dividends SET adjusted_amount = adjusted_amount / @f WHERE security_id = @securityId AND ex_date < @day`,
    );
    this.db
      .transaction(() => {
        for (const r of rows) {
          const s = existing.get(r.securityId, r.day) as { numerator: number; denominator: number } | undefined;
          if (s && s.numerator === r.numerator && s.denominator === r.denominator) {
            out.unchanged++;
            continue;
          }
          const ratio = r.numerator / r.denominator;
          const was = s ? s.numerator / s.denominator : 1;
          upsert.run(r.securityId, r.day, r.numerator, r.denominator);
          if (ratio !== was) {
            // Computed sample paths become rows first, so that they are rescaled with the rest.
            for (const id of listings.all(r.securityId) as number[]) if (!this.checked.has(id)) this.materialize(id);
            const at = { f: ratio / was, securityId: r.securityId, before: Date.parse(`${r.day}T00:00:00Z`) / 1000 };
            rescale.run(at);
            rescaleIntraday.run(at);
            rescaleDividends.run({ f: at.f, securityId: r.securityId, day: r.day });
          }
          if (s) out.changed++;
          else out.inserted++;
        }
      })
      .immediate();
    return out;
  }

  /**
   * Upserts rows of one table on its natural key, counting each: inserted, changed (a stored value differed), or
   * unchanged. Runs inside the caller's transaction.
   */
  private upsertShaped(shape: TableShape, row: Record<string, unknown>, out: ImportCounts): void {
    const where = shape.key.map(([, c]) => `${c} = ?`).join(" AND ");
    const keyValues = shape.key.map(([f]) => row[f]);
    const stored = this.stmt(`SELECT ${shape.values.map(([, c]) => c).join(", ")} FROM ${shape.table} WHERE ${where}`)
      .raw()
      .get(...keyValues) as unknown[] | undefined;
    const values = shape.values.map(([f]) => row[f] ?? null);
    if (!stored) {
      const columns = [...shape.key, ...shape.values].map(([, c]) => c);
      this.stmt(`INSERT INTO ${shape.table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`).run(
        ...keyValues,
        ...values,
      );
      out.inserted++;
      return;
    }
    if (values.every((v, i) => v === stored[i])) {
      out.unchanged++;
      return;
    }
    this.stmt(`UPDATE ${shape.table} SET ${shape.values.map(([, c]) => `${c} = ?`).join(", ")} WHERE ${where}`).run(
      ...values,
      ...keyValues,
    );
    out.changed++;
  }

  private upsertAll<R extends object>(rows: readonly R[], shapeOf: (row: R) => TableShape, after?: () => void) {
    const out: ImportCounts = { inserted: 0, changed: 0, unchanged: 0 };
    this.db
      .transaction(() => {
        for (const r of rows) this.upsertShaped(shapeOf(r), r as Record<string, unknown>, out);
        after?.();
      })
      .immediate();
    return out;
  }

  async securityOfIsin(isin: string): Promise<number | null> {
    return (this.stmt(`SELECT id FROM securities WHERE isin = ?`).pluck().get(isin) as number | undefined) ?? null;
  }

  async securityType(securityId: number): Promise<SecurityType | null> {
    return (this.stmt(`SELECT type FROM securities WHERE id = ?`).pluck().get(securityId) as SecurityType) ?? null;
  }

  async upsertIntradayBars(rows: readonly IntradayBarImportRow[]): Promise<ImportCounts> {
    const out: ImportCounts = { inserted: 0, changed: 0, unchanged: 0 };
    const insert = this.stmt(
      `INSERT OR IGNORE INTO intraday_bars (listing_id, t, o, h, l, c, v) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    const update = this.stmt(
      `UPDATE intraday_bars SET o = @o, h = @h, l = @l, c = @c, v = @v WHERE listing_id = @listingId AND t = @t
       AND (o IS NOT @o OR h IS NOT @h OR l IS NOT @l OR c IS NOT @c OR v IS NOT @v)`,
    );
    this.db
      .transaction(() => {
        for (const r of rows) {
          if (insert.run(r.listingId, r.t, r.o, r.h, r.l, r.c, r.v).changes === 1) out.inserted++;
          else if (update.run(r).changes === 1) out.changed++;
          else out.unchanged++;
        }
      })
      .immediate();
    return out;
  }

  async upsertEtfProfiles(rows: readonly EtfProfileImportRow[]): Promise<ImportCounts> {
    return this.upsertAll(rows, () => ETF_PROFILE_SHAPE);
  }

  async upsertFundProfiles(rows: readonly FundProfileImportRow[]): Promise<ImportCounts> {
    return this.upsertAll(rows, () => FUND_PROFILE_SHAPE);
  }

  async upsertHoldings(rows: readonly HoldingImportRow[]): Promise<ImportCounts> {
    return this.upsertAll(rows, (r) => (r.holder === "etf" ? ETF_HOLDING_SHAPE : FUND_HOLDING_SHAPE));
  }

  async upsertExposures(rows: readonly ExposureImportRow[]): Promise<ImportCounts> {
    return this.upsertAll(rows, (r) => EXPOSURE_SHAPES[`${r.holder}:${r.exposure}`] as TableShape);
  }

  async upsertFinancials(rows: readonly FinancialsImportRow[]): Promise<ImportCounts> {
    // The trailing twelve months kept with a stock (migration 2) follow its latest four quarters; null with fewer.
    const ttm = this.stmt(
      `UPDATE securities SET
         eps_ttm = CASE WHEN (SELECT count(*) FROM quarterly_financials f WHERE f.security_id = @id) >= 4
           THEN (SELECT sum(eps) FROM (SELECT eps FROM quarterly_financials f WHERE f.security_id = @id
                 ORDER BY f.period_end DESC LIMIT 4)) END,
         net_income_ttm = CASE WHEN (SELECT count(*) FROM quarterly_financials f WHERE f.security_id = @id) >= 4
           THEN (SELECT sum(net_income) FROM (SELECT net_income FROM quarterly_financials f WHERE f.security_id = @id
                 ORDER BY f.period_end DESC LIMIT 4)) END
       WHERE id = @id AND type = 'stock'`,
    );
    return this.upsertAll(
      rows,
      () => FINANCIALS_SHAPE,
      () => {
        for (const id of new Set(rows.map((r) => r.securityId))) ttm.run({ id });
      },
    );
  }

  async upsertDividends(rows: readonly DividendImportRow[]): Promise<ImportCounts> {
    const out: ImportCounts = { inserted: 0, changed: 0, unchanged: 0 };
    const splitsOf = this.stmt(`SELECT day, numerator, denominator FROM splits WHERE security_id = ?`);
    this.db
      .transaction(() => {
        // Read inside the transaction, so a split committed by another import is either in the factor or after it.
        const splits = new Map<number, ImportSplit[]>();
        for (const r of rows) {
          let known = splits.get(r.securityId);
          if (!known) splits.set(r.securityId, (known = splitsOf.all(r.securityId) as ImportSplit[]));
          let f = 1;
          for (const s of known) if (s.day > r.exDate) f *= s.numerator / s.denominator;
          this.upsertShaped(DIVIDEND_SHAPE, { ...r, adjustedAmount: r.amount / f }, out);
        }
      })
      .immediate();
    return out;
  }

  async upsertIpos(rows: readonly IpoImportRow[]): Promise<ImportCounts> {
    return this.upsertAll(rows, () => IPO_SHAPE);
  }

  async companiesWithCik(): Promise<IngestCompany[]> {
    return this.stmt(
      `SELECT s.cik, l.symbol, l.exchange, l.currency, s.type, s.name
       FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
       WHERE s.cik IS NOT NULL ORDER BY s.cik, l.id`,
    ).all() as IngestCompany[];
  }

  async cryptoListings(): Promise<IngestListingRef[]> {
    return this.stmt(
      `SELECT l.symbol, l.currency FROM listings l JOIN securities s ON s.id = l.security_id
       WHERE s.type = 'crypto' ORDER BY l.symbol`,
    ).all() as IngestListingRef[];
  }

  /** Kept in the meta table under `ingest:` keys, apart from the sample's own rows there. */
  async readIngestState(key: string): Promise<string | undefined> {
    return this.stmt(`SELECT value FROM meta WHERE key = ?`).pluck().get(`ingest:${key}`) as string | undefined;
  }

  async writeIngestState(key: string, value: string): Promise<void> {
    this.stmt(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(
      `ingest:${key}`,
      value,
    );
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
