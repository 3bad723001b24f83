/**
 * A compact inverted index over security names with prefix and typo-tolerant
 * term matching. General-purpose engines keep a Map per term; with ~90,000
 * distinct words in 100,000 names that alone costs over 100 MB of heap, so
 * this one keeps its postings in flat typed arrays (a few MB) instead.
 *
 * Terms match a query word three ways: exactly, as a prefix (the last word of
 * the query, as the user is still typing it), or within a small edit distance
 * (found through shared trigrams, then confirmed by Damerau-Levenshtein).
 */

export const foldTerm = (raw: string): string =>
  raw
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9&]/g, "");

export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const w of text.split(/[\s\-/.,()]+/)) {
    const t = foldTerm(w);
    if (t.length > 0) out.push(t);
  }
  return out;
}

const EXACT = 1;
const PREFIX = 0.75;
const FUZZY_1 = 0.6;
const FUZZY_2 = 0.4;
/** A prefix of one or two letters would match half the vocabulary: only whole words that short. */
const MIN_PREFIX = 2;
const MAX_PREFIX_TERMS = 400;

function trigramsOf(term: string): string[] {
  const padded = `^${term}$`;
  const out: string[] = [];
  for (let i = 0; i + 3 <= padded.length; i++) out.push(padded.slice(i, i + 3));
  return out;
}

const rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/**
 * Optimal string alignment distance when it is at most `max`, else `max + 1`.
 * Only the band of cells within `max` of the diagonal can hold such a
 * distance, so only those are computed.
 */
export function editDistance(a: string, b: string, max: number): number {
  const far = max + 1;
  if (Math.abs(a.length - b.length) > max) return far;
  // Most fuzzy lookups allow one edit: a linear scan answers that without the table.
  if (max === 1) return withinOneEdit(a, b);
  const n = b.length;
  if (n + 2 > rows[0]!.length) for (let r = 0; r < 3; r++) rows[r] = new Int32Array(n + 2);
  let prev2 = rows[0]!;
  let prev = rows[1]!;
  let cur = rows[2]!;
  for (let j = 0; j <= n; j++) prev[j] = j <= max ? j : far;
  for (let i = 1; i <= a.length; i++) {
    const lo = Math.max(1, i - max);
    const hi = Math.min(n, i + max);
    cur[lo - 1] = lo === 1 ? Math.min(i, far) : far;
    let rowMin = cur[lo - 1]!;
    const ai = a.charCodeAt(i - 1);
    for (let j = lo; j <= hi; j++) {
      const bj = b.charCodeAt(j - 1);
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj)
        v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    // The cell right of the band is read by the next row: outside the band means "too far".
    if (hi < n) cur[hi + 1] = far;
    if (rowMin > max) return far;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return Math.min(prev[n]!, far);
}

/**
 * `editDistance(a, b, 1)` in one pass: 0, 1 (one substitution, insertion, deletion or adjacent transposition) or 2
 * (more).
 */
function withinOneEdit(a: string, b: string): number {
  if (a === b) return 0;
  const long = a.length >= b.length ? a : b;
  const short = long === a ? b : a;
  if (long.length - short.length > 1) return 2;
  let i = 0;
  while (i < short.length && long.charCodeAt(i) === short.charCodeAt(i)) i++;
  const same = (x: string, xi: number, y: string, yi: number) => {
    for (; xi < x.length; xi++, yi++) if (x.charCodeAt(xi) !== y.charCodeAt(yi)) return false;
    return yi === y.length;
  };
  if (long.length !== short.length) return same(long, i + 1, short, i) ? 1 : 2;
  if (same(a, i + 1, b, i + 1)) return 1;
  const swapped =
    i + 1 < a.length && a.charCodeAt(i) === b.charCodeAt(i + 1) && a.charCodeAt(i + 1) === b.charCodeAt(i);
  return swapped && same(a, i + 2, b, i + 2) ? 1 : 2;
}

/** Compressed sparse rows: the ids of row r are values[offsets[r] .. offsets[r + 1]). */
interface Csr {
  offsets: Int32Array;
  values: Int32Array;
}

/** Transposes a CSR (rows → columns), with `columns` rows in the result. */
function transpose(m: Csr, columns: number): Csr {
  const offsets = new Int32Array(columns + 1);
  for (let k = 0; k < m.values.length; k++) offsets[m.values[k]! + 1]!++;
  for (let c = 0; c < columns; c++) offsets[c + 1]! += offsets[c]!;
  const fill = offsets.slice(0, columns);
  const values = new Int32Array(m.values.length);
  for (let r = 0; r + 1 < m.offsets.length; r++) {
    for (let k = m.offsets[r]!; k < m.offsets[r + 1]!; k++) values[fill[m.values[k]!]!++] = r;
  }
  return { offsets, values };
}

/** Appends ints without a JS array per row (the index is built from 100,000+ rows at start). */
class IntBuffer {
  private data = new Int32Array(1 << 16);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }
  toArray(): Int32Array {
    return this.data.slice(0, this.length);
  }
}

