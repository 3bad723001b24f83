import type { ProviderHttp } from "../provider.http";
import { fetchWith, type IngestPlan, type IngestQuery, type Provider } from "../provider.types";
import { SEC_EXCHANGES, tickerLoads, tickersFetcher } from "./sec.tickers";

/** The SEC's fair-access limit: at most 10 requests a second, with a User-Agent naming the operator. */
export const SEC_PER_SECOND = 10;

/**
 * SEC EDGAR (keyless; the SEC requires a `User-Agent` naming the operator, MDG_SEC_USER_AGENT). Dataset `tickers`:
 * `company_tickers_exchange.json`, the tickers of SEC registrants with the exchange each trades on (one call).
 */
export const secProvider: Provider = {
  name: "sec",
  datasets: ["tickers"],
  async fetch(query: IngestQuery, http: ProviderHttp): Promise<IngestPlan> {
    const calls0 = http.requests;
    const tickers = await fetchWith(http, tickersFetcher, undefined);
    const symbols = query.symbols ? new Set(query.symbols.map((s) => s.toUpperCase())) : undefined;
    const loads = tickerLoads(tickers, symbols);
    const unlisted = tickers.filter((t) => !SEC_EXCHANGES[t.exchange]).length;
    const notes = [`${tickers.length} tickers, ${unlisted} of them OTC or on no exchange (left out)`];
    return { dataset: "tickers", calls: http.requests - calls0, loads, notes };
  },
};
