import { z } from "zod";
import { cursorField, limitField } from "../rest/rest.body";
import { ListCryptoDocument, ListEtfsDocument, ListFundsDocument, ListStocksDocument } from "../rest/rest.operations.generated";
import { optionalNullable, route, VERSIONS, type RouteEntry } from "../rest/rest.route";

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
    singleSecurity: false,
  }),
];
