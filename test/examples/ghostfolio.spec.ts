import { createServer } from "node:http";
import jsonpath from "jsonpath";
import { createTestApp, type TestApp } from "../helpers/app";
import { BOOTSTRAP_KEY } from "../helpers/constants";
import { listen } from "../helpers/http";

/**
 * A self-hosted tool that reads one value from a URL, as Ghostfolio's MANUAL data source does with a "scraper
 * configuration" of a URL, headers and a selector: GET the URL with the headers, and when the answer is JSON, take the
 * first match of the selector as a JSONPath (the `jsonpath` package, as Ghostfolio used it) and read it as a number.
 */
async function scrape(url: string, headers: Record<string, string>, selector: string): Promise<number> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`Failed to scrape the market price: ${response.status} at ${url}`);
  if (!response.headers.get("content-type")?.includes("application/json")) throw new Error("not JSON");
  // JSON.parse of the text, as Ghostfolio's got-based version did: Jest's realm would refuse objects made by Node's
  // own fetch (jsonpath checks `instanceof Object`).
  const value = String(jsonpath.query(JSON.parse(await response.text()), selector)[0]);
  return Number(value);
}

describe("a URL and a JSONPath, as Ghostfolio's manual data source reads a price", () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof listen>>;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    server = await listen(createServer(t.app));
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server.close();
    await t.close();
  });

  it("reads a quote's price, in the currency asked, as the POST answers it", async () => {
    const headers = { "x-api-key": BOOTSTRAP_KEY };
    const price = await scrape(`${base}/v1/quote?symbol=BTC-USD&currency=EUR`, headers, "$.c");
    const posted = await t.post("/v1/quote", { symbol: "BTC-USD", currency: "EUR" });
    expect(price).toBeGreaterThan(0);
    expect(price).toBe(posted.body.c);
  });

  it("reads an ETF's expense ratio from its profile and the last weekly close of a pair", async () => {
    const headers = { "x-api-key": BOOTSTRAP_KEY };
    const etf = (await t.post("/v1/list/etfs", { limit: 1 })).body.results[0].symbol as string;
    const url = `${base}/v1/etf/profile?symbol=${encodeURIComponent(etf)}`;
    const ter = await scrape(url, headers, "$.profile.expenseRatio");
    expect(ter).toBeGreaterThan(0);
    expect(ter).toBe((await t.post("/v1/etf/profile", { symbol: etf })).body.profile.expenseRatio);
    const closes = await scrape(`${base}/v1/candle?symbol=EURUSD&resolution=W&from=2026-01-01`, headers, "$.c[-1:]");
    expect(closes).toBeGreaterThan(0.5);
  });

  it("fails as the tool would report it when the key is wrong", async () => {
    await expect(scrape(`${base}/v1/quote?symbol=BTC-USD`, { "x-api-key": "nope" }, "$.c")).rejects.toThrow(/401/);
  });
});
