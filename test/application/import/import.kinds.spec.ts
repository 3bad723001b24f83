import Database from "better-sqlite3";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../../src/application/cli/import.cli";
import { SqliteImportSink } from "../../../src/sources/sqlite/sqlite.import";
import { createTestApp, type TestApp } from "../../helpers/app";
import { TEST_STORE_PATH } from "../../helpers/constants";

const ROOT = join(__dirname, "..", "..", "..");
const FIXTURES = join(ROOT, "test", "fixtures");
const EXAMPLES = join(ROOT, "examples", "data");

let dir: string;
let store: string;
let t: TestApp;

/** Runs the CLI against `store` on a connection of its own, as another process would. */
async function run(args: string[]): Promise<{ code: number; err: string[]; report: string[] }> {
  const err: string[] = [];
  const report = join(dir, `report-${Math.random().toString(36).slice(2)}.csv`);
  const code = await main([...args, "--report", report], {
    openSink: async () => {
      const db = new Database(store);
      db.pragma("busy_timeout = 5000");
      const sink = new SqliteImportSink(db);
      return { sink, close: () => sink.close() };
    },
    out: { log: (l) => err.push(l), error: (l) => err.push(l) },
    tty: false,
  });
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

const example = (kind: string) => join(EXAMPLES, `${kind}.csv`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mdg-import-kinds-"));
  store = join(dir, "store.db");
  const src = new Database(TEST_STORE_PATH, { readonly: true });
  src.exec(`VACUUM INTO '${store.replace(/'/g, "''")}'`);
  src.close();
  t = await createTestApp({ storePath: store });
  // The example files go in first: the cases below change their rows. How each kind goes in, with what
  // counts and REST answers, is the conformance suite's (import.conformance.ts), on every store.
  for (const kind of [
    "securities",
    "daily-bars",
    "quotes",
    "intraday-bars",
    "etf-profiles",
    "fund-profiles",
    "holdings",
    "exposures",
    "financials",
    "dividends",
    "ipos",
  ]) {
    const r = await run([kind, example(kind)]);
    expect({ kind, code: r.code, report: r.report }).toEqual({ kind, code: 0, report: [] });
  }
});

afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("validation of the new kinds", () => {
  it("rejects each bad row with its reason and loads the rest", async () => {
    const cases: [string, string, string[], RegExp][] = [
      [
        "intraday-bars",
        [
          "symbol,t,o,h,l,c,v",
          "ACME,2026-11-20T15:00:00Z,1,2,1,1.5,10",
          "ACME,2026-11-20T15:05:00,1,2,1,1.5,10",
          "ACME,2026-11-20T15:07:00Z,1,2,1,1.5,10",
          "ACME,2026-11-20T15:10:00+01:00,1,0.5,1,1,10",
          "NOPE,1795190400,1,2,1,1.5,10",
        ].join("\n"),
        [
          "intraday.csv,3,t,2026-11-20T15:05:00," +
            '"expected an ISO 8601 date-time with an offset (…Z, …+01:00) or Unix seconds"',
          "intraday.csv,4,t,2026-11-20T15:07:00Z,not the start of a 5-minute bar (the store keeps 5-minute bars)",
          "intraday.csv,5,h,0.5,high is below the open or the close",
          "intraday.csv,6,symbol,NOPE,no such listing in the store (import it with securities)",
        ],
        /intraday-bars: 1 inserted/,
      ],
      [
        "holdings",
        [
          "symbol,position,name,isin,asset_class,country,shares,weight,market_value",
          "NORD,4,Fjord Bank ASA,,,NO,100,0,1000",
          "NORD,5,Over Weight AG,,,DE,100,100.5,1000",
          "NORD,6,Negative AG,,,DE,100,-1,1000",
          "NOPE,1,No fund,,,,100,1,1000",
          "ACME,1,A stock holds nothing,,,,100,1,1000",
          "NORD,7,Bad Country,,,QQ,100,1,1000",
          "NORD,8,Bad Isin,US0378331006,,,100,1,1000",
          "NRDF,3,No asset class,,,DE,,1,1000",
        ].join("\n"),
        [
          "holdings.csv,3,weight,100.5,a weight is a percent from 0 to 100",
          "holdings.csv,4,weight,-1,a weight is a percent from 0 to 100",
          "holdings.csv,5,symbol,NOPE,no such listing in the store (import it with securities)",
          'holdings.csv,6,symbol,ACME,"ACME is a stock security, not an ETF or fund"',
          "holdings.csv,7,country,QQ,not an ISO 3166 alpha-2 country",
          "holdings.csv,8,isin,US0378331006,not an ISIN (shape or check digit)",
          "holdings.csv,9,asset_class,,required",
        ],
        /holdings: 1 inserted/,
      ],
      [
        "exposures",
        [
          "symbol,exposure,name,weight",
          "NORD,sector,Financials,0",
          "NORD,region,Europe,10",
          "NORD,country,XX,10",
          "NORD,allocation,Equity,100",
          "NRDF,sector,Financials,101",
        ].join("\n"),
        [
          'exposures.csv,3,exposure,region,"expected sector, country or allocation"',
          "exposures.csv,4,name,XX,not an ISO 3166 alpha-2 country",
          "exposures.csv,5,exposure,allocation,an allocation (by asset class) is kept for funds only",
          "exposures.csv,6,weight,101,a weight is a percent from 0 to 100",
        ],
        /exposures: 1 inserted/,
      ],
      [
        "etf-profiles",
        [
          readFileSync(example("etf-profiles"), "utf8").trimEnd(),
          "NRDF,X,Equity,1,1,EUR,0.2,2019-05-14,DE,Physical,Accumulating,B,3,2026-11-19",
          "NORD,X,Equity,1,1,USX,0.2,2019-05-14,DE,Physical,Accumulating,B,3,2026-11-19",
          "NORD,X,Equity,1,1,EUR,150,2019-05-14,DE,Physical,Accumulating,B,3,2026-11-19",
          "NORD,X,Equity,1,1,EUR,0.2,2019-05-14,ZZ,Physical,Accumulating,B,3,2026-11-19",
          "NORD,X,Equity,1,1,GBp,0.2,2019-05-14,DE,Physical,Accumulating,B,3,2026-11-19",
          "NORD,X,Equity,1,1,EUR,0.2,2019-05-14,DE,Physical,Accumulating,B,2.5,2026-11-19",
        ].join("\n"),
        [
          "etf-profiles.csv,3,symbol,NRDF,NRDF is not an etf",
          'etf-profiles.csv,4,nav_currency,USX,"not an ISO 4217 currency (or GBp, GBX, ZAc)"',
          "etf-profiles.csv,5,expense_ratio,150,a weight is a percent from 0 to 100",
          "etf-profiles.csv,6,domicile,ZZ,not an ISO 3166 alpha-2 country",
          'etf-profiles.csv,7,nav_currency,GBp,"expected the major unit (GBP, ZAR)"',
          "etf-profiles.csv,8,holdings_count,2.5,expected a whole number from 0 to 1000000000",
        ],
        /etf-profiles: 0 inserted, 0 changed, 1 unchanged/,
      ],
      [
        "fund-profiles",
        [
          readFileSync(example("fund-profiles"), "utf8").trimEnd(),
          readFileSync(example("fund-profiles"), "utf8")
            .trimEnd()
            .split("\n")[1]!
            .replace(",4,Distributing", ",9,Distributing"),
        ].join("\n"),
        ["fund-profiles.csv,3,risk_class,9,expected a whole number from 1 to 7"],
        /fund-profiles: 0 inserted, 0 changed, 1 unchanged/,
      ],
      [
        "financials",
        [
          readFileSync(example("financials"), "utf8").trimEnd().split("\n")[0]!,
          ...readFileSync(example("financials"), "utf8")
            .trimEnd()
            .split("\n")
            .slice(1, 4)
            .map((l, i) =>
              i === 0
                ? l.replace(",2025,4,", ",2025,5,")
                : i === 1
                  ? l.replace(",425000000,", ",NaN,")
                  : l.replace("2026-06-30,", "2026-06-31,"),
            ),
        ].join("\n"),
        [
          "financials.csv,2,fiscal_quarter,5,expected a whole number from 1 to 4",
          "financials.csv,3,revenue,NaN,not a finite number",
          "financials.csv,4,period_end,2026-06-31,not a calendar day",
        ],
        /financials: 0 inserted, 0 changed, 0 unchanged, 3 rejected/,
      ],
      [
        "dividends",
        [
          "symbol,ex_date,amount,currency,frequency,pay_date",
          "ACME,2025-11-13,0.19,USD,4,2025-12-01",
          "ACME,2025-08-14,0.19,USD,3,",
          "ACME,2025-05-15,-0.19,USD,4,",
          "ACME,2025-02-13,0.19,DOL,4,",
          "ACME,2024-11-14,0.19,USD,4,2024-12-32",
        ].join("\n"),
        [
          'dividends.csv,3,frequency,3,"expected payments per year: 1, 2, 4, 12"',
          "dividends.csv,4,amount,-0.19,must not be negative",
          'dividends.csv,5,currency,DOL,"not an ISO 4217 currency (or GBp, GBX, ZAc)"',
          "dividends.csv,6,pay_date,2024-12-32,not a calendar day",
        ],
        /dividends: 1 inserted/,
      ],
      [
        "ipos",
        [
          "symbol,exchange,day,status,shares_offered,offer_price,currency",
          "ACME.L,XLON,2026-12-10,expected,4000000,1450,GBp",
          "ACME,XNAS,2026-12-11,pending,1000,10,USD",
          "ACME,XNAS,2026-12-12,priced,,10,USD",
          "ACME,XSWX,2026-12-13,withdrawn,,,CHF",
          "NORD,XETR,2026-12-14,expected,1000,10,EUR",
          "ACME,XNAS,2026-12-15,expected,-1,10,USD",
        ].join("\n"),
        [
          'ipos.csv,3,status,pending,"expected expected, priced, withdrawn"',
          "ipos.csv,4,shares_offered,,required for a priced offering",
          "ipos.csv,5,symbol,ACME,no such listing in the store (import it with securities)",
          'ipos.csv,6,symbol,NORD,"NORD is a etf security, not a stock"',
          "ipos.csv,7,shares_offered,-1,must not be negative",
        ],
        /ipos: 1 inserted/,
      ],
    ];
    const names: Record<string, string> = { "intraday-bars": "intraday.csv" };
    for (const [kind, text, report, summary] of cases) {
      const r = await run([kind, file(names[kind] ?? `${kind}.csv`, text)]);
      expect({ kind, code: r.code, report: r.report.slice(1) }).toEqual({ kind, code: 2, report });
      expect(r.err.join("\n")).toMatch(summary);
    }
  });
});

