import { z } from "zod";
import { symbolField } from "../rest/rest.body";
import { CryptoPriceDocument } from "../rest/rest.operations.generated";
import { route, VERSIONS, type RouteEntry } from "../rest/rest.route";

export const CRYPTO_ROUTES: readonly RouteEntry[] = [
  route({
    path: "crypto/price",
    summary: "Price of a crypto pair (BTC-USD; BTCUSD, BTC/USD and BTC are accepted)",
    versions: VERSIONS,
    scope: "crypto",
    body: z.object({ symbol: symbolField }),
    operation: CryptoPriceDocument,
    shape: (d) => d.cryptoPrice,
    singleSecurity: true,
  }),
];
