import type { ApolloServerPlugin } from "@apollo/server";
import type { Context } from "../http.context";
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
          markStale(
            contextValue,
            response.http.headers,
            response.body.kind === "single" ? response.body.singleResult : null,
          );
        },
      };
    },
  };
}

/**
 * The plugin's work on one answer, also called directly by the fast path's direct form (graphql.fast-path.ts): the
 * headers on `headers` and the extensions on `result` (when the answer is a single result) if the context says stale.
 */
export function markStale(
  context: Context,
  headers: { set(name: string, value: string): unknown },
  result: { extensions?: Record<string, unknown> } | null,
): void {
  const age = context.freshness.staleAgeSeconds;
  if (age === null) return;
  for (const [name, value] of Object.entries(staleHeaders(age))) headers.set(name, value);
  if (result) result.extensions = { ...result.extensions, stale: true, staleAgeSeconds: age };
}
