import Database from "better-sqlite3";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main as importMain } from "../../../src/application/cli/import.cli";
import { openIngestSink } from "../../../src/application/cli/ingest.cli";
import { fixedClock } from "../../../src/platform/clock";
import { createTestApp } from "../../helpers/app";
import {
  type Answer,
  type ProviderServer,
  serve,
  startProviderServer,
  ingestCli,
  recordedFacts,
  SEC_AGENT,
  secConfig,
  storeRows,
} from "../../helpers/providers";

const FIXTURES = join(__dirname, "..", "..", "fixtures", "providers", "sec");
const TICKERS = "/files/company_tickers_exchange.json";
const SUBMISSIONS = "/submissions/CIK0000320193.json";
const FACTS = "/api/xbrl/companyfacts/CIK0000320193.json";
const FACTS_FILE = readFileSync(join(FIXTURES, "CIK0000320193.companyfacts.json"));
const SUBMISSIONS_FILE = readFileSync(join(FIXTURES, "CIK0000320193.submissions.json"));
const AGENT = SEC_AGENT;

const recorded = recordedFacts(FACTS_FILE);
/** A value as the SEC recorded it: the concept's fact over `start`..`end` in the filing `accn`. */
const fact = (concept: string, start: string, end: string, accn: string) => recorded(concept, start, end, accn);
/** A balance as the SEC recorded it: the concept's fact at `end` in the filing `accn`. */
const balance = (concept: string, end: string, accn: string) => recorded(concept, undefined, end, accn);

let dir: string;
let server: ProviderServer;
const agents: (string | undefined)[] = [];

