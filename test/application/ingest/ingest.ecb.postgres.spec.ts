// @requires-env DATABASE_URL postgres://postgres@127.0.0.1:5432/test
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSources } from "../../../src/app.sources";
import { fixedClock } from "../../../src/platform/clock";
import { loadConfig } from "../../../src/platform/config";
import type { PostgresChangeFeed } from "../../../src/sources/postgres/postgres.changes";
import { createTestApp } from "../../helpers/app";
import { createTestDatabase, type TestDatabase } from "../../helpers/postgres";
import { type ProviderServer, serve, startProviderServer, zipOf, ingestCli } from "../../helpers/providers";

/**
 * `npm run ingest -- ecb` into PostgreSQL (MDG_DATA_SOURCE=postgres): the same rates as into SQLite, served from the
 * database, and a later run that fetches only the daily file, because the database keeps where the last run stopped.
 */
const RUN = process.env.DATABASE_URL ? describe : describe.skip;
if (!process.env.DATABASE_URL) console.warn("SKIPPED ingest.ecb.postgres.spec.ts: DATABASE_URL is unset");

const FIXTURES = join(__dirname, "..", "..", "fixtures", "providers", "ecb");
const HIST = "/stats/eurofxref/eurofxref-hist.zip";
const DAILY = "/stats/eurofxref/eurofxref-daily.xml";

RUN("npm run ingest -- ecb into PostgreSQL", () => {
  let db: TestDatabase;
  let server: ProviderServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mdg-ingest-pg-"));
    db = await createTestDatabase("ingest_ecb");
    server = await startProviderServer();
    const csv = readFileSync(join(FIXTURES, "eurofxref-hist.csv"));
    server.route(HIST, serve(zipOf("eurofxref-hist.csv", csv), "application/zip"));
    server.route(DAILY, serve(readFileSync(join(FIXTURES, "eurofxref-daily.xml")), "text/xml"));
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
      MDG_PROVIDER_ECB_URL: server.url,
      MDG_PROVIDER_RETRIES: "1",
      LOG_LEVEL: "silent",
      NODE_ENV: "test",
    });

  const ingest = (args: string[]) => ingestCli(config(), args, join(dir, "report.csv"));

  it("writes the history into an empty database, serves it, and then fetches only the daily file", async () => {
    server.hits.clear();
    const first = await ingest(["ecb"]);
    expect(first).toMatchObject({ code: 0 });
    expect(server.hits.get(HIST)).toBe(1);

    server.hits.clear();
    const daily = await ingest(["ecb"]);
    expect(daily.code).toBe(0);
    expect(server.hits.get(DAILY)).toBe(1);
    expect(server.hits.get(HIST)).toBeUndefined();
    expect(daily.text).toContain("ecb daily fx: 31 inserted, 0 changed, 0 unchanged, 0 rejected");
    expect(daily.text).toContain("ecb daily daily-bars: 59 inserted, 0 changed, 0 unchanged, 0 rejected");

    const sources = await openSources(config(), { buildSample: false });
    const app = await createTestApp({ market: () => sources.market, clock: fixedClock("2022-07-08T18:00:00Z") });
    try {
      await (sources.changes as PostgresChangeFeed).poll();
      // eurofxref-daily.xml of 2022-07-08: USD 1.0163; the previous close is the history's last, 1.018.
      expect((await app.post("/v1/quote", { symbol: "EURUSD" })).body).toMatchObject({ c: 1.0163, pc: 1.018 });
      const fx = await app.post("/v1/fx/quote", { from: "EUR", to: "USD" });
      expect(fx.body.info).toEqual({ timestamp: "2022-07-08 00:00:00", rate: 1.0163 });
    } finally {
      await app.close();
      await sources.close();
    }
  }, 120_000);
});
