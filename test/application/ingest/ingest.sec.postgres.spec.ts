// @requires-env DATABASE_URL postgres://postgres@127.0.0.1:5432/test
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSources } from "../../../src/app.sources";
import { main as importMain } from "../../../src/application/cli/import.cli";
import { openIngestSink } from "../../../src/application/cli/ingest.cli";
import { fixedClock } from "../../../src/platform/clock";
import { loadConfig } from "../../../src/platform/config";
import type { PostgresChangeFeed } from "../../../src/sources/postgres/postgres.changes";
import { createTestApp } from "../../helpers/app";
import { createTestDatabase, type TestDatabase } from "../../helpers/postgres";
import { type ProviderServer, serve, startProviderServer, ingestCli } from "../../helpers/providers";

/**
 * `npm run ingest -- sec` into PostgreSQL: the tickers with their CIK, then the company's profile and quarters, read
 * back by the same SQL as on SQLite (the CIK a bigint there), and a rerun that finds no newer report.
 */
const RUN = process.env.DATABASE_URL ? describe : describe.skip;
if (!process.env.DATABASE_URL) console.warn("SKIPPED ingest.sec.postgres.spec.ts: DATABASE_URL is unset");

const FIXTURES = join(__dirname, "..", "..", "fixtures", "providers", "sec");
const FACTS = "/api/xbrl/companyfacts/CIK0000320193.json";

RUN("npm run ingest -- sec into PostgreSQL", () => {
  let db: TestDatabase;
  let server: ProviderServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mdg-ingest-sec-pg-"));
    db = await createTestDatabase("ingest_sec");
    server = await startProviderServer({
      "/files/company_tickers_exchange.json": serve(
        readFileSync(join(FIXTURES, "company_tickers_exchange.json")),
        "application/json",
      ),
      "/submissions/CIK0000320193.json": serve(
        readFileSync(join(FIXTURES, "CIK0000320193.submissions.json")),
        "application/json",
      ),
      [FACTS]: serve(readFileSync(join(FIXTURES, "CIK0000320193.companyfacts.json")), "application/json"),
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const config = () =>
    loadConfig({
      MDG_DATA_SOURCE: "postgres",
      DATABASE_URL: db.url,
      MDG_PROVIDER_SEC_URL: server.url,
      MDG_PROVIDER_SEC_DATA_URL: server.url,
      MDG_SEC_USER_AGENT: "Example Research ops@example.com",
      MDG_PROVIDER_RETRIES: "1",
      LOG_LEVEL: "silent",
      NODE_ENV: "test",
    });

  const ingest = (args: string[]) => ingestCli(config(), args, join(dir, "report.csv"));

  it("writes the company's quarters, serves their sum, and reruns without fetching the facts", async () => {
    expect((await ingest(["sec", "tickers", "--symbols", "AAPL"])).code).toBe(0);
    const run = await ingest(["sec"]);
    expect(run.code).toBe(0);
    const written = Number(/AAPL: \d+ quarters in the facts, (\d+) to write/.exec(run.text)?.[1]);
    expect(written).toBeGreaterThan(40);
    expect(run.text).toContain(`sec companies financials: ${written} inserted, 0 changed, 0 unchanged, 0 rejected`);

    const sources = await openSources(config(), { buildSample: false });
    const app = await createTestApp({ market: () => sources.market, clock: fixedClock("2026-03-21T15:00:00Z") });
    try {
      await (sources.changes as PostgresChangeFeed).poll();
      const res = await app.post("/v1/stock/financials/ttm", { symbol: "AAPL" });
      expect(res.status).toBe(200);
      expect(res.body.asOf).toBe("2025-12-27");
      const quarters = res.body.quarters as { revenue: number; netIncome: number }[];
      expect(res.body.ttm.revenue).toBe(quarters.reduce((s, q) => s + q.revenue, 0));
      // The quarter of 2025-12-27 as the SEC recorded it (10-Q 0000320193-26-000006).
      expect(quarters[3]!.revenue).toBe(143_756_000_000);
    } finally {
      await app.close();
      await sources.close();
    }

    server.hits.clear();
    const again = await ingest(["sec"]);
    expect(again.code).toBe(0);
    expect(server.hits.get(FACTS)).toBeUndefined();
    expect(again.text).toContain("sec companies securities: 0 inserted, 0 changed, 1 unchanged, 0 rejected");
  }, 120_000);

  it("imports the same company-facts file as the quarters the run wrote: every one unchanged", async () => {
    const lines: string[] = [];
    const code = await importMain(
      ["financials", join(FIXTURES, "CIK0000320193.companyfacts.json"), "--report", join(dir, "import.csv")],
      {
        openSink: () => openIngestSink(config()),
        out: { log: (l) => lines.push(l), error: (l) => lines.push(l) },
        tty: false,
      },
    );
    expect(code).toBe(0);
    const text = lines.join("\n");
    const written = Number(/AAPL: \d+ quarters in the facts, (\d+) to write/.exec(text)?.[1]);
    expect(written).toBeGreaterThan(40);
    expect(text).toContain(`financials: 0 inserted, 0 changed, ${written} unchanged, 0 rejected`);
  }, 120_000);
});
