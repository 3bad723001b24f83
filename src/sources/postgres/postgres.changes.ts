import type { Pool } from "pg";
import type { SearchDocument, SecurityType } from "../../domain/ports/source.types";
import type { MarketDataSource } from "../../domain/ports/source.capabilities";
import type { ChangeFeed, ChangeListener, ChangeNotice } from "../../domain/ports/source.changes";
import type { Migration } from "./postgres.migration";

/**
 * Change notices: how every replica learns, within MDG_PG_CHANGE_POLL_MS (250 ms) plus one round trip, that a
 * transaction committed a change to market data, whoever wrote it (a loader, or SQL typed by hand).
 *
 * - `mdg_change_version` is one row. A statement-level trigger on every data table bumps it inside the writer's
 *   transaction, so the new version becomes visible exactly when the change does (at COMMIT), never before.
 * - Row-level triggers on `securities` and `listings` also write the changed security ids, with the version their
 *   statement's bump makes, to `mdg_change_log` (pruned after 10 minutes), so the search index can update just
 *   those securities. A TRUNCATE of either logs NULL: every security.
 * - Each replica reads the version with one tiny statement per poll on its own pool: no LISTEN (which PgBouncer in
 *   transaction mode cannot carry), no session state, no second connection.
 *
 * Versions are committed in order: the bump's row lock is held to COMMIT, and the row trigger reads the version
 * FOR UPDATE, so a writer waiting behind another logs the version after the other's. A reader that saw version v
 * has therefore seen every log row up to v.
 *
 * The cost to writers: one row update per statement, and concurrent writing transactions queue on that row until
 * each commits (loaders that write in parallel run one at a time from their first statement).
 */

/** The data tables of migration 1 (api_keys are not market data: keys have their own short cache). */
const DATA_TABLES = [
  "meta",
  "exchanges",
  "securities",
  "listings",
  "quotes",
  "daily_bars",
  "intraday_bars",
  "fx_daily",
  "etf_profiles",
  "etf_holdings",
  "etf_sector_exposure",
  "etf_country_exposure",
  "fund_profiles",
  "fund_holdings",
  "fund_sector_exposure",
  "fund_country_exposure",
  "fund_allocation",
  "quarterly_financials",
  "dividends",
  "splits",
  "index_constituents",
] as const;

/** The log is pruned every this many versions, of rows older than LOG_KEEP. */
const PRUNE_EVERY = 256;
const LOG_KEEP = "10 minutes";

