import type { IndexDef, Stock } from "./sample.model";
import { allocateWeightUnits } from "../../sources/sample/sample.numbers";

/** Market-cap weighted indices over the generated stocks (weights sum to 100). */

const EURO_EXCHANGES = new Set(["XETR", "XFRA", "XPAR", "XAMS"]);
const US_EXCHANGES = new Set(["XNAS", "XNYS"]);

function index(symbol: string, name: string, members: readonly Stock[]): IndexDef {
  const units = allocateWeightUnits(members.map((s) => s.valueUsd));
  const rows = members.map((s, i) => ({ securityId: s.id, weightUnits: units[i] as number }));
  rows.sort((a, b) => a.securityId - b.securityId);
  return { symbol, name, members: rows };
}

/** Indices in primary-key order (symbol). */
export function buildIndices(stocks: readonly Stock[]): IndexDef[] {
  const bySize = stocks
    .filter((s) => !s.recentIpo && !s.upcomingIpo)
    .slice()
    .sort((a, b) => b.valueUsd - a.valueUsd);
  const primaryExchange = (s: Stock) => s.listings[0]?.exchange ?? "";
  const us = bySize.filter((s) => s.country === "US" && US_EXCHANGES.has(primaryExchange(s))).slice(0, 100);
  const euro = bySize.filter((s) => EURO_EXCHANGES.has(primaryExchange(s))).slice(0, 50);
  const world = bySize.slice(0, 500);
  return [
    index("MDG100", "MDG 100", us),
    index("MDGEU50", "MDG Euro 50", euro),
    index("MDGWORLD", "MDG World 500", world),
  ].sort((a, b) => (a.symbol < b.symbol ? -1 : 1));
}
