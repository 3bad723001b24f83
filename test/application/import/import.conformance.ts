import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../../src/application/cli/import.cli";
import type { ImportSink } from "../../../src/domain/ports/source.import";
import type { TestApp } from "../../helpers/app";

const ROOT = join(__dirname, "..", "..", "..");
const FIXTURES = join(ROOT, "test", "fixtures");
const EXAMPLES = join(ROOT, "examples", "data");
const DAILY_BAR_HEADER = ["symbol", "day", "o", "h", "l", "c", "v"];

/**
 * A store holding the test data set, taken by one kind of ImportSink: what the shared cases need of it. Each
 * store's suite opens one (a copy of the SQLite test store, or a PostgreSQL database loaded with the same data).
 */
export interface ImportStore {
  /** A sink of its own on the store, as another process (the CLI) opens it. */
  openSink(): Promise<{ sink: ImportSink; close(): Promise<void> }>;
  /** The service on the store. */
  app: TestApp;
  /** Plain SQL without parameters (the same text on either store); rows as the driver answers them. */
  sql(text: string): Promise<Record<string, unknown>[]>;
  /** Called after each import: the service has seen the commit (PostgreSQL: its change feed polled once). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export interface RunResult {
  code: number;
  err: string[];
  report: string[];
}

/**
 * The ImportSink conformance cases: the same files and the same expected counts, statuses and REST answers on
 * every store. The counts are those SQLite's sink reports; a store that counts otherwise fails here.
 */
export function importConformance(open: () => Promise<ImportStore>): void {
  let dir: string;
  let store: ImportStore;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mdg-import-conf-"));
    store = await open();
  }, 180_000);

  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(args: string[]): Promise<RunResult> {
    const err: string[] = [];
    const report = join(dir, `report-${Math.random().toString(36).slice(2)}.csv`);
    const code = await main([...args, "--report", report], {
      openSink: () => store.openSink(),
      out: { log: (l) => err.push(l), error: (l) => err.push(l) },
      tty: false,
    });
    await store.settle();
    let lines: string[] = [];
    try {
      lines = readFileSync(report, "utf8").trimEnd().split("\n");
    } catch {
      // No rejection, no report.
    }
    return { code, err, report: lines };
  }

  function file(name: string, text: string): string {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  }

  const counts = (kind: string, i: number, c: number, u: number, r = 0) =>
    `${kind}: ${i} inserted, ${c} changed, ${u} unchanged, ${r} rejected`;

  it("takes every kind of the example files and answers them over REST; a second import changes nothing", async () => {
    const candle = { symbol: "ACME", resolution: "D", from: "2026-11-16", to: "2026-11-20" };
    expect((await store.app.post("/v1/candle", candle)).status).toBe(404);
    expect((await store.app.post("/v1/quote", { symbol: "ACME" })).status).toBe(404);
    const expected: Record<string, [number, number, number]> = {
      exchanges: [0, 0, 3],
      securities: [4, 0, 0],
      "daily-bars": [5, 0, 0],
      "intraday-bars": [4, 0, 0],
      fx: [0, 3, 0],
      quotes: [1, 0, 0],
    };
    for (const [kind, [i, c, u]] of Object.entries(expected)) {
      const r = await run([kind, join(EXAMPLES, `${kind}.csv`)]);
      expect({ kind, code: r.code, report: r.report, err: r.err }).toEqual({
        kind,
        code: 0,
        report: [],
        err: [counts(kind, i, c, u)],
      });
    }
    for (const [kind, [i, c, u]] of Object.entries(expected)) {
      const r = await run([kind, join(EXAMPLES, `${kind}.csv`)]);
      expect(r.err).toEqual([counts(kind, 0, 0, i + c + u)]);
    }
    const bars = await store.app.post("/v1/candle", candle);
    expect(bars.status).toBe(200);
    expect(bars.body.c).toEqual([103.1, 102.6, 100.4, 101.5, 104.8]);
    expect(bars.body.v).toEqual([1250000, 980000, 1430000, 1110000, 1820000]);
    const quote = await store.app.post("/v1/quote", { symbol: "ACME" });
    expect(quote.status).toBe(200);
    expect(quote.body).toMatchObject({ c: 104.8, o: 101.5, h: 105.2, l: 101.1, pc: 101.5, v: 1820000 });
    expect(quote.body.historical_price).toMatchObject({ "50days": 98.4, "200days": 91.2 });
    // The listing in pence went in as pounds, on the security of its ISIN.
    expect((await store.app.post("/v1/quote", { symbol: "ACME.L" })).status).toBe(404);
    const listings = await store.sql(
      `SELECT l.symbol, l.currency, l.security_id = (SELECT security_id FROM listings WHERE symbol = 'ACME') AS same
       FROM listings l WHERE l.symbol IN ('ACME', 'ACME.L') ORDER BY l.symbol`,
    );
    expect(listings.map((x) => [x.symbol, x.currency, Boolean(x.same)])).toEqual([
      ["ACME", "USD", true],
      ["ACME.L", "GBP", true],
    ]);
    const fx = await store.app.post("/v1/fx/quote", { from: "USD", to: "CHF" });
    expect(fx.status).toBe(200);
    expect(fx.body.result).toBeCloseTo(0.8811, 6);

    // A split after its bars rescales them in its own transaction; a second import of it changes nothing.
    expect((await run(["splits", join(EXAMPLES, "splits.csv")])).err).toEqual([counts("splits", 1, 0, 0)]);
    expect((await run(["splits", join(EXAMPLES, "splits.csv")])).err).toEqual([counts("splits", 0, 0, 1)]);
    const split = await store.app.post("/v1/candle", candle);
    expect(split.body.c).toEqual([51.55, 51.3, 100.4, 101.5, 104.8]);
    expect(split.body.v).toEqual([2500000, 1960000, 1430000, 1110000, 1820000]);
  });

  const unix = (iso: string) => Date.parse(iso) / 1000;
  const example = (kind: string) => join(EXAMPLES, `${kind}.csv`);

  it("takes the example files of the other kinds with the same counts; a second import changes nothing", async () => {
    const kinds: Record<string, [number, number, number]> = {
      "etf-profiles": [1, 0, 0],
      "fund-profiles": [1, 0, 0],
      holdings: [5, 0, 0],
      exposures: [8, 0, 0],
      financials: [4, 0, 0],
      dividends: [4, 0, 0],
      ipos: [1, 0, 0],
    };
    for (const [kind, [i, c, u]] of Object.entries(kinds)) {
      const r = await run([kind, example(kind)]);
      expect({ kind, code: r.code, report: r.report, err: r.err }).toEqual({
        kind,
        code: 0,
        report: [],
        err: [counts(kind, i, c, u)],
      });
    }
    for (const [kind, [i, c, u]] of Object.entries(kinds)) {
      expect((await run([kind, example(kind)])).err).toEqual([counts(kind, 0, 0, i + c + u)]);
    }
  });

  it("answers the imported kinds: candle at 5 minutes, ETF and fund endpoints, financials, dividends", async () => {
    const candle = await store.app.post("/v1/candle", {
      symbol: "ACME",
      resolution: "5",
      from: unix("2026-11-20T14:30:00Z"),
      to: unix("2026-11-20T14:45:00Z"),
    });
    expect(candle.status).toBe(200);
    expect(candle.body).toMatchObject({ s: "ok", c: [101.9, 102.4, 101.8, 101.4], v: [84000, 61000, 57000, 49000] });

    const profile = await store.app.post("/v1/etf/profile", { symbol: "NORD" });
    expect(profile.status).toBe(200);
    expect(profile.body.profile).toMatchObject({
      etfCompany: "Nordlicht Asset Management",
      expenseRatio: 0.2,
      nav: 48.72,
      navCurrency: "EUR",
      domicile: "DE",
      inceptionDate: "2019-05-14",
      holdingsCount: 3,
    });
    const holdings = await store.app.post("/v1/etf/holdings", { symbol: "NORD" });
    expect(holdings.status).toBe(200);
    expect(holdings.body.atDate).toBe("2026-11-19");
    expect(holdings.body.holdings[0]).toMatchObject({ symbol: "ACME", percent: 40.2, share: 2400000 });
    expect(holdings.body.holdings).toHaveLength(3);
    const sector = await store.app.post("/v1/etf/sector", { symbol: "NORD" });
    expect(sector.body.sectorExposure).toEqual([
      { sector: "Technology", weightPercentage: 40.2 },
      { sector: "Utilities", weightPercentage: 35.1 },
      { sector: "Consumer Staples", weightPercentage: 24.7 },
    ]);
    const country = await store.app.post("/v1/etf/country", { symbol: "NORD" });
    expect(country.body.countryExposure.map((c: { exposure: number }) => c.exposure)).toEqual([40.2, 35.1, 24.7]);

    const fund = await store.app.post("/v1/fund/profile", { symbol: "NRDF" });
    expect(fund.status).toBe(200);
    expect(JSON.stringify(fund.body)).toContain("EUR Moderate Allocation");
    const fundHoldings = await store.app.post("/v1/fund/holding", { symbol: "NRDF" });
    expect(fundHoldings.status).toBe(200);
    expect(JSON.stringify(fundHoldings.body)).toContain("Bundesrepublik Deutschland 2.5% 2035");
    const allocation = await store.app.post("/v1/fund/allocation-exposure", { symbol: "NRDF" });
    expect(allocation.status).toBe(200);
    expect(JSON.stringify(allocation.body)).toMatch(/Equity.*61\.5.*Bonds.*38\.5/);

    const ttm = await store.app.post("/v1/stock/financials/ttm", { symbol: "ACME" });
    expect(ttm.status).toBe(200);
    expect(ttm.body.quarters).toHaveLength(4);
    expect(ttm.body.ttm.revenue).toBe(410e6 + 425e6 + 441e6 + 458e6);
    // The trailing EPS kept with the security follows the imported quarters.
    expect(
      await store.sql(
        `SELECT eps_ttm FROM securities s JOIN listings l ON l.security_id = s.id WHERE l.symbol = 'ACME'`,
      ),
    ).toEqual([{ eps_ttm: expect.closeTo(0.96 + 1.01 + 1.06 + 1.13, 9) }]);

    // The optional details as the file gives them; its first quarter leaves them empty, stored as null.
    const [head, ...lines] = readFileSync(example("financials"), "utf8").trimEnd().split("\n");
    const names = head!.split(",");
    const DETAILS = [
      "current_assets",
      "current_liabilities",
      "inventory",
      "accounts_receivable",
      "accounts_payable",
      "depreciation_amortization",
      "stock_based_compensation",
    ];
    const expected = lines.map((l) => {
      const cells = l.split(",");
      return Object.fromEntries(
        ["period_end", ...DETAILS].map((c) => {
          const v = cells[names.indexOf(c)]!;
          return [c, c === "period_end" ? v : v === "" ? null : Number(v)];
        }),
      );
    });
    expect(expected.some((r) => r.inventory === null) && expected.some((r) => r.inventory !== null)).toBe(true);
    expect(
      await store.sql(
        `SELECT f.period_end, ${DETAILS.map((c) => `f.${c}`).join(", ")} FROM quarterly_financials f
         JOIN listings l ON l.security_id = f.security_id WHERE l.symbol = 'ACME' ORDER BY f.period_end`,
      ),
    ).toEqual(expected);

    const annual = await store.app.post("/v1/dividends/annual", { symbol: "ACME" });
    expect(annual.status).toBe(200);
    expect(annual.body.years).toEqual([
      expect.objectContaining({ year: 2026, count: 4, amount: expect.closeTo(0.82, 9) }),
    ]);
  });

  it("answers imported IPOs on calender/ipo; an expected offering priced later replaces its row", async () => {
    await run(["securities", file("ipo-s.csv", "symbol,exchange,currency,type,name\nIPOV,XLON,GBp,stock,Ipo Vale\n")]);
    const expected =
      "symbol,exchange,day,status,shares_offered,offer_price,currency\nIPOV,XLON,2021-06-21,expected,,,GBp\n";
    expect((await run(["ipos", file("ipo-1.csv", expected)])).err).toEqual([counts("ipos", 1, 0, 0)]);
    const window = { from: "2021-06-17", to: "2021-06-21" };
    const ahead = await store.app.post("/v1/calender/ipo", window);
    expect(ahead.status).toBe(200);
    expect(ahead.body.ipoCalendar).toContainEqual(
      expect.objectContaining({ symbol: "IPOV", status: "expected", price: null, totalSharesValue: null }),
    );
    // Priced in pence: kept in pounds. ACME's row is examples/data/ipos.csv's (the case above imported it).
    const priced = expected.replace("expected,,,GBp", "priced,3000000,250,GBp");
    expect((await run(["ipos", file("ipo-2.csv", priced)])).err).toEqual([counts("ipos", 0, 1, 0)]);
    const res = await store.app.post("/v1/calender/ipo", window);
    expect(res.body.ipoCalendar).toEqual([
      {
        date: "2021-06-17",
        exchange: "XNAS",
        name: "Acme Robotics Inc.",
        numberOfShares: 12_500_000,
        price: 18.5,
        status: "priced",
        symbol: "ACME",
        totalSharesValue: 231_250_000,
        currency: "USD",
      },
      {
        date: "2021-06-21",
        exchange: "XLON",
        name: "Ipo Vale",
        numberOfShares: 3_000_000,
        price: 2.5,
        status: "priced",
        symbol: "IPOV",
        totalSharesValue: 7_500_000,
        currency: "GBP",
      },
    ]);
  });

  it("adjusts dividends for a split known first, and rescales them and intraday bars for a later one", async () => {
    const calendar = async (symbol: string) =>
      (await store.app.post("/v1/calendar/dividends", { symbol, from: "2026-01-01", to: "2026-12-31" })).body
        .dividends as { date: string; amount: number; adjustedAmount: number }[];
    // ACME: the split first (the first case), then the dividends (above). IMPV: the dividends, then the split.
    const acme = await calendar("ACME");
    expect(acme.map((d) => [d.date, d.amount, d.adjustedAmount])).toEqual([
      ["2026-02-12", 0.2, 0.1],
      ["2026-05-14", 0.2, 0.1],
      ["2026-08-13", 0.2, 0.1],
      ["2026-11-12", 0.22, 0.11],
    ]);
    await run(["securities", file("v.csv", "symbol,exchange,currency,type,name\nIMPV,XNAS,USD,stock,Split late\n")]);
    const dividends = readFileSync(example("dividends"), "utf8").replace(/\nACME,/g, "\nIMPV,");
    expect((await run(["dividends", file("dividends-v.csv", dividends)])).err).toEqual([counts("dividends", 4, 0, 0)]);
    const before = file("intraday-v.csv", "symbol,t,o,h,l,c,v\nIMPV,2026-11-17T15:00:00Z,100,104,98,102,500\n");
    expect((await run(["intraday-bars", before])).err).toEqual([counts("intraday-bars", 1, 0, 0)]);
    const late = file("split-v.csv", "symbol,day,numerator,denominator\nIMPV,2026-11-18,2,1\n");
    expect((await run(["splits", late])).err).toEqual([counts("splits", 1, 0, 0)]);
    expect(await calendar("IMPV")).toEqual(acme.map((d) => ({ ...d, symbol: "IMPV" })));
    // The split on 2026-11-18 also rescales the earlier intraday bar, as it does the daily ones.
    const bar = await store.app.post("/v1/candle", {
      symbol: "IMPV",
      resolution: "5",
      from: unix("2026-11-17T15:00:00Z"),
      to: unix("2026-11-17T15:00:00Z"),
    });
    expect(bar.body).toMatchObject({ o: [50], h: [52], l: [49], c: [51], v: [1000] });
    // The same split again changes nothing, nor do the dividends imported again.
    expect((await run(["splits", late])).err).toEqual([counts("splits", 0, 0, 1)]);
    expect((await run(["dividends", file("dividends-v.csv", dividends)])).err).toEqual([counts("dividends", 0, 0, 4)]);
    expect((await calendar("IMPV")).map((d) => d.adjustedAmount)).toEqual([0.1, 0.1, 0.1, 0.11]);
  });

  it("counts a changed weight and a key repeated in one batch of exposures as SQLite does, across tables", async () => {
    const path = file(
      "exposures-2.csv",
      [
        "symbol,exposure,name,weight",
        "NORD,sector,Technology,41",
        "NORD,sector,Technology,41",
        "NORD,country,US,40.2",
        "NRDF,allocation,Cash,0",
      ].join("\n"),
    );
    expect((await run(["exposures", path])).err).toEqual([counts("exposures", 1, 1, 2)]);
    expect((await run(["exposures", path])).err).toEqual([counts("exposures", 0, 0, 4)]);
    const sector = await store.app.post("/v1/etf/sector", { symbol: "NORD" });
    expect(sector.body.sectorExposure[0]).toEqual({ sector: "Technology", weightPercentage: 41 });
  });

  describe("a Ghostfolio export", () => {
    const real = join(FIXTURES, "ghostfolio", "sample.json");
    const PENTHOUSE = "7e91b7d4-1430-4212-8380-289a06c9bbc1";

    it("makes the real export's MANUAL asset profiles securities (upper-cased symbols) on MANUAL", async () => {
      const r = await run(["daily-bars", real]);
      expect({ code: r.code, report: r.report }).toEqual({ code: 0, report: [] });
      expect(r.err).toContain("securities: 2 inserted, 0 changed, 0 unchanged");
      const rows = await store.sql(
        `SELECT l.symbol, l.exchange, l.currency, s.name, s.type
         FROM listings l JOIN securities s ON s.id = l.security_id
         WHERE l.exchange = 'MANUAL' ORDER BY l.symbol`,
      );
      expect(rows).toEqual([
        {
          symbol: "14A69CB9-1E31-43FA-B320-83703D8ED74B",
          exchange: "MANUAL",
          currency: "USD",
          name: "Account Opening Fee",
          type: "stock",
        },
        {
          symbol: PENTHOUSE.toUpperCase(),
          exchange: "MANUAL",
          currency: "USD",
          name: "Penthouse Apartment",
          type: "stock",
        },
      ]);
    });

    it("turns market data into close-only daily bars, rejecting a bad point or one priced elsewhere", async () => {
      const doc = JSON.parse(readFileSync(real, "utf8")) as { assetProfiles: Record<string, unknown>[] };
      const penthouse = doc.assetProfiles.find((p) => p.symbol === PENTHOUSE)!;
      // The shape export.service.ts writes: { date: date.toISOString(), marketPrice }.
      penthouse.marketData = [
        { date: "2026-11-16T00:00:00.000Z", marketPrice: 500000 },
        { date: "2026-11-17T00:00:00.000Z", marketPrice: null },
        { date: "2026-11-18T00:00:00.000Z", marketPrice: 505000 },
        { date: "2026-11-19", marketPrice: 510000.5 },
      ];
      doc.assetProfiles.push({
        ...penthouse,
        symbol: "MSFT",
        dataSource: "YAHOO",
        marketData: [{ date: "2026-11-16T00:00:00.000Z", marketPrice: 400 }],
      });
      const path = file("export.json", JSON.stringify(doc));
      const r = await run(["daily-bars", path]);
      expect(r.code).toBe(2);
      expect(r.report.slice(1)).toEqual([
        "export.json,2,marketData[1].marketPrice,,required",
        "export.json,3,dataSource,YAHOO,only MANUAL asset profiles carry their own prices; this one's come from YAHOO",
        "export.json,3,,,its asset profile was rejected",
      ]);
      expect(r.err).toContain("daily-bars: 3 inserted, 0 changed, 0 unchanged, 3 rejected");
      expect(r.err).toContain("securities: 0 inserted, 0 changed, 2 unchanged");
      const candle = await store.app.post("/v1/candle", {
        symbol: PENTHOUSE,
        resolution: "D",
        from: "2026-11-16",
        to: "2026-11-19",
      });
      expect(candle.status).toBe(200);
      expect(candle.body).toMatchObject({
        s: "ok",
        o: [500000, 505000, 510000.5],
        h: [500000, 505000, 510000.5],
        l: [500000, 505000, 510000.5],
        c: [500000, 505000, 510000.5],
        v: [0, 0, 0],
      });
      const again = await run(["daily-bars", path]);
      expect(again.err).toContain("daily-bars: 0 inserted, 0 changed, 3 unchanged, 3 rejected");

      // As securities, the same file gives its profiles only, on the exchange --exchange names.
      const renamed = JSON.stringify({
        ...doc,
        assetProfiles: [{ ...penthouse, symbol: "IMPGF", name: "Ghostfolio ETF", assetSubClass: "ETF" }],
      });
      const s = await run(["securities", file("export-etf.json", renamed), "--exchange", "XETR"]);
      expect({ code: s.code, report: s.report }).toEqual({ code: 0, report: [] });
      expect(s.err).toContain("securities: 1 inserted, 0 changed, 0 unchanged, 0 rejected");
      expect(
        await store.sql(
          `SELECT l.exchange, s.type FROM listings l JOIN securities s ON s.id = l.security_id WHERE symbol = 'IMPGF'`,
        ),
      ).toEqual([{ exchange: "XETR", type: "etf" }]);
    });
  });

  it("reads the plain lines of a file of the store's columns to the bars and rejections its records give", async () => {
    await run([
      "securities",
      file(
        "plain-s.csv",
        "symbol,exchange,currency,type,name\nCFPA,XNAS,USD,stock,Plain A\nCFPB,XNAS,USD,stock,Plain B\n",
      ),
    ]);
    // Each line's cells in the store's order (symbol, day, o, h, l, c, v, then any extra); S is the symbol.
    const lines: string[][] = [
      ...Array.from({ length: 1_600 }, (_, i) => [
        "S",
        new Date(Date.UTC(1995, 0, 1 + i)).toISOString().slice(0, 10),
        (10 + (i % 7) / 8).toFixed(3),
        "12.5",
        "9.25",
        "11",
        String(1000 + i),
      ]),
      ["S", "2010-01-01", "311.90", "312.00", "311.40", "311.60", "1131"],
      ["S", "2010-01-02", " 10", "11", "9", "10", "5"],
      ["S", "2010-01-03", "1e1", "11", "9", "10", "5"],
      ["S", "2010-01-04", "+10", "11", "9", "10", "5"],
      ["S", "2010-01-05", "0x10", "17", "9", "10", "5"],
      ["S", "2010-01-06", ".5", "1", "0.25", "0.75", "5"],
      ["S", "2010-01-07", "5.", "6", "4", "5", "5"],
      ["S", "2010-01-08", "1.2.3", "11", "9", "10", "5"],
      ["S", "2010-01-09", "", "11", "9", "10", "5"],
      ["S", "2010-02-30", "10", "11", "9", "10", "5"],
      ["S", "2010-1-10", "10", "11", "9", "10", "5"],
      ["S", String(Date.UTC(2010, 0, 11) / 1000), "10", "11", "9", "10", "5"],
      ["S", "2010-01-12", "10", "11", "9", "10", "5", ""],
      ["S", "2010-01-13", "10", "11", "9", "10", "5", "x"],
      ["S", "2010-01-14", "10", "11", "9", "10", ""],
      ['"S"', "2010-01-15", "10", "11", "9", "10", "5"],
      ["S", "2010-01-16", "10", "9", "9", "10", "5"],
      ["S", "2010-01-17", "10", "11", "10.5", "10", "5"],
      ["S", "2010-01-18", "0.1000000000000000055511151231257827", "0.2", "0.1", "0.15", "5"],
      ["S", "2010-01-19", "123456789012345.6", "123456789012346", "123456789012345", "123456789012345.5", "5"],
      ["S", "2010-01-20", "0.30000000000001", "1", "0.1", "0.5", "5"],
      [" S", "2010-01-21", "10", "11", "9", "10", "5"],
      ["CFPNONE", "2010-01-22", "10", "11", "9", "10", "5"],
      ["S", "0099-01-01", "10", "11", "9", "10", "5"],
      ["S", "2000-02-29", "10", "11", "9", "10", "5\r"],
      [],
      ["S", "1900-02-29", "10", "11", "9", "10", "5"],
      ["S", "2010-01-23", "-1", "11", "9", "10", "5"],
      ["S", "2010-01-24", "10", "11", "9", "10", "0.5"],
    ];
    // The same lines for CFPA in the store's column order (its plain lines read without records) and for CFPB in
    // another order (every line a record): the same rows, rejections and counts.
    const order = [6, 5, 4, 3, 2, 1, 0];
    const text = (symbol: string, columns: readonly number[]) =>
      [
        columns.map((i) => DAILY_BAR_HEADER[i]).join(","),
        ...lines.map((l) =>
          l.length === 0
            ? ""
            : [...columns.map((i) => (i === 0 ? l[0]!.replace("S", symbol) : l[i]!)), ...l.slice(7)].join(","),
        ),
      ].join("\n");
    const plain = file("plain-a.csv", text("CFPA", [0, 1, 2, 3, 4, 5, 6]));
    const records = file("plain-b.csv", text("CFPB", order));
    const a = await run(["daily-bars", plain]);
    const b = await run(["daily-bars", records]);
    expect(a.err[0]).toBe(counts("daily-bars", 1_616, 0, 0, 12));
    expect(b.err[0]).toBe(a.err[0]);
    expect(a.report.map((l) => l.replace("plain-a.csv", "plain-b.csv"))).toEqual(b.report);
    expect(a.report.slice(1, 3)).toEqual([
      "plain-a.csv,1606,o,0x10,not a finite number",
      "plain-a.csv,1609,o,1.2.3,not a finite number",
    ]);
    const bars = (symbol: string) =>
      store.sql(
        `SELECT t, o, h, l, c, v FROM daily_bars WHERE listing_id = (SELECT id FROM listings WHERE symbol = '${symbol}')
         ORDER BY t`,
      );
    const stored = await bars("CFPA");
    expect(stored).toHaveLength(1_616);
    expect(stored).toEqual(await bars("CFPB"));
    expect((await run(["daily-bars", plain])).err[0]).toBe(counts("daily-bars", 0, 0, 1_616, 12));
  });

  it("counts a key repeated within one batch row by row, and keeps its last row", async () => {
    await run(["securities", file("dup-s.csv", "symbol,exchange,currency,type,name\nCDUP,XNAS,USD,stock,Dup Inc.\n")]);
    const path = file(
      "dup.csv",
      [
        "symbol,day,o,h,l,c,v",
        "CDUP,2026-11-02,10,11,9,10,100",
        "CDUP,2026-11-02,10,12,9,11,200",
        "CDUP,2026-11-02,10,12,9,11,200",
        "CDUP,2026-11-03,11,12,10,11.5,300",
      ].join("\n"),
    );
    expect((await run(["daily-bars", path])).err).toEqual([counts("daily-bars", 2, 1, 1)]);
    // The first row of the key differs from the stored (last) one, the second from the first, the third not.
    expect((await run(["daily-bars", path])).err).toEqual([counts("daily-bars", 0, 2, 2)]);
    const r = await store.app.post("/v1/candle", {
      symbol: "CDUP",
      resolution: "D",
      from: "2026-11-02",
      to: "2026-11-03",
    });
    expect(r.body.c).toEqual([11, 11.5]);
    expect(r.body.v).toEqual([200, 300]);

    const fx = file("dup-fx.csv", "currency,day,per_usd\nCHF,2001-01-02,1.6\nCHF,2001-01-02,1.7\nCHF,2001-01-02,1.7\n");
    expect((await run(["fx", fx])).err).toEqual([counts("fx", 1, 1, 1)]);
    expect((await run(["fx", fx])).err).toEqual([counts("fx", 0, 2, 1)]);
  });

  it("renames a security, joins a listing to its ISIN's security, and refuses an ISIN another one holds", async () => {
    const first = file(
      "sec.csv",
      [
        "symbol,exchange,currency,type,name,isin",
        "CSEC,XNAS,USD,stock,Conformance Inc.,US5949181045",
        "CSEC.DE,XETR,EUR,stock,Conformance Inc.,US5949181045",
      ].join("\n"),
    );
    expect((await run(["securities", first])).err).toEqual([counts("securities", 2, 0, 0)]);
    const second = file(
      "sec2.csv",
      [
        "symbol,exchange,currency,type,name,isin",
        "CSEC,XNAS,USD,stock,Conformance Holdings,US5949181045",
        "CSEC.DE,XETR,EUR,stock,Conformance Holdings,US5949181045",
        "ACME,XNAS,USD,stock,Acme,US5949181045",
      ].join("\n"),
    );
    const r = await run(["securities", second]);
    expect(r.code).toBe(2);
    expect(r.err[0]).toBe(counts("securities", 0, 1, 1, 1));
    expect(r.report[1]).toMatch(/^sec2\.csv,4,isin,US5949181045,ISIN already belongs to another security/);
    const rows = await store.sql(
      `SELECT l.symbol, s.name, l.is_primary FROM listings l JOIN securities s ON s.id = l.security_id
       WHERE l.symbol LIKE 'CSEC%' ORDER BY l.symbol`,
    );
    expect(rows.map((x) => [x.symbol, x.name, Boolean(x.is_primary)])).toEqual([
      ["CSEC", "Conformance Holdings", true],
      ["CSEC.DE", "Conformance Holdings", false],
    ]);
  });

  it("keeps a security's CIK, a later file's too, and refuses one that is not 1 to 10 digits", async () => {
    const first = file(
      "cik.csv",
      [
        "symbol,exchange,currency,type,name,cik",
        "CCIK,XNAS,USD,stock,Cik Inc.,0000320193",
        "CNOC,XNAS,USD,stock,No Cik,",
      ].join("\n"),
    );
    expect((await run(["securities", first])).err).toEqual([counts("securities", 2, 0, 0)]);
    const second = file(
      "cik2.csv",
      [
        "symbol,exchange,currency,type,name,cik",
        "CCIK,XNAS,USD,stock,Cik Inc.,320193",
        "CNOC,XNAS,USD,stock,No Cik,12345678901",
      ].join("\n"),
    );
    const r = await run(["securities", second]);
    expect(r.code).toBe(2);
    expect(r.err[0]).toBe(counts("securities", 0, 0, 1, 1));
    expect(r.report[1]).toBe("cik2.csv,3,cik,12345678901,not a CIK (1 to 10 digits)");
    const rows = await store.sql(
      `SELECT l.symbol, s.cik FROM listings l JOIN securities s ON s.id = l.security_id
       WHERE l.symbol IN ('CCIK', 'CNOC') ORDER BY l.symbol`,
    );
    expect(rows.map((x) => [x.symbol, x.cik === null ? null : Number(x.cik)])).toEqual([
      ["CCIK", 320193],
      ["CNOC", null],
    ]);
  });

  describe("price downloads", () => {
    const daily = async (symbol: string, from: string, to: string) => {
      const res = await store.app.post("/v1/candle", { symbol, resolution: "D", from, to });
      expect(res.status).toBe(200);
      return res.body as Record<"t" | "o" | "h" | "l" | "c" | "v", number[]>;
    };

    it("loads a real Yahoo download as adjusted prices; the raw prices, split known, read the same", async () => {
      const yahoo = join(FIXTURES, "yahoo", "AAPL.csv");
      // A 2-for-1 split on 2018-03-01, known before either file.
      await run(["securities", file("y-s.csv", "symbol,exchange,currency,type,name\nCIMPY,XNAS,USD,stock,Apple dl\n")]);
      await run([
        "securities",
        file("y-s2.csv", "symbol,exchange,currency,type,name\nCIMPR,XNAS,USD,stock,Apple raw\n"),
      ]);
      const split = "symbol,day,numerator,denominator\nCIMPY,2018-03-01,2,1\nCIMPR,2018-03-01,2,1\n";
      expect((await run(["splits", file("y-split.csv", split)])).code).toBe(0);

      const adjusted = await run(["daily-bars", yahoo, "--symbol", "CIMPY", "--prices", "adjusted"]);
      expect(adjusted.err).toContain(counts("daily-bars", 30, 0, 0));
      const bars = await daily("CIMPY", "2018-02-12", "2018-03-26");
      expect(bars.t).toHaveLength(30);
      expect([bars.t[0], bars.o[0], bars.c[0], bars.v[0]]).toEqual([
        Date.parse("2018-02-12T00:00:00Z") / 1000,
        39.625,
        40.677502,
        243278000,
      ]);

      // The same bars as traded: twice the price and half the volume before the split.
      const lines = readFileSync(yahoo, "utf8").trimEnd().split("\n");
      const raw = [
        "Date,Open,High,Low,Close,Volume",
        ...lines.slice(1).map((l) => {
          const [d, o, h, lo, c, , v] = l.split(",");
          const k = d! < "2018-03-01" ? 2 : 1;
          return [d, Number(o) * k, Number(h) * k, Number(lo) * k, Number(c) * k, Number(v) / k].join(",");
        }),
      ];
      const asTraded = await run([
        "daily-bars",
        file("raw.csv", raw.join("\n")),
        "--symbol",
        "CIMPR",
        "--prices",
        "raw",
      ]);
      expect(asTraded.err).toContain(counts("daily-bars", 30, 0, 0));
      const after = await daily("CIMPR", "2018-02-12", "2018-03-26");
      expect(after.t).toEqual(bars.t);
      for (const k of ["o", "h", "l", "c"] as const) after[k].forEach((x, i) => expect(x).toBeCloseTo(bars[k][i]!, 9));
      after.v.forEach((x, i) => expect(x).toBeCloseTo(bars.v[i]!, 3));
    });

    it("recognises a real Stooq download by its header and loads it on an existing listing", async () => {
      await run(["securities", file("st-s.csv", "symbol,exchange,currency,type,name\nCIMPS,XNAS,USD,stock,Stooq\n")]);
      const stooq = join(FIXTURES, "stooq", "aapl_us_d.csv");
      const r = await run(["daily-bars", stooq, "--symbol", "CIMPS", "--currency", "USD", "--prices", "adjusted"]);
      expect(r.code).toBe(0);
      expect(r.err).toContain(counts("daily-bars", 20, 0, 0));
      const bars = await daily("CIMPS", "2020-03-12", "2020-03-12");
      expect(bars).toMatchObject({
        t: [Date.parse("2020-03-12T00:00:00Z") / 1000],
        ...{ o: [62.8334], h: [66.2858], l: [60.8833], c: [60.9411], v: [426143545.32526] },
      });
      const eur = await run(["daily-bars", stooq, "--symbol", "CIMPS", "--currency", "EUR", "--prices", "adjusted"]);
      expect(eur.code).toBe(1);
      expect(eur.err.join("\n")).toMatch(/--currency EUR: the listing CIMPS is in USD/);
    });

    it("reports a null row of a vendor file and never stores it; GBp prices go in as pounds", async () => {
      await run(["securities", file("p-s.csv", "symbol,exchange,currency,type,name\nCIMPP.L,XLON,GBP,stock,Pence\n")]);
      const path = file(
        "pence.csv",
        "Date,Open,High,Low,Close,Adj Close,Volume\n2026-11-02,250,260,240,255,255,1000\n" +
          "2026-11-03,null,null,null,null,null,null\n",
      );
      const r = await run(["daily-bars", path, "--symbol", "CIMPP.L", "--currency", "GBp", "--prices", "adjusted"]);
      expect(r.code).toBe(2);
      expect(r.report.slice(1)).toEqual(["pence.csv,3,Open,null,not a finite number"]);
      expect(await daily("CIMPP.L", "2026-11-02", "2026-11-03")).toMatchObject({
        ...{ o: [2.5], h: [2.6], l: [2.4], c: [2.55] },
      });
    });
  });

  it("keeps one split convention whatever the order of a raw price file and its split", async () => {
    await run([
      "securities",
      file(
        "s7.csv",
        "symbol,exchange,currency,type,name\nCSPL,XNAS,USD,stock,Split first\nCSPL2,XNAS,USD,stock,Last\n",
      ),
    ]);
    const raw = file(
      "raw-split.csv",
      "Date,Open,High,Low,Close,Volume\n2026-11-02,200,210,190,204,100\n2026-11-03,204,206,198,200,120\n" +
        "2026-11-04,100,104,99,102,260\n2026-11-05,102,103,100,101,250\n",
    );
    const split = (symbol: string) =>
      file(`split-${symbol}.csv`, `symbol,day,numerator,denominator\n${symbol},2026-11-04,2,1\n`);
    expect((await run(["splits", split("CSPL")])).code).toBe(0);
    expect((await run(["daily-bars", raw, "--symbol", "CSPL", "--prices", "raw"])).code).toBe(0);
    expect((await run(["daily-bars", raw, "--symbol", "CSPL2", "--prices", "raw"])).code).toBe(0);
    expect((await run(["splits", split("CSPL2")])).err).toEqual([counts("splits", 1, 0, 0)]);
    // A changed split rescales by the change: 2:1 to 4:1 halves the earlier bars once more, and back.
    const four = file("split4.csv", "symbol,day,numerator,denominator\nCSPL2,2026-11-04,4,1\n");
    expect((await run(["splits", four])).err).toEqual([counts("splits", 0, 1, 0)]);
    const body = (symbol: string) => ({ symbol, resolution: "D", from: "2026-11-02", to: "2026-11-05" });
    expect((await store.app.post("/v1/candle", body("CSPL2"))).body.c).toEqual([51, 50, 102, 101]);
    expect((await run(["splits", split("CSPL2")])).err).toEqual([counts("splits", 0, 1, 0)]);
    const a = await store.app.post("/v1/candle", body("CSPL"));
    const b = await store.app.post("/v1/candle", body("CSPL2"));
    expect(a.status).toBe(200);
    expect(a.body.c).toEqual([102, 100, 102, 101]);
    expect(a.body.v).toEqual([200, 240, 260, 250]);
    for (const k of ["t", "o", "h", "l", "c", "v"]) expect(b.body[k]).toEqual(a.body[k]);
  });

  it("takes the ECB's real reference rates with the same counts, and a quote's empty columns as nulls", async () => {
    const ecb = join(FIXTURES, "ecb", "eurofxref-hist.csv");
    // Some of its days the test store has with other rates: those are changed.
    expect((await run(["fx", ecb])).err).toEqual([counts("fx", 204, 290, 0)]);
    expect((await run(["fx", ecb])).err).toEqual([counts("fx", 0, 0, 494)]);
    const [jpy] = await store.sql(`SELECT per_usd FROM fx_daily WHERE currency = 'JPY' AND day = '2007-12-28'`);
    expect(jpy!.per_usd).toBeCloseTo(166.13 / 1.4692, 10);

    await run(["securities", file("q-s.csv", "symbol,exchange,currency,type,name\nCQUO,XNAS,USD,stock,Quote Inc.\n")]);
    const q = file("q.csv", "symbol,t,c,o,h,l,pc,v,ma50\nCQUO,2026-11-20T21:00:00Z,10,9,11,8,9.5,100,\n");
    expect((await run(["quotes", q])).err).toEqual([counts("quotes", 1, 0, 0)]);
    expect((await run(["quotes", q])).err).toEqual([counts("quotes", 0, 0, 1)]);
    const q2 = file("q2.csv", "symbol,t,c,o,h,l,pc,v,ma50\nCQUO,2026-11-20T21:00:00Z,10,9,11,8,9.5,100,9.9\n");
    expect((await run(["quotes", q2])).err).toEqual([counts("quotes", 0, 1, 0)]);
    const quote = await store.app.post("/v1/quote", { symbol: "CQUO" });
    expect(quote.status).toBe(200);
    expect(quote.body).toMatchObject({ c: 10, pc: 9.5 });
    expect(quote.body.historical_price).toMatchObject({ "50days": 9.9 });
  });

  it("leaves nothing of a batch the store refuses", async () => {
    await run(["securities", file("bad-s.csv", "symbol,exchange,currency,type,name\nCBAD,XNAS,USD,stock,Bad Inc.\n")]);
    const [row] = await store.sql(`SELECT id FROM listings WHERE symbol = 'CBAD'`);
    const listingId = Number(row!.id);
    const { sink, close } = await store.openSink();
    try {
      const good = { listingId, t: Date.parse("2026-11-02T00:00:00Z") / 1000, o: 1, h: 2, l: 1, c: 2, v: 10 };
      const quote = { ...good, pc: 1, ma50: null, ma200: null, avgVolume: null };
      // The driver's error, whichever realm made it (toThrow misses better-sqlite3's errors now and then).
      const refusal = (p: Promise<unknown>) =>
        p.then(
          () => "resolved",
          (e: { message?: unknown }) => String(e.message),
        );
      // A listing the store lacks (a foreign key): the whole batch fails, its good first row with it.
      expect(await refusal(sink.upsertQuotes([quote, { ...quote, listingId: 2 ** 40 }]))).toMatch(/foreign key/i);
      expect(
        await refusal(sink.upsertSplits([{ securityId: 2 ** 40, day: "2026-11-03", numerator: 2, denominator: 1 }])),
      ).toMatch(/foreign key/i);
      // The sink goes on with the next batch.
      expect(await sink.upsertDailyBars([good])).toEqual({ inserted: 1, changed: 0, unchanged: 0 });
    } finally {
      await close();
    }
    await store.settle();
    expect(await store.sql(`SELECT count(*) AS n FROM daily_bars WHERE listing_id = ${listingId}`)).toEqual([{ n: 1 }]);
    expect(await store.sql(`SELECT count(*) AS n FROM quotes WHERE listing_id = ${listingId}`)).toEqual([{ n: 0 }]);
  });

  it("keeps a computed sample listing's other days and answers the imported one on its day", async () => {
    const [l] = await store.sql(
      `SELECT l.symbol FROM sample_series s JOIN listings l ON l.id = s.listing_id
       WHERE s.stored = 0 AND s.market = 'weekday' AND s.style = 'ohlc' ORDER BY s.listing_id LIMIT 1`,
    );
    const symbol = l!.symbol as string;
    const body = { symbol, resolution: "D", from: "2026-11-02", to: "2026-11-13" };
    const before = await store.app.post("/v1/candle", body);
    expect(before.status).toBe(200);
    expect((before.body.t as number[]).length).toBeGreaterThan(5);
    const day = new Date((before.body.t[3] as number) * 1000).toISOString().slice(0, 10);
    const r = await run(["daily-bars", file("sample.csv", `symbol,day,o,h,l,c,v\n${symbol},${day},1,3,0.5,2,77\n`)]);
    expect(r.err).toEqual([counts("daily-bars", 0, 1, 0)]);
    const after = await store.app.post("/v1/candle", body);
    expect(after.body.t).toEqual(before.body.t);
    const expected = [...(before.body.c as number[])];
    expected[3] = 2;
    expect(after.body.c).toEqual(expected);
    expect(after.body.v[3]).toBe(77);
  });
}