export const CHANGES_MIGRATION: Migration = {
  version: 2,
  name: "change notices: a change version bumped by every data statement, and a log of changed securities",
  sql: `
  CREATE TABLE mdg_change_version (
    id             smallint PRIMARY KEY CHECK (id = 1),
    version        bigint NOT NULL,
    -- Log rows up to this version were pruned: a reader behind it rebuilds its search index whole.
    pruned_through bigint NOT NULL DEFAULT 0
  );
  INSERT INTO mdg_change_version (id, version) VALUES (1, 0);

  CREATE TABLE mdg_change_log (
    version     bigint NOT NULL,
    -- NULL: every security (a TRUNCATE).
    security_id bigint,
    logged_at   timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX mdg_change_log_version ON mdg_change_log (version);

  CREATE OR REPLACE FUNCTION mdg_bump_change_version() RETURNS trigger LANGUAGE plpgsql AS $fn$
  DECLARE
    v bigint;
    gone bigint;
  BEGIN
    UPDATE mdg_change_version SET version = version + 1 WHERE id = 1 RETURNING version INTO v;
    IF v % ${PRUNE_EVERY} = 0 THEN
      WITH d AS (DELETE FROM mdg_change_log WHERE logged_at < now() - interval '${LOG_KEEP}' RETURNING version)
      SELECT max(version) INTO gone FROM d;
      IF gone IS NOT NULL THEN
        UPDATE mdg_change_version SET pruned_through = greatest(pruned_through, gone) WHERE id = 1;
      END IF;
    END IF;
    RETURN NULL;
  END
  $fn$;

  -- Row triggers fire before the statement's AFTER ... FOR EACH STATEMENT bump: the version logged is version + 1.
  CREATE OR REPLACE FUNCTION mdg_log_security_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
  DECLARE
    next bigint;
    old_id bigint;
    new_id bigint;
  BEGIN
    SELECT version + 1 INTO next FROM mdg_change_version WHERE id = 1 FOR UPDATE;
    IF TG_OP = 'TRUNCATE' THEN
      INSERT INTO mdg_change_log (version, security_id) VALUES (next, NULL);
      RETURN NULL;
    END IF;
    IF TG_TABLE_NAME = 'securities' THEN
      IF TG_OP <> 'INSERT' THEN old_id := OLD.id; END IF;
      IF TG_OP <> 'DELETE' THEN new_id := NEW.id; END IF;
    ELSE
      IF TG_OP <> 'INSERT' THEN old_id := OLD.security_id; END IF;
      IF TG_OP <> 'DELETE' THEN new_id := NEW.security_id; END IF;
    END IF;
    IF old_id IS NOT NULL THEN INSERT INTO mdg_change_log (version, security_id) VALUES (next, old_id); END IF;
    IF new_id IS NOT NULL AND new_id IS DISTINCT FROM old_id THEN
      INSERT INTO mdg_change_log (version, security_id) VALUES (next, new_id);
    END IF;
    RETURN NULL;
  END
  $fn$;

  ${DATA_TABLES.map(
    (t) => `CREATE TRIGGER mdg_changes_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${t}
    FOR EACH STATEMENT EXECUTE FUNCTION mdg_bump_change_version();`,
  ).join("\n  ")}
  ${["securities", "listings"]
    .map(
      // Triggers of one kind fire in name order: "mdg_changes_log…" logs before "mdg_changes_version" bumps.
      (t) => `CREATE TRIGGER mdg_changes_log AFTER INSERT OR UPDATE OR DELETE ON ${t}
    FOR EACH ROW EXECUTE FUNCTION mdg_log_security_change();
  CREATE TRIGGER mdg_changes_log_truncate AFTER TRUNCATE ON ${t}
    FOR EACH STATEMENT EXECUTE FUNCTION mdg_log_security_change();`,
    )
    .join("\n  ")}
  `,
};

/** Beyond this many changed securities a replica rebuilds its search index whole rather than patching it. */
export const MAX_PATCHED_SECURITIES = 2_000;

export interface ChangeFeedOptions {
  pollMs: number;
  /** A poll that failed after one that did not (the store unreachable), or a listener that threw; polling goes on. */
  onError?: (err: unknown) => void;
}

/** Polls the change version of one PostgreSQL store; `version` is what `dataVersion()` answers. */
export class PostgresChangeFeed implements ChangeFeed {
  private seen = -1;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private failing = false;
  private running: Promise<void> | undefined;
  private readonly listeners: ChangeListener[] = [];

  constructor(
    private readonly pool: Pool,
    private readonly opts: ChangeFeedOptions,
  ) {}

  /** The last version seen; -1 before `start`. */
  get version(): number {
    return this.seen;
  }

  /** Reads the version now, then polls every `pollMs` until `stop`. */
  async start(): Promise<void> {
    this.seen = (await this.read()).version;
    this.schedule();
  }

