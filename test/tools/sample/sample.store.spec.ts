import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isValidCusip, isValidIsin } from "../../../src/tools/sample/sample.identifiers";
import { exchange } from "../../../src/sources/sample/sample.markets";
import { sessionOn } from "../../../src/sources/sample/sample.sessions";
import { migrate } from "../../../src/sources/sqlite/sqlite.migrate";
import { ensureSampleStore, fillSampleData, type SampleSummary } from "../../../src/tools/sample/sample.store";

const SEED = 42;
const ANCHOR = "2026-11-20";
const HISTORY_START = "2016-11-20";
const SCALE = 0.02;

/** The fewest decimals that write every one of `xs` (their tick). */
function decimalsOf(xs: readonly number[]): number {
  for (let d = 0; d < 12; d++) if (xs.every((x) => Math.abs(x * 10 ** d - Math.round(x * 10 ** d)) < 1e-6)) return d;
  return 12;
}

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

describe("sample store (scale 0.02)", () => {
  let dir: string;
  let file: string;
  let db: Database.Database;
  let summary: SampleSummary;
  const one = <T = number>(sql: string, ...params: unknown[]): T =>
    db
      .prepare(sql)
      .pluck()
      .get(...params) as T;
  const all = <T>(sql: string, ...params: unknown[]): T[] => db.prepare(sql).all(...params) as T[];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "mdg-sample-"));
    file = path.join(dir, "nested", "sample.db");
    const result = await ensureSampleStore(file, { seed: SEED, anchorDate: ANCHOR, scale: SCALE, log: () => {} });
    expect(result.built).toBe(true);
    summary = result.summary as SampleSummary;
    db = new Database(file, { readonly: true });
  }, 60_000);

  afterAll(() => {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("does not rebuild an existing store", async () => {
    await expect(
      ensureSampleStore(file, { seed: SEED, anchorDate: ANCHOR, scale: SCALE, log: () => {} }),
    ).resolves.toEqual({ built: false });
  });

  it("reports the rows it wrote, and leaves no scratch files", () => {
    expect(summary.rows.securities).toBe(one("SELECT count(*) FROM securities"));
    expect(summary.rows.daily_bars).toBe(one("SELECT count(*) FROM daily_bars"));
    expect(summary.historyStart).toBe(HISTORY_START);
    for (const table of Object.keys(summary.rows)) expect(summary.rows[table]).toBeGreaterThan(0);
    expect(one<string>("PRAGMA journal_mode")).toBe("wal");
  });

  it("records only deterministic meta values", () => {
    const meta = Object.fromEntries(
      all<{ key: string; value: string }>("SELECT key, value FROM meta").map((r) => [r.key, r.value]),
    );
    expect(meta).toMatchObject({
      seed: "42",
      anchor_date: ANCHOR,
      history_start: HISTORY_START,
      generator_version: "5",
    });
    expect(meta.built_at).toBeUndefined();
  });

  it("gives every stock, ETF and fund a unique, valid ISIN and US securities their CUSIP", () => {
    const rows = all<{ type: string; isin: string | null; cusip: string | null }>(
      "SELECT type, isin, cusip FROM securities",
    );
    const seen = new Set<string>();
    for (const r of rows) {
      if (r.type === "stock" || r.type === "etf" || r.type === "fund") {
        expect(r.isin).not.toBeNull();
        expect(isValidIsin(r.isin as string)).toBe(true);
        seen.add(r.isin as string);
        if (r.isin?.startsWith("US")) {
          expect(r.cusip).toBe(r.isin.slice(2, 11));
          expect(isValidCusip(r.cusip as string)).toBe(true);
        }
      }
    }
    expect(seen.size).toBe(rows.filter((r) => r.isin !== null).length);
  });

  it("ranks each type by size, 1 = largest", () => {
    for (const type of ["stock", "etf", "fund", "crypto", "forex"]) {
      const n = one(`SELECT count(*) FROM securities WHERE type = ?`, type);
      expect(one(`SELECT count(DISTINCT rank) FROM securities WHERE type = ? AND rank BETWEEN 1 AND ?`, type, n)).toBe(
        n,
      );
    }
    const caps = all<{ mc: number; c: number; so: number }>(
      `SELECT s.market_cap mc, q.c c, s.shares_outstanding so FROM securities s JOIN listings l ON l.security_id = s.id
        AND l.is_primary JOIN quotes q ON q.listing_id = l.id WHERE s.type = 'stock'`,
    );
    for (const x of caps) expect(x.mc).toBeCloseTo(x.so * x.c, 0);
  });

  it("lists every security once as primary, secondaries with their own symbol and currency", () => {
    expect(one("SELECT count(*) FROM (SELECT security_id FROM listings GROUP BY 1 HAVING sum(is_primary) <> 1)")).toBe(
      0,
    );
    expect(one("SELECT count(*) FROM securities WHERE id NOT IN (SELECT security_id FROM listings)")).toBe(0);
    const stocks = one("SELECT count(*) FROM securities WHERE type = 'stock'");
    const withSecondary = one(
      `SELECT count(DISTINCT l.security_id) FROM listings l JOIN securities s ON s.id = l.security_id
        WHERE s.type = 'stock' AND l.is_primary = 0`,
    );
    expect(withSecondary / stocks).toBeGreaterThanOrEqual(0.25);
    expect(
      one(
        `SELECT count(*) FROM listings WHERE is_primary = 0 AND exchange = 'XFRA' AND (currency <> 'EUR'
          OR symbol NOT LIKE '%.F')`,
      ),
    ).toBe(0);
    expect(
      one(
        `SELECT count(*) FROM listings WHERE exchange IN ('XNAS','XNYS') AND NOT (symbol GLOB '[A-Z]'
          OR symbol GLOB '[A-Z][A-Z]' OR symbol GLOB '[A-Z][A-Z][A-Z]' OR symbol GLOB '[A-Z][A-Z][A-Z][A-Z]'
          OR symbol GLOB '[A-Z][A-Z][A-Z][A-Z][A-Z]')`,
      ),
    ).toBe(0);
    const suffix: Record<string, string> = {
      XFRA: ".F",
      XETR: ".DE",
      XLON: ".L",
      XPAR: ".PA",
      XAMS: ".AS",
      XSWX: ".SW",
      XTKS: ".T",
      XTSE: ".TO",
      XASX: ".AX",
      XHKG: ".HK",
    };
    for (const [ex, sfx] of Object.entries(suffix)) {
      expect(one(`SELECT count(*) FROM listings WHERE exchange = ? AND symbol NOT LIKE ?`, ex, `%${sfx}`)).toBe(0);
    }
    const crypto = all<{ symbols: string }>(
      "SELECT group_concat(symbol, ' ') symbols FROM listings WHERE exchange = 'CRYPTO' GROUP BY security_id",
    );
    for (const c of crypto) expect(c.symbols).toMatch(/^([A-Z0-9]+)-USD \1-EUR$/);
    expect(
      one<string>(
        `SELECT symbol FROM listings l JOIN securities s ON s.id = l.security_id WHERE s.type = 'crypto' AND s.rank = 1
          AND l.is_primary`,
      ),
    ).toBe("BTC-USD");
    expect(
      one<string>("SELECT name FROM securities WHERE id = (SELECT security_id FROM listings WHERE symbol = 'EURUSD')"),
    ).toBe("Euro / US Dollar");
  });

  it("keeps company names distinctive: a name's own word finds a handful", () => {
    const names = all<{ name: string }>("SELECT name FROM securities WHERE type = 'stock' AND country = 'US'").map(
      (r) => r.name,
    );
    const words = new Map<string, number>();
    for (const n of names) for (const w of new Set(n.split(" "))) words.set(w, (words.get(w) ?? 0) + 1);
    for (const n of names.slice(0, 300)) expect(words.get(n.split(" ")[0] as string)).toBeLessThanOrEqual(4);
  });

  it("writes consistent daily bars: 10 years to the day before the anchor, weekdays (crypto every day)", () => {
    expect(one("SELECT count(*) FROM daily_bars WHERE l > min(o, c) OR h < max(o, c) OR l <= 0 OR v <= 0")).toBe(0);
    const spans = all<{ exchange: string; first: number; last: number; n: number }>(
      `SELECT l.exchange, min(b.t) first, max(b.t) last, count(*) n FROM daily_bars b JOIN listings l
        ON l.id = b.listing_id GROUP BY b.listing_id`,
    );
    const start = Date.parse(HISTORY_START) / 1000;
    const anchor = Date.parse(ANCHOR) / 1000;
    for (const s of spans) {
      expect(s.first).toBeLessThanOrEqual(start + 3 * 86400);
      // The anchor day's sessions close after the sample's clock (00:00 UTC of the anchor day).
      expect(s.last).toBe(anchor - 86400);
      // Exchanges: ten years of weekdays (2,609) less their holidays (Tokyo's are the most, some 17 a year).
      expect(s.n).toBeGreaterThanOrEqual(s.exchange === "CRYPTO" ? 3652 : 2400);
    }
    expect(
      one(
        `SELECT count(*) FROM daily_bars b JOIN listings l ON l.id = b.listing_id WHERE l.exchange <> 'CRYPTO'
          AND strftime('%w', b.t, 'unixepoch') IN ('0', '6')`,
      ),
    ).toBe(0);
    // Opens stay close to the previous close.
    const jumps = one(
      `SELECT count(*) FROM (SELECT o, lag(c) OVER (PARTITION BY listing_id ORDER BY t) pc FROM daily_bars)
        WHERE pc IS NOT NULL AND abs(o / pc - 1) > 0.2`,
    );
    expect(jumps).toBe(0);
    const kinds = all<{ type: string; n: number }>(
      `SELECT s.type, count(DISTINCT b.listing_id) n FROM daily_bars b JOIN listings l ON l.id = b.listing_id
        JOIN securities s ON s.id = l.security_id GROUP BY 1`,
    );
    expect(Object.fromEntries(kinds.map((k) => [k.type, k.n]))).toMatchObject({
      etf: one("SELECT count(*) FROM securities WHERE type = 'etf'"),
      // Every forex pair is stored (its path needs the FX history); the others are partly computed when read.
      forex: one("SELECT count(*) FROM securities WHERE type = 'forex'"),
    });
  });

  it("makes each intraday day's daily bar the aggregate of its 5-minute bars", () => {
    const days = all<{
      listing_id: number;
      day: number;
      n: number;
      o: number;
      c: number;
      h: number;
      l: number;
      v: number;
    }>(`
      WITH d AS (
        SELECT listing_id, t / 86400 * 86400 day, count(*) n, max(h) h, min(l) l, sum(v) v, min(t) first, max(t) last
        FROM intraday_bars GROUP BY 1, 2)
      SELECT d.listing_id, d.day, d.n, d.h, d.l, d.v, f.o, z.c
      FROM d JOIN intraday_bars f ON f.listing_id = d.listing_id AND f.t = d.first
      JOIN intraday_bars z ON z.listing_id = d.listing_id AND z.t = d.last`);
    expect(days.length).toBeGreaterThanOrEqual(40);
    for (const d of days) {
      expect([78, 288]).toContain(d.n);
      const bar = db
        .prepare("SELECT o, h, l, c, v FROM daily_bars WHERE listing_id = ? AND t = ?")
        .get(d.listing_id, d.day);
      expect(bar).toEqual({ o: d.o, h: d.h, l: d.l, c: d.c, v: d.v });
    }
    const stockSession = all<{ first: number; last: number }>(
      `SELECT min(t % 86400) first, max(t % 86400) last FROM intraday_bars i JOIN listings l ON l.id = i.listing_id
        WHERE l.exchange <> 'CRYPTO'`,
    )[0];
    // New York's winter hours, 9:30-16:00 EST: the window's days all come after the clocks went back.
    expect(stockSession).toEqual({ first: 14.5 * 3600, last: 21 * 3600 - 300 });
  });

  it("quotes every listing, consistently with its history", () => {
    expect(one("SELECT count(*) FROM listings WHERE id NOT IN (SELECT listing_id FROM quotes)")).toBe(0);
    expect(
      one(
        `SELECT count(*) FROM quotes WHERE l > min(o, c) OR h < max(o, c) OR c <= 0 OR pc <= 0 OR v <= 0 OR ma50 <= 0
          OR ma200 <= 0 OR avg_volume <= 0`,
      ),
    ).toBe(0);
    const withHistory = all<{
      listing_id: number;
      c: number;
      o: number;
      h: number;
      l: number;
      v: number;
      pc: number;
      ma50: number;
      ma200: number;
      avg_volume: number;
      t: number;
      exchange: string;
    }>(
      `SELECT q.*, l.exchange FROM quotes q JOIN listings l ON l.id = q.listing_id
        WHERE listing_id IN (SELECT DISTINCT listing_id FROM daily_bars)`,
    );
    for (const q of withHistory) {
      const bars = db
        .prepare("SELECT t, o, h, l, c, v FROM daily_bars WHERE listing_id = ? ORDER BY t DESC LIMIT 200")
        .all(q.listing_id) as { t: number; o: number; h: number; l: number; c: number; v: number }[];
      const last = bars[0] as (typeof bars)[number];
      expect([q.o, q.h, q.l, q.c, q.v]).toEqual([last.o, last.h, last.l, last.c, last.v]);
      expect(q.pc).toBe(bars[1]?.c);
      // Its time is the close of the last bar's session (a crypto day closes at the next midnight).
      expect(q.t).toBe(sessionOn(exchange(q.exchange), last.t / 86400)?.close);
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      // The averages are on the listing's tick, as its prices are.
      const halfTick = 0.5 * 10 ** -decimalsOf(bars.map((b) => b.c)) + 1e-9;
      expect(Math.abs(q.ma50 - mean(bars.slice(0, 50).map((b) => b.c)))).toBeLessThanOrEqual(halfTick);
      expect(Math.abs(q.ma200 - mean(bars.map((b) => b.c)))).toBeLessThanOrEqual(halfTick);
      // Whole shares.
      expect(Math.abs(q.avg_volume - mean(bars.slice(0, 30).map((b) => b.v)))).toBeLessThanOrEqual(0.5);
      expect(Number.isInteger(q.avg_volume)).toBe(true);
    }
  });

  it("converts secondary listings' quotes from the primary at the anchor FX rate", () => {
    const rows = all<{ c: number; pc: number; from: string; to: string }>(`
      SELECT qs.c / qp.c ratio, qs.c c, qp.c pc, lp.currency "from", ls.currency "to"
      FROM listings ls JOIN listings lp ON lp.security_id = ls.security_id AND lp.is_primary
      JOIN quotes qs ON qs.listing_id = ls.id JOIN quotes qp ON qp.listing_id = lp.id
      WHERE ls.is_primary = 0 AND ls.exchange <> 'CRYPTO' LIMIT 300`);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      const rate = one(
        `SELECT (SELECT per_usd FROM fx_daily WHERE currency = ? AND day = ?) / (SELECT per_usd FROM fx_daily
          WHERE currency = ? AND day = ?)`,
        r.to,
        ANCHOR,
        r.from,
        ANCHOR,
      );
      expect(Math.abs(r.c / r.pc / rate - 1)).toBeLessThan(0.01);
    }
  });

  it("has FX for every calendar day and every currency in use, matching the forex closes", () => {
    const days = one("SELECT julianday(?) - julianday(?) + 1", ANCHOR, HISTORY_START);
    const used = all<{ c: string }>(
      "SELECT DISTINCT currency c FROM listings UNION SELECT nav_currency FROM fund_profiles",
    ).map((r) => r.c);
    for (const c of used) expect(one("SELECT count(*) FROM fx_daily WHERE currency = ?", c)).toBe(days);
    // A forex close is the day's cross rate on the pair's tick (at most five decimals).
    const closes = all<{ id: number; c: number; rate: number }>(`
      SELECT b.listing_id id, b.c, (SELECT per_usd FROM fx_daily
                    WHERE currency = substr(l.symbol, 4, 3) AND day = date(b.t, 'unixepoch'))
                 / (SELECT per_usd FROM fx_daily
                    WHERE currency = substr(l.symbol, 1, 3) AND day = date(b.t, 'unixepoch')) rate
      FROM daily_bars b JOIN listings l ON l.id = b.listing_id AND l.exchange = 'FOREX'`);
    expect(closes.length).toBeGreaterThan(10_000);
    const byPair = new Map<number, typeof closes>();
    for (const r of closes) {
      const rows = byPair.get(r.id);
      if (rows) rows.push(r);
      else byPair.set(r.id, [r]);
    }
    for (const rows of byPair.values()) {
      const d = decimalsOf(rows.map((r) => r.c));
      expect(d).toBeLessThanOrEqual(5);
      const off = rows.filter((r) => Math.abs(r.c - r.rate) > 0.5 * 10 ** -d + 1e-12);
      expect(off).toEqual([]);
    }
    const eur = one("SELECT per_usd FROM fx_daily WHERE currency = 'EUR' AND day = ?", ANCHOR);
    expect(eur).toBeGreaterThan(0.75);
    expect(eur).toBeLessThan(1.1);
  });

  it("builds ETF and fund portfolios whose weights and exposures sum to 100", () => {
    for (const [holdings, key] of [
      ["etf_holdings", "etf_id"],
      ["etf_sector_exposure", "etf_id"],
      ["etf_country_exposure", "etf_id"],
      ["fund_holdings", "fund_id"],
      ["fund_sector_exposure", "fund_id"],
      ["fund_country_exposure", "fund_id"],
      ["fund_allocation", "fund_id"],
    ]) {
      expect(
        one(`SELECT count(*) FROM (SELECT ${key}, round(sum(weight), 4) s FROM ${holdings} GROUP BY 1) WHERE s <> 100`),
      ).toBe(0);
    }
    expect(
      one(
        `SELECT count(*) FROM etf_profiles p WHERE holdings_count <> (SELECT count(*) FROM etf_holdings h
          WHERE h.etf_id = p.security_id) OR holdings_count NOT BETWEEN 10 AND 200`,
      ),
    ).toBe(0);
    expect(
      one(
        `SELECT count(*) FROM fund_profiles p WHERE holdings_count <> (SELECT count(*) FROM fund_holdings h
          WHERE h.fund_id = p.security_id) OR holdings_count NOT BETWEEN 10 AND 100`,
      ),
    ).toBe(0);
    expect(
      one(
        `SELECT count(*) FROM etf_holdings h JOIN etf_profiles p ON p.security_id = h.etf_id
          WHERE abs(h.market_value - h.weight / 100 * p.aum) > 0.01`,
      ),
    ).toBe(0);
    expect(
      one("SELECT count(*) FROM securities WHERE type = 'etf' AND id NOT IN (SELECT security_id FROM etf_profiles)"),
    ).toBe(0);
    expect(
      one("SELECT count(*) FROM securities WHERE type = 'fund' AND id NOT IN (SELECT security_id FROM fund_profiles)"),
    ).toBe(0);
    // Stock holdings are real securities with their identifiers; bonds are not.
    expect(
      one(
        `SELECT count(*) FROM etf_holdings h JOIN securities s ON s.id = h.holding_security_id WHERE s.isin <> h.isin
          OR s.name <> h.name`,
      ),
    ).toBe(0);
    expect(
      one(
        `SELECT count(*) FROM etf_holdings h JOIN etf_profiles p ON p.security_id = h.etf_id
          WHERE p.asset_class = 'Fixed Income' AND h.holding_security_id IS NOT NULL`,
      ),
    ).toBe(0);
    const sectorSum = one(`
      SELECT count(*) FROM etf_sector_exposure e WHERE abs(e.weight - (SELECT sum(weight) FROM etf_holdings h
        WHERE h.etf_id = e.etf_id AND coalesce(h.sector, 'Other') = e.sector)) > 1e-6`);
    expect(sectorSum).toBe(0);
    expect(one("SELECT count(*) FROM etf_holdings WHERE shares <= 0")).toBe(0);
  });

  it("keeps quarterly financials internally consistent", () => {
    expect(
      one(
        `SELECT count(*) FROM quarterly_financials WHERE gross_profit <> revenue - cost_of_revenue
      OR free_cash_flow <> operating_cash_flow + capex OR total_assets <> total_liabilities + total_equity
      OR abs(eps - net_income * 1.0 / shares_outstanding) > 0.00005 + 1e-12 OR eps <> round(eps, 4)
      OR capex > 0 OR dividends_paid > 0
      OR reported_date <= period_end OR reported_date > ?`,
        ANCHOR,
      ),
    ).toBe(0);
    // The balance-sheet and cash-flow details: every one given, within the totals they are part of.
    expect(
      one(
        `SELECT count(*) FROM quarterly_financials WHERE current_assets IS NULL OR current_liabilities IS NULL
      OR inventory IS NULL OR accounts_receivable IS NULL OR accounts_payable IS NULL
      OR depreciation_amortization IS NULL OR stock_based_compensation IS NULL
      OR current_assets > total_assets OR current_liabilities > total_liabilities
      OR accounts_payable > current_liabilities OR inventory < 0 OR accounts_receivable < 0 OR accounts_payable < 0
      OR depreciation_amortization < 0 OR stock_based_compensation < 0`,
      ),
    ).toBe(0);
    expect(one("SELECT count(*) FROM quarterly_financials WHERE inventory > 0")).toBeGreaterThan(0);
    expect(one("SELECT max(period_end) FROM quarterly_financials")).toBe("2026-09-30");
    const perStock = all<{ n: number; k: number }>(
      "SELECT n, count(*) k FROM (SELECT count(*) n FROM quarterly_financials GROUP BY security_id) GROUP BY n",
    );
    expect(perStock.find((x) => x.n === 16)?.k).toBeGreaterThan(0);
    // Every stock reports, eight quarters at least.
    expect(Math.min(...perStock.map((x) => x.n))).toBe(8);
    expect(perStock.reduce((a, x) => a + x.k, 0)).toBe(one("SELECT count(*) FROM securities WHERE type = 'stock'"));
    expect(
      one(
        `SELECT count(*) FROM securities WHERE id IN (SELECT security_id FROM quarterly_financials)
          AND NOT (next_earnings_date > ? AND next_earnings_date <= date(?, '+100 days'))`,
        ANCHOR,
        ANCHOR,
      ),
    ).toBe(0);
  });

  it("writes dividends with split-adjusted amounts, sane dates and announcements", () => {
    expect(
      one(`SELECT count(*) FROM dividends d WHERE abs(adjusted_amount - amount /
      coalesce((SELECT exp(sum(ln(numerator / denominator))) FROM splits s WHERE s.security_id = d.security_id
        AND s.day > d.ex_date), 1)) > 1e-9`),
    ).toBe(0);
    expect(
      one(
        `SELECT count(*) FROM dividends WHERE NOT (declaration_date < ex_date AND ex_date < record_date
          AND record_date < pay_date) OR frequency NOT IN (1, 2, 4, 12) OR amount <= 0`,
      ),
    ).toBe(0);
    expect(one("SELECT count(*) FROM dividends WHERE ex_date > ? AND declaration_date > ?", ANCHOR, ANCHOR)).toBe(0);
    expect(one("SELECT count(*) FROM dividends WHERE ex_date > date(?, '+90 days')", ANCHOR)).toBe(0);
    expect(one("SELECT count(*) FROM dividends WHERE ex_date > ?", ANCHOR)).toBeGreaterThan(20);
    expect(
      one("SELECT count(*) FROM dividends d JOIN splits s ON s.security_id = d.security_id WHERE s.day > d.ex_date"),
    ).toBeGreaterThan(0);
    const types = all<{ type: string }>(
      "SELECT DISTINCT s.type FROM dividends d JOIN securities s ON s.id = d.security_id",
    )
      .map((r) => r.type)
      .sort();
    expect(types).toEqual(["etf", "fund", "stock"]);
    expect(one("SELECT min(ex_date) FROM dividends")).toBe(
      one("SELECT min(ex_date) FROM dividends WHERE ex_date <= date(?, '+60 days')", HISTORY_START),
    );
    expect(one("SELECT count(*) FROM splits WHERE numerator NOT IN (2, 3, 4) OR denominator <> 1")).toBe(0);
  });

  it("weights index constituents by market cap, summing to 100", () => {
    const idx = all<{ index_symbol: string; n: number; s: number }>(
      "SELECT index_symbol, count(*) n, round(sum(weight), 4) s FROM index_constituents GROUP BY 1",
    );
    expect(idx.map((i) => i.index_symbol)).toEqual(["MDG100", "MDGEU50", "MDGWORLD"]);
    for (const i of idx) expect(i.s).toBe(100);
    expect(idx.find((i) => i.index_symbol === "MDG100")?.n).toBe(100);
  });

  it("writes IPOs on the securities' IPO days, priced before the anchor and expected after it", () => {
    const rows = all<{
      day: string;
      ipo_date: string;
      exchange: string;
      primary_exchange: string;
      currency: string;
      listing_currency: string;
      shares_offered: number;
      shares_outstanding: number;
      offer_price: number;
      status: string;
      id: number;
    }>(
      `SELECT i.*, s.id, s.ipo_date, s.shares_outstanding, l.exchange AS primary_exchange,
         l.currency AS listing_currency
       FROM ipos i JOIN securities s ON s.id = i.security_id AND s.type = 'stock'
       JOIN listings l ON l.security_id = s.id AND l.is_primary = 1`,
    );
    expect(rows.length).toBe(one("SELECT count(*) FROM ipos"));
    expect(rows.filter((r) => r.status === "expected").length).toBe(3);
    expect(rows.filter((r) => r.status === "priced").length).toBeGreaterThan(3);
    for (const r of rows) {
      expect(r.day).toBe(r.ipo_date);
      expect(r.status).toBe(r.day > ANCHOR ? "expected" : "priced");
      expect([r.exchange, r.currency]).toEqual([r.primary_exchange, r.listing_currency]);
      expect(r.shares_offered % 1_000).toBe(0);
      // 10 % to 30 % of the shares outstanding, to the thousand (at least a thousand).
      expect(r.shares_offered).toBeGreaterThanOrEqual(Math.min(1_000, r.shares_outstanding * 0.1 - 500));
      expect(r.shares_offered).toBeLessThanOrEqual(Math.max(1_000, r.shares_outstanding * 0.3 + 500));
      expect(r.offer_price).toBeGreaterThan(0);
    }
    // A company still to list is in no index and no fund yet, and has paid no dividend.
    const upcoming = rows.filter((r) => r.status === "expected").map((r) => r.id);
    const marks = upcoming.map(() => "?").join(",");
    for (const table of ["index_constituents", "dividends"])
      expect(one(`SELECT count(*) FROM ${table} WHERE security_id IN (${marks})`, ...upcoming)).toBe(0);
    for (const [table, column] of [
      ["etf_holdings", "holding_security_id"],
      ["fund_holdings", "holding_security_id"],
    ])
      expect(one(`SELECT count(*) FROM ${table} WHERE ${column} IN (${marks})`, ...upcoming)).toBe(0);
  });

  it("is deterministic: the same seed and anchor give a byte-identical file", async () => {
    const again = path.join(dir, "again.db");
    await ensureSampleStore(again, { seed: SEED, anchorDate: ANCHOR, scale: SCALE, log: () => {} });
    expect(sha256(again)).toBe(sha256(file));
  }, 60_000);

  it("has the same content built in one thread as with the helper thread", () => {
    // Every row of every table, in key order: the helper's tables are copied in whole, so pages may lie elsewhere.
    const content = (d: Database.Database) => {
      const h = createHash("sha256");
      const tables = d.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
        name: string;
        sql: string;
      }[];
      for (const t of tables) {
        h.update(t.sql);
        for (const row of d.prepare(`SELECT * FROM "${t.name}"`).raw().iterate()) h.update(JSON.stringify(row));
      }
      return h.digest("hex");
    };
    const single = new Database(":memory:");
    migrate(single);
    fillSampleData(single, { seed: SEED, anchorDate: ANCHOR, scale: SCALE, helperThread: false });
    const counts = (d: Database.Database) => d.prepare("SELECT count(*) FROM daily_bars").pluck().get();
    expect(counts(db)).toBeGreaterThan(10_000);
    expect(counts(single)).toBe(counts(db));
    expect(content(single)).toBe(content(db));
    single.close();
    // The helper's scratch file of bars is gone once adopted.
    expect(readdirSync(path.dirname(file)).filter((n) => n.includes(".side"))).toEqual([]);
  }, 60_000);

  it("gives a different data set for a different seed", () => {
    const other = new Database(":memory:");
    migrate(other);
    fillSampleData(other, { seed: 7, anchorDate: ANCHOR, scale: SCALE });
    const name = (d: Database.Database) => d.prepare("SELECT name FROM securities WHERE id = 1").pluck().get();
    expect(name(other)).not.toBe(name(db));
    other.close();
  }, 60_000);

  it("refuses to fill a database that already has data", () => {
    const other = new Database(":memory:");
    migrate(other);
    other.prepare("INSERT INTO meta (key, value) VALUES ('x', 'y')").run();
    expect(() => fillSampleData(other, { seed: 1, anchorDate: ANCHOR, scale: SCALE })).toThrow(/empty/);
    other.close();
  });
});
