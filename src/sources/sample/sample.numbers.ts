/** Small numeric helpers shared by the generators. */

/** Weights are integers in units of 0.0001 %, so sums are exact. */
export const WEIGHT_UNITS_TOTAL = 1_000_000;

export function roundTo(x: number, decimals: number): number {
  const m = 10 ** decimals;
  return Math.round(x * m) / m;
}

/**
 * Decimals that keep at least three significant digits for prices down to
 * `minPrice`, never fewer than `base` (2 for most currencies, 0 for yen).
 */
export function priceDecimals(minPrice: number, base: number): number {
  if (!(minPrice > 0)) return Math.max(base, 8);
  return Math.min(12, Math.max(base, 3 - Math.floor(Math.log10(minPrice))));
}

/** What an instrument trades as, for its tick. */
export type TickKind = "equity" | "crypto" | "fx";

/**
 * Decimals of an instrument's tick, given the lowest price it trades at:
 * equities, ETFs and fund NAVs trade in cents (`base`: 2, or 0 for yen) and
 * below one unit in hundredths of a cent; forex in five decimals, fewer for
 * rates of a hundred and more (USDJPY in three); crypto pairs keep three
 * significant digits, as exchanges size their ticks to the price.
 */
export function tickDecimals(kind: TickKind, minPrice: number, base: number): number {
  if (kind === "crypto") return priceDecimals(minPrice, base);
  if (kind === "fx") return minPrice > 0 ? Math.min(5, Math.max(0, 5 - Math.floor(Math.log10(minPrice)))) : 5;
  return minPrice >= 1 ? base : Math.max(base, 4);
}

/** An equity's (or ETF's, or fund NAV's) price on its tick. */
export function roundPrice(price: number, base: number): number {
  return roundTo(price, tickDecimals("equity", price, base));
}

/**
 * Splits 100 % (1,000,000 units) in proportion to `raw`, each weight at least
 * one unit, and puts the rounding remainder on the largest so the total is
 * exact.
 */
export function allocateWeightUnits(raw: readonly number[]): number[] {
  const n = raw.length;
  if (n === 0) return [];
  let total = 0;
  for (const x of raw) total += x;
  const out = raw.map((x) => Math.max(1, Math.round((x / total) * WEIGHT_UNITS_TOTAL)));
  let sum = 0;
  let largest = 0;
  for (let i = 0; i < n; i++) {
    sum += out[i] as number;
    if ((out[i] as number) > (out[largest] as number)) largest = i;
  }
  out[largest] = (out[largest] as number) + (WEIGHT_UNITS_TOTAL - sum);
  return out;
}

/** Percent value of weight units, e.g. 123456 -> 12.3456. */
export function unitsToPercent(units: number): number {
  return units / 10_000;
}

/** Piecewise-linear interpolation through (x, y) knots sorted by x. */
export function interpolate(knots: readonly (readonly [number, number])[], x: number): number {
  const first = knots[0] as readonly [number, number];
  if (x <= first[0]) return first[1];
  for (let i = 1; i < knots.length; i++) {
    const [x1, y1] = knots[i] as readonly [number, number];
    const [x0, y0] = knots[i - 1] as readonly [number, number];
    if (x <= x1) return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
  }
  return (knots[knots.length - 1] as readonly [number, number])[1];
}