  /** Called on every change seen after this call (in order; the next poll waits for the listeners). */
  subscribe(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  /** One poll: true when the version moved (then listeners have been told). */
  async poll(): Promise<boolean> {
    const { version, prunedThrough } = await this.read();
    if (version === this.seen) return false;
    const from = this.seen;
    const securities = this.listeners.length === 0 ? "all" : await this.changedSecurities(from, version, prunedThrough);
    // From here the instrument cache drops what it holds; the search index follows once the listeners ran.
    this.seen = version;
    for (const listener of this.listeners) {
      try {
        await listener({ from, to: version, securities });
      } catch (err) {
        this.opts.onError?.(err);
      }
    }
    return true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.poll()
        .then(() => void (this.failing = false))
        .catch((err: unknown) => {
          // Said once per outage, not four times a second.
          if (!this.failing) this.opts.onError?.(err);
          this.failing = true;
        })
        .finally(() => this.schedule());
    }, this.opts.pollMs);
    // Polling never keeps a process alive on its own (a CLI, a test).
    this.timer.unref();
  }

  private async read(): Promise<{ version: number; prunedThrough: number }> {
    // Unnamed: a named (server-side prepared) statement does not survive PgBouncer's transaction mode.
    const res = await this.pool.query<{ version: number; pruned_through: number }>(
      "SELECT version, pruned_through FROM mdg_change_version WHERE id = 1",
    );
    const row = res.rows[0];
    if (!row) throw new Error("mdg_change_version has no row: the change-notice migration did not run");
    return { version: Number(row.version), prunedThrough: Number(row.pruned_through) };
  }

  private async changedSecurities(
    from: number,
    to: number,
    prunedThrough: number,
  ): Promise<ChangeNotice["securities"]> {
    // Behind the pruned log, or the version went back (the schema was dropped and made again: `--replace`).
    if (from < prunedThrough || to < from) return "all";
    const res = await this.pool.query<{ security_id: number | null }>(
      "SELECT DISTINCT security_id FROM mdg_change_log WHERE version > $1 AND version <= $2",
      [from, to],
    );
    if (res.rows.some((r) => r.security_id === null) || res.rows.length > MAX_PATCHED_SECURITIES) return "all";
    const ids = res.rows.map((r) => Number(r.security_id));
    return { ids, documents: ids.length === 0 ? [] : await searchDocumentsFor(this.pool, ids) };
  }
}

/** The search documents of these securities as the store holds them now (those with no listing are left out). */
async function searchDocumentsFor(pool: Pool, ids: number[]): Promise<SearchDocument[]> {
  const { rows } = await pool.query(
    `SELECT s.id, s.type, s.name, s.isin, s.cusip, s.currency, s.market_cap, s.is_adr, s.is_active,
            l.symbol, l.exchange, l.currency AS l_currency, l.is_primary
     FROM securities s JOIN listings l ON l.security_id = s.id
     WHERE s.id = ANY($1::bigint[]) ORDER BY s.id, l.is_primary DESC, l.id`,
    [ids],
  );
  const docs: SearchDocument[] = [];
  for (const r of rows) {
    const listing = {
      symbol: r.symbol as string,
      exchange: r.exchange as string,
      currency: r.l_currency as string,
      isPrimary: r.is_primary === true,
    };
    const last = docs[docs.length - 1];
    const id = Number(r.id);
    if (last && last.security.id === id) last.listings.push(listing);
    else
      docs.push({
        security: {
          id,
          type: r.type as SecurityType,
          name: r.name as string,
          isin: r.isin as string | null,
          cusip: r.cusip as string | null,
          currency: r.currency as string,
          marketCap: r.market_cap === null ? null : Number(r.market_cap),
          isAdr: r.is_adr === true,
          isActive: r.is_active === true,
        },
        listings: [listing],
      });
  }
  return docs;
}

/**
 * The source with `dataVersion()` answering the feed's last version: the instrument cache (src/sources/source.cache.ts)
 * then drops its rows on the poll that sees a commit. Closing it stops the feed first.
 */
export function withChanges<T extends MarketDataSource>(source: T, feed: PostgresChangeFeed): T {
  const out = Object.create(source) as T;
  Object.defineProperty(out, "dataVersion", { value: () => feed.version });
  Object.defineProperty(out, "close", {
    value: async () => {
      await feed.stop();
      await source.close();
    },
  });
  return out;
}
