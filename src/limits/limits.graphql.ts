import { HeaderMap, type GraphQLRequestContext } from "@apollo/server";
import { GraphQLError, Kind, type FragmentDefinitionNode } from "graphql";
import { QuotaExceededError } from "../common/errors";
import type { Context } from "../context";
import { graphqlCost } from "./limits.cost";
import type { RateLimiter } from "./limits.service";

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
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of rc.document?.definitions ?? []) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    const cost = graphqlCost(rc.operation, fragments, rc.request.variables ?? {});
    const headers = rc.response.http.headers;
    try {
      await limiter.charge(principal, cost, { setHeader: (name, value) => headers.set(name, value) });
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