const withAgent =
  (answer: Answer): Answer =>
  (res, hit, req) => {
    agents.push(req.headers["user-agent"]);
    answer(res, hit, req);
  };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mdg-ingest-sec-co-"));
  server = await startProviderServer({
    [TICKERS]: withAgent(serve(readFileSync(join(FIXTURES, "company_tickers_exchange.json")), "application/json")),
    [SUBMISSIONS]: withAgent(serve(SUBMISSIONS_FILE, "application/json")),
    [FACTS]: withAgent(serve(FACTS_FILE, "application/json")),
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const ingest = (store: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  ingestCli(secConfig(server, store, env), args, join(dir, "report.csv"));

const query = storeRows;

/** Everything the SEC's datasets write, to compare a store before and after a failed run. */
function snapshot(store: string): unknown {
  return {
    securities: query(store, `SELECT id, name, cik, sector, industry FROM securities ORDER BY id`),
    financials: query(store, `SELECT * FROM quarterly_financials ORDER BY security_id, period_end`),
    state: query(store, `SELECT key, value FROM meta WHERE key LIKE 'ingest:%' ORDER BY key`),
  };
}

const hits = (path: string) => server.hits.get(path) ?? 0;

/** A store listing Apple with its CIK, from the recorded tickers file. */
async function appleStore(name: string): Promise<string> {
  const store = join(dir, name, "market.db");
  const run = await ingest(store, ["sec", "tickers", "--symbols", "AAPL"]);
  expect(run.code).toBe(0);
  return store;
}

describe("npm run ingest -- sec (companies the store lists with a CIK)", () => {
  it("keeps the CIK of each ticker it creates", async () => {
    const store = await appleStore("cik");
    expect(query(store, `SELECT l.symbol, s.cik FROM securities s JOIN listings l ON l.security_id = s.id`)).toEqual([
      { symbol: "AAPL", cik: 320193 },
    ]);
  });

  it("reads the profile and the quarters; REST answers the recorded revenue and the sum of the last four", async () => {
    const store = await appleStore("a");
    const before = { sub: hits(SUBMISSIONS), facts: hits(FACTS), agents: agents.length };
    const run = await ingest(store, ["sec"]);
    expect(run.code).toBe(0);
    expect(hits(SUBMISSIONS) - before.sub).toBe(1);
    expect(hits(FACTS) - before.facts).toBe(1);
    expect(agents.slice(before.agents)).toEqual([AGENT, AGENT]);
    expect(run.text).toContain("sec companies: 2 calls");
    const written = Number(/AAPL: \d+ quarters in the facts, (\d+) to write/.exec(run.text)?.[1]);
    expect(written).toBeGreaterThan(40);
    expect(run.text).toContain(`sec companies financials: ${written} inserted, 0 changed, 0 unchanged, 0 rejected`);
    expect(query(store, `SELECT count(*) AS n FROM quarterly_financials`)).toEqual([{ n: written }]);
    // The SEC's SIC 3571 is "Electronic Computers", in the SIC's Manufacturing division.
    expect(query(store, `SELECT sector, industry FROM securities WHERE cik = 320193`)).toEqual([
      { sector: "Manufacturing", industry: "Electronic Computers" },
    ]);

    const q = (end: string) =>
      query<{ fiscal_year: number; fiscal_quarter: number; revenue: number; reported_date: string }>(
        store,
        `SELECT fiscal_year, fiscal_quarter, revenue, reported_date FROM quarterly_financials
         WHERE period_end = '${end}'`,
      )[0];
    // Renamed concepts as one figure: SalesRevenueNet until mid-2018, then RevenueFromContractWith….
    expect(q("2018-06-30")).toEqual({
      fiscal_year: 2018,
      fiscal_quarter: 3,
      revenue: fact("SalesRevenueNet", "2018-04-01", "2018-06-30", "0000320193-18-000100"),
      reported_date: "2018-08-01",
    });
    expect(q("2018-12-29")!.revenue).toBe(
      fact("RevenueFromContractWithCustomerExcludingAssessedTax", "2018-09-30", "2018-12-29", "0000320193-19-000010"),
    );
    // The fourth quarter: the fiscal year (its 10-K, as Revenues) less its three quarters (10-Qs), across names.
    expect(q("2018-09-29")).toEqual({
      fiscal_year: 2018,
      fiscal_quarter: 4,
      revenue:
        fact("Revenues", "2017-10-01", "2018-09-29", "0000320193-18-000145") -
        fact("SalesRevenueNet", "2017-10-01", "2017-12-30", "0000320193-18-000007") -
        fact("SalesRevenueNet", "2017-12-31", "2018-03-31", "0000320193-18-000070") -
        fact("SalesRevenueNet", "2018-04-01", "2018-06-30", "0000320193-18-000100"),
      reported_date: "2018-11-05",
    });

    // Restated facts: the latest filing's. Apple restated its operating cash flow of the half year to 2017-04-01
    // (39,579 M in its 10-Q of May 2017, 39,804 M in that of May 2018); the second quarter is the half year less
    // the first, both as last filed.
    const OCF = "NetCashProvidedByUsedInOperatingActivities";
    expect(
      query(store, `SELECT operating_cash_flow AS v FROM quarterly_financials WHERE period_end = '2017-04-01'`),
    ).toEqual([
      {
        v:
          fact(OCF, "2016-09-25", "2017-04-01", "0000320193-18-000070") -
          fact(OCF, "2016-09-25", "2016-12-31", "0000320193-18-000007"),
      },
    ]);

    // Balance-sheet and cash-flow details: balances at the quarter's end, flows over it; the fourth quarter's flow is
    // the fiscal year (10-K) less the nine months to its third quarter (10-Q).
    const Q1_26 = "0000320193-26-000006";
    const details = (end: string) =>
      query(
        store,
        `SELECT current_assets, current_liabilities, inventory, accounts_receivable, accounts_payable,
                depreciation_amortization, stock_based_compensation
         FROM quarterly_financials WHERE period_end = '${end}'`,
      );
    expect(details("2025-12-27")).toEqual([
      {
        current_assets: balance("AssetsCurrent", "2025-12-27", Q1_26),
        current_liabilities: balance("LiabilitiesCurrent", "2025-12-27", Q1_26),
        inventory: balance("InventoryNet", "2025-12-27", Q1_26),
        accounts_receivable: balance("AccountsReceivableNetCurrent", "2025-12-27", Q1_26),
        accounts_payable: balance("AccountsPayableCurrent", "2025-12-27", Q1_26),
        depreciation_amortization: fact("DepreciationDepletionAndAmortization", "2025-09-28", "2025-12-27", Q1_26),
        stock_based_compensation: fact("ShareBasedCompensation", "2025-09-28", "2025-12-27", Q1_26),
      },
    ]);
    const fourth = (c: string) =>
      fact(c, "2024-09-29", "2025-09-27", "0000320193-25-000079") -
      fact(c, "2024-09-29", "2025-06-28", "0000320193-25-000073");
    expect(
      query(
        store,
        `SELECT depreciation_amortization AS da, stock_based_compensation AS sbc FROM quarterly_financials
         WHERE period_end = '2025-09-27'`,
      ),
    ).toEqual([{ da: fourth("DepreciationDepletionAndAmortization"), sbc: fourth("ShareBasedCompensation") }]);

    const t = await createTestApp({ storePath: store, ownIndex: true, clock: fixedClock("2026-03-21T15:00:00Z") });
    try {
      const res = await t.post("/v1/stock/financials/ttm", { symbol: "AAPL" });
      expect(res.status).toBe(200);
      const body = res.body as {
        asOf: string;
        quarters: { periodEnd: string; fiscalYear: number; fiscalQuarter: number; revenue: number }[];
        ttm: { revenue: number; netIncome: number };
      };
      expect(body.asOf).toBe("2025-12-27");
      expect(body.quarters.map((x) => [x.periodEnd, x.fiscalYear, x.fiscalQuarter])).toEqual([
        ["2025-03-29", 2025, 2],
        ["2025-06-28", 2025, 3],
        ["2025-09-27", 2025, 4],
        ["2025-12-27", 2026, 1],
      ]);
      const REV = "RevenueFromContractWithCustomerExcludingAssessedTax";
      const Q1_FY26 = fact(REV, "2025-09-28", "2025-12-27", "0000320193-26-000006");
      expect(body.quarters[3]!.revenue).toBe(Q1_FY26);
      // Four quarters to 2025-12-27 are the fiscal year 2025, less its first quarter, plus the next year's first.
      const ttm = (c: string) =>
        fact(c, "2024-09-29", "2025-09-27", "0000320193-25-000079") -
        fact(c, "2024-09-29", "2024-12-28", "0000320193-25-000008") +
        fact(c, "2025-09-28", "2025-12-27", "0000320193-26-000006");
      expect(body.ttm.revenue).toBe(ttm(REV));
      expect(body.ttm.netIncome).toBe(ttm("NetIncomeLoss"));
    } finally {
      await t.close();
    }

    // A rerun: the submissions show no report after the one read; the facts are not fetched again, nothing written.
    const facts = hits(FACTS);
    const again = await ingest(store, ["sec"]);
    expect(again.code).toBe(0);
    expect(hits(FACTS)).toBe(facts);
    expect(again.text).toContain("AAPL: no filing after 10-Q 0000320193-26-000006 (2026-01-30)");
    expect(again.text).toContain("sec companies securities: 0 inserted, 0 changed, 1 unchanged, 0 rejected");
    expect(again.text).not.toContain("sec companies financials:");
    expect(query(store, `SELECT count(*) AS n FROM quarterly_financials`)).toEqual([{ n: written }]);
  });

  it("asks a company no run has read for its submissions and its facts at once", async () => {
    const store = await appleStore("overlap");
    const seen: string[] = [];
    let factsAsked!: () => void;
    const factsArrived = new Promise<void>((resolve) => (factsAsked = resolve));
    // The submissions are answered only once the facts were asked: one after the other, the run would time out.
    server.route(SUBMISSIONS, (res, hit, req) => {
      seen.push("submissions asked");
      void factsArrived.then(() => {
        seen.push("submissions answered");
        serve(SUBMISSIONS_FILE, "application/json")(res, hit, req);
      });
    });
    server.route(FACTS, (res, hit, req) => {
      seen.push("facts asked");
      factsAsked();
      serve(FACTS_FILE, "application/json")(res, hit, req);
    });
    try {
      const run = await ingest(store, ["sec"], { MDG_PROVIDER_TIMEOUT_MS: "3000", MDG_PROVIDER_RETRIES: "0" });
      expect(run.code).toBe(0);
      expect(seen.indexOf("facts asked")).toBeLessThan(seen.indexOf("submissions answered"));
      expect(run.text).toContain("sec companies: 2 calls");
      expect(query<{ n: number }>(store, `SELECT count(*) AS n FROM quarterly_financials`)[0]!.n).toBeGreaterThan(40);
    } finally {
      server.route(SUBMISSIONS, withAgent(serve(SUBMISSIONS_FILE, "application/json")));
      server.route(FACTS, withAgent(serve(FACTS_FILE, "application/json")));
    }
  });

  it("fails on the submissions' error once the facts asked with them are in, the store as it was", async () => {
    const store = await appleStore("sub-fails");
    const was = snapshot(store);
    const facts = hits(FACTS);
    server.route(SUBMISSIONS, (res) => res.writeHead(404).end());
    try {
      const run = await ingest(store, ["sec"]);
      expect(run.code).toBe(1);
      expect(run.text).toBe(`ingest: failed: sec: GET ${SUBMISSIONS}: answered 404`);
      expect(hits(FACTS) - facts).toBe(1);
      expect(snapshot(store)).toEqual(was);
    } finally {
      server.route(SUBMISSIONS, withAgent(serve(SUBMISSIONS_FILE, "application/json")));
    }
  });

  it("after an older report than the latest, writes only the quarters with a figure filed after it", async () => {
    const store = await appleStore("inc");
    const db = new Database(store);
    try {
      const kept = { reports: { "320193": { accession: "0000320193-25-000079", filed: "2025-10-31" } } };
      db.prepare(`INSERT INTO meta (key, value) VALUES ('ingest:sec', ?)`).run(JSON.stringify(kept));
    } finally {
      db.close();
    }
    const run = await ingest(store, ["sec"]);
    expect(run.code).toBe(0);
    // The 10-Q of 2026-01-30 brought its own quarter and restated comparatives of four others (the year to
    // 2025-09-27 less them gives the fourth quarters too).
    const ends = query<{ period_end: string }>(store, `SELECT period_end FROM quarterly_financials ORDER BY 1`);
    expect(ends.map((r) => r.period_end)).toEqual(expect.arrayContaining(["2024-12-28", "2025-12-27"]));
    expect(ends.length).toBeLessThan(8);
    expect(run.text).toContain(`sec companies financials: ${ends.length} inserted`);
    expect(query(store, `SELECT value FROM meta WHERE key = 'ingest:sec'`)).toEqual([
      { value: JSON.stringify({ reports: { "320193": { accession: "0000320193-26-000006", filed: "2026-01-30" } } }) },
    ]);
  });

  it("waits out a 429's Retry-After", async () => {
    const store = await appleStore("b");
    const before = hits(FACTS);
    server.route(FACTS, (res, hit) => {
      if (hit === before) {
        res.writeHead(429, { "retry-after": "1" });
        res.end();
        return;
      }
      serve(FACTS_FILE, "application/json")(res, hit, {} as never);
    });
    try {
      const run = await ingest(store, ["sec"]);
      expect(run.code).toBe(0);
      expect(hits(FACTS) - before).toBe(2);
      expect(query<{ n: number }>(store, `SELECT count(*) AS n FROM quarterly_financials`)[0]!.n).toBeGreaterThan(40);
    } finally {
      server.route(FACTS, withAgent(serve(FACTS_FILE, "application/json")));
    }
  });

  it.each([
    [
      "a 500",
      (res: Parameters<Answer>[0]) => res.writeHead(500).end(),
      `sec: GET ${FACTS}: answered 500 after 2 attempts`,
    ],
    [
      "a body that is not JSON",
      (res: Parameters<Answer>[0]) => res.writeHead(200, { "content-type": "text/html" }).end("<html>busy</html>"),
      `sec: ${FACTS}: not JSON`,
    ],
    [
      "JSON without facts",
      (res: Parameters<Answer>[0]) => res.writeHead(200).end('{"cik":320193,"entityName":"Apple Inc."}'),
      `sec: ${FACTS}: expected {"cik":…,"entityName":…,"facts":{"us-gaap":{…}}}`,
    ],
  ])("fails on %s with a clear error, the store as it was", async (_name, answer, message) => {
    const store = await appleStore(`fail-${_name.replace(/\W+/g, "-")}`);
    const was = snapshot(store);
    server.route(FACTS, (res) => answer(res));
    try {
      const run = await ingest(store, ["sec"], { MDG_PROVIDER_RETRIES: "1" });
      expect(run.code).toBe(1);
      expect(run.text).toBe(`ingest: failed: ${message}`);
      expect(snapshot(store)).toEqual(was);
    } finally {
      server.route(FACTS, withAgent(serve(FACTS_FILE, "application/json")));
    }
  });

  it("names the --symbols the store lists without a CIK, and leaves them as they are", async () => {
    const store = await appleStore("c");
    const csv = join(dir, "c", "msft.csv");
    writeFileSync(csv, "symbol,exchange,currency,type,name\nMSFT,XNAS,USD,stock,Our Microsoft\n");
    const imported = await importMain(["securities", csv, "--report", join(dir, "c", "r.csv")], {
      openSink: () => openIngestSink(secConfig(server, store)),
      out: { log: () => undefined, error: () => undefined },
      tty: false,
    });
    expect(imported).toBe(0);
    server.hits.clear();
    const run = await ingest(store, ["sec", "companies", "--symbols", "AAPL,MSFT"]);
    expect(run.code).toBe(0);
    expect(run.text).toContain("MSFT: listed in the store without a CIK, left out");
    // Apple's two calls; neither the tickers nor anything of Microsoft's.
    expect(run.text).toContain("sec companies: 1 company, 2 calls");
    expect(hits("/files/company_tickers_exchange.json")).toBe(0);
    expect(
      query(
        store,
        `SELECT s.name, s.cik FROM securities s JOIN listings l ON l.security_id = s.id
      WHERE l.symbol = 'MSFT'`,
      ),
    ).toEqual([{ name: "Our Microsoft", cik: null }]);
  });
});
