import { UnauthenticatedError } from "../errors";
import type { Context } from "../../context";
import type { SecurityType } from "../../sources/data-source";
import { hasScope as granted, requireScope as require_, type Scope } from "./auth.scopes";

/** The scope a key needs to read data of a security type (forex rides with stocks: plain market data). */
export const SCOPE_OF_TYPE: Record<SecurityType, Scope> = {
  stock: "stock",
  forex: "stock",
  etf: "etf",
  fund: "fund",
  crypto: "crypto",
};

export function hasScope(ctx: Context, scope: Scope): boolean {
  return !!ctx.principal && granted(ctx.principal.scopes, scope);
}

/** Throws UNAUTHENTICATED without a principal, FORBIDDEN without the scope. */
export function requireScope(ctx: Context, scope: Scope): void {
  if (!ctx.principal) throw new UnauthenticatedError();
  require_(ctx.principal.scopes, scope);
}
