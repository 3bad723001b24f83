/**
 * What an endpoint's declaration says of its examples (the OpenAPI document's, which the docs page's "Try it out"
 * sends as they are): request bodies naming the store's own securities, so that "Execute" answers 200 on the store
 * the service runs on. Each body names its security by one identifier only: two are refused.
 */

/** The securities the examples name, one of each kind (src/http/openapi/openapi.examples.ts picks them). */
export interface ExampleSecurities {
  /** The symbol of the first stock (its primary listing). */
  stock: string;
  etf: string;
  /** Funds are named by ISIN (their symbol in the sample is the ISIN too). */
  fundIsin: string;
  /** A crypto pair, BASE-QUOTE. */
  crypto: string;
  forex: string;
}

export interface NamedExample {
  summary: string;
  value: Record<string, unknown>;
}

/** Request examples by name, the first the one "Try it out" fills in. */
export type RequestExamples = (securities: ExampleSecurities) => Record<string, NamedExample>;

export const example = (summary: string, value: Record<string, unknown>): NamedExample => ({ summary, value });
