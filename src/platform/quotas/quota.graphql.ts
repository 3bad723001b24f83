import { HeaderMap, type ApolloServerPlugin, type GraphQLRequest, type GraphQLRequestContext } from "@apollo/server";
import { GraphQLError, type FragmentDefinitionNode, type GraphQLFormattedError } from "graphql";
import { QuotaExceededError } from "../errors";
import type { Context } from "../../context";
import { fragmentsOf, graphqlRootCosts, type RootFieldCost } from "./quota.cost";
import type { RateLimiter } from "./quota.service";
import type { LimitDecision } from "./quota.types";

/** What an operation was charged, kept until its answer is known (see `refundRefusedGraphqlFields`). */
const charges = new WeakMap<GraphQLRequest, { decision: LimitDecision; roots: Map<string, RootFieldCost> }>();

/**
 * The per-key rate and quota on /graphql: after the operation passed the
 * GraphQL limits and before it runs. Anonymous operations are not counted
 * (their fields answer UNAUTHENTICATED without running anything). A spent
 * key gets HTTP 403 with `extensions.code` FORBIDDEN, `reason`
 * QUOTA_EXCEEDED, `Retry-After` and the RateLimit headers; the headers also
 * ride on every counted answer.
 */
export function chargeGraphqlOperation(limiter: RateLimiter) {
  return async (rc: GraphQLRequestContext<Context>): Promise<void> => {
    const principal = rc.contextValue.principal;
    if (!principal || !rc.operation) return;
    const fragments = rc.document ? fragmentsOf(rc.document) : new Map<string, FragmentDefinitionNode>();
    const roots = graphqlRootCosts(rc.operation, fragments, rc.request.variables ?? {});
    let units = 0;
    for (const root of roots.values()) units += root.units;
    const headers = rc.response.http.headers;
    try {
      const sink = { setHeader: (name: string, value: string) => headers.set(name, value) };
      const decision = await limiter.charge(principal, Math.max(1, units), sink);
      charges.set(rc.request, { decision, roots });
    } catch (e) {
      if (!(e instanceof QuotaExceededError)) throw e;
      throw new GraphQLError(e.message, {
        extensions: {
          code: "FORBIDDEN",
          reason: "QUOTA_EXCEEDED",
          http: { status: 403, headers: new HeaderMap([["retry-after", String(e.retryAfterSeconds)]]) },
        },
      });
    }
  };
}

/**
 * A refused call counts nothing, on /graphql too: a root field refused for a missing scope (also one known only
 * once the security was looked up, as `quote`'s) gives its units back, and an item of `quotes(symbols)`,
 * `etfs(symbols)` or `funds(isins)` refused alone gives back its one. The RateLimit fields of the answer then say
 * what stays counted (none when nothing does).
 */
export function refundRefusedGraphqlFields(limiter: RateLimiter): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse(rc) {
          const charge = charges.get(rc.request);
          if (!charge || rc.response.body.kind !== "single") return;
          charges.delete(rc.request);
          const units = refusedUnits(rc.response.body.singleResult.errors ?? [], charge.roots);
          if (units === 0) return;
          const headers = rc.response.http.headers;
          await limiter.giveBack(charge.decision, units, {
            setHeader: (name, value) => headers.set(name, value),
            removeHeader: (name) => headers.delete(name),
          });
        },
      };
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
