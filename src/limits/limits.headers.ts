import type { LimitDecision } from "./limits.types";

/**
 * The RateLimit header fields of draft-ietf-httpapi-ratelimit-headers-10
 * (September 2025), Structured Field lists of named policies:
 *
 *   RateLimit-Policy: "minute";q=600;w=60, "day";q=100000;w=86400
 *   RateLimit: "minute";r=598;t=42, "day";r=99998;t=32400
 *
 * `q` quota and `w` window (seconds) per policy; `r` units remaining and `t`
 * seconds until units come back. Units are requests, except that a bulk call
 * costs one per security it names (README "Limits and hardening").
 */
export function rateLimitHeaders(decision: LimitDecision): Record<string, string> {
  return {
    "ratelimit-policy": policyHeader(decision),
    ratelimit: decision.policies.map((p) => `"${p.name}";r=${p.remaining};t=${p.resetSeconds}`).join(", "),
  };
}

/** The policy field only changes with the key's limits: built once per distinct set of policies. */
const policyFields = new Map<string, string>();

function policyHeader(decision: LimitDecision): string {
  const [a, b] = decision.policies;
  const key = decision.policies.length === 2 ? `${a!.quota}:${a!.windowSeconds}:${b!.quota}:${b!.windowSeconds}:${a!.name}:${b!.name}` : null;
  let field = key === null ? undefined : policyFields.get(key);
  if (field === undefined) {
    field = decision.policies.map((p) => `"${p.name}";q=${p.quota};w=${p.windowSeconds}`).join(", ");
    // Keys' limits are few; the bound only guards against a store full of distinct ones.
    if (key !== null && policyFields.size < 1_000) policyFields.set(key, field);
  }
  return field;
}