export interface NameMatch {
  doc: number;
  score: number;
}

export class NameIndex {
  /** Distinct terms, sorted, so prefixes are a contiguous range. */
  private readonly terms: string[];
  private readonly postings: Csr;
  private readonly docTerms: Csr;
  private readonly trigramIds: Map<string, number>;
  /** The terms of each trigram, shortest first: a fuzzy lookup reads only the run of terms of a near length. */
  private readonly trigramTerms: Csr;
  /** Length of each term (capped at 255). */
  private readonly termLengths: Uint8Array;
  /** Scratch letter counts of the query word, for the bag distance. */
  private readonly letterCounts = new Int16Array(128);
  /** Scratch counter per term for the fuzzy lookup; search is synchronous, so one is enough. */
  private readonly shared: Uint16Array;

  constructor(names: readonly string[]) {
    // Pass 1: every distinct term, sorted so prefixes form a contiguous range.
    const termOf = new Map<string, number>();
    for (const n of names) for (const t of tokenize(n)) termOf.set(t, 0);
    this.terms = [...termOf.keys()].sort();
    this.terms.forEach((t, i) => termOf.set(t, i));

    // Pass 2: the terms of each name (deduplicated), then their transpose, the postings.
    const docOffsets = new Int32Array(names.length + 1);
    const docValues = new IntBuffer();
    const seen = new Set<number>();
    names.forEach((n, d) => {
      seen.clear();
      for (const t of tokenize(n)) {
        const id = termOf.get(t)!;
        if (!seen.has(id)) {
          seen.add(id);
          docValues.push(id);
        }
      }
      docOffsets[d + 1] = docValues.length;
    });
    this.docTerms = { offsets: docOffsets, values: docValues.toArray() };
    this.postings = transpose(this.docTerms, this.terms.length);

    // Trigrams of each term, for finding terms within an edit distance.
    this.trigramIds = new Map();
    const termGramOffsets = new Int32Array(this.terms.length + 1);
    const termGrams = new IntBuffer();
    this.terms.forEach((t, i) => {
      for (const tri of new Set(trigramsOf(t))) {
        let id = this.trigramIds.get(tri);
        if (id === undefined) this.trigramIds.set(tri, (id = this.trigramIds.size));
        termGrams.push(id);
      }
      termGramOffsets[i + 1] = termGrams.length;
    });
    this.trigramTerms = transpose({ offsets: termGramOffsets, values: termGrams.toArray() }, this.trigramIds.size);
    const lengths = (this.termLengths = Uint8Array.from(this.terms, (t) => Math.min(255, t.length)));
    const { offsets, values } = this.trigramTerms;
    for (let g = 0; g + 1 < offsets.length; g++)
      values.subarray(offsets[g]!, offsets[g + 1]!).sort((a, b) => lengths[a]! - lengths[b]! || a - b);
    this.shared = new Uint16Array(this.terms.length);
  }

  get termCount(): number {
    return this.terms.length;
  }

