import { addYears, formatDay, parseDay, SECONDS_PER_DAY } from "../../sources/sample/sample.calendar";
import { columnOf, OPTIONAL_FINANCIAL_FIGURES } from "../../domain/ports/source.types";
import { createContext, GENERATOR_VERSION, INTRADAY_DAYS, type SampleContext } from "./sample.context";
import { generateCrypto } from "./sample.crypto";
import { type DividendPlan, planDividends, planSplits } from "./sample.dividends";
import { generateEtfs } from "./sample.etfs";
import { QUARTERS, quartersOf, type QuarterRow, RECENT_QUARTERS } from "./sample.financials";
import { forexPairs, type ForexPair } from "../../sources/sample/sample.forex";
import { generateFunds } from "./sample.funds";
import { generateBonds, HoldingSet, type HoldingTemplate } from "./sample.holdings";
import { assignWkns } from "./sample.identifiers";
import { buildIndices } from "./sample.indices";
import { currencyDigits, EXCHANGES } from "../../sources/sample/sample.markets";
import type {
  Crypto,
  DividendRow,
  Etf,
  ForexSecurity,
  Fund,
  HoldingRow,
  IndexDef,
  Listing,
  Security,
  Split,
  SqlValue,
  Stock,
} from "./sample.model";
import { unitsToPercent, roundTo } from "../../sources/sample/sample.numbers";
import {
  BarSimulator,
  convertedQuote,
  type HistorySpec,
  QuoteTable,
  type RowWriter,
} from "../../sources/sample/sample.prices";
import {
  SeriesCalendar,
  SeriesSynthesizer,
  SERIES_COLUMNS,
  SERIES_META_KEY,
  SERIES_FORMAT,
  seriesRowValues,
  type SeriesRow,
} from "../../sources/sample/sample.series";
import { BuildHelper, type StoredPath } from "./sample.helper";
import { generateStocks, stockDescription, stockWebsite } from "./sample.securities";

/** Exchanges in Germany: a security listed on one carries a WKN. */
const GERMAN_EXCHANGES = new Set(["XFRA", "XETR"]);

/**
 * Pure generation of the sample data set: builds the universe in memory, then
 * streams every table, in primary-key order, to a sink. No database here; the
 * store module turns the sink into prepared statements.
 */

export interface SampleSink {
  /** A stage groups tables written together; the store runs each in one transaction. */
  beginStage(name: string): void;
  table(name: string, columns: readonly string[]): RowWriter;
  endStage(): void;
  /**
   * Where a helper thread may build whole tables for the sink to adopt (absent: the build writes every row itself):
   * a scratch file, the sink's CREATE TABLE of a table, and the adoption, run between stages.
   */
  readonly side?: {
    file: string;
    schema(table: string): string;
    adopt(file: string, tables: readonly string[]): void;
  };
}

export interface GenerateOptions {
  seed: number;
  anchorDate: string;
  scale?: number;
  /** Runs the quote-only paths in a helper thread as well (default); false keeps the build in one thread. */
  helperThread?: boolean;
  /**
   * Called where much of the heap has just become garbage (the universe built and the helper started; the universe
   * let go before the price history): the store's build collects it there, so the heap does not grow on top of it.
   */
  compact?: () => void;
}

const BAR_COLUMNS = ["listing_id", "t", "o", "h", "l", "c", "v"];

/** Years of daily history of the listings that are neither the largest nor stored (at least this much). */
export const RECENT_HISTORY_YEARS = 2;

/**
 * A listing's planned path: its row (the spec is built from it when run: a spec's day and factor windows cost ~50 MB
 * over all listings); a secondary listing's row is derived from its primary's in writeBars.
 */
export type PlannedSeries =
  | { row: SeriesRow; stored: boolean; primary: null; fx: ForexSecurity | null; listing?: undefined }
  | { row: null; stored: false; primary: number; fx: null; listing: Listing };

export class SampleGenerator {
  readonly ctx: SampleContext;
  readonly stocks: Stock[];
  readonly etfs: Etf[];
  readonly funds: Fund[];
  readonly crypto: Crypto[];
  readonly forex: ForexSecurity[];
  /** All securities by id. */
  readonly securities: Security[];
  readonly listings: Listing[];
  readonly splits: Map<number, Split[]>;
  readonly dividends: DividendPlan;
  /**
   * Trailing totals of each stock's latest four quarters by security id (NaN: none), filled as the quarters are
   * written: two columns instead of a map of ~91,000 boxed pairs (~9 MB of heap while the tables are written).
   */
  private ttmEps = new Float64Array(0);
  private ttmNetIncome = new Float64Array(0);
  readonly indices: IndexDef[];
  readonly calendar: SeriesCalendar;
  private specs: PlannedSeries[] | undefined;
  private readonly helperThread: boolean;
  private readonly compact: () => void;
  /** Stored paths whose bars the helper writes, kept to write them here should it fail. */
  private readonly storedSpecs: HistorySpec[] = [];

