import type { CryptoPrice } from "../../../domain/crypto/crypto.types";
import type { UpstreamFetcher } from "../upstream.fetcher";

export const cryptoPriceFetcher: UpstreamFetcher<string, CryptoPrice, CryptoPrice> = {
  path: "/v1/crypto/price",
  kind: "quote",
  request: (symbol) => ({ symbol }),
  transform: (d) => d,
};