  /** Term ids that a query word matches, with how well. */
  private matchTerms(word: string, allowPrefix: boolean): Map<number, number> {
    const out = new Map<number, number>();
    const put = (id: number, w: number) => {
      if ((out.get(id) ?? 0) < w) out.set(id, w);
    };
    const lo = lowerBound(this.terms, word);
    if (this.terms[lo] === word) put(lo, EXACT);
    if (allowPrefix && word.length >= MIN_PREFIX) {
      for (
        let i = lo, k = 0;
        i < this.terms.length && this.terms[i]!.startsWith(word) && k < MAX_PREFIX_TERMS;
        i++, k++
      )
        put(i, PREFIX);
    }
    // One typo in a word of 4 to 8 letters, two in a longer one; none for a word that is itself a term (typo
    // tolerance is for words that are not found: a word that is found would only gain lower-ranked neighbours).
    const maxDist = this.terms[lo] === word ? 0 : word.length >= 9 ? 2 : word.length >= 4 ? 1 : 0;
    if (maxDist > 0) {
      const grams = [...new Set(trigramsOf(word))];
      const touched: number[] = [];
      // Only terms within maxDist letters of the word can be within maxDist edits: skip to that run of each posting
      // list.
      const minLength = word.length - maxDist;
      const maxLength = word.length + maxDist;
      const { offsets, values } = this.trigramTerms;
      const lengths = this.termLengths;
      for (const gram of grams) {
        const id = this.trigramIds.get(gram);
        if (id === undefined) continue;
        const end = offsets[id + 1]!;
        let from = offsets[id]!;
        let to = end;
        while (from < to) {
          const mid = (from + to) >>> 1;
          if (lengths[values[mid]!]! < minLength) from = mid + 1;
          else to = mid;
        }
        for (let k = from; k < end && lengths[values[k]!]! <= maxLength; k++) {
          const t = values[k]!;
          if (this.shared[t]++ === 0) touched.push(t);
        }
      }
      const counts = this.letterCounts;
      for (let i = 0; i < word.length; i++) counts[word.charCodeAt(i) & 127]++;
      for (const t of touched) {
        const term = this.terms[t]!;
        // A word of L letters has L padded trigrams; an edit destroys at most three, a transposition four.
        const need = Math.max(word.length, term.length) - 4 * maxDist;
        if (
          this.shared[t]! >= need &&
          Math.abs(term.length - word.length) <= maxDist &&
          !out.has(t) &&
          bagDistance(counts, word.length, term) <= maxDist
        ) {
          const d = editDistance(word, term, maxDist);
          if (d <= maxDist) put(t, d === 1 ? FUZZY_1 : FUZZY_2);
        }
        this.shared[t] = 0;
      }
      for (let i = 0; i < word.length; i++) counts[word.charCodeAt(i) & 127] = 0;
    }
    return out;
  }

  /**
   * Documents matching every word of the query (each word by its best term),
   * or, when no document matches them all, any of them. Scores add up the
   * match quality of each word.
   */
  search(query: string, max: number): NameMatch[] {
    const words = [...new Set(tokenize(query))].slice(0, 8);
    if (words.length === 0) return [];
    const perWord = words.map((w, i) => this.matchTerms(w, i === words.length - 1));
    const all = this.collect(perWord, true);
    const found = all.length > 0 ? all : this.collect(perWord, false);
    found.sort((a, b) => b.score - a.score || a.doc - b.doc);
    return found.slice(0, max);
  }

  private collect(perWord: Map<number, number>[], everyWord: boolean): NameMatch[] {
    const usable = perWord.filter((m) => m.size > 0);
    if (usable.length === 0 || (everyWord && usable.length < perWord.length)) return [];
    const docCount = (m: Map<number, number>) => {
      let c = 0;
      for (const t of m.keys()) c += this.postings.offsets[t + 1]! - this.postings.offsets[t]!;
      return c;
    };
    // Start from the rarest word and check the others against each candidate's few terms.
    const order = [...usable].sort((a, b) => docCount(a) - docCount(b));
    const seeds = everyWord ? [order[0]!] : order;
    const scores = new Map<number, number>();
    for (const seed of seeds) {
      for (const t of seed.keys()) {
        for (let k = this.postings.offsets[t]!; k < this.postings.offsets[t + 1]!; k++) {
          const doc = this.postings.values[k]!;
          if (scores.has(doc)) continue;
          let total = 0;
          let matched = 0;
          for (const m of order) {
            let best = 0;
            for (let j = this.docTerms.offsets[doc]!; j < this.docTerms.offsets[doc + 1]!; j++)
              best = Math.max(best, m.get(this.docTerms.values[j]!) ?? 0);
            if (best > 0) matched++;
            total += best;
          }
          // A name made of little more than the query ranks above a longer one that merely contains it.
          const coverage = matched / (this.docTerms.offsets[doc + 1]! - this.docTerms.offsets[doc]!);
          if (!everyWord || matched === order.length) scores.set(doc, total + 0.1 * coverage);
        }
      }
    }
    return [...scores].map(([doc, score]) => ({ doc, score }));
  }
}

/**
 * The bag distance of a word (its letter counts in `counts`) and a term: how
 * many letters one has that the other lacks, the larger side. It never
 * exceeds the edit distance (a transposition moves no letter in or out), and
 * costs two passes over the term instead of a table: most trigram candidates
 * of a long word fail it.
 */
function bagDistance(counts: Int16Array, wordLength: number, term: string): number {
  let extra = 0;
  for (let i = 0; i < term.length; i++) if (counts[term.charCodeAt(i) & 127]-- <= 0) extra++;
  for (let i = 0; i < term.length; i++) counts[term.charCodeAt(i) & 127]++;
  const missing = wordLength - (term.length - extra);
  return Math.max(extra, missing);
}

export function lowerBound(arr: readonly string[], key: string): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
