import { UnauthenticatedError } from "../../platform/errors";
import type { RequestContext } from "../request.context";
import type { SecurityType } from "../ports/source.types";
import {
  hasScope as granted,
  requireAnyScope,
  requireScope as require_,
  type Scope,
} from "../../platform/auth/auth.scopes";

/** The scope a key needs to read data of a security type (forex rides with stocks: plain market data). */
export const SCOPE_OF_TYPE: Record<SecurityType, Scope> = {
  stock: "stock",
  forex: "stock",
  etf: "etf",
  fund: "fund",
  crypto: "crypto",
};

export function hasScope(ctx: RequestContext, scope: Scope): boolean {
  return !!ctx.principal && granted(ctx.principal.scopes, scope);
}

/** Throws UNAUTHENTICATED without a principal, FORBIDDEN without the scope. */
export function requireScope(ctx: RequestContext, scope: Scope): void {
  if (!ctx.principal) throw new UnauthenticatedError();
  require_(ctx.principal.scopes, scope);
}

/**
 * The guard of a GraphQL field whose answer's security type decides the scope (`quote`, `quotes`, `candle`): the
 * schema lets any valid key in, and the service requires `SCOPE_OF_TYPE` of the row it found. Named rather than left
 * as `@Authorized()`, so the contract's table of scopes (graphql.scopes.ts) can say so.
 */
export const BY_SECURITY_TYPE = "by-security-type";

/** What a GraphQL field's `@Authorized(...)` may name: scopes, any one of which will do, or BY_SECURITY_TYPE. */
export type FieldGuard = Scope | typeof BY_SECURITY_TYPE;

/** Throws UNAUTHENTICATED without a principal, FORBIDDEN unless the key has one of `guards` (none: any valid key). */
export function requireFieldGuard(ctx: RequestContext, guards: readonly FieldGuard[]): void {
  if (!ctx.principal) throw new UnauthenticatedError();
  if (guards.length === 0 || guards.includes(BY_SECURITY_TYPE)) return;
  requireAnyScope(ctx.principal.scopes, guards as readonly Scope[]);
}
