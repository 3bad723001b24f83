/**
 * Runs the example operations against a running service, with the local key the first start wrote:
 *
 *   node -r @swc-node/register examples/client/demo.ts
 *
 * MDG_URL (default http://localhost:${PORT:-4000}/graphql) and MDG_API_KEY (default: the contents of data/dev-key)
 * point it elsewhere.
 */
import { readFileSync } from "node:fs";
import { createClient, type Client } from "./client";
import { ChartDocument, EtfCardDocument, EtfListDocument, SearchBoxDocument, WatchlistDocument } from "./generated";

/**
 * A watchlist, the first ETF's card and chart, and a search for its name. The sample's symbols depend on its seed,
 * so the ETF is looked up first; a step that finds nothing throws instead of printing half an answer.
 */
export async function demo(client: Client, print: (line: string) => void): Promise<void> {
  const { quotes } = await client.request(WatchlistDocument, { symbols: ["BTC-USD", "ETH-USD"], currency: "EUR" });
  for (const q of quotes) if (q) print(`${q.symbol.padEnd(10)} ${q.c.toFixed(2)} ${q.currency} (${q.dp.toFixed(2)} %)`);

  const { listEtfs } = await client.request(EtfListDocument, { limit: 1 });
  const first = listEtfs.results[0];
  if (!first) throw new Error("the service lists no ETF");

  const { etf } = await client.request(EtfCardDocument, { symbol: first.symbol });
  // A known ETF the store holds no profile of answers profile null (docs/contract.md section 4).
  const ter = etf.profile ? `TER ${etf.profile.expenseRatio} %` : "no profile";
  print(`${etf.profile?.name ?? first.symbol}: ${ter}, top holding ${etf.holdings.holdings[0]?.name ?? "none"}`);

  const { candle } = await client.request(ChartDocument, { symbol: first.symbol, resolution: "W" });
  print(`${candle.t.length} weekly candles, last close ${candle.c[candle.c.length - 1]} ${candle.currency}`);

  const query = first.name.split(" ")[0]!;
  const { searchAggregated } = await client.request(SearchBoxDocument, { query, limit: 3 });
  if (searchAggregated.results.length === 0) throw new Error(`search for ${JSON.stringify(query)} found nothing`);
  for (const group of searchAggregated.results)
    print(`${group.type.padEnd(6)} ${group.symbol.padEnd(10)} ${group.name} (${group.listings.length} listings)`);
}

function localKey(): string {
  try {
    return readFileSync("data/dev-key", "utf8").trim();
  } catch {
    throw new Error("no MDG_API_KEY and no data/dev-key here: run it from the folder `npm start` ran in, or set it");
  }
}

if (require.main === module) {
  const client = createClient({
    url: process.env.MDG_URL ?? `http://localhost:${process.env.PORT ?? 4000}/graphql`,
    apiKey: process.env.MDG_API_KEY ?? localKey(),
  });
  demo(client, (line) => console.log(line)).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