  constructor(opts: GenerateOptions) {
    const ctx = createContext(opts.seed, opts.anchorDate, opts.scale ?? 1);
    this.ctx = ctx;
    this.helperThread = opts.helperThread ?? true;
    this.compact = opts.compact ?? (() => undefined);
    this.calendar = new SeriesCalendar(ctx.seed, ctx.historyStart, ctx.anchorDay);

    this.stocks = generateStocks(ctx, 1);
    const bonds = generateBonds(ctx, this.stocks);
    this.etfs = generateEtfs(ctx, this.stocks, bonds, this.stocks.length + 1);
    this.funds = generateFunds(ctx, this.stocks, bonds, this.etfs, this.stocks.length + this.etfs.length + 1);
    this.crypto = generateCrypto(ctx, this.stocks.length + this.etfs.length + this.funds.length + 1);
    this.forex = this.buildForex(this.stocks.length + this.etfs.length + this.funds.length + this.crypto.length + 1);

    this.splits = planSplits(ctx, this.stocks);
    this.dividends = planDividends(ctx, this.stocks, this.etfs, this.funds, this.splits);
    this.indices = buildIndices(this.stocks);

    this.securities = [...this.stocks, ...this.etfs, ...this.funds, ...this.crypto, ...this.forex].sort(
      (a, b) => a.id - b.id,
    );
    this.assignRanks();
    this.listings = [];
    for (const s of this.securities) {
      // Pushing grows an array's store to 16 or more slots; a copy holds exactly its few listings (11 MB less heap).
      s.listings = s.listings.slice();
      for (const l of s.listings) {
        l.id = this.listings.length + 1;
        l.securityId = s.id;
        this.listings.push(l);
      }
    }
    ctx.retireRegistries();
  }

  private buildForex(firstId: number): ForexSecurity[] {
    const ctx = this.ctx;
    const pairs = forexPairs();
    // Dollar pairs first among the majors: they are the most traded.
    const order = (p: ForexPair) => (p.major ? (p.base === "USD" || p.quote === "USD" ? 0 : 1) : 2);
    const sorted = pairs.map((p, i) => ({ p, i })).sort((a, b) => order(a.p) - order(b.p) || a.i - b.i);
    return sorted.map(({ p }, i) => {
      const id = firstId + i;
      ctx.symbols.claim(p.symbol);
      const price = ctx.fx.rate(p.base, p.quote, ctx.lastTradingDay);
      return {
        id,
        type: "forex",
        name: p.name,
        isin: null,
        cusip: null,
        country: null,
        sector: null,
        industry: null,
        currency: p.base,
        marketCap: null,
        sharesOutstanding: null,
        isAdr: false,
        description: `Exchange rate: ${p.quote} per one ${p.base}.`,
        website: null,
        ipoDate: null,
        nextEarningsDate: null,
        rank: i + 1,
        listings: [
          {
            id: 0,
            securityId: id,
            symbol: p.symbol,
            exchange: "FOREX",
            currency: p.quote,
            isPrimary: true,
            quoteCurrency: p.quote,
          },
        ],
        price,
        valueUsd: 0,
        volatility: 0.08,
        beta: 0,
        drift: 0,
        volume: 150_000,
        base: p.base,
        quote: p.quote,
        major: p.major,
      };
    });
  }

  /** rank = 1 for the largest of each type by USD value (forex keeps its quoting order). */
  private assignRanks(): void {
    for (const group of [this.stocks, this.etfs, this.funds, this.crypto] as Security[][]) {
      const sorted = group.slice().sort((a, b) => b.valueUsd - a.valueUsd || a.id - b.id);
      sorted.forEach((s, i) => {
        s.rank = i + 1;
      });
    }
  }

  /**
   * The price path of every listing, in listing-id order. `stored` paths
   * (the largest listings, those with 5-minute bars, and forex, whose path
   * needs the FX history) are written to daily_bars; the others are run here
   * only for their quote and run again when read (sample.series.ts). A
   * secondary listing follows its primary's stream, scaled to its own price,
   * so its spec is completed in writeBars once the primary's quote is known.
   */
  historySpecs(): PlannedSeries[] {
    this.specs ??= this.buildHistorySpecs();
    return this.specs;
  }

  /**
   * The plans, from the universe. `consume` (release(), the build's heap peak) lets each security go as its plan is
   * made, so the plans grow into the room the securities leave instead of on top of them (~30 MiB of peak RSS): the
   * lists of securities are emptied, and each security is dropped from `securities` once planned.
   */
  private buildHistorySpecs(consume = false): PlannedSeries[] {
    const sets = this.planSets();
    const securities = this.securities;
    if (consume) {
      for (const list of [this.stocks, this.etfs, this.funds, this.crypto, this.forex] as Security[][]) list.length = 0;
      securities.reverse();
    }
    const planned: PlannedSeries[] = [];
    if (consume) {
      // V8 frees the planned securities only in a full collection, which the plans alone would not trigger.
      const step = Math.ceil(securities.length / 3);
      for (let s = securities.pop(); s !== undefined; s = securities.pop()) {
        this.plan(s, sets, planned);
        if (securities.length % step === 0 && securities.length > 0) this.compact();
      }
    } else for (const s of securities) this.plan(s, sets, planned);
    return planned;
  }

