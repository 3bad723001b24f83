// @requires-env DATABASE_URL postgres://postgres@127.0.0.1:5432/test
import { randomBytes } from "node:crypto";
import type { ApiKeyRow } from "../../src/platform/auth/auth.types";
import { NotAvailableError } from "../../src/platform/errors";
import type { SecurityRow, SecurityType } from "../../src/domain/ports/source.types";
import {
  CAPABILITY_METHODS,
  CAPABILITY_NAMES,
  hasCapability,
  requireCapability,
  type CapabilityName,
  type Page,
  type SourceWith,
} from "../../src/domain/ports/source.capabilities";
import { createLoaders } from "../../src/domain/ports/source.loaders";
import { withoutCapabilities } from "../helpers/sources";
import { ADAPTERS, type OpenedSources } from "./conformance/adapters";
import { openSqliteSource } from "../../src/sources/sqlite/sqlite.source";
import { TEST_STORE_PATH } from "../helpers/constants";

/**
 * The behaviour every source adapter owes the services, capability by
 * capability (src/domain/ports/source.capabilities.ts), run against each entry of
 * ADAPTERS. Keys are discovered through the capabilities themselves, so the
 * suite holds no adapter's ids. A capability an adapter does not declare is
 * skipped, and its absence checked.
 */

const UNKNOWN_ID = 2 ** 31 - 7;
const UNKNOWN_SYMBOL = "NO-SUCH-SYMBOL-1";
const UNKNOWN_ISIN = "XX0000000000";

/** Every row of a list, page by page (`limit` per page); fails on a page that repeats or goes backwards. */
async function allPages<T>(
  read: (cursor: string | undefined) => Promise<Page<T> | null>,
): Promise<{ rows: T[]; pages: number }> {
  const rows: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await read(cursor);
    if (!page) throw new Error(`cursor ${cursor} refused`);
    rows.push(...page.rows);
    pages++;
    if (page.nextCursor === null) return { rows, pages };
    expect(typeof page.nextCursor).toBe("string");
    expect(page.nextCursor).not.toBe(cursor);
    cursor = page.nextCursor;
    if (pages > 10_000) throw new Error("no end");
  }
}

// An adapter whose service is not configured here is left out; its spec line `// @requires-env …` makes the
// env-gated reporter (test/env-gated-reporter.js) say so after the run, as for every other gated suite.
const RUNNABLE = ADAPTERS.filter((a) => !a.skip);

