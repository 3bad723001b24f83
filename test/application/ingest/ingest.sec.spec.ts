import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/platform/config";
import { createTestApp } from "../../helpers/app";
import { type ProviderServer, serve, startProviderServer, ingestCli, storeRows } from "../../helpers/providers";

const TICKERS = "/files/company_tickers_exchange.json";
const FILE = readFileSync(join(__dirname, "..", "..", "fixtures", "providers", "sec", "company_tickers_exchange.json"));
const AGENT = "Example Research ops@example.com";

let dir: string;
let server: ProviderServer;
const agents: (string | undefined)[] = [];
/** What the local www.sec.gov answers for the tickers file. */
let body: Buffer | string = FILE;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mdg-ingest-sec-"));
  // As www.sec.gov: a request without a User-Agent is refused.
  server = await startProviderServer({
    [TICKERS]: (res, hit, req) => {
      agents.push(req.headers["user-agent"]);
      if (!req.headers["user-agent"]) {
        res.writeHead(403);
        res.end();
        return;
      }
      serve(body, "application/json")(res, hit, req);
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function ingest(store: string, args: string[], env: NodeJS.ProcessEnv = { MDG_SEC_USER_AGENT: AGENT }) {
  const config = loadConfig({ MDG_SQLITE_PATH: store, MDG_PROVIDER_SEC_URL: server.url, LOG_LEVEL: "silent", ...env });
  return ingestCli(config, args, join(dir, "report.csv"));
}

const query = storeRows;

describe("npm run ingest -- sec tickers", () => {
  it("creates the listed tickers on their exchanges, sending the User-Agent; the service finds them", async () => {
    const store = join(dir, "a", "market.db");
    const run = await ingest(store, ["sec", "tickers"]);
    expect(run.code).toBe(0);
    expect(agents).toEqual([AGENT]);
    // The recorded file's 17 rows: 12 on Nasdaq or NYSE (GOOGL and GOOG both), 2 on Cboe, 1 OTC, 2 on none.
    expect(run.text).toContain("sec tickers: 17 tickers, 3 of them OTC or on no exchange (left out)");
    expect(run.text).toContain("sec tickers securities: 14 inserted, 0 changed, 0 unchanged, 0 rejected");
    expect(query(store, `SELECT code FROM exchanges ORDER BY code`)).toEqual([
      { code: "BATS" },
      { code: "XNAS" },
      { code: "XNYS" },
    ]);
    expect(
      query(store, `SELECT symbol, exchange, currency FROM listings WHERE symbol IN ('BRK-B', 'CBOE', 'LVMUY')`),
    ).toEqual([
      { symbol: "BRK-B", exchange: "XNYS", currency: "USD" },
      { symbol: "CBOE", exchange: "BATS", currency: "USD" },
    ]);
    const t = await createTestApp({ storePath: store, ownIndex: true });
    try {
      const res = await t.post("/v1/search", { query: "AAPL" });
      expect(res.status).toBe(200);
      expect(res.body.results[0]).toMatchObject({ symbol: "AAPL", companyName: "Apple Inc.", exchange: "XNAS" });
    } finally {
      await t.close();
    }

    const again = await ingest(store, ["sec", "tickers"]);
    expect(again.code).toBe(0);
    expect(again.text).toContain("sec tickers: nothing new");
  });

  it("refuses to run without MDG_SEC_USER_AGENT, before any call", async () => {
    const store = join(dir, "b", "market.db");
    const before = agents.length;
    const run = await ingest(store, ["sec"], {});
    expect(run.code).toBe(1);
    expect(run.text).toBe(
      "ingest: sec: the SEC requires a User-Agent naming who calls: set MDG_SEC_USER_AGENT " +
        '(for example "Example Corp admin@example.com")',
    );
    expect(agents.length).toBe(before);
    expect(existsSync(store)).toBe(false);
  });

  it("fails on a body that is not the tickers file, with a clear error, writing nothing", async () => {
    const store = join(dir, "d", "market.db");
    try {
      body = "<html><title>SEC.gov | Request Rate Threshold Exceeded</title></html>";
      const html = await ingest(store, ["sec"]);
      expect(html.code).toBe(1);
      expect(html.text).toBe(`ingest: failed: sec: ${TICKERS}: not JSON`);
      body = '{"fields":["cik","title"],"data":[]}';
      expect((await ingest(store, ["sec"])).text).toContain(
        'sec: /files/company_tickers_exchange.json: expected {"fields":["cik","name","ticker","exchange"],"data":[…]}',
      );
      expect(existsSync(store)).toBe(false);
    } finally {
      body = FILE;
    }
  });

  it("takes only the tickers --symbols names", async () => {
    const store = join(dir, "c", "market.db");
    const run = await ingest(store, ["sec", "tickers", "--symbols", "msft,TSM"]);
    expect(run.code).toBe(0);
    expect(query(store, `SELECT symbol FROM listings ORDER BY symbol`)).toEqual([
      { symbol: "MSFT" },
      { symbol: "TSM" },
    ]);
  });
});