  /**
   * Each security's plans (its primary listing's, then its secondaries'), one security at a time: what needs the
   * plans only once (the row count, the helper's share) never holds all ~131,000 of them beside the universe.
   */
  private eachPlan(visit: (plans: readonly PlannedSeries[]) => void): void {
    const sets = this.planSets();
    const plans: PlannedSeries[] = [];
    for (const s of this.securities) {
      plans.length = 0;
      this.plan(s, sets, plans);
      visit(plans);
    }
  }

  /** Which securities are stored, run intraday, or go back further: ids only, so no security is held by them. */
  private planSets() {
    const ctx = this.ctx;
    const stored = new Set<number>();
    const stocksWithHistory = this.stocks.slice(0, ctx.counts.stocksWithHistory);
    const intradayStocks = new Set(
      stocksWithHistory
        .filter((s) => s.listings[0]?.exchange === "XNAS" || s.listings[0]?.exchange === "XNYS")
        .slice(0, ctx.counts.intradayStocks)
        .map((s) => s.id),
    );
    for (const s of stocksWithHistory) stored.add(s.id);
    for (const e of this.etfs) stored.add(e.id);
    const fundsBySize = this.funds.slice().sort((a, b) => b.valueUsd - a.valueUsd);
    const bigFunds = fundsBySize.slice(0, ctx.counts.fundsWithHistory);
    for (const f of bigFunds) stored.add(f.id);
    this.crypto.slice(0, ctx.counts.cryptoWithHistory).forEach((c) => stored.add(c.id));
    const intradayCrypto = new Set(this.crypto.slice(0, ctx.counts.intradayCrypto).map((c) => c.id));
    // The larger of the paths computed when read go back to their inception (at most the window), the others two
    // years: a quarter of the funds by size, twice as many crypto assets as are stored.
    const largerFunds = new Set(bigFunds.concat(fundsBySize.slice(0, this.funds.length >> 2)).map((f) => f.id));
    const largerCrypto = new Set(this.crypto.slice(0, 2 * ctx.counts.cryptoWithHistory).map((c) => c.id));
    return { stored, intradayStocks, intradayCrypto, largerFunds, largerCrypto };
  }

  /**
   * The first day of an unstored stock's path: the larger companies go back to their IPO, the rest two years (stored
   * paths span the window). A company whose IPO is still ahead keeps the two years every smaller stock has: the
   * sample's every listing has a path and a quote.
   */
  private unstoredStockStart(st: Stock, twoYearsBack: number): number {
    if (st.upcomingIpo) return twoYearsBack;
    return st.order < this.ctx.counts.stocksWithFinancials
      ? Math.max(this.ctx.historyStart, st.ipoDay)
      : Math.max(twoYearsBack, st.ipoDay);
  }

  /** Appends the plans of one security's listings. */
  private plan(s: Security, sets: ReturnType<SampleGenerator["planSets"]>, planned: PlannedSeries[]): void {
    const ctx = this.ctx;
    const { stored, intradayStocks, intradayCrypto, largerFunds, largerCrypto } = sets;
    const twoYearsBack = addYears(ctx.anchorDay, -RECENT_HISTORY_YEARS);

    // Specs are built from rows by the calendar, as a reader builds them: one code path, one object shape.
    const row = (
      s: Security,
      l: Listing,
      market: SeriesRow["market"],
      style: SeriesRow["style"],
      firstDay: number,
      o: { meanReversion: number; withFactor: boolean; gaps: boolean; intradayBars: number },
    ): SeriesRow => ({
      listingId: l.id,
      stream: l.id,
      market,
      style,
      firstDay,
      lastDay: ctx.lastClosedDay,
      finalPrice: s.price,
      baseDecimals: currencyDigits(l.currency) === 0 ? 0 : 2,
      volatility: s.volatility,
      beta: s.beta,
      drift: s.drift,
      volume: s.volume,
      volumeShare: 1,
      meanReversion: o.meanReversion,
      withFactor: o.withFactor,
      gaps: o.gaps,
      intradayBars: o.intradayBars,
      exchange: l.exchange,
      stored: false,
    });

    const l = s.listings[0] as Listing;
    const keep = stored.has(s.id) || s.type === "forex";
    let r: SeriesRow;
    switch (s.type) {
      case "stock": {
        const st = s as Stock;
        const from = keep ? ctx.historyStart : this.unstoredStockStart(st, twoYearsBack);
        r = row(s, l, "weekday", "ohlc", from, {
          meanReversion: 0,
          withFactor: true,
          gaps: true,
          intradayBars: intradayStocks.has(s.id) ? 78 : 0,
        });
        break;
      }
      case "etf":
        r = row(s, l, "weekday", "ohlc", ctx.historyStart, {
          meanReversion: 0,
          withFactor: true,
          gaps: true,
          intradayBars: 0,
        });
        break;
      case "fund": {
        const inception = parseDay((s as Fund).profile.inceptionDate);
        const from = keep
          ? ctx.historyStart
          : Math.max(largerFunds.has(s.id) ? ctx.historyStart : twoYearsBack, inception);
        r = row(s, l, "weekday", "nav", from, {
          meanReversion: 0,
          withFactor: true,
          gaps: false,
          intradayBars: 0,
        });
        break;
      }
      case "crypto": {
        const c = s as Crypto;
        r = row(s, l, "daily", "ohlc", keep || largerCrypto.has(s.id) ? ctx.historyStart : twoYearsBack, {
          meanReversion: c.stable ? 0.05 : 0.004,
          withFactor: !c.stable,
          gaps: false,
          intradayBars: intradayCrypto.has(s.id) ? 288 : 0,
        });
        break;
      }
      case "forex":
        r = row(s, l, "weekday", "fx", ctx.historyStart, {
          meanReversion: 0,
          withFactor: false,
          gaps: false,
          intradayBars: 0,
        });
        break;
    }
    r.stored = keep;
    planned.push({ row: r, stored: keep, primary: null, fx: s.type === "forex" ? (s as ForexSecurity) : null });
    for (const other of s.listings.slice(1))
      planned.push({ row: null, stored: false, primary: l.id, fx: null, listing: other });
  }

