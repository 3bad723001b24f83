import Database from "better-sqlite3";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main as importMain } from "../../../src/application/cli/import.cli";
import { openIngestSink } from "../../../src/application/cli/ingest.cli";
import { fixedClock } from "../../../src/platform/clock";
import { createTestApp } from "../../helpers/app";
import {
  type ProviderServer,
  recordedFacts,
  secConfig,
  serve,
  startProviderServer,
  ingestCli,
  storeRows,
} from "../../helpers/providers";

/**
 * The SEC's company facts of two more filers than Apple, as recorded (test/fixtures/providers/sec/README.md): NVIDIA,
 * which split its shares within two fiscal years, reports capital expenditure under a second concept since 2020, and
 * gives shares outstanding in its 10-Qs on the cover page only; Marvell, whose fourth quarters' earnings a share are
 * differences of two-decimal figures.
 */
const FIXTURES = join(__dirname, "..", "..", "fixtures", "providers", "sec");
const file = (name: string) => readFileSync(join(FIXTURES, name));
const NVDA = "0001045810";
const MRVL = "0001835632";

const facts: Record<string, ReturnType<typeof recordedFacts>> = {
  [NVDA]: recordedFacts(file(`CIK${NVDA}.companyfacts.json`)),
  [MRVL]: recordedFacts(file(`CIK${MRVL}.companyfacts.json`)),
};
/** A value as the SEC recorded it (recordedFacts). */
const fact = (cik: string, concept: string, start: string | undefined, end: string, accn: string) =>
  facts[cik]!(concept, start, end, accn);
const cents = (x: number) => Math.round(x * 100) / 100;

let dir: string;
let server: ProviderServer;

const paths = (cik: string) => ({
  submissions: `/submissions/CIK${cik}.json`,
  facts: `/api/xbrl/companyfacts/CIK${cik}.json`,
});
const answers = () => ({
  "/files/company_tickers_exchange.json": serve(file("company_tickers_exchange.json"), "application/json"),
  [paths(NVDA).submissions]: serve(file(`CIK${NVDA}.submissions.json`), "application/json"),
  [paths(NVDA).facts]: serve(file(`CIK${NVDA}.companyfacts.json`), "application/json"),
  [paths(MRVL).submissions]: serve(file(`CIK${MRVL}.submissions.json`), "application/json"),
  [paths(MRVL).facts]: serve(file(`CIK${MRVL}.companyfacts.json`), "application/json"),
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mdg-ingest-sec-filers-"));
  server = await startProviderServer(answers());
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  for (const [path, answer] of Object.entries(answers())) server.route(path, answer);
});

const configOf = (store: string, env: NodeJS.ProcessEnv = {}) => secConfig(server, store, env);

