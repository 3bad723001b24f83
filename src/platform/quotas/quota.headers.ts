import type { LimitDecision } from "./quota.types";

/**
 * The RateLimit header fields of draft-ietf-httpapi-ratelimit-headers-10
 * (September 2025), Structured Field lists of named policies:
 *
 *   RateLimit-Policy: "minute";q=600;w=60, "day";q=100000;w=86400
 *   RateLimit: "minute";r=598;t=42, "day";r=99998;t=32400
 *
 * `q` quota and `w` window (seconds) per policy; `r` units remaining and `t`
 * seconds until units come back. Units are requests, except that a bulk call
 * costs one per security it names (docs/operations.md "Limits and hardening").
 */
export function rateLimitHeaders(decision: LimitDecision): Record<string, string> {
  return { "ratelimit-policy": rateLimitPolicyHeader(decision), ratelimit: rateLimitHeader(decision) };
}

/** `RateLimit-Policy`: each policy's quota and window. */
export function rateLimitPolicyHeader(decision: LimitDecision): string {
  // A loop of concatenations: on the hot path, a map and a join per call cost more than the header.
  let out = "";
  for (const p of decision.policies) out += `${out === "" ? "" : ", "}"${p.name}";q=${p.quota};w=${p.windowSeconds}`;
  return out;
}

/** `RateLimit`: what is left of each policy and when it comes back. */
export function rateLimitHeader(decision: LimitDecision): string {
  let out = "";
  for (const p of decision.policies) out += `${out === "" ? "" : ", "}"${p.name}";r=${p.remaining};t=${p.resetSeconds}`;
  return out;
}
