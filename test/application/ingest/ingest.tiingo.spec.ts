import Database from "better-sqlite3";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openIngestSink } from "../../../src/application/cli/ingest.cli";
import { createIngestScheduler } from "../../../src/application/ingest/ingest.service";
import { fixedClock } from "../../../src/platform/clock";
import { loadConfig } from "../../../src/platform/config";
import { createTestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { type ProviderServer, serve, startProviderServer, ingestCli, storeRows } from "../../helpers/providers";

const PRICES = "/tiingo/daily/aapl/prices";
const PRICES_FILE = readFileSync(join(__dirname, "..", "..", "fixtures", "providers", "tiingo", "AAPL.prices.json"));
const TICKERS_FILE = readFileSync(
  join(__dirname, "..", "..", "fixtures", "providers", "sec", "company_tickers_exchange.json"),
);
const KEY = "tk-7f3a9c1e5b";

let dir: string;
let server: ProviderServer;
/** The query strings the local api.tiingo.com was asked with. */
const asked: URLSearchParams[] = [];

const pricesAnswer = serve(PRICES_FILE, "application/json");

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mdg-ingest-tiingo-"));
  server = await startProviderServer({
    "/files/company_tickers_exchange.json": serve(TICKERS_FILE, "application/json"),
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  server.route(PRICES, (res, hit, req) => {
    asked.push(new URL(req.url ?? "/", "http://x").searchParams);
    pricesAnswer(res, hit, req);
  });
});

const envOf = (store: string): NodeJS.ProcessEnv => ({
  MDG_SQLITE_PATH: store,
  MDG_PROVIDER_SEC_URL: server.url,
  MDG_SEC_USER_AGENT: "Example Research ops@example.com",
  MDG_PROVIDER_TIINGO_URL: server.url,
  MDG_PROVIDER_TIINGO_KEY: KEY,
  MDG_PROVIDER_RETRIES: "1",
  LOG_LEVEL: "silent",
});

async function ingest(store: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const config = loadConfig({ ...envOf(store), ...env });
  return ingestCli(config, args, join(dir, "report.csv"));
}

const query = storeRows;

/** A store listing AAPL on Nasdaq, from the SEC's recorded tickers file. */
async function appleStore(name: string): Promise<string> {
  const store = join(dir, name, "market.db");
  expect((await ingest(store, ["sec", "tickers", "--symbols", "AAPL"])).code).toBe(0);
  return store;
}

const recorded = JSON.parse(PRICES_FILE.toString("utf8")) as { date: string; close: number; volume: number }[];

describe("npm run ingest -- tiingo (keyed end-of-day prices)", () => {
  it("fills the named ticker's daily bars and quote; a rerun asks from the next day and adds nothing", async () => {
    const store = await appleStore("a");
    const from = asked.length;
    const run = await ingest(store, ["tiingo", "--symbols", "AAPL", "--since", "2023-01-01"]);
    expect(run.code).toBe(0);
    expect(asked.slice(from).map((q) => [q.get("startDate"), q.get("token")])).toEqual([["2023-01-01", KEY]]);
    expect(run.text).toContain(
      `tiingo eod daily-bars: ${recorded.length} inserted, 0 changed, 0 unchanged, 0 rejected`,
    );
    expect(run.text).toContain("tiingo eod quotes: 1 inserted");
    expect(run.text).not.toContain(KEY);

    const t = await createTestApp({ storePath: store, ownIndex: true, clock: fixedClock("2023-01-17T22:00:00Z") });
    try {
      // Recorded: AAPL closed at 125.07 on 2023-01-03 (volume 112,117,471), 135.94 on 2023-01-17 after 134.76.
      const candle = await t.post("/v1/candle", {
        symbol: "AAPL",
        resolution: "D",
        from: "2023-01-03",
        to: "2023-01-03",
      });
      expect(candle.status).toBe(200);
      expect(candle.body.c).toEqual([recorded[0]!.close]);
      expect(candle.body.v).toEqual([recorded[0]!.volume]);
      const quote = await t.post("/v1/quote", { symbol: "AAPL" });
      expect(quote.status).toBe(200);
      expect(quote.body).toMatchObject({ c: recorded[9]!.close, pc: recorded[8]!.close });
    } finally {
      await t.close();
    }

    const again = await ingest(store, ["tiingo"]);
    expect(again.code).toBe(0);
    expect(asked[asked.length - 1]!.get("startDate")).toBe("2023-01-18");
    expect(again.text).toContain("tiingo eod: AAPL: 0 days");
    expect(query(store, `SELECT count(*) AS n FROM daily_bars`)).toEqual([{ n: recorded.length }]);
  });

  it("refuses to run without MDG_PROVIDER_TIINGO_KEY, before any call", async () => {
    const store = join(dir, "nokey", "market.db");
    const from = asked.length;
    const run = await ingest(store, ["tiingo", "--symbols", "AAPL"], { MDG_PROVIDER_TIINGO_KEY: "" });
    expect(run.code).toBe(1);
    expect(run.text).toBe("ingest: tiingo: set MDG_PROVIDER_TIINGO_KEY (Tiingo answers only with a key)");
    expect(asked.length).toBe(from);
  });

  it("fails on a 500 or a body that is not prices with an error holding no key, the store as it was", async () => {
    const store = await appleStore("b");
    const was = () =>
      query(store, `SELECT (SELECT count(*) FROM daily_bars) AS bars, (SELECT count(*) FROM quotes) AS q`);
    const before = was();
    server.route(PRICES, (res) => res.writeHead(500).end());
    const failed = await ingest(store, ["tiingo", "--symbols", "AAPL", "--since", "2023-01-01"]);
    expect(failed.code).toBe(1);
    expect(failed.text).toBe(
      `ingest: failed: tiingo: GET ${PRICES}?startDate=2023-01-01&token=***: answered 500 after 2 attempts`,
    );
    server.route(PRICES, (res) =>
      res.writeHead(200, { "content-type": "application/json" }).end('{"detail":"Invalid token."}'),
    );
    const refused = await ingest(store, ["tiingo", "--symbols", "AAPL"]);
    expect(refused.text).toBe(`ingest: failed: tiingo: ${PRICES}: Tiingo says: Invalid token.`);
    expect(was()).toEqual(before);
  });

  it("shows a scheduled run's failure on /v1/status and in the log without the key", async () => {
    const store = await appleStore("c");
    server.route(PRICES, (res) => res.writeHead(503).end());
    const config = loadConfig({
      ...envOf(store),
      MDG_PROVIDER_RETRIES: "0",
      MDG_INGEST: "tiingo:eod=0 22 * * 1-5@America/New_York",
      MDG_INGEST_RETRIES: "0",
    });
    const lines: string[] = [];
    const { scheduler, metrics } = createIngestScheduler({
      config,
      openSink: () => openIngestSink(config),
      log: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
    });
    // A first run needs the tickers: the state an earlier run kept names them.
    const db = new Database(store);
    try {
      const state = JSON.stringify({ tickers: { AAPL: { day: "2023-01-13", close: 134.76 } } });
      db.prepare(`INSERT INTO meta (key, value) VALUES ('ingest:tiingo', ?)`).run(state);
    } finally {
      db.close();
    }
    const t = await createTestApp({
      storePath: store,
      deps: { ingestStatus: () => scheduler.status(), metricsRegistry: metrics?.registry },
    });
    try {
      await scheduler.runNow("tiingo:eod");
      const res = await t.http.get("/v1/status").set("x-api-key", BOOTSTRAP_KEY);
      expect(res.status).toBe(200);
      const job = res.body.ingest[0];
      const error = `tiingo: GET ${PRICES}?startDate=2023-01-14&token=***: answered 503 after 1 attempt`;
      expect(job.lastRun).toMatchObject({ outcome: "failed", error });
      expect(JSON.stringify(res.body)).not.toContain(KEY);
      expect(lines.join("\n")).toContain(error);
      expect(lines.join("\n")).not.toContain(KEY);
      const text = await t.http.get("/metrics");
      expect(text.text ?? "").not.toContain(KEY);
    } finally {
      await t.close();
      await scheduler.stop();
    }
  });
});