describe("a Ghostfolio export", () => {
  const real = join(FIXTURES, "ghostfolio", "sample.json");

  it("refuses a document that is not one object, or that ends before it closes", async () => {
    const notObject = await run(["daily-bars", file("list.json", "[1, 2]")]);
    expect(notObject.code).toBe(1);
    expect(notObject.err.join("\n")).toMatch(/not a JSON document holding one object/);
    const text = readFileSync(real, "utf8");
    const cut = await run(["daily-bars", file("cut.json", text.slice(0, text.indexOf('"platforms"')))]);
    expect(cut.code).toBe(1);
    expect(cut.err.join("\n")).toMatch(/the JSON document ends before its object closes/);
    const other = await run(["fx", real]);
    expect(other.code).toBe(1);
    expect(other.err.join("\n")).toMatch(/a Ghostfolio export is imported as daily-bars or securities, not fx/);
  });
});

describe("--format", () => {
  it("names a format instead of the header; a wrong name or kind is refused with the names", async () => {
    const bad = await run(["daily-bars", example("daily-bars"), "--format", "csv"]);
    expect(bad.code).toBe(1);
    expect(bad.err.join("\n")).toMatch(
      /--format: unknown format "csv"; expected one of native, yahoo, stooq, ecb, ghostfolio/,
    );
    const kind = await run(["daily-bars", example("daily-bars"), "--format", "ecb"]);
    expect(kind.err.join("\n")).toMatch(/--format ecb is for fx, not daily-bars/);

    // Yahoo's columns hold Stooq's, so a Yahoo file named as Stooq goes in as Stooq's columns.
    const yahoo = join(FIXTURES, "yahoo", "AAPL.csv");
    await run(["securities", file("f.csv", "symbol,exchange,currency,type,name\nIMPFMT,XNAS,USD,stock,Format\n")]);
    const stooq = await run(["daily-bars", yahoo, "--format", "stooq", "--symbol", "IMPFMT", "--prices", "adjusted"]);
    expect(stooq.code).toBe(0);
    expect(stooq.err.join("\n")).toMatch(/daily-bars: 30 inserted/);
    const native = await run(["daily-bars", yahoo, "--format", "native"]);
    expect(native.code).toBe(1);
    expect(native.err.join("\n")).toMatch(/daily-bars: expected the columns symbol,day,o,h,l,c,v/);
    const ghost = await run(["daily-bars", example("daily-bars"), "--format", "ghostfolio"]);
    expect(ghost.code).toBe(1);
    expect(ghost.err.join("\n")).toMatch(/not a JSON document/);
  });
});
