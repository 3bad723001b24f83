import { InvalidArgumentError, SymbolNotFoundError } from "../../platform/errors";
import { isValidIsin } from "./instrument.identifiers";
import type { Context } from "../../context";
import type { InstrumentRow, SecurityType } from "../../sources/data-source";

export interface SecurityRef {
  symbol?: string | null;
  isin?: string | null;
}

/**
 * Resolves what a client named (a symbol or an ISIN) to a listing. Unknown
 * identifiers are NOT_FOUND; a malformed ISIN is INVALID_ARGUMENT, so a
 * client can tell a typo from a security we do not carry.
 */
export async function resolveInstrument(
  ctx: Context,
  ref: SecurityRef,
  expected?: readonly SecurityType[],
): Promise<InstrumentRow> {
  let row: InstrumentRow | null;
  let named: string;
  if (ref.symbol != null && ref.symbol !== "") {
    named = ref.symbol;
    row = await ctx.loaders.instrumentBySymbol.load(ref.symbol);
  } else if (ref.isin != null && ref.isin !== "") {
    named = ref.isin.trim().toUpperCase();
    if (!isValidIsin(named)) {
      throw new InvalidArgumentError(
        `isin: ${JSON.stringify(ref.isin)} is not a valid ISIN (12 characters with a correct check digit)`,
        [{ field: "isin", issue: "malformed" }],
      );
    }
    row = await ctx.loaders.instrumentByIsin.load(named);
  } else {
    throw new InvalidArgumentError("symbol or isin is required", [{ field: "symbol", issue: "required" }]);
  }
  if (!row) throw new SymbolNotFoundError(named);
  if (expected && !expected.includes(row.security.type)) {
    throw new SymbolNotFoundError(named, expected.join(" or "));
  }
  return row;
}
