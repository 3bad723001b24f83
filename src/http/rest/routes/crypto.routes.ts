import { z } from "zod";
import { symbolField } from "../rest.body";
import { CryptoPriceDocument } from "../rest.operations.generated";
import { example } from "../rest.examples";
import { route, VERSIONS, type RouteEntry } from "../rest.route";
import { gqlObject, unixSeconds } from "../rest.response";

const cryptoPriceResponse = gqlObject("CryptoPrice", {
  symbol: z.string(),
  base: z.string(),
  name: z.string(),
  currency: z.string(),
  price: z.number(),
  change: z.number(),
  changePercent: z.number(),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  previousClose: z.number(),
  volume: z.number(),
  marketCapitalization: z.number().nullable(),
  t: unixSeconds,
});

export const CRYPTO_ROUTES: readonly RouteEntry[] = [
  route({
    path: "crypto/price",
    summary: "Price of a crypto pair (BTC-USD; BTCUSD, BTC/USD and BTC are accepted)",
    versions: VERSIONS,
    scope: "crypto",
    body: z.object({ symbol: symbolField }),
    operation: CryptoPriceDocument,
    shape: (d) => d.cryptoPrice,
    response: cryptoPriceResponse,
    maxAgeSeconds: 5,
    examples: (s) => ({ crypto: example("The first crypto pair", { symbol: s.crypto }) }),
    emptyAnswer:
      "no empty form (every field is a price the client's model requires): a listing without any price answers " +
      "404 `NOT_FOUND` saying so; every listing of the sample has one",
    singleSecurity: true,
  }),
];
