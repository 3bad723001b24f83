import { z } from "zod";
import { FxQuoteDocument } from "../rest.operations.generated";
import { example } from "../rest.examples";
import { route, VERSIONS, type RouteEntry } from "../rest.route";

/** The operation the route runs; `npm run generate` types it as FxQuoteDocument. */
export const FX_QUOTE_OPERATION = /* GraphQL */ `
  query FxQuote($from: String!, $to: String!) {
    fxQuote(from: $from, to: $to) {
      from
      to
      rate
      day
    }
  }
`;

const currency = (role: string) =>
  z
    .string({ error: "expected a string" })
    .trim()
    .min(1, { error: "expected a non-empty string" })
    .max(16)
    .describe(`ISO 4217 code of the currency to convert ${role} (case-insensitive)`);

/** `YYYY-MM-DD HH:MM:SS` (UTC), the SDK's spelling of an instant: the start of the rate's day. */
const instant = z.string().describe("Start of the day of the rate, `YYYY-MM-DD HH:MM:SS` (UTC)");

/** The Bavest Python SDK's `forex` model (docs/contract.md section 4): `result` is the rate of one unit. */
const fxQuoteResponse = z.object({
  success: z.boolean().describe("Always true: a failure is an error status with the error body"),
  query: z.object({ from: z.string(), to: z.string() }).describe("The pair asked for, upper-case"),
  info: z
    .object({ timestamp: instant, rate: z.number().describe("Units of `to` for one unit of `from`") })
    .describe("The rate and its day"),
  date: instant,
  result: z.number().describe("What one unit of `from` is in `to`: the rate"),
});

export const FX_ROUTES: readonly RouteEntry[] = [
  route({
    path: "fx/quote",
    summary: "Latest exchange rate between two currencies (crossed through USD), in the SDK's forex shape",
    versions: VERSIONS,
    scope: "stock",
    body: z.object({ from: currency("from"), to: currency("to") }),
    operation: FxQuoteDocument,
    shape: ({ fxQuote: q }) => {
      const at = `${q.day} 00:00:00`;
      return {
        success: true,
        query: { from: q.from, to: q.to },
        info: { timestamp: at, rate: q.rate },
        date: at,
        result: q.rate,
      };
    },
    response: fxQuoteResponse,
    maxAgeSeconds: 300,
    examples: () => ({
      eurUsd: example("Euros in US dollars", { from: "EUR", to: "USD" }),
      cross: example("A cross rate through USD", { from: "GBP", to: "JPY" }),
    }),
    singleSecurity: false,
  }),
];
