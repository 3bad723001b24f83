/**
 * Runs the example operations against a running service:
 *
 *   MDG_URL=http://localhost:4000/graphql MDG_API_KEY=local-trial-key \
 *     node -r @swc-node/register examples/client/demo.ts
 */
import { createClient } from "./client";
import { ChartDocument, EtfCardDocument, SearchBoxDocument, WatchlistDocument } from "./generated";

async function main(): Promise<void> {
  const client = createClient({
    url: process.env.MDG_URL ?? "http://localhost:4000/graphql",
    apiKey: process.env.MDG_API_KEY ?? "local-trial-key",
  });

  const { searchAggregated } = await client.request(SearchBoxDocument, { query: "vanguard", limit: 3 });
  for (const group of searchAggregated.results)
    console.log(`${group.type.padEnd(6)} ${group.symbol.padEnd(10)} ${group.name} (${group.listings.length} listings)`);

  const { quotes } = await client.request(WatchlistDocument, { symbols: ["BTC-USD", "ETH-USD"], currency: "EUR" });
  for (const q of quotes)
    if (q) console.log(`${q.symbol.padEnd(10)} ${q.c.toFixed(2)} ${q.currency} (${q.dp.toFixed(2)} %)`);

  const etfSymbol = searchAggregated.results.find((g) => g.type === "etf")?.symbol;
  if (etfSymbol) {
    const { etf } = await client.request(EtfCardDocument, { symbol: etfSymbol });
    // A known ETF the store holds no profile of answers profile null (docs/contract.md section 4).
    const ter = etf.profile ? `TER ${etf.profile.expenseRatio} %` : "no profile";
    console.log(`${etf.profile?.name ?? etfSymbol}: ${ter}, top holding ${etf.holdings.holdings[0]?.name ?? "none"}`);
    const { candle } = await client.request(ChartDocument, { symbol: etfSymbol, resolution: "W" });
    console.log(`${candle.t.length} weekly candles, last close ${candle.c[candle.c.length - 1]} ${candle.currency}`);
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
