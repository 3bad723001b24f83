import { z } from "zod";
import { cursorField, limitField } from "../rest.body";
import {
  ListCryptoDocument,
  ListEtfsDocument,
  ListFundsDocument,
  ListStocksDocument,
} from "../rest.operations.generated";
import { example } from "../rest.examples";
import { optionalNullable, route, VERSIONS, type RouteEntry } from "../rest.route";
import { gqlObject } from "../rest.response";

/** One keyset page of securities, each with all its listings (primary first). */
const listPageResponse = gqlObject("AssetListPage", {
  nextCursor: z.string().nullable(),
  results: z.array(
    gqlObject("AssetListItem", {
      symbol: z.string(),
      name: z.string(),
      isin: z.string().nullable(),
      type: z.enum(["crypto", "etf", "forex", "fund", "stock"]),
      exchange: z.string(),
      currency: z.string(),
      country: z.string().nullable(),
      sector: z.string().nullable(),
      marketCapitalization: z.number().nullable(),
      listings: z.array(
        gqlObject("GroupListing", {
          symbol: z.string(),
          exchange: z.string(),
          currency: z.string(),
          isPrimary: z.boolean(),
        }),
      ),
    }),
  ),
});

const listBody = z.object({ limit: optionalNullable(limitField), cursor: optionalNullable(cursorField) });

export const LIST_ROUTES: readonly RouteEntry[] = [
  route({
    path: "list/stocks",
    summary: "All stocks, keyset-paginated",
    versions: VERSIONS,
    scope: "stock",
    body: listBody,
    operation: ListStocksDocument,
    shape: (d) => d.listStocks,
    response: listPageResponse,
    maxAgeSeconds: 300,
    examples: () => ({ firstPage: example("The first page of ten", { limit: 10 }) }),
    singleSecurity: false,
  }),
  route({
    path: "list/etfs",
    summary: "All ETFs, keyset-paginated",
    versions: VERSIONS,
    scope: "etf",
    body: listBody,
    operation: ListEtfsDocument,
    shape: (d) => d.listEtfs,
    response: listPageResponse,
    maxAgeSeconds: 300,
    examples: () => ({ firstPage: example("The first page of ten", { limit: 10 }) }),
    singleSecurity: false,
  }),
  route({
    path: "list/funds",
    summary: "All mutual funds, keyset-paginated",
    versions: VERSIONS,
    scope: "fund",
    body: listBody,
    operation: ListFundsDocument,
    shape: (d) => d.listFunds,
    response: listPageResponse,
    maxAgeSeconds: 300,
    examples: () => ({ firstPage: example("The first page of ten", { limit: 10 }) }),
    singleSecurity: false,
  }),
  route({
    path: "list/crypto",
    summary: "All crypto assets with their pairs, keyset-paginated",
    versions: VERSIONS,
    scope: "crypto",
    body: listBody,
    operation: ListCryptoDocument,
    shape: (d) => d.listCrypto,
    response: listPageResponse,
    maxAgeSeconds: 300,
    examples: () => ({ firstPage: example("The first page of ten", { limit: 10 }) }),
    singleSecurity: false,
  }),
];