  /** The spec of a primary listing's planned path. */
  private specOf(row: SeriesRow, fx: ForexSecurity | null): HistorySpec {
    const spec = this.calendar.spec(row);
    if (fx) {
      spec.fxBase = fx.base;
      spec.fxQuote = fx.quote;
    }
    return spec;
  }

  /**
   * Streams every table to `sink`, one stage at a time, once: what a stage has written and no later stage reads
   * (holdings, dividends) is dropped after it, so the price history, the stage that allocates most, runs on a
   * smaller heap. Each table is still written in one stage, in primary-key order, so the order of the stages
   * changes no row.
   */
  write(sink: SampleSink): void {
    // Compactions where much of the heap has just died (the constructor's scratch, the offload's, the holdings, the
    // universe): the next stage's heap grows from what lives, not on top of the garbage (sample.memory.ts).
    this.compact();
    const helper = this.offload(sink);
    this.compact();
    // Started only now, so the new thread's memory does not stack on the offload's garbage.
    helper.start();
    this.writeReference(sink);
    this.writeFx(sink);
    // Financials first: the securities rows carry their trailing totals (keys are checked once, at the end).
    this.writeFinancials(sink);
    // The corporate actions next: the financials were the last to read them, so their plans (~15 MB) go before the
    // holdings are written, where the build's heap peaked.
    this.writeCorporateActions(sink);
    this.splits.clear();
    this.dividends.clear();
    this.writeSecurities(sink);
    this.writeEtfs(sink);
    for (const e of this.etfs) e.holdings = HoldingSet.EMPTY;
    this.writeFunds(sink);
    for (const f of this.funds) f.holdings = HoldingSet.EMPTY;
    this.compact();
    this.writeIndices(sink);
    this.release();
    this.compact();
    const stats = this.writeBars(sink, helper);
    this.adoptBars(sink, helper);
    helper.collect(stats);
    this.writeQuotes(sink, stats);
  }

  /**
   * Past the reference tables the build needs only the listings and their planned paths: the securities, their
   * corporate actions and the index definitions are let go, so the price history and the quotes run on a heap without
   * them (a generator writes once). The plans are held only from here (the row count and the helper's share take them
   * one security at a time: eachPlan), after the corporate actions are gone: the tables are written without their
   * 36 MB, and they and the universe meet only in a smaller heap; each security goes as its plan is made
   * (buildHistorySpecs).
   */
  private release(): void {
    this.splits.clear();
    this.dividends.clear();
    this.indices.length = 0;
    this.ttmEps = this.ttmNetIncome = new Float64Array(0);
    this.specs = this.buildHistorySpecs(true);
  }

  /**
   * What a helper thread runs while the tables are written: the stored paths' bars, into a scratch file the sink
   * adopts (when it has one), and the paths run only for their quote that no secondary listing follows (the
   * simulator must still hold a primary's path when its secondaries come).
   */
  private offload(sink: SampleSink): BuildHelper {
    const quoteOnly = (plans: readonly PlannedSeries[]) => {
      const row = plans[0]?.row;
      return plans.length === 1 && row && !plans[0]?.stored && row.style !== "fx" ? row : null;
    };
    let count = 0;
    const stored: StoredPath[] = [];
    this.eachPlan((plans) => {
      const p = plans[0];
      if (p?.row && p.stored) stored.push({ ...p.row, fxBase: p.fx?.base, fxQuote: p.fx?.quote });
      if (quoteOnly(plans)) count++;
    });
    const ctx = this.ctx;
    const side = sink.side;
    const bars = side
      ? { file: side.file, tables: [side.schema("daily_bars"), side.schema("intraday_bars")], paths: stored }
      : null;
    const helper = new BuildHelper(ctx.seed, ctx.historyStart, ctx.anchorDay, count, this.helperThread, bars);
    this.eachPlan((plans) => {
      const row = quoteOnly(plans);
      if (row) helper.add(row);
    });
    return helper;
  }