describe.each(RUNNABLE.map((a) => [a.name, a] as const))("%s adapter", (_name, adapter) => {
  let store: Awaited<ReturnType<typeof adapter.setUp>>;
  let s: OpenedSources;
  /** Whether the source declares `name`; a test of a capability it lacks checks only that absence. */
  const has = (name: CapabilityName) => hasCapability(s.market, name);
  const source = <K extends CapabilityName>(name: K): SourceWith<K> => requireCapability(s.market, name);
  /** Securities of a type, in the list's order (discovered through `lists`, or nothing without it). */
  const some = async (type: SecurityType, n: number): Promise<SecurityRow[]> => {
    if (!has("lists")) return [];
    return (await source("lists").listSecurities({ list: `${type}s`, types: [type], limit: n }))!.rows;
  };

  beforeAll(async () => {
    store = await adapter.setUp();
    s = await store.open();
  });
  afterAll(async () => {
    await s?.close();
    await store?.tearDown();
  });

  describe("capabilities", () => {
    it.each(CAPABILITY_NAMES)("%s: declared exactly when all its methods are present", (name) => {
      const present = CAPABILITY_METHODS[name].map((m) => typeof (s.market as unknown as Record<string, unknown>)[m]);
      const expected = s.market.capabilities.has(name) ? "function" : "undefined";
      expect(present).toEqual(CAPABILITY_METHODS[name].map(() => expected));
    });

    it("declares only known capability names", () => {
      for (const name of s.market.capabilities) expect(CAPABILITY_NAMES).toContain(name);
    });

    it("requireCapability answers the source for a declared capability, NOT_AVAILABLE for one it lacks", () => {
      for (const name of s.market.capabilities) expect(requireCapability(s.market, name)).toBe(s.market);
      const [first] = [...s.market.capabilities];
      const lacking = withoutCapabilities(s.market, [first!]);
      expect(() => requireCapability(lacking, first!)).toThrow(NotAvailableError);
      try {
        requireCapability(lacking, first!);
      } catch (e) {
        expect((e as NotAvailableError).code).toBe("NOT_AVAILABLE");
        expect((e as NotAvailableError).capability).toBe(first);
      }
    });

    it("a loader of a capability the source lacks rejects with NOT_AVAILABLE, as a promise", async () => {
      const loaders = createLoaders(withoutCapabilities(s.market, ["etfReference"]));
      await expect(loaders.etfHoldings.load(1)).rejects.toBeInstanceOf(NotAvailableError);
    });

    it("ping answers", async () => {
      await expect(s.market.ping()).resolves.toBeUndefined();
    });
  });

  describe("instruments", () => {
    it("by symbol: one answer per key in order, null for unknown, duplicates answered alike", async () => {
      if (!has("instruments")) return;
      const [a, b] = await some("stock", 2);
      const listings = await source("instruments").getListingsBySecurityIds([a!.id, b!.id]);
      const [sa, sb] = [listings[0]![0]!.symbol, listings[1]![0]!.symbol];
      const rows = await source("instruments").getInstrumentsBySymbols([sa, UNKNOWN_SYMBOL, sb, sa]);
      expect(rows.map((r) => r?.listing.symbol ?? null)).toEqual([sa, null, sb, sa]);
      expect(rows[3]).toEqual(rows[0]);
      expect(rows[0]!.security.id).toBe(a!.id);
      expect(rows[0]!.listing.securityId).toBe(a!.id);
      expect(await source("instruments").getInstrumentsBySymbols([])).toEqual([]);
    });

    it("symbols in any case resolve through the loader to the stored (upper-case) symbol", async () => {
      if (!has("instruments")) return;
      const [a] = await some("stock", 1);
      const primary = (await source("instruments").getListingsBySecurityIds([a!.id]))[0]![0]!;
      const loaders = createLoaders(s.market);
      const [upper, lower] = await loaders.instrumentBySymbol.loadMany([primary.symbol, primary.symbol.toLowerCase()]);
      expect(upper).not.toBeNull();
      expect(lower).toEqual(upper);
    });

    it("by ISIN: the primary listing, in order, null for unknown", async () => {
      if (!has("instruments")) return;
      const [a, b] = (await some("stock", 10)).filter((x) => x.isin);
      const rows = await source("instruments").getInstrumentsByIsins([b!.isin!, UNKNOWN_ISIN, a!.isin!]);
      expect(rows.map((r) => r?.security.isin ?? null)).toEqual([b!.isin, null, a!.isin]);
      for (const r of [rows[0]!, rows[2]!]) expect(r.listing.isPrimary).toBe(true);
    });

    it("by CUSIP and by WKN: the primary listing, in order, null for unknown", async () => {
      if (!has("instruments")) return;
      const inst = source("instruments");
      const stocks = await some("stock", 200);
      const [a, b] = stocks.filter((x) => x.cusip);
      const byCusip = await inst.getInstrumentsByCusips([b!.cusip!, "037833100", a!.cusip!]);
      expect(byCusip.map((r) => r?.security.id ?? null)).toEqual([b!.id, null, a!.id]);
      const [de] = stocks.filter((x) => x.isin?.startsWith("DE"));
      const wkn = de!.isin!.slice(5, 11);
      const byWkn = await inst.getInstrumentsByWkns(["ZZZZZZ", wkn]);
      expect(byWkn.map((r) => r?.security.id ?? null)).toEqual([null, de!.id]);
      for (const r of [byCusip[0]!, byCusip[2]!, byWkn[1]!]) expect(r.listing.isPrimary).toBe(true);
      expect(await inst.getInstrumentsByCusips([])).toEqual([]);
    });

    it("securities, listings (primary first) and quotes by id: in order, null or empty for unknown", async () => {
      if (!has("instruments")) return;
      const [a, b] = await some("stock", 2);
      const inst = source("instruments");
      const secs = await inst.getSecuritiesByIds([b!.id, UNKNOWN_ID, a!.id, b!.id]);
      expect(secs.map((x) => x?.id ?? null)).toEqual([b!.id, null, a!.id, b!.id]);
      expect(secs[2]).toEqual(a);
      const listings = await inst.getListingsBySecurityIds([a!.id, UNKNOWN_ID]);
      expect(listings).toHaveLength(2);
      expect(listings[0]!.length).toBeGreaterThan(0);
      expect(listings[0]![0]!.isPrimary).toBe(true);
      expect(listings[0]!.slice(1).every((l) => !l.isPrimary)).toBe(true);
      expect(listings[1]).toEqual([]);
      const listingId = listings[0]![0]!.id;
      const quotes = await inst.getQuotes([UNKNOWN_ID, listingId]);
      expect(quotes[0]).toBeNull();
      expect(quotes[1]?.listingId).toBe(listingId);
    });
  });

  describe("stock peers", () => {
    it("per key in order: other stocks of the sector, industry first, nearest capitalisation first", async () => {
      if (!has("instruments")) return;
      const stocks = (await some("stock", 50)).filter((x) => x.sector && x.industry && x.marketCap);
      const etfs = await some("etf", 1);
      const [a, b] = [stocks[0]!, stocks[1]!];
      const keys = [
        { securityId: a.id, limit: 5 },
        { securityId: UNKNOWN_ID, limit: 5 },
        { securityId: b.id, limit: 2 },
        { securityId: a.id, limit: 5 },
        ...etfs.map((e) => ({ securityId: e.id, limit: 5 })),
      ];
      const answers = await source("instruments").getStockPeers(keys);
      expect(answers).toHaveLength(keys.length);
      const [ofA, ofUnknown, ofB, again, ...ofEtfs] = answers;
      expect(ofUnknown).toEqual([]);
      expect(ofEtfs).toEqual(etfs.map(() => []));
      expect(again).toEqual(ofA);
      expect(ofA).toHaveLength(5);
      expect(ofB).toHaveLength(2);
      for (const [of, peers] of [
        [a, ofA!],
        [b, ofB!],
      ] as const) {
        for (const p of peers) {
          expect(p.security.id).not.toBe(of.id);
          expect(p.security.type).toBe("stock");
          expect(p.security.sector).toBe(of.sector);
          expect(p.listing.isPrimary).toBe(true);
          expect(p.security.marketCap).toBeGreaterThan(0);
        }
        const sameIndustry = peers.map((p) => p.security.industry === of.industry);
        expect(sameIndustry).toEqual([...sameIndustry].sort((x, y) => Number(y) - Number(x)));
      }
      // A larger limit extends the answer: its first rows are the smaller one's.
      const [ten] = await source("instruments").getStockPeers([{ securityId: a.id, limit: 10 }]);
      expect(ten!.slice(0, 5).map((p) => p.listing.id)).toEqual(ofA!.map((p) => p.listing.id));
      // Every adapter ranks alike: the same rows as the SQLite test store, whose ranking the REST suite checks
      // against its own computation (test/domain/stock/peers.rest.spec.ts).
      const reference = openSqliteSource(TEST_STORE_PATH, { readonly: true });
      try {
        const ids = (rows: { listing: { symbol: string } }[][]) => rows.map((r) => r.map((p) => p.listing.symbol));
        expect(ids(answers)).toEqual(ids(await reference.getStockPeers(keys)));
      } finally {
        await reference.close();
      }
    });
  });

  describe("bars", () => {
    it("latest bars: one row per kind of security, matching the coverage of its listings", async () => {
      if (!has("bars") || !has("instruments")) return;
      const rows = await source("bars").getLatestBars();
      expect(rows.map((r) => r.type)).toEqual([...new Set(rows.map((r) => r.type))]);
      const crypto = rows.find((r) => r.type === "crypto");
      expect(crypto?.dailyTo).toEqual(expect.any(Number));
      const [btc] = await source("instruments").getInstrumentsBySymbols(["BTC-USD"]);
      const [coverage] = await source("bars").getBarCoverage([btc!.listing.id]);
      expect(crypto!.dailyTo).toBeGreaterThanOrEqual(coverage!.dailyTo!);
    });

    it("within the range, oldest first, in key order, empty for unknown listings", async () => {
      if (!has("bars") || !has("instruments")) return;
      // The first of the listed ETFs with stored daily bars (the sample stores bars for a few of each type).
      const etfs = await some("etf", 50);
      const listingsOf = await source("instruments").getListingsBySecurityIds(etfs.map((x) => x.id));
      const primaries = listingsOf.map((ls) => ls[0]!.id);
      const coverages = await source("bars").getBarCoverage(primaries);
      const at = coverages.findIndex((c) => c.dailyFrom !== null && c.dailyTo! > c.dailyFrom);
      expect(at).toBeGreaterThanOrEqual(0);
      const listing = { id: primaries[at]! };
      const [coverage, none] = await source("bars").getBarCoverage([listing.id, UNKNOWN_ID]);
      expect(coverage).toEqual(coverages[at]);
      expect(none).toEqual({ dailyFrom: null, dailyTo: null, intradayFrom: null, intradayTo: null });
      const from = coverage!.dailyFrom!;
      const to = coverage!.dailyTo!;
      const mid = from + Math.floor((to - from) / 2);
      const [all, half, unknown] = await source("bars").getDailyBars([
        { listingId: listing.id, from, to },
        { listingId: listing.id, from: mid, to },
        { listingId: UNKNOWN_ID, from, to },
      ]);
      expect(all!.length).toBeGreaterThan(1);
      expect(all![0]!.t).toBe(from);
      expect(all![all!.length - 1]!.t).toBe(to);
      for (let i = 1; i < all!.length; i++) expect(all![i]!.t).toBeGreaterThan(all![i - 1]!.t);
      expect(half).toEqual(all!.filter((b) => b.t >= mid));
      expect(unknown).toEqual([]);
      if (coverage!.intradayFrom !== null) {
        const [intraday] = await source("bars").getIntradayBars([
          { listingId: listing.id, from: coverage!.intradayFrom, to: coverage!.intradayTo! },
        ]);
        expect(intraday!.length).toBeGreaterThan(0);
        for (let i = 1; i < intraday!.length; i++) expect(intraday![i]!.t).toBeGreaterThan(intraday![i - 1]!.t);
      }
    });
  });

  describe("fx", () => {
    it("rates within [fromDay, toDay], oldest first, in key order, empty for an unknown currency", async () => {
      if (!has("fx")) return;
      const cur = adapter.known.fxCurrency;
      const [year, month, unknown] = await source("fx").getFxRates([
        { currency: cur, fromDay: "2025-01-01", toDay: "2025-12-31" },
        { currency: cur, fromDay: "2025-03-01", toDay: "2025-03-31" },
        { currency: "XXX", fromDay: "2025-01-01", toDay: "2025-12-31" },
      ]);
      expect(year!.length).toBeGreaterThan(200);
      for (const r of year!) expect(r.day >= "2025-01-01" && r.day <= "2025-12-31").toBe(true);
      for (let i = 1; i < year!.length; i++) expect(year![i]!.day > year![i - 1]!.day).toBe(true);
      expect(month).toEqual(year!.filter((r) => r.day.startsWith("2025-03")));
      expect(unknown).toEqual([]);
    });
  });

  describe("etfReference and fundReference", () => {
    it("ETF profiles, holdings and exposures by security, in order, null or empty for unknown", async () => {
      if (!has("etfReference")) return;
      const [a, b] = await some("etf", 2);
      const etf = source("etfReference");
      const profiles = await etf.getEtfProfiles([b!.id, UNKNOWN_ID, a!.id]);
      expect(profiles.map((p) => p?.securityId ?? null)).toEqual([b!.id, null, a!.id]);
      const [holdings, none] = await etf.getEtfHoldings([a!.id, UNKNOWN_ID]);
      expect(holdings!.length).toBeGreaterThan(0);
      expect(holdings!.length).toBeLessThanOrEqual(profiles[2]!.holdingsCount);
      expect(none).toEqual([]);
      const [sectors] = await etf.getEtfSectorExposure([a!.id]);
      const [countries, noCountries] = await etf.getEtfCountryExposure([a!.id, UNKNOWN_ID]);
      expect(sectors!.length + countries!.length).toBeGreaterThan(0);
      expect(noCountries).toEqual([]);
    });

    it("fund profiles, holdings, exposures, allocation by security: in order, null or empty for unknown", async () => {
      if (!has("fundReference")) return;
      const [a] = await some("fund", 1);
      const fund = source("fundReference");
      const profiles = await fund.getFundProfiles([UNKNOWN_ID, a!.id, a!.id]);
      expect(profiles.map((p) => p?.securityId ?? null)).toEqual([null, a!.id, a!.id]);
      const reads = [
        fund.getFundHoldings,
        fund.getFundSectorExposure,
        fund.getFundCountryExposure,
        fund.getFundAllocation,
      ];
      for (const read of reads) {
        const [rows, none] = await read.call(fund, [a!.id, UNKNOWN_ID]);
        expect(Array.isArray(rows)).toBe(true);
        expect(none).toEqual([]);
      }
      const [allocation] = await fund.getFundAllocation([a!.id]);
      expect(allocation!.length).toBeGreaterThan(0);
    });
  });

  describe("fundamentals, dividends, indices", () => {
    it("quarters oldest first, empty for unknown", async () => {
      if (!has("fundamentals")) return;
      const stocks = await some("stock", 50);
      const all = await source("fundamentals").getQuarterlyFinancials([...stocks.map((x) => x.id), UNKNOWN_ID]);
      expect(all).toHaveLength(stocks.length + 1);
      const quarters = all.find((q) => q.length > 1);
      const none = all[stocks.length];
      expect(quarters).toBeDefined();
      for (let i = 1; i < quarters!.length; i++) {
        expect(quarters![i]!.periodEnd > quarters![i - 1]!.periodEnd).toBe(true);
      }
      expect(none).toEqual([]);
    });

    it("dividends oldest first per security, splits by day, empty for unknown", async () => {
      if (!has("dividends")) return;
      const stocks = await some("stock", 200);
      const all = await source("dividends").getDividends([...stocks.map((x) => x.id), UNKNOWN_ID]);
      expect(all).toHaveLength(stocks.length + 1);
      expect(all[stocks.length]).toEqual([]);
      const paying = all.findIndex((d) => d.length > 1);
      expect(paying).toBeGreaterThanOrEqual(0);
      const rows = all[paying]!;
      for (const d of rows) expect(d.securityId).toBe(stocks[paying]!.id);
      for (let i = 1; i < rows.length; i++) expect(rows[i]!.exDate >= rows[i - 1]!.exDate).toBe(true);
      const [splits, noSplits] = await source("dividends").getSplits([stocks[paying]!.id, UNKNOWN_ID]);
      expect(Array.isArray(splits)).toBe(true);
      expect(noSplits).toEqual([]);
    });

    it("earnings dates within the days asked, by (day, security), at most limit", async () => {
      if (!has("fundamentals")) return;
      const stocks = await some("stock", 50);
      const quarters = await source("fundamentals").getQuarterlyFinancials(stocks.map((x) => x.id));
      const day = quarters
        .flat()
        .map((q) => q.reportedDate)
        .sort()
        .at(-1)!;
      const from = new Date(Date.parse(`${day}T00:00:00Z`) - 10 * 86_400_000).toISOString().slice(0, 10);
      const rows = await source("fundamentals").getEarningsCalendar({ fromDay: from, toDay: day, limit: 10_000 });
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(r.day >= from && r.day <= day).toBe(true);
      const keys = rows.map((r) => `${r.day}:${String(r.securityId).padStart(12, "0")}`);
      expect(keys).toEqual([...keys].sort());
      expect(rows.map((r) => r.day)).toContain(day);
      const few = await source("fundamentals").getEarningsCalendar({ fromDay: from, toDay: day, limit: 3 });
      expect(few).toEqual(rows.slice(0, 3));
      expect(await source("fundamentals").getEarningsCalendar({ fromDay: day, toDay: from, limit: 5 })).toEqual([]);
      // Every adapter answers alike: the same rows as the SQLite test store.
      const reference = openSqliteSource(TEST_STORE_PATH, { readonly: true });
      try {
        expect(rows).toEqual(await reference.getEarningsCalendar({ fromDay: from, toDay: day, limit: 10_000 }));
      } finally {
        await reference.close();
      }
    });

    it("IPOs within the days asked, by (day, security), at most limit, with the stored offering", async () => {
      if (!has("dividends")) return;
      const calendar = source("dividends");
      // The test store's IPOs: the ones its bars reach back to (priced) and a few upcoming (expected).
      const all = await calendar.getIpoCalendar({ fromDay: "0000-01-01", toDay: "9999-12-31", limit: 100_000 });
      expect(all.length).toBeGreaterThan(3);
      const keys = all.map((r) => `${r.day}:${String(r.securityId).padStart(12, "0")}`);
      expect(keys).toEqual([...keys].sort());
      expect(new Set(all.map((r) => r.status))).toEqual(new Set(["priced", "expected"]));
      for (const r of all) {
        expect(r.day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(r.sharesOffered).toBeGreaterThan(0);
        expect(r.offerPrice).toBeGreaterThan(0);
        expect(typeof r.exchange).toBe("string");
        expect(r.currency).toMatch(/^[A-Z]{3}$/);
      }
      const mid = all[Math.floor(all.length / 2)]!.day;
      const last = all.at(-1)!.day;
      const window = await calendar.getIpoCalendar({ fromDay: mid, toDay: last, limit: 100_000 });
      expect(window).toEqual(all.filter((r) => r.day >= mid && r.day <= last));
      const few = await calendar.getIpoCalendar({ fromDay: mid, toDay: last, limit: 2 });
      expect(few).toEqual(window.slice(0, 2));
      const backwards = await calendar.getIpoCalendar({ fromDay: last, toDay: mid, limit: 5 });
      expect(backwards).toEqual(mid === last ? window.slice(0, 5) : []);
      // Every adapter answers alike: the same rows as the SQLite test store.
      const reference = openSqliteSource(TEST_STORE_PATH, { readonly: true });
      try {
        expect(all).toEqual(
          await reference.getIpoCalendar({ fromDay: "0000-01-01", toDay: "9999-12-31", limit: 100_000 }),
        );
      } finally {
        await reference.close();
      }
    });

    it("index constituents heaviest first, empty for an unknown index", async () => {
      if (!has("indices")) return;
      const indices = source("indices");
      const [members, none] = await indices.getIndexConstituents([adapter.known.indexSymbol, "NO-SUCH-INDEX"]);
      expect(members!.length).toBeGreaterThan(0);
      for (let i = 1; i < members!.length; i++) {
        expect(members![i]!.weight).toBeLessThanOrEqual(members![i - 1]!.weight);
      }
      expect(none).toEqual([]);
    });
  });

  describe("cursors", () => {
    const window = { fromDay: "2020-01-01", toDay: "2030-12-31" };

    it("the dividend calendar pages by (ex-date, security) to the end, without overlap or gaps", async () => {
      if (!has("dividends")) return;
      const cal = source("dividends");
      const whole = (await cal.getDividendCalendar({ ...window, limit: 1_000_000 }))!;
      expect(whole.nextCursor).toBeNull();
      expect(whole.rows.length).toBeGreaterThan(20);
      const key = (d: { exDate: string; securityId: number }) =>
        `${d.exDate}:${String(d.securityId).padStart(12, "0")}`;
      for (let i = 1; i < whole.rows.length; i++) expect(key(whole.rows[i]!) > key(whole.rows[i - 1]!)).toBe(true);
      const limit = Math.ceil(whole.rows.length / 4);
      const paged = await allPages((cursor) => cal.getDividendCalendar({ ...window, cursor, limit }));
      expect(paged.pages).toBeGreaterThanOrEqual(4);
      expect(paged.rows).toEqual(whole.rows);
      expect(await cal.getDividendCalendar({ ...window, cursor: "not-a-cursor", limit })).toBeNull();
    });

    it("a list pages to the end without overlap, and refuses another list's cursor", async () => {
      if (!has("lists")) return;
      const lists = source("lists");
      const whole = (await lists.listSecurities({ list: "stocks", types: ["stock"], limit: 1_000_000 }))!;
      expect(whole.nextCursor).toBeNull();
      const limit = Math.ceil(whole.rows.length / 5);
      const paged = await allPages((cursor) =>
        lists.listSecurities({ list: "stocks", types: ["stock"], cursor, limit }),
      );
      expect(paged.pages).toBeGreaterThanOrEqual(5);
      expect(paged.rows.map((r) => r.id)).toEqual(whole.rows.map((r) => r.id));
      expect(new Set(paged.rows.map((r) => r.id)).size).toBe(paged.rows.length);
      expect(paged.rows.every((r) => r.type === "stock")).toBe(true);
      const etfPage = (await lists.listSecurities({ list: "etfs", types: ["etf"], limit: 1 }))!;
      const foreign = etfPage.nextCursor!;
      expect(await lists.listSecurities({ list: "stocks", types: ["stock"], cursor: foreign, limit })).toBeNull();
      expect(await lists.listSecurities({ list: "stocks", types: ["stock"], cursor: "%%%", limit })).toBeNull();
    });

    it("cursors stay valid after a restart: a fresh open continues where the first left off", async () => {
      const restarted = await store.open();
      try {
        if (has("lists")) {
          const params = { list: "stocks", types: ["stock" as const], limit: 7 };
          const first = (await source("lists").listSecurities(params))!;
          const here = await source("lists").listSecurities({ ...params, cursor: first.nextCursor! });
          const again = requireCapability(restarted.market, "lists");
          const there = await again.listSecurities({ ...params, cursor: first.nextCursor! });
          expect(there).toEqual(here);
          expect(there!.rows.length).toBe(7);
        }
        if (has("dividends")) {
          const params = { ...window, limit: 5 };
          const first = (await source("dividends").getDividendCalendar(params))!;
          const here = await source("dividends").getDividendCalendar({ ...params, cursor: first.nextCursor! });
          const again = requireCapability(restarted.market, "dividends");
          const there = await again.getDividendCalendar({ ...params, cursor: first.nextCursor! });
          expect(there).toEqual(here);
          expect(there!.rows.length).toBe(5);
        }
      } finally {
        await restarted.close();
      }
    });
  });

  describe("searchCorpus", () => {
    it("streams every security once, with its listings, primary first", async () => {
      if (!has("searchCorpus")) return;
      const ids: number[] = [];
      for await (const page of source("searchCorpus").searchDocuments()) {
        for (const doc of page) {
          ids.push(doc.security.id);
          expect(doc.listings.length).toBeGreaterThan(0);
          expect(doc.listings[0]!.isPrimary).toBe(true);
        }
      }
      expect(ids.length).toBeGreaterThan(100);
      expect(new Set(ids).size).toBe(ids.length);
      if (has("lists")) {
        const types: SecurityType[] = ["stock", "etf", "fund", "crypto", "forex"];
        const listed = (await source("lists").listSecurities({ list: "all", types, limit: 1_000_000 }))!.rows;
        expect(ids.length).toBe(listed.length);
      }
    });
  });

  describe("API key store", () => {
    const row = (over: Partial<ApiKeyRow> = {}): ApiKeyRow => ({
      id: `key_${randomBytes(6).toString("hex")}`,
      name: "conformance",
      hash: randomBytes(32).toString("hex"),
      scopes: ["quote", "etf"],
      createdAt: 1_800_000_000,
      expiresAt: null,
      revokedAt: null,
      ratePerMinute: 60,
      dailyQuota: 1000,
      ...over,
    });

    it("insert, find by hash, list, revoke (once), and not found for unknown", async () => {
      const a = row();
      const b = row({ createdAt: a.createdAt + 1, expiresAt: 1_900_000_000, scopes: ["*"] });
      await s.keys.insertApiKey(a);
      await s.keys.insertApiKey(b);
      expect(await s.keys.findApiKeyByHash(a.hash)).toEqual(a);
      expect(await s.keys.findApiKeyByHash(b.hash)).toEqual(b);
      expect(await s.keys.findApiKeyByHash("0".repeat(64))).toBeNull();
      const listed = (await s.keys.listApiKeys()).filter((r) => r.id === a.id || r.id === b.id);
      expect(listed).toEqual([a, b]);
      expect(await s.keys.revokeApiKey(a.id, 1_800_000_100)).toBe(true);
      expect(await s.keys.revokeApiKey(a.id, 1_800_000_200)).toBe(false);
      expect(await s.keys.revokeApiKey("key_unknown", 1_800_000_100)).toBe(false);
      expect((await s.keys.findApiKeyByHash(a.hash))!.revokedAt).toBe(1_800_000_100);
    });

    it("refuses a second key with the same id or hash", async () => {
      const a = row();
      await s.keys.insertApiKey(a);
      // Rejects (checked by shape: a driver's error may come from another realm than this test's `Error`).
      const sameId = s.keys.insertApiKey({ ...a, hash: randomBytes(32).toString("hex") });
      await expect(sameId).rejects.toHaveProperty("message", expect.any(String));
      const sameHash = s.keys.insertApiKey({ ...a, id: `key_${randomBytes(6).toString("hex")}` });
      await expect(sameHash).rejects.toHaveProperty("message", expect.any(String));
      expect((await s.keys.listApiKeys()).filter((r) => r.id === a.id || r.hash === a.hash)).toEqual([a]);
    });

    it("keys written by one process are seen by another (a restart, a replica)", async () => {
      const a = row();
      await s.keys.insertApiKey(a);
      const other = await store.open();
      try {
        expect(await other.keys.findApiKeyByHash(a.hash)).toEqual(a);
      } finally {
        await other.close();
      }
    });
  });
});
