import { HeaderMap } from "@apollo/server";
import { GraphQLError, type DocumentNode, type GraphQLFormattedError, type OperationDefinitionNode } from "graphql";
import type { Principal } from "../../platform/auth/auth.types";
import { QuotaExceededError } from "../../platform/errors";
import { fragmentsOf, graphqlRootCosts, rootCostsVary, type RootFieldCost } from "../../platform/quotas/quota.cost";
import type { HeaderSink, RateLimiter } from "../../platform/quotas/quota.service";
import type { LimitDecision } from "../../platform/quotas/quota.types";
import type { GraphqlStage } from "./graphql.pipeline";

/** What an operation was charged, kept until its answer is known (see `refundGraphqlCharge`). */
export interface GraphqlCharge {
  decision: LimitDecision;
  roots: ReadonlyMap<string, RootFieldCost>;
}

/**
 * The root fields' units of operations that no variable changes, walked once per parsed operation (the same parsed
 * document serves every request with the same text); null for an operation whose units depend on its variables.
 */
const fixedRoots = new WeakMap<OperationDefinitionNode, ReadonlyMap<string, RootFieldCost> | null>();

function rootCostsOf(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): ReadonlyMap<string, RootFieldCost> {
  const known = fixedRoots.get(operation);
  if (known) return known;
  const fragments = fragmentsOf(document);
  const roots = graphqlRootCosts(operation, fragments, variables);
  if (known === undefined) fixedRoots.set(operation, rootCostsVary(operation, fragments) ? null : roots);
  return roots;
}

/**
 * Charges one operation of a key against its rate and quota, the RateLimit headers put on `headers`; a spent key
 * throws the GraphQL refusal (HTTP 403, `extensions.code` FORBIDDEN, `reason` QUOTA_EXCEEDED, `Retry-After`).
 */
export function chargeGraphql(
  limiter: RateLimiter,
  principal: Principal,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
  headers: HeaderSink,
): GraphqlCharge | Promise<GraphqlCharge> {
  const roots = rootCostsOf(document, operation, variables ?? {});
  let units = 0;
  for (const root of roots.values()) units += root.units;
  let decision: LimitDecision | Promise<LimitDecision>;
  try {
    // Without a promise when the count needs none (no Redis): the pipeline then awaits nothing for it.
    decision = limiter.chargeNow(principal, Math.max(1, units), headers);
  } catch (e) {
    throw refusal(e);
  }
  if (!(decision instanceof Promise)) return { decision, roots };
  return decision.then(
    (counted) => ({ decision: counted, roots }),
    (e: unknown) => {
      throw refusal(e);
    },
  );
}

/** A spent key's QuotaExceededError as the GraphQL error Apollo answers (403); anything else as it is. */
function refusal(e: unknown): unknown {
  if (!(e instanceof QuotaExceededError)) return e;
  return new GraphQLError(e.message, {
    extensions: {
      code: "FORBIDDEN",
      reason: "QUOTA_EXCEEDED",
      http: { status: 403, headers: new HeaderMap([["retry-after", String(e.retryAfterSeconds)]]) },
    },
  });
}

/**
 * A refused call counts nothing, on /graphql too: a root field refused for a missing scope (also one known only
 * once the security was looked up, as `quote`'s) gives its units back, and an item of `quotes(symbols)`,
 * `etfs(symbols)` or `funds(isins)` refused alone gives back its one. The RateLimit fields of the answer then say
 * what stays counted (none when nothing does). Nothing to do (and no promise) for an answer without errors.
 */
export function refundGraphqlCharge(
  limiter: RateLimiter,
  charge: GraphqlCharge,
  errors: readonly GraphQLFormattedError[] | undefined,
  headers: Required<HeaderSink>,
): Promise<void> | undefined {
  if (!errors) return undefined;
  const units = refusedUnits(errors, charge.roots);
  if (units === 0) return undefined;
  return limiter.giveBack(charge.decision, units, headers);
}

/**
 * The per-key rate and quota on /graphql, as a stage of every request: after the operation passed the GraphQL
 * limits and before it runs (a request without a valid key never gets this far: it is answered 401 before its
 * document is read). A spent key gets HTTP 403 with `extensions.code` FORBIDDEN, `reason` QUOTA_EXCEEDED,
 * `Retry-After` and the RateLimit headers; the headers also ride on every counted answer. Once the answer is known,
 * the units of fields refused for their scope are given back (`refundGraphqlCharge`).
 */
export function quotaStage(limiter: RateLimiter): GraphqlStage<GraphqlCharge> {
  return {
    willExecute({ document, operation, variables, context }, head) {
      const principal = context.principal;
      return principal ? chargeGraphql(limiter, principal, document, operation, variables, head) : undefined;
    },
    didAnswer(charge, { result }, head) {
      if (!charge || !result) return undefined;
      return refundGraphqlCharge(limiter, charge, result.errors, head);
    },
  };
}

function refusedUnits(errors: readonly GraphQLFormattedError[], roots: ReadonlyMap<string, RootFieldCost>): number {
  const whole = new Set<string>();
  const items = new Map<string, Set<number>>();
  for (const e of errors) {
    if (e.extensions?.reason !== "FORBIDDEN") continue;
    const [key, index] = e.path ?? [];
    if (typeof key !== "string" || !roots.has(key)) continue;
    if (e.path!.length === 1) whole.add(key);
    else if (roots.get(key)!.perItem && typeof index === "number" && e.path!.length === 2) {
      const seen = items.get(key) ?? new Set<number>();
      items.set(key, seen.add(index));
    }
  }
  let units = 0;
  for (const [key, root] of roots) {
    if (whole.has(key)) units += root.units;
    else units += Math.min(root.units, items.get(key)?.size ?? 0);
  }
  return units;
}