  /** The helper's stored bars, adopted whole; or, without them, written here after all. */
  private adoptBars(sink: SampleSink, helper: BuildHelper): void {
    if (!helper.barsHanded) return;
    const file = helper.awaitBars();
    try {
      if (file && sink.side) {
        sink.side.adopt(file, ["daily_bars", "intraday_bars"]);
        return;
      }
    } finally {
      helper.discardBars();
    }
    sink.beginStage("price history");
    const daily = sink.table("daily_bars", BAR_COLUMNS);
    const intraday = sink.table("intraday_bars", BAR_COLUMNS);
    const sim = new BarSimulator(this.calendar.allDays.length, this.ctx.fx);
    const r = this.ctx.rng("bars");
    for (const p of this.storedSpecs) sim.run(p, r.fork(p.stream), daily, intraday);
    sink.endStage();
  }

  /** Rows the write will produce, for progress reporting. */
  estimateRows(): number {
    let rows =
      this.securities.length + this.listings.length * 2 + this.ctx.fx.currencies.length * this.calendar.allDays.length;
    this.eachPlan((plans) => {
      for (const p of plans)
        if (p.row && p.stored)
          rows += this.calendar.window(p.row.market, p.row.firstDay).days.length + p.row.intradayBars * INTRADAY_DAYS;
    });
    for (const e of this.etfs) rows += e.holdings.length + 12;
    for (const f of this.funds) rows += f.holdings.length + 14;
    for (const s of this.stocks) rows += s.order < this.ctx.counts.stocksWithFinancials ? QUARTERS : RECENT_QUARTERS;
    rows += this.dividends.rowCount;
    for (const s of this.splits.values()) rows += s.length;
    for (const i of this.indices) rows += i.members.length;
    return rows;
  }

  private writeReference(sink: SampleSink): void {
    const ctx = this.ctx;
    sink.beginStage("reference data");
    const meta = sink.table("meta", ["key", "value"]);
    const entries: [string, string][] = [
      ["anchor_date", formatDay(ctx.anchorDay)],
      ["generator_version", GENERATOR_VERSION],
      ["history_start", formatDay(ctx.historyStart)],
      ["scale", String(ctx.scale)],
      ["seed", String(ctx.seed)],
      ["source", "generated sample data (fictional companies and prices)"],
      [SERIES_META_KEY, SERIES_FORMAT],
    ];
    for (const e of entries) meta.write(e);
    const ex = sink.table("exchanges", ["code", "name", "country", "currency", "timezone"]);
    for (const e of [...EXCHANGES].sort((a, b) => (a.code < b.code ? -1 : 1)))
      ex.write([e.code, e.name, e.country, e.currency, e.timezone]);
    sink.endStage();
  }

  private writeFx(sink: SampleSink): void {
    const fx = this.ctx.fx;
    sink.beginStage("fx rates");
    const w = sink.table("fx_daily", ["currency", "day", "per_usd"]);
    const row: SqlValue[] = ["", "", 0];
    for (const code of fx.currencies) {
      const series = fx.perUsdSeries(code);
      row[0] = code;
      for (let i = 0; i < series.length; i++) {
        row[1] = formatDay(fx.firstDay + i);
        row[2] = series[i] as number;
        w.write(row);
      }
    }
    sink.endStage();
  }

  private writeSecurities(sink: SampleSink): void {
    sink.beginStage("securities");
    const w = sink.table("securities", [
      "id",
      "type",
      "name",
      "isin",
      "cusip",
      "country",
      "sector",
      "industry",
      "currency",
      "market_cap",
      "shares_outstanding",
      "is_adr",
      "is_active",
      "description",
      "website",
      "ipo_date",
      "next_earnings_date",
      "rank",
      "eps_ttm",
      "net_income_ttm",
      "wkn",
    ]);
    const german = new Set(this.listings.filter((x) => GERMAN_EXCHANGES.has(x.exchange)).map((x) => x.securityId));
    const wkns = assignWkns(this.securities, german);
    for (const s of this.securities) {
      const eps = this.ttmEps[s.id] ?? NaN;
      const netIncome = this.ttmNetIncome[s.id] ?? NaN;
      w.write([
        s.id,
        s.type,
        s.name,
        s.isin,
        s.cusip,
        s.country,
        s.sector,
        s.industry,
        s.currency,
        s.marketCap,
        s.sharesOutstanding,
        s.isAdr ? 1 : 0,
        1,
        s.type === "stock" ? stockDescription(s as Stock) : s.description,
        s.type === "stock" ? stockWebsite(s as Stock) : s.website,
        s.ipoDate,
        s.nextEarningsDate,
        s.rank,
        Number.isNaN(eps) ? null : eps,
        Number.isNaN(netIncome) ? null : netIncome,
        wkns.get(s.id) ?? null,
      ]);
    }
    const l = sink.table("listings", [
      "id",
      "security_id",
      "symbol",
      "exchange",
      "currency",
      "is_primary",
      "quote_currency",
    ]);
    for (const x of this.listings)
      l.write([x.id, x.securityId, x.symbol, x.exchange, x.currency, x.isPrimary ? 1 : 0, x.quoteCurrency]);
    this.writeIpos(sink);
    sink.endStage();
  }

