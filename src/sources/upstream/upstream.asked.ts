import type { EtfFundamentals } from "../../domain/etf/etf.types";
import type { FundProfile } from "../../domain/fund/fund.types";
import type { UpstreamBody } from "./upstream.calls";
import type { UpstreamFetcher } from "./upstream.fetcher";

/**
 * What an upstream-made ETF, fund or stock was asked as: the GraphQL objects the answers hand out come back to
 * their field answers, which ask the upstream with the same identity (and read what came with it).
 */
export interface Asked {
  body: UpstreamBody;
  /** The ETF's fundamentals, fetched with its identity. */
  fundamentals?: EtfFundamentals | null;
  /** The fund's profile, fetched with its identity. */
  fundProfile?: Omit<FundProfile, "id"> | null;
}

const ASKED = new WeakMap<object, Asked>();

/** Notes what `o`, made from an upstream answer, was asked as. */
export function rememberAsked<T extends object>(o: T, asked: Asked): T {
  ASKED.set(o, asked);
  return o;
}

export function askedOf(o: object): Asked {
  const a = ASKED.get(o);
  // Only the upstream fetchers make the objects the answers receive back; anything else is a wiring fault.
  if (!a) throw new Error("gateway answers got an object they did not make");
  return a;
}

/** The fetcher of one keyed part (`sectorExposure`, …) of an upstream-made ETF's or fund's document. */
export function partFetcher<K extends string, T>(path: string, key: K): UpstreamFetcher<object, Record<K, T>, T> {
  return {
    path,
    kind: "reference",
    request: (o) => askedOf(o).body,
    transform: (d) => d[key],
  };
}
