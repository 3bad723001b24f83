import type { Context } from "../http.context";
import { staleHeaders } from "../rest/rest.router";
import type { AnswerHead, GraphqlStage } from "./graphql.pipeline";

/**
 * Gateway mode's stale mark on GraphQL (docs/contract.md section 9), as a stage of every request: when any field of
 * the operation was answered from the cache after the upstream failed, the response carries `extensions.stale: true`
 * and `extensions.staleAgeSeconds` (the oldest part's age), and the same headers as REST. Nothing otherwise.
 */
export function staleStage(): GraphqlStage {
  return {
    didAnswer(_state, { context, result }, head) {
      markStale(context, head, result);
    },
  };
}

/** The stale headers on `head`, and the extensions on `result` (a single result), if the context says stale. */
export function markStale(
  context: Context,
  head: AnswerHead,
  result: { extensions?: Record<string, unknown> } | null,
): void {
  const age = context.freshness.staleAgeSeconds;
  if (age === null) return;
  for (const [name, value] of Object.entries(staleHeaders(age))) head.setHeader(name, value);
  if (result) result.extensions = { ...result.extensions, stale: true, staleAgeSeconds: age };
}