  /**
   * The offerings: every IPO the stocks' daily bars reach back to (priced: the path starts on the IPO day, and the
   * first bar opens at the offer price times a first-day move of -10 % to +40 %), and the upcoming ones (expected,
   * at the latest price over the same move: the middle of a range). Shares offered are 10 % to 30 % of the shares
   * outstanding, in thousands, on the primary listing's exchange and in its currency. Older IPOs have no row: no bar
   * says what they were priced at. Written in the securities' stage.
   */
  private writeIpos(sink: SampleSink): void {
    const ctx = this.ctx;
    const w = sink.table("ipos", [
      "security_id",
      "day",
      "exchange",
      "shares_offered",
      "offer_price",
      "currency",
      "status",
    ]);
    const sets = this.planSets();
    const twoYearsBack = addYears(ctx.anchorDay, -RECENT_HISTORY_YEARS);
    const synth = new SeriesSynthesizer(this.calendar);
    const r = ctx.rng("ipo-offers");
    const plans: PlannedSeries[] = [];
    for (const s of this.stocks) {
      const upcoming = s.upcomingIpo;
      if (!upcoming && (sets.stored.has(s.id) || this.unstoredStockStart(s, twoYearsBack) !== s.ipoDay)) continue;
      const l = s.listings[0] as Listing;
      const outstanding = s.sharesOutstanding;
      if (!outstanding) continue;
      let opened = s.price;
      if (!upcoming) {
        plans.length = 0;
        this.plan(s, sets, plans);
        const row = plans[0]?.row;
        const first = row ? synth.run(row).series : null;
        if (!first || first.t.length === 0) continue;
        opened = first.o[0] as number;
      }
      const sr = r.fork(s.id);
      const decimals = currencyDigits(l.currency) === 0 ? 0 : 2;
      const price = roundTo(opened / (1 + sr.range(-0.1, 0.4)), decimals);
      const shares = Math.max(1, Math.round((outstanding * sr.range(0.1, 0.3)) / 1_000)) * 1_000;
      w.write([s.id, s.ipoDate, l.exchange, shares, price, l.currency, upcoming ? "expected" : "priced"]);
    }
  }

  private writeBars(sink: SampleSink, helper: BuildHelper): QuoteTable {
    const ctx = this.ctx;
    sink.beginStage("price history");
    const daily = sink.table("daily_bars", BAR_COLUMNS);
    const intraday = sink.table("intraday_bars", BAR_COLUMNS);
    // With the bars handed to the helper, stored paths run here only for their quotes (and are kept in case the
    // helper fails, to be written after all).
    const handed = helper.barsHanded;
    const series = sink.table("sample_series", SERIES_COLUMNS);
    const sim = new BarSimulator(this.calendar.allDays.length, ctx.fx);
    const stats = new QuoteTable(this.listings.length);
    const r = ctx.rng("bars");
    const qr = ctx.rng("quotes");
    // Each plan is dropped once run (nothing after this stage reads them): popped from the end of a reversed copy.
    const planned = this.historySpecs().slice().reverse();
    this.specs = undefined;
    let primaryRow: SeriesRow | undefined;
    for (let p = planned.pop(); p !== undefined; p = planned.pop()) {
      let row = p.row;
      let spec: HistorySpec;
      if (!row) {
        // A secondary listing: its primary's path converted at the last day's rate, as its quote was before.
        if (primaryRow?.listingId !== p.primary)
          throw new Error(`listing ${p.listing?.id}: its primary is not the last path`);
        const primaryQuote = stats.get(p.primary as number);
        // Listing ids are positions in this.listings, from 1.
        const primary = this.listings[(p.primary as number) - 1] as Listing;
        const l = p.listing as Listing;
        const day = primaryRow.market === "daily" ? ctx.lastClosedDay : ctx.lastTradingDay;
        const baseDecimals = currencyDigits(l.currency) === 0 ? 0 : 2;
        const target = convertedQuote(
          qr.fork(l.id),
          primaryQuote,
          ctx.fx.rate(primary.currency, l.currency, day),
          baseDecimals,
          primaryRow.style === "fx" ? "fx" : primaryRow.market === "daily" ? "crypto" : "equity",
          0,
        );
        row = {
          ...primaryRow,
          listingId: l.id,
          finalPrice: target.c,
          baseDecimals,
          volumeShare: target.v / primaryQuote.v,
          exchange: l.exchange,
          stored: false,
        };
        spec = this.calendar.spec(row);
      } else {
        spec = this.specOf(row, p.fx);
        primaryRow = row;
      }
      if (helper.has(row.listingId)) {
        series.write(seriesRowValues(spec, false));
        continue;
      }
      // A secondary listing comes right after its primary, whose path the simulator still holds.
      if (p.stored && handed) this.storedSpecs.push(spec);
      const q =
        p.stored && !handed
          ? sim.run(spec, r.fork(spec.stream), daily, intraday)
          : sim.quoteOnly(spec, r.fork(spec.stream), p.row === null);
      stats.set(spec.listingId, q);
      series.write(seriesRowValues(spec, p.stored));
    }
    sink.endStage();
    return stats;
  }

