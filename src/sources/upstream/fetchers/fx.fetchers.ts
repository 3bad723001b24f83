import type { FxQuote } from "../../../domain/fx/fx.answers";
import type { UpstreamFetcher } from "../upstream.fetcher";

/** The contract's fx/quote (the Bavest SDK's forex model): `info.timestamp` is the start of the rate's day. */
interface RestFxQuote {
  query: { from: string; to: string };
  info: { timestamp: string; rate: number };
}

export const fxQuoteFetcher: UpstreamFetcher<{ from: string; to: string }, RestFxQuote, FxQuote> = {
  path: "/v1/fx/quote",
  kind: "quote",
  request: ({ from, to }) => ({ from, to }),
  transform: (d) => ({ from: d.query.from, to: d.query.to, rate: d.info.rate, day: d.info.timestamp.slice(0, 10) }),
};
