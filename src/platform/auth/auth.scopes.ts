import { ForbiddenError, InvalidArgumentError } from "../errors";
import { describeArgument } from "./auth.keys";

/**
 * What an API key may call. One scope per data domain, `bulk` for the bulk
 * endpoint (which also needs the scope of the endpoint it names), `portfolio`
 * for the portfolio analytics (which also need the scope of each held
 * security's type), and `*` for everything.
 */
export const SCOPES = ["crypto", "etf", "fund", "stock", "dividend", "search", "bulk", "portfolio", "*"] as const;

export type Scope = (typeof SCOPES)[number];

export const WILDCARD_SCOPE: Scope = "*";

const KNOWN = new Set<string>(SCOPES);

export function isScope(value: string): value is Scope {
  return KNOWN.has(value);
}

/**
 * Parses scopes given by a person (`"crypto,etf"`, `"crypto etf"` or a list),
 * dropping duplicates. Throws InvalidArgumentError naming every unknown scope,
 * or when none is given.
 */
export function parseScopes(input: string | readonly string[]): Scope[] {
  const tokens = (typeof input === "string" ? [input] : input)
    .flatMap((part) => part.split(/[\s,]+/))
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token.length > 0);
  const unknown = tokens.filter((token) => !isScope(token));
  if (unknown.length > 0) {
    const listed = unknown.map(describeArgument).join(", ");
    throw new InvalidArgumentError(
      `unknown scope${unknown.length > 1 ? "s" : ""} ${listed}; expected some of ${SCOPES.join(", ")}`,
      [{ field: "scopes", issue: "unknown" }],
    );
  }
  if (tokens.length === 0) {
    throw new InvalidArgumentError(`at least one scope is required; expected some of ${SCOPES.join(", ")}`, [
      { field: "scopes", issue: "required" },
    ]);
  }
  return [...new Set(tokens as Scope[])];
}

/**
 * Reads the scopes of a stored key. Unknown names (written by a newer
 * version, or by hand) are dropped rather than failing authentication: the
 * key then grants less, never more.
 */
export function scopesFromStore(stored: readonly string[]): ReadonlySet<Scope> {
  return new Set(stored.filter(isScope));
}

export function hasScope(granted: ReadonlySet<Scope>, needed: Scope): boolean {
  return granted.has(WILDCARD_SCOPE) || granted.has(needed);
}

/** Throws ForbiddenError naming the missing scope (never the key) unless `granted` covers `needed`. */
export function requireScope(granted: ReadonlySet<Scope>, needed: Scope): void {
  if (!hasScope(granted, needed)) {
    throw new ForbiddenError(`this API key lacks the "${needed}" scope`, [
      { field: "x-api-key", issue: `missing scope ${needed}` },
    ]);
  }
}

/** Throws ForbiddenError naming the scopes that would do unless `granted` covers one of `anyOf` (at least one). */
export function requireAnyScope(granted: ReadonlySet<Scope>, anyOf: readonly Scope[]): void {
  if (anyOf.length === 1) return requireScope(granted, anyOf[0]!);
  if (anyOf.some((needed) => hasScope(granted, needed))) return;
  const names = anyOf.map((s) => `"${s}"`).join(" or ");
  throw new ForbiddenError(`this API key lacks the ${names} scope`, [
    { field: "x-api-key", issue: `missing scope ${anyOf.join(" or ")}` },
  ]);
}
