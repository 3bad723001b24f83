import type { ApolloServerPlugin } from "@apollo/server";
import type { Context } from "../../context";
import { staleHeaders } from "../rest/rest.router";

/**
 * Gateway mode's stale mark on GraphQL (docs/contract.md section 9): when any field of the operation was answered
 * from the cache after the upstream failed, the response carries `extensions.stale: true` and
 * `extensions.staleAgeSeconds` (the oldest part's age), and the same headers as REST. Nothing otherwise.
 */
export function staleExtensionsPlugin(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, contextValue }) {
          const age = contextValue.freshness.staleAgeSeconds;
          if (age === null) return;
          for (const [name, value] of Object.entries(staleHeaders(age))) response.http.headers.set(name, value);
          if (response.body.kind !== "single") return;
          const result = response.body.singleResult;
          result.extensions = { ...result.extensions, stale: true, staleAgeSeconds: age };
        },
      };
    },
  };
}
