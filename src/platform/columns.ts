/**
 * One number of each element, as a column. `Float64Array.from(list, pick)` does the same through the iterator
 * protocol, at about ten times the cost: 40-70 ms against 5 ms for the six columns of 50 ten-year daily series.
 */
export function floatColumn<T>(list: ArrayLike<T>, pick: (x: T) => number): Float64Array {
  const out = new Float64Array(list.length);
  for (let i = 0; i < list.length; i++) out[i] = pick(list[i]!);
  return out;
}
