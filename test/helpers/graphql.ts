import type { TestApp } from "./app";
import { BOOTSTRAP_KEY } from "./constants";

/** POST /graphql with the bootstrap key (or `key`, or none with null). */
export function gql(
  t: TestApp,
  query: string,
  variables?: Record<string, unknown>,
  key: string | null = BOOTSTRAP_KEY,
) {
  let r = t.http.post("/graphql").set("content-type", "application/json");
  if (key !== null) r = r.set("x-api-key", key);
  return r.send({ query, variables });
}
