import type { MarketDataSource } from "../../domain/ports/source.capabilities";
import type { UpstreamClient } from "./upstream.types";

/**
 * Gateway mode's market-data source: no row capabilities at all (the upstream answers documents, through
 * upstream.answers.ts), so anything that still asks for rows (the status endpoint's latest bars, say) is 404
 * NOT_AVAILABLE. Its ping never calls the upstream: the gateway is ready while the upstream is down, since it
 * serves stale answers and clear errors then; /readyz reports the upstream's state beside it.
 */
export function createUpstreamSource(client: UpstreamClient): MarketDataSource {
  return {
    kind: "upstream",
    stats: { queries: 0 },
    capabilities: new Set(),
    async ping() {},
    close: () => client.close(),
  };
}
