import { createServer } from "node:http";
import { createClient, GraphQLRequestError } from "../../examples/client/client";
import { demo } from "../../examples/client/demo";
import { ChartDocument, EtfCardDocument, SearchBoxDocument, WatchlistDocument } from "../../examples/client/generated";
import { createTestApp, type TestApp } from "../helpers/app";
import { BOOTSTRAP_KEY } from "../helpers/constants";
import { listen } from "../helpers/http";

/** The example frontend client (examples/client/) against the real service over HTTP. */
describe("examples/client", () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof listen>>;
  let url: string;

  beforeAll(async () => {
    t = await createTestApp();
    server = await listen(createServer(t.app));
    url = `http://127.0.0.1:${server.port}/graphql`;
  });
  afterAll(async () => {
    await server.close();
    await t.close();
  });

  it("runs its typed operations and gets typed data", async () => {
    const client = createClient({ url, apiKey: BOOTSTRAP_KEY });
    const etfSymbol = (
      t.source.db
        .prepare(
          `SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id WHERE s.type = 'etf'
            AND l.is_primary = 1 ORDER BY s.rank LIMIT 1`,
        )
        .get() as { symbol: string }
    ).symbol;

    const { quotes } = await client.request(WatchlistDocument, { symbols: ["BTC-USD", "NOPE-NOPE"] });
    expect(quotes[0]).toMatchObject({ symbol: "BTC-USD", currency: "USD" });
    expect(typeof quotes[0]!.c).toBe("number");
    expect(quotes[1]).toBeNull();

    const { etf } = await client.request(EtfCardDocument, { symbol: etfSymbol });
    expect(etf.symbol).toBe(etfSymbol);
    expect(etf.holdings.holdings.length).toBeGreaterThan(0);
    expect(etf.sectorExposure.reduce((sum, s) => sum + s.weightPercentage, 0)).toBeCloseTo(100, 0);

    const { searchAggregated } = await client.request(SearchBoxDocument, { query: etfSymbol, limit: 5 });
    expect(searchAggregated.results.map((r) => r.symbol)).toContain(etfSymbol);

    const { candle } = await client.request(ChartDocument, { symbol: etfSymbol, resolution: "W" });
    expect(candle.resolution).toBe("W");
    expect(candle.t.length).toBe(candle.c.length);
  });

  it("its demo prints the watchlist, the first ETF's card and chart, and a search for its name", async () => {
    const lines: string[] = [];
    await demo(createClient({ url, apiKey: BOOTSTRAP_KEY }), (line) => lines.push(line));
    const firstEtf = (await t.post("/v1/list/etfs", { limit: 1 })).body.results[0] as { symbol: string };
    expect(lines[0]).toMatch(/^BTC-USD +\d+\.\d{2} EUR \(-?\d+\.\d{2} %\)$/);
    expect(lines[1]).toMatch(/^ETH-USD /);
    expect(lines[2]).toMatch(/: (TER [\d.]+ %|no profile), top holding /);
    expect(lines[3]).toMatch(/^[1-9]\d* weekly candles, last close [\d.]+ [A-Z]{3}$/);
    expect(lines.length).toBeGreaterThanOrEqual(5);
    expect(lines.slice(4).some((l) => l.includes(` ${firstEtf.symbol} `))).toBe(true);
  });

  it("rejects with the error code when the key is refused", async () => {
    const client = createClient({ url, apiKey: "not-a-key" });
    const failure = await client.request(WatchlistDocument, { symbols: ["BTC-USD"] }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GraphQLRequestError);
    expect((failure as GraphQLRequestError).status).toBe(401);
    expect((failure as GraphQLRequestError).errors[0]!.extensions?.code).toBe("UNAUTHENTICATED");
  });
});
