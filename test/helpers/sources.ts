import {
  CAPABILITY_METHODS,
  type CapabilityName,
  type MarketDataSource,
} from "../../src/domain/ports/source.capabilities";
import type { InstrumentRow } from "../../src/domain/ports/source.types";

/**
 * The source as one that lacks `dropped`: they are not declared, their
 * methods are absent, and without `etfReference` the instrument rows carry no
 * ETF profile (only a source with ETF reference data fills it). Everything
 * else reads through to `source` (its `stats` included).
 */
export function withoutCapabilities<T extends MarketDataSource>(source: T, dropped: readonly CapabilityName[]): T {
  const out = Object.create(source) as T;
  const capabilities = new Set([...source.capabilities].filter((c) => !dropped.includes(c)));
  Object.defineProperty(out, "capabilities", { value: capabilities });
  for (const name of dropped) {
    for (const method of CAPABILITY_METHODS[name]) Object.defineProperty(out, method, { value: undefined });
  }
  if (dropped.includes("etfReference")) {
    const strip = (rows: (InstrumentRow | null)[]) => rows.map((r) => (r ? { ...r, etfProfile: undefined } : r));
    const bySymbols = source.getInstrumentsBySymbols!.bind(source);
    const byIsins = source.getInstrumentsByIsins!.bind(source);
    const stripped = (read: typeof bySymbols) => async (keys: readonly string[]) => strip(await read(keys));
    Object.defineProperty(out, "getInstrumentsBySymbols", { value: stripped(bySymbols) });
    Object.defineProperty(out, "getInstrumentsByIsins", { value: stripped(byIsins) });
    for (const name of ["getInstrumentsByCusips", "getInstrumentsByWkns"] as const) {
      Object.defineProperty(out, name, { value: stripped(source[name]!.bind(source)) });
    }
  }
  return out;
}

/**
 * The source as it is, except that every data lookup (`get…`) waits until `release` is called: a stuck store or
 * upstream, for what must answer before the data does (the request timeout). Other members read through.
 */
export function gatedSource<T extends MarketDataSource>(source: T): { source: T; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const gated = new Proxy(source, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof prop === "string" && prop.startsWith("get") && typeof v === "function") {
        return async (...args: unknown[]) => {
          await gate;
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { source: gated, release };
}

/** The primary symbol of the ETF with the most holdings: its etf/holdings answer is well over 1 KiB. */
export function largestEtfSymbol(db: { prepare(sql: string): { get(): unknown } }): string {
  const row = db
    .prepare(
      `SELECT l.symbol FROM etf_holdings h JOIN listings l ON l.security_id = h.etf_id AND l.is_primary = 1
       GROUP BY h.etf_id ORDER BY COUNT(*) DESC, l.symbol LIMIT 1`,
    )
    .get() as { symbol: string };
  return row.symbol;
}
