import { z } from "zod";
import { symbolField } from "../rest.body";
import { IndexConstituentsDocument } from "../rest.operations.generated";
import { example } from "../rest.examples";
import { route, type RouteEntry } from "../rest.route";
import { gqlObject } from "../rest.response";

const constituentsResponse = gqlObject("IndexConstituents", {
  symbol: z.string(),
  name: z.string(),
  constituents: z.array(
    gqlObject("IndexConstituent", {
      symbol: z.string(),
      name: z.string(),
      isin: z.string().nullable(),
      weight: z.number(),
    }),
  ),
});

export const INDICES_ROUTES: readonly RouteEntry[] = [
  route({
    path: "index/constituents",
    summary: "Members of an index with their weights (removed 2024-05-01)",
    versions: ["v0"],
    scope: "stock",
    body: z.object({ symbol: symbolField }),
    operation: IndexConstituentsDocument,
    shape: (d) => d.indexConstituents,
    response: constituentsResponse,
    examples: () => ({ index: example("A sample index", { symbol: "MDG100" }) }),
    singleSecurity: false,
    removedOn: "2024-05-01",
  }),
];