  private writeQuotes(sink: SampleSink, stats: QuoteTable): void {
    sink.beginStage("quotes");
    const w = sink.table("quotes", ["listing_id", "t", "c", "o", "h", "l", "pc", "v", "ma50", "ma200", "avg_volume"]);
    // The quote is the last bar; its time is that bar's session close. Paths end before the anchor day, so the close
    // is at the latest the anchor itself (a crypto day's midnight); the cap keeps any quote from the future.
    const anchorT = this.ctx.anchorDay * SECONDS_PER_DAY;
    for (const l of this.listings) {
      const q = stats.get(l.id);
      w.write([l.id, Math.min(q.t, anchorT), q.c, q.o, q.h, q.l, q.pc, q.v, q.ma50, q.ma200, q.avgVolume]);
    }
    sink.endStage();
  }

  private writeEtfs(sink: SampleSink): void {
    sink.beginStage("etfs");
    const profiles = sink.table("etf_profiles", [
      "security_id",
      "issuer",
      "asset_class",
      "aum",
      "nav",
      "nav_currency",
      "expense_ratio",
      "inception_date",
      "domicile",
      "replication",
      "distribution_policy",
      "benchmark",
      "holdings_count",
      "holdings_date",
    ]);
    const holdings = sink.table("etf_holdings", [
      "etf_id",
      "position",
      "holding_security_id",
      "symbol",
      "name",
      "isin",
      "cusip",
      "sector",
      "country",
      "shares",
      "weight",
      "market_value",
    ]);
    const sectors = sink.table("etf_sector_exposure", ["etf_id", "sector", "weight"]);
    const countries = sink.table("etf_country_exposure", ["etf_id", "country", "weight"]);
    for (const e of this.etfs) {
      const p = e.profile;
      profiles.write([
        e.id,
        p.issuer,
        p.assetClass,
        p.aum,
        p.nav,
        p.navCurrency,
        p.expenseRatio,
        p.inceptionDate,
        p.domicile,
        p.replication,
        p.distributionPolicy,
        p.benchmark,
        e.holdings.length,
        p.holdingsDate,
      ]);
      const held = e.holdings;
      for (let i = 0; i < held.length; i++) {
        const h = held.position(i);
        const units = held.weightUnits(i);
        const mv = roundTo((p.aum * units) / 1_000_000, 2);
        holdings.write([
          e.id,
          i + 1,
          h.holdingSecurityId,
          h.symbol,
          h.name,
          h.isin,
          h.cusip,
          h.sector,
          h.country,
          roundTo(mv / held.unitPrice(i), 4),
          unitsToPercent(units),
          mv,
        ]);
      }
      for (const [k, units] of exposure(e.holdings, (h) => h.sector)) sectors.write([e.id, k, unitsToPercent(units)]);
      for (const [k, units] of exposure(e.holdings, (h) => h.country))
        countries.write([e.id, k, unitsToPercent(units)]);
    }
    sink.endStage();
  }

  private writeFunds(sink: SampleSink): void {
    sink.beginStage("funds");
    const profiles = sink.table("fund_profiles", [
      "security_id",
      "fund_company",
      "category",
      "asset_class",
      "aum",
      "nav",
      "nav_currency",
      "ongoing_charge",
      "entry_charge",
      "inception_date",
      "domicile",
      "benchmark",
      "risk_class",
      "distribution_policy",
      "min_investment",
      "holdings_count",
      "holdings_date",
    ]);
    const holdings = sink.table("fund_holdings", [
      "fund_id",
      "position",
      "holding_security_id",
      "symbol",
      "name",
      "isin",
      "asset_class",
      "sector",
      "country",
      "weight",
      "market_value",
    ]);
    const sectors = sink.table("fund_sector_exposure", ["fund_id", "sector", "weight"]);
    const countries = sink.table("fund_country_exposure", ["fund_id", "country", "weight"]);
    const allocation = sink.table("fund_allocation", ["fund_id", "asset_class", "weight"]);
    for (const f of this.funds) {
      const p = f.profile;
      profiles.write([
        f.id,
        p.fundCompany,
        p.category,
        p.assetClass,
        p.aum,
        p.nav,
        p.navCurrency,
        p.ongoingCharge,
        p.entryCharge,
        p.inceptionDate,
        p.domicile,
        p.benchmark,
        p.riskClass,
        p.distributionPolicy,
        p.minInvestment,
        f.holdings.length,
        p.holdingsDate,
      ]);
      const held = f.holdings;
      for (let i = 0; i < held.length; i++) {
        const h = held.position(i);
        const units = held.weightUnits(i);
        const mv = roundTo((p.aum * units) / 1_000_000, 2);
        holdings.write([
          f.id,
          i + 1,
          h.holdingSecurityId,
          h.symbol,
          h.name,
          h.isin,
          h.assetClass,
          h.sector,
          h.country,
          unitsToPercent(units),
          mv,
        ]);
      }
      for (const [k, units] of exposure(f.holdings, (h) => h.sector)) sectors.write([f.id, k, unitsToPercent(units)]);
      for (const [k, units] of exposure(f.holdings, (h) => h.country))
        countries.write([f.id, k, unitsToPercent(units)]);
      for (const [k, units] of exposure(f.holdings, (h) => ALLOCATION_CLASS[h.assetClass]))
        allocation.write([f.id, k, unitsToPercent(units)]);
    }
    sink.endStage();
  }

