import { z } from "zod";
import { symbolField } from "../rest/rest.body";
import { IndexConstituentsDocument } from "../rest/rest.operations.generated";
import { route, type RouteEntry } from "../rest/rest.route";

export const INDICES_ROUTES: readonly RouteEntry[] = [
  route({
    path: "index/constituents",
    summary: "Members of an index with their weights (removed 2024-05-01)",
    versions: ["v0"],
    scope: "stock",
    body: z.object({ symbol: symbolField }),
    operation: IndexConstituentsDocument,
    shape: (d) => d.indexConstituents,
    singleSecurity: false,
    removedOn: "2024-05-01",
  }),
];
