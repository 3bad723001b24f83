import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main as importMain } from "../../../src/application/cli/import.cli";
import { openIngestSink } from "../../../src/application/cli/ingest.cli";
import { fixedClock } from "../../../src/platform/clock";
import { loadConfig } from "../../../src/platform/config";
import { createTestApp } from "../../helpers/app";
import { type ProviderServer, serve, startProviderServer, ingestCli, storeRows } from "../../helpers/providers";

const OHLC = "/0/public/OHLC";
const OHLC_FILE = readFileSync(join(__dirname, "..", "..", "fixtures", "providers", "kraken", "OHLC.XBTUSD.1440.json"));
/** The recorded candles: [time, open, high, low, close, vwap, volume, count], the last one still running. */
const recorded = JSON.parse(OHLC_FILE.toString("utf8")) as { result: { XXBTZUSD: [number, ...string[]][] } };
const candles = recorded.result.XXBTZUSD;
const day = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);

let dir: string;
let server: ProviderServer;
const asked: URLSearchParams[] = [];
const ohlcAnswer = serve(OHLC_FILE, "application/json");

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mdg-ingest-kraken-"));
  server = await startProviderServer();
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  server.route(OHLC, (res, hit, req) => {
    asked.push(new URL(req.url ?? "/", "http://x").searchParams);
    ohlcAnswer(res, hit, req);
  });
});

const configOf = (store: string) =>
  loadConfig({
    MDG_SQLITE_PATH: store,
    MDG_PROVIDER_KRAKEN_URL: server.url,
    MDG_PROVIDER_RETRIES: "1",
    LOG_LEVEL: "silent",
  });

async function ingest(store: string, args: string[]) {
  const config = configOf(store);
  return ingestCli(config, args, join(dir, "report.csv"));
}

/** A store listing the pair BTC-USD on a CRYPTO exchange, imported as an operator would. */
async function btcStore(name: string): Promise<string> {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  const store = join(folder, "market.db");
  const config = configOf(store);
  const files = {
    exchanges: "code,name,country,currency,timezone\nCRYPTO,Crypto (composite),,USD,UTC\n",
    securities: "symbol,exchange,currency,type,name\nBTC-USD,CRYPTO,USD,crypto,Bitcoin / US Dollar\n",
  };
  for (const [kind, text] of Object.entries(files)) {
    const file = join(folder, `${kind}.csv`);
    writeFileSync(file, text);
    const code = await importMain([kind, file, "--report", join(folder, "r.csv")], {
      openSink: () => openIngestSink(config),
      out: { log: () => undefined, error: () => undefined },
      tty: false,
    });
    expect(code).toBe(0);
  }
  return store;
}

const query = storeRows;

const snapshot = (store: string) => ({
  bars: query(store, `SELECT * FROM daily_bars ORDER BY listing_id, t`),
  quotes: query(store, `SELECT * FROM quotes ORDER BY listing_id`),
  state: query(store, `SELECT key, value FROM meta WHERE key LIKE 'ingest:%'`),
});

describe("npm run ingest -- kraken (the store's crypto pairs)", () => {
  it("writes the committed days as bars and the running day as the quote; a rerun asks from the last day", async () => {
    const store = await btcStore("a");
    const from = asked.length;
    const run = await ingest(store, ["kraken"]);
    expect(run.code).toBe(0);
    expect(asked.slice(from).map((q) => Object.fromEntries(q))).toEqual([{ pair: "XBTUSD", interval: "1440" }]);
    const committed = candles.length - 1;
    expect(run.text).toContain(`kraken daily daily-bars: ${committed} inserted, 0 changed, 0 unchanged, 0 rejected`);

    const t = await createTestApp({ storePath: store, ownIndex: true, clock: fixedClock("2023-04-17T12:00:00Z") });
    try {
      const [, open, high, low, close] = candles[2]!;
      const candle = await t.post("/v1/candle", {
        symbol: "BTC-USD",
        resolution: "D",
        from: day(candles[2]![0]),
        to: day(candles[2]![0]),
      });
      expect(candle.status).toBe(200);
      expect([candle.body.o, candle.body.h, candle.body.l, candle.body.c]).toEqual(
        [open, high, low, close].map((v) => [Number(v)]),
      );
      const quote = await t.post("/v1/quote", { symbol: "BTC-USD" });
      expect(quote.status).toBe(200);
      expect(quote.body).toMatchObject({
        c: Number(candles[committed]![4]),
        pc: Number(candles[committed - 1]![4]),
      });
    } finally {
      await t.close();
    }

    const again = await ingest(store, ["kraken"]);
    expect(again.code).toBe(0);
    expect(asked[asked.length - 1]!.get("since")).toBe(String(candles[committed - 1]![0]));
    expect(again.text).toContain("kraken daily: BTC-USD (XBTUSD): 0 days");
    expect(again.text).toContain("kraken daily quotes: 0 inserted, 0 changed, 1 unchanged, 0 rejected");
    expect(query(store, `SELECT count(*) AS n FROM daily_bars`)).toEqual([{ n: committed }]);
  });

  it("takes --since as the first day", async () => {
    const store = await btcStore("since");
    const run = await ingest(store, ["kraken", "--since", day(candles[4]![0])]);
    expect(run.code).toBe(0);
    expect(asked[asked.length - 1]!.get("since")).toBe(String(candles[4]![0] - 1));
    expect(query(store, `SELECT count(*) AS n FROM daily_bars`)).toEqual([{ n: candles.length - 1 - 4 }]);
  });

  it("waits out a 429's Retry-After", async () => {
    const store = await btcStore("429");
    const before = server.hits.get(OHLC) ?? 0;
    server.route(OHLC, (res, hit, req) => {
      if (hit === before) {
        res.writeHead(429, { "retry-after": "1" });
        res.end();
        return;
      }
      ohlcAnswer(res, hit, req);
    });
    const run = await ingest(store, ["kraken"]);
    expect(run.code).toBe(0);
    expect((server.hits.get(OHLC) ?? 0) - before).toBe(2);
    expect(query(store, `SELECT count(*) AS n FROM daily_bars`)).toEqual([{ n: candles.length - 1 }]);
  });

  it.each([
    ["a 500", 500, "", `kraken: GET ${OHLC}?pair=XBTUSD&interval=1440: answered 500 after 2 attempts`],
    [
      "Kraken's error",
      200,
      '{"error":["EQuery:Unknown asset pair"]}',
      `kraken: ${OHLC}: Kraken says: EQuery:Unknown asset pair`,
    ],
    ["a body that is not JSON", 200, "<html>down</html>", `kraken: ${OHLC}: not JSON`],
  ])("fails on %s with a clear error, the store as it was", async (_name, status, body, message) => {
    const store = await btcStore(`fail-${status}-${body.length}`);
    const was = snapshot(store);
    server.route(OHLC, (res) => res.writeHead(status, { "content-type": "application/json" }).end(body));
    const run = await ingest(store, ["kraken"]);
    expect(run.code).toBe(1);
    expect(run.text).toBe(`ingest: failed: ${message}`);
    expect(snapshot(store)).toEqual(was);
  });
});