  private writeFinancials(sink: SampleSink): void {
    sink.beginStage("financials");
    const w = sink.table("quarterly_financials", [
      "security_id",
      "period_end",
      "fiscal_year",
      "fiscal_quarter",
      "reported_date",
      "currency",
      "revenue",
      "cost_of_revenue",
      "gross_profit",
      "operating_income",
      "net_income",
      "eps",
      "total_assets",
      "total_liabilities",
      "total_equity",
      "cash",
      "total_debt",
      "shares_outstanding",
      "operating_cash_flow",
      "capex",
      "free_cash_flow",
      "dividends_paid",
      ...OPTIONAL_FINANCIAL_FIGURES.map(columnOf),
    ]);
    // Securities are sorted by id, so the last has the largest.
    const ids = (this.securities.at(-1)?.id ?? 0) + 1;
    this.ttmEps = new Float64Array(ids).fill(NaN);
    this.ttmNetIncome = new Float64Array(ids).fill(NaN);
    for (const s of [...this.stocks].sort((a, b) => a.id - b.id)) {
      const id = s.id;
      // Also sets the stock's next earnings date, which its securities row carries.
      const quarters = quartersOf(this.ctx, s, this.splits, this.dividends);
      const ttm = trailingTotals(quarters);
      this.ttmEps[id] = ttm ? ttm.eps : NaN;
      this.ttmNetIncome[id] = ttm ? ttm.netIncome : NaN;
      for (const q of quarters) {
        w.write([
          id,
          q.periodEnd,
          q.fiscalYear,
          q.fiscalQuarter,
          q.reportedDate,
          q.currency,
          q.revenue,
          q.costOfRevenue,
          q.grossProfit,
          q.operatingIncome,
          q.netIncome,
          q.eps,
          q.totalAssets,
          q.totalLiabilities,
          q.totalEquity,
          q.cash,
          q.totalDebt,
          q.sharesOutstanding,
          q.operatingCashFlow,
          q.capex,
          q.freeCashFlow,
          q.dividendsPaid,
          ...OPTIONAL_FINANCIAL_FIGURES.map((f) => q[f]),
        ]);
      }
    }
    sink.endStage();
  }

  private writeCorporateActions(sink: SampleSink): void {
    sink.beginStage("dividends and splits");
    const d = sink.table("dividends", [
      "security_id",
      "ex_date",
      "record_date",
      "pay_date",
      "declaration_date",
      "amount",
      "adjusted_amount",
      "currency",
      "frequency",
    ]);
    for (const id of this.dividends.ids()) {
      for (const x of this.dividends.get(id) as DividendRow[]) {
        d.write([
          id,
          formatDay(x.exDay),
          formatDay(x.recordDay),
          formatDay(x.payDay),
          formatDay(x.declarationDay),
          x.amount,
          x.adjustedAmount,
          x.currency,
          x.frequency,
        ]);
      }
    }
    const s = sink.table("splits", ["security_id", "day", "numerator", "denominator"]);
    for (const id of [...this.splits.keys()].sort((a, b) => a - b)) {
      for (const x of this.splits.get(id) as Split[]) s.write([id, formatDay(x.day), x.numerator, x.denominator]);
    }
    sink.endStage();
  }

  private writeIndices(sink: SampleSink): void {
    sink.beginStage("indices");
    const w = sink.table("index_constituents", ["index_symbol", "index_name", "security_id", "weight"]);
    for (const idx of this.indices) {
      for (const m of idx.members) w.write([idx.symbol, idx.name, m.securityId, unitsToPercent(m.weightUnits)]);
    }
    sink.endStage();
  }
}

const ALLOCATION_CLASS: Readonly<Record<HoldingRow["assetClass"], string>> = {
  Equity: "Equity",
  Bond: "Bonds",
  Cash: "Cash",
  Other: "Other",
};

/**
 * Weight units per key, sorted by key (primary-key order). Holdings without a
 * sector or country (government bonds, cash, futures) are counted as "Other".
 */
function exposure(holdings: HoldingSet, key: (h: HoldingTemplate) => string | null): [string, number][] {
  const m = new Map<string, number>();
  for (let i = 0; i < holdings.length; i++) {
    const k = key(holdings.position(i)) ?? "Other";
    m.set(k, (m.get(k) ?? 0) + holdings.weightUnits(i));
  }
  return [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * EPS and net income summed over the latest four quarters by period end, in
 * that order from the oldest (as the service sums quarters it reads), or null
 * with fewer than four: the store's `eps_ttm` and `net_income_ttm`.
 */
function trailingTotals(quarters: readonly QuarterRow[] | undefined): { eps: number; netIncome: number } | null {
  if (!quarters || quarters.length < 4) return null;
  const last = [...quarters]
    .sort((a, b) => (a.periodEnd < b.periodEnd ? -1 : a.periodEnd > b.periodEnd ? 1 : 0))
    .slice(-4);
  return {
    eps: roundTo(
      last.reduce((sum, q) => sum + q.eps, 0),
      4,
    ),
    netIncome: last.reduce((sum, q) => sum + q.netIncome, 0),
  };
}