const ingest = (store: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  ingestCli(configOf(store, env), args, join(dir, "report.csv"));

/** A store listing NVIDIA (from the recorded tickers file) and Marvell (imported with its CIK), as a team would. */
async function store(name: string): Promise<string> {
  const path = join(dir, name, "market.db");
  expect((await ingest(path, ["sec", "tickers", "--symbols", "NVDA"])).code).toBe(0);
  const csv = join(dir, name, "securities.csv");
  writeFileSync(csv, "symbol,exchange,currency,type,name,cik\nMRVL,XNAS,USD,stock,Marvell Technology Inc.,1835632\n");
  const code = await importMain(["securities", csv, "--report", join(dir, name, "r.csv")], {
    openSink: () => openIngestSink(configOf(path)),
    out: { log: () => undefined, error: () => undefined },
    tty: false,
  });
  expect(code).toBe(0);
  return path;
}

interface Row {
  eps: number;
  revenue: number;
  capex: number;
  shares_outstanding: number;
  fiscal_year: number;
  fiscal_quarter: number;
}
const quarter = (path: string, symbol: string, end: string) =>
  storeRows<Row>(
    path,
    `SELECT f.eps, f.revenue, f.capex, f.shares_outstanding, f.fiscal_year, f.fiscal_quarter
     FROM quarterly_financials f JOIN listings l ON l.security_id = f.security_id AND l.is_primary = 1
     WHERE l.symbol = ? AND f.period_end = ?`,
    symbol,
    end,
  )[0];

describe("npm run ingest -- sec, on NVIDIA's and Marvell's recorded filings", () => {
  it("lists a --symbols company the store lacks from the SEC's tickers and fetches it in the same run", async () => {
    const path = join(dir, "named", "market.db");
    server.hits.clear();
    const run = await ingest(path, ["sec", "--symbols", "NVDA,mrvl,ZZZZ"]);
    expect(run.code).toBe(0);
    // Marvell is not in the recorded tickers file (a trimmed copy): named, like an unknown symbol.
    expect(run.text).toContain("MRVL, ZZZZ: not among the SEC's tickers on Nasdaq, NYSE or Cboe");
    expect(run.text).toContain("NVDA: listed from the SEC's tickers, with their CIKs");
    expect(run.text).toContain("sec companies: 1 company, 3 calls");
    expect(server.hits.get("/files/company_tickers_exchange.json")).toBe(1);
    expect(server.hits.get(paths(MRVL).facts)).toBeUndefined();
    expect(
      storeRows(
        path,
        `SELECT l.symbol, l.exchange, s.cik, s.industry FROM securities s JOIN listings l ON l.security_id = s.id`,
      ),
    ).toEqual([{ symbol: "NVDA", exchange: "XNAS", cik: 1045810, industry: "Semiconductors & Related Devices" }]);
    const written = Number(/NVDA: \d+ quarters in the facts, (\d+) to write/.exec(run.text)?.[1]);
    expect(written).toBeGreaterThan(30);
    expect(storeRows<{ n: number }>(path, "SELECT count(*) AS n FROM quarterly_financials")).toEqual([{ n: written }]);

    // Listed now, with its CIK: the next run asks NVIDIA's submissions alone, not the tickers.
    server.hits.clear();
    const again = await ingest(path, ["sec", "--symbols", "NVDA"]);
    expect(again.code).toBe(0);
    expect(again.text).toContain("sec companies: 1 company, 1 call");
    expect(server.hits.get("/files/company_tickers_exchange.json")).toBeUndefined();
  });

  it("reads both companies at once and writes each one's quarters", async () => {
    const path = await store("both");
    // NVIDIA's facts are answered only once Marvell's submissions were asked: one company after the other, the run
    // would time out.
    let marvellAsked!: () => void;
    const asked = new Promise<void>((resolve) => (marvellAsked = resolve));
    server.route(paths(MRVL).submissions, (res, hit, req) => {
      marvellAsked();
      serve(file(`CIK${MRVL}.submissions.json`), "application/json")(res, hit, req);
    });
    server.route(paths(NVDA).facts, (res, hit, req) => {
      void asked.then(() => serve(file(`CIK${NVDA}.companyfacts.json`), "application/json")(res, hit, req));
    });
    const run = await ingest(path, ["sec"], { MDG_PROVIDER_TIMEOUT_MS: "3000", MDG_PROVIDER_RETRIES: "0" });
    expect(run.code).toBe(0);
    expect(run.text).toContain("sec companies: 2 companies, 4 calls");
    const counts = storeRows<{ symbol: string; n: number }>(
      path,
      `SELECT l.symbol, count(*) AS n FROM quarterly_financials f
       JOIN listings l ON l.security_id = f.security_id AND l.is_primary = 1 GROUP BY l.symbol ORDER BY l.symbol`,
    );
    expect(counts.map((c) => c.symbol)).toEqual(["MRVL", "NVDA"]);
    for (const c of counts) expect(c.n).toBeGreaterThan(10);
    const written = (symbol: string) =>
      Number(new RegExp(`${symbol}: \\d+ quarters in the facts, (\\d+) to write`).exec(run.text)?.[1]);
    expect(counts).toEqual([
      { symbol: "MRVL", n: written("MRVL") },
      { symbol: "NVDA", n: written("NVDA") },
    ]);
  });

  it("derives a fourth quarter's earnings a share on one share basis across a split", async () => {
    const path = await store("split");
    expect((await ingest(path, ["sec", "companies", "--symbols", "NVDA"])).code).toBe(0);
    const EPS = "EarningsPerShareDiluted";
    // Fiscal 2025 (to 2025-01-26): 2.94 a share in the 10-K, after the ten-for-one split of June 2024. Its first
    // quarter was 5.98 in its 10-Q, before the split, and 0.60 as the next year's 10-Q restated it.
    const year = fact(NVDA, EPS, "2024-01-29", "2025-01-26", "0001045810-25-000023");
    const q1Restated = fact(NVDA, EPS, "2024-01-29", "2024-04-28", "0001045810-25-000116");
    expect(fact(NVDA, EPS, "2024-01-29", "2024-04-28", "0001045810-24-000124")).toBe(5.98);
    const q2 = fact(NVDA, EPS, "2024-04-29", "2024-07-28", "0001045810-24-000264");
    const q3 = fact(NVDA, EPS, "2024-07-29", "2024-10-27", "0001045810-24-000316");
    expect(quarter(path, "NVDA", "2025-01-26")).toMatchObject({
      fiscal_year: 2025,
      fiscal_quarter: 4,
      eps: cents(year - q1Restated - q2 - q3),
    });
    expect(quarter(path, "NVDA", "2025-01-26")!.eps).toBe(0.89);
    // History on today's share basis, as prices are split-adjusted: NVIDIA's first quarter of fiscal 2022 was 3.03 a
    // share before the four-for-one split of July 2021, 0.76 as the next year's 10-Q restated it, and 0.076 after the
    // ten-for-one of June 2024; the 623 M shares on its 10-Q's cover are 24,920 M today.
    expect(fact(NVDA, EPS, "2021-02-01", "2021-05-02", "0001045810-21-000064")).toBe(3.03);
    expect(quarter(path, "NVDA", "2021-05-02")).toMatchObject({
      eps: fact(NVDA, EPS, "2021-02-01", "2021-05-02", "0001045810-22-000079") / 10,
      shares_outstanding:
        fact(NVDA, "dei:EntityCommonStockSharesOutstanding", undefined, "2021-05-21", "0001045810-21-000064") * 40,
    });
    // Implied share counts (net income over EPS) stay within a quarter's buybacks and issues across both splits.
    const implied = storeRows<{ n: number }>(
      path,
      `SELECT net_income / eps AS n FROM quarterly_financials WHERE period_end >= '2020-01-01' AND eps > 0`,
    ).map((r) => r.n);
    expect(Math.max(...implied) / Math.min(...implied)).toBeLessThan(1.2);
    // Every fourth quarter agrees in sign with its net income: none is a difference across a split.
    const fourths = storeRows<{ eps: number; net_income: number }>(
      path,
      `SELECT eps, net_income FROM quarterly_financials WHERE fiscal_quarter = 4`,
    );
    expect(fourths.length).toBeGreaterThan(3);
    for (const f of fourths) expect(Math.sign(f.eps)).toBe(Math.sign(f.net_income));
  });

  it("after a split filed since the last run, rewrites the quarters before it on the new basis", async () => {
    const state = (accession: string, filed: string) =>
      JSON.stringify({ reports: { "1045810": { accession, filed } } });
    const ends = async (name: string, kept: string) => {
      const path = await store(name);
      const db = new Database(path);
      try {
        db.prepare(`INSERT INTO meta (key, value) VALUES ('ingest:sec', ?)`).run(kept);
      } finally {
        db.close();
      }
      expect((await ingest(path, ["sec", "companies", "--symbols", "NVDA"])).code).toBe(0);
      return storeRows<{ period_end: string; eps: number }>(
        path,
        `SELECT period_end, eps FROM quarterly_financials ORDER BY period_end`,
      );
    };
    // Read up to the 10-Q of 2024-05-29, before the ten-for-one split the 10-Q of 2024-08-28 first tagged: every
    // quarter before the split is written again, 2021's at a tenth of what the last run wrote.
    const before = await ends("split-since", state("0001045810-24-000124", "2024-05-29"));
    expect(before.find((q) => q.period_end === "2021-05-02")?.eps).toBe(0.076);
    expect(before.length).toBeGreaterThan(20);
    // Read up to the 10-K of 2025-02-26, after it: only the quarters with a figure filed since, the latest ones
    // and the comparatives later reports restated.
    const after = await ends("split-before", state("0001045810-25-000023", "2025-02-26"));
    expect(after.length).toBeGreaterThan(0);
    for (const q of after) expect(q.period_end >= "2024-01-01").toBe(true);
  });

  it("reads capex under its later concept, shares from a cover page, liabilities as what equity leaves", async () => {
    const path = await store("capex");
    expect((await ingest(path, ["sec", "companies", "--symbols", "NVDA"])).code).toBe(0);
    const Q1_FY27 = "0001045810-26-000052";
    expect(quarter(path, "NVDA", "2026-04-26")).toMatchObject({
      fiscal_year: 2027,
      fiscal_quarter: 1,
      revenue: fact(NVDA, "Revenues", "2026-01-26", "2026-04-26", Q1_FY27),
      capex: -fact(NVDA, "PaymentsToAcquireProductiveAssets", "2026-01-26", "2026-04-26", Q1_FY27),
      // As of 2026-05-15, on the cover of the 10-Q: the balance sheet gives none.
      shares_outstanding: fact(NVDA, "dei:EntityCommonStockSharesOutstanding", undefined, "2026-05-15", Q1_FY27),
    });

    // Before 2017 NVIDIA tagged no total of liabilities: the balance sheet's assets less equity.
    const Q1_FY15 = "0001045810-14-000085";
    expect(() => fact(NVDA, "Liabilities", undefined, "2014-04-27", Q1_FY15)).toThrow();
    expect(
      storeRows(path, `SELECT total_liabilities AS v FROM quarterly_financials WHERE period_end = '2014-04-27'`),
    ).toEqual([
      {
        v:
          fact(NVDA, "Assets", undefined, "2014-04-27", Q1_FY15) -
          fact(NVDA, "StockholdersEquity", undefined, "2014-04-27", Q1_FY15),
      },
    ]);

    const t = await createTestApp({ storePath: path, ownIndex: true, clock: fixedClock("2026-06-01T15:00:00Z") });
    try {
      const res = await t.post("/v1/stock/financials/ttm", { symbol: "NVDA" });
      expect(res.status).toBe(200);
      const body = res.body as { asOf: string; quarters: { periodEnd: string }[]; ttm: { revenue: number } };
      expect(body.asOf).toBe("2026-04-26");
      expect(body.quarters.map((q) => q.periodEnd)).toEqual(["2025-07-27", "2025-10-26", "2026-01-25", "2026-04-26"]);
      // Fiscal 2026 less its first quarter, plus fiscal 2027's first.
      const REV = "Revenues";
      expect(body.ttm.revenue).toBe(
        fact(NVDA, REV, "2025-01-27", "2026-01-25", "0001045810-26-000021") -
          fact(NVDA, REV, "2025-01-27", "2025-04-27", "0001045810-25-000116") +
          fact(NVDA, REV, "2026-01-26", "2026-04-26", Q1_FY27),
      );
    } finally {
      await t.close();
    }
  });

  it("writes a derived fourth quarter's earnings a share to the cent, as the filer's figures are", async () => {
    const path = await store("cents");
    expect((await ingest(path, ["sec", "companies", "--symbols", "MRVL"])).code).toBe(0);
    const fourths = storeRows<{ period_end: string; eps: number }>(
      path,
      `SELECT period_end, eps FROM quarterly_financials WHERE fiscal_quarter = 4 ORDER BY period_end`,
    );
    expect(fourths.length).toBeGreaterThan(2);
    for (const f of fourths) expect(String(f.eps)).toMatch(/^-?\d+(\.\d{1,2})?$/);
    expect(fourths.find((f) => f.period_end === "2026-01-31")?.eps).toBe(0.45);
  });
});
