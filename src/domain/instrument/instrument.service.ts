import { InvalidArgumentError, SymbolNotFoundError } from "../../platform/errors";
import { isValidCusip, isValidIsin, isValidWkn, SECURITY_IDENTIFIERS } from "./instrument.identifiers";
import type { RequestContext } from "../request.context";
import type { InstrumentRow, SecurityType } from "../ports/source.types";

/** One security as a client names it: by exactly one of these (docs/contract.md section 1). */
export interface SecurityRef {
  symbol?: string | null;
  isin?: string | null;
  cusip?: string | null;
  wkn?: string | null;
}

const CODES = {
  isin: { valid: isValidIsin, what: "ISIN (12 characters with a correct check digit)" },
  cusip: { valid: isValidCusip, what: "CUSIP (9 characters with a correct check digit)" },
  wkn: { valid: isValidWkn, what: "WKN (6 letters or digits, no I or O)" },
} as const;

/** The identifiers `ref` names, in the contract's order; empty strings name nothing. */
export function namedIdentifiers(ref: SecurityRef): (keyof SecurityRef)[] {
  return SECURITY_IDENTIFIERS.filter((k) => ref[k] != null && ref[k] !== "");
}

/**
 * Resolves what a client named (a symbol, ISIN, CUSIP or WKN) to a listing: a
 * code names the security's primary listing. Unknown identifiers are NOT_FOUND;
 * a malformed code, or more than one identifier at once, is INVALID_ARGUMENT,
 * so a client can tell a typo from a security we do not carry.
 */
export async function resolveInstrument(
  ctx: RequestContext,
  ref: SecurityRef,
  expected?: readonly SecurityType[],
): Promise<InstrumentRow> {
  const named = namedIdentifiers(ref);
  if (named.length === 0) {
    throw new InvalidArgumentError("symbol, isin, cusip or wkn is required", [{ field: "symbol", issue: "required" }]);
  }
  if (named.length > 1) {
    throw new InvalidArgumentError(
      `name the security by exactly one of symbol, isin, cusip or wkn (got ${named.join(" and ")})`,
      named.slice(1).map((field) => ({ field, issue: "more than one identifier" })),
    );
  }
  const kind = named[0]!;
  let row: InstrumentRow | null;
  let text: string;
  if (kind === "symbol") {
    text = ref.symbol!;
    row = await ctx.loaders.instrumentBySymbol.load(text);
  } else {
    text = ref[kind]!.trim().toUpperCase();
    if (!CODES[kind].valid(text)) {
      throw new InvalidArgumentError(`${kind}: ${JSON.stringify(ref[kind])} is not a valid ${CODES[kind].what}`, [
        { field: kind, issue: "malformed" },
      ]);
    }
    const loader =
      kind === "isin"
        ? ctx.loaders.instrumentByIsin
        : kind === "cusip"
          ? ctx.loaders.instrumentByCusip
          : ctx.loaders.instrumentByWkn;
    row = await loader.load(text);
  }
  if (!row) throw new SymbolNotFoundError(text);
  if (expected && !expected.includes(row.security.type)) {
    throw new SymbolNotFoundError(text, expected.join(" or "));
  }
  return row;
}
