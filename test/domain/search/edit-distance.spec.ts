import { editDistance } from "../../../src/domain/search/search.names";

/** A small deterministic generator: the same pairs on every run. */
function* pairs(count: number): Generator<[string, string]> {
  let s = 7;
  const next = (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
  const word = (len: number) => Array.from({ length: len }, () => "abcd"[next(4)]).join("");
  // Words up to 13 letters: long enough for the band to matter.
  for (let k = 0; k < count; k++) {
    const a = word(1 + next(13));
    if (k % 3 === 0) yield [a, word(1 + next(13))];
    else {
      // Near misses: a few edits of `a`.
      let b = a;
      for (let e = next(4); e > 0; e--) {
        const at = next(b.length + 1);
        b = b.slice(0, at) + word(next(2)) + b.slice(at + next(2));
      }
      yield [a, b];
    }
  }
}

/** The plain full-table distance, as a reference. */
function reference(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

describe("editDistance", () => {
  it.each([1, 2, 3])("answers min(distance, max + 1) for max %i, as the full table does", (max) => {
    for (const [a, b] of pairs(20_000)) {
      const got = editDistance(a, b, max);
      const want = Math.min(reference(a, b), max + 1);
      if (got !== want) expect({ a, b, max, got }).toEqual({ a, b, max, got: want });
    }
  });

  it("counts an adjacent transposition as one edit", () => {
    expect(editDistance("apple", "aplpe", 1)).toBe(1);
    expect(editDistance("apple", "apple", 1)).toBe(0);
    expect(editDistance("apple", "apply", 1)).toBe(1);
    expect(editDistance("apple", "appl", 1)).toBe(1);
    expect(editDistance("apple", "paple", 1)).toBe(1);
    expect(editDistance("apple", "palpe", 1)).toBe(2);
  });
});
