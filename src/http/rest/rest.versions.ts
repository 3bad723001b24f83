import type { ApiVersion } from "./rest.route";

/** RFC 9745 / RFC 8594 headers every /v0 answer carries (docs/contract.md section 5). */
export const V0_DEPRECATION = "@1735689599";
export const V0_SUNSET = "Tue, 31 Dec 2024 23:59:59 GMT";

/**
 * `successor` is where a removed endpoint's replacement lives (`/v1/candle` for stock candles). Undefined for /v1,
 * which has none: no object per call on the hot path.
 */
export function versionHeaders(
  version: ApiVersion,
  path: string,
  successor?: string,
): Record<string, string> | undefined {
  if (version !== "v0") return undefined;
  return {
    deprecation: V0_DEPRECATION,
    sunset: V0_SUNSET,
    link: `<${successor ?? `/v1/${path}`}>; rel="successor-version"`,
  };
}

/** Whether an endpoint with a removal day is gone for this version at this instant. */
export function isRemoved(removedOn: string | undefined, version: ApiVersion, now: Date): boolean {
  if (!removedOn) return false;
  // /v1 never had the removed endpoints; /v0 keeps them through the removal day itself.
  if (version === "v1") return true;
  return now.toISOString().slice(0, 10) > removedOn;
}
