/**
 * Which members of a JSON object to keep, by key: the whole value (`true`), or, when the value is an object, only
 * the members a nested selection names (any other value is kept whole).
 */
export type JsonSelection = ReadonlyMap<string, true | JsonSelection>;

/** A text JSON.parse would reject. */
export class JsonSyntaxError extends SyntaxError {
  override name = "JsonSyntaxError";
  constructor(readonly at: number) {
    super(`not JSON at byte ${at}`);
  }
}

/**
 * The UTF-8 JSON document `bytes` as JSON.parse reads it, with only the selected members of its root object (and of
 * the objects a selection descends into); a root that is not an object is parsed whole. Every byte is checked as
 * JSON.parse checks it, so a text it would reject throws JsonSyntaxError here too, but the members left out are
 * stepped over without building a value or even decoding them: a company's XBRL facts run to megabytes of which a
 * provider reads a few concepts (src/sources/providers/sec/sec.facts.ts), and JSON.parse builds every object of
 * them (Apple's 3.5 MiB: some 13 ms of CPU here, against 24 to decode and parse it whole, once compiled). A kept
 * value is decoded and parsed on its own, which gives what JSON.parse gives for it within the whole text: it starts
 * and ends on ASCII characters, which no UTF-8 sequence, well-formed or not, spans. Of a key given twice, the last
 * value counts, as for JSON.parse.
 */
export function selectJson(bytes: Uint8Array, selection: JsonSelection): unknown {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { value, end } = selected(text, space(text, 0), selection);
  const after = space(text, end);
  if (after !== text.length) throw new JsonSyntaxError(after);
  return value;
}

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const COLON = 0x3a;
const UPPER_E = 0x45;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const LOWER_E = 0x65;
const LOWER_U = 0x75;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** The characters a backslash may escape besides `u`: `"` `\` `/` `b` `f` `n` `r` `t`. */
const ESCAPED = new Uint8Array(256);
for (const c of '"\\/bfnrt') ESCAPED[c.charCodeAt(0)] = 1;
/** What a string's character may not be as it stands: a quote (its end), a backslash, a control character. */
const STOPS_STRING = new Uint8Array(256);
for (let c = 0; c < SPACE; c++) STOPS_STRING[c] = 1;
STOPS_STRING[QUOTE] = 1;
STOPS_STRING[BACKSLASH] = 1;
/** Hexadecimal digits, for `\uXXXX`. */
const HEX = new Uint8Array(256);
for (const c of "0123456789abcdefABCDEF") HEX[c.charCodeAt(0)] = 1;

const parsed = (text: Buffer, start: number, end: number): unknown =>
  JSON.parse(text.toString("utf8", start, end)) as unknown;

/** The value at `at`, an object keeping only the selected members, and where it ends. */
function selected(text: Buffer, at: number, selection: JsonSelection): { value: unknown; end: number } {
  if (text[at] !== OPEN_BRACE) {
    const end = skipValue(text, at);
    return { value: parsed(text, at, end), end };
  }
  const out: Record<string, unknown> = {};
  let i = space(text, at + 1);
  if (text[i] === CLOSE_BRACE) return { value: out, end: i + 1 };
  for (;;) {
    if (text[i] !== QUOTE) throw new JsonSyntaxError(i);
    const keyAt = i;
    i = skipString(text, i);
    const key = keyOf(text, keyAt, i);
    const pick = selection.get(key);
    i = space(text, i);
    if (text[i] !== COLON) throw new JsonSyntaxError(i);
    i = space(text, i + 1);
    if (pick === undefined) {
      i = skipValue(text, i);
    } else {
      let value: unknown;
      if (pick === true) {
        const start = i;
        i = skipValue(text, i);
        value = parsed(text, start, i);
      } else {
        ({ value, end: i } = selected(text, i, pick));
      }
      // Defined rather than assigned: a key "__proto__" is an own member in what JSON.parse gives, too.
      Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
    }
    i = space(text, i);
    if (text[i] === COMMA) {
      i = space(text, i + 1);
      continue;
    }
    if (text[i] === CLOSE_BRACE) return { value: out, end: i + 1 };
    throw new JsonSyntaxError(i);
  }
}

/** A key's text: decoded as it stands unless it holds an escape. */
function keyOf(text: Buffer, start: number, end: number): string {
  for (let i = start + 1; i < end - 1; i++) if (text[i] === BACKSLASH) return parsed(text, start, end) as string;
  return text.toString("utf8", start + 1, end - 1);
}

function space(text: Buffer, at: number): number {
  let i = at;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c !== SPACE && c !== LF && c !== CR && c !== TAB) break;
    i++;
  }
  return i;
}

/** The end of the string that opens at `at` (its quote), checked as JSON.parse checks one. */
function skipString(text: Buffer, at: number): number {
  const n = text.length;
  let i = at + 1;
  for (;;) {
    if (i >= n) throw new JsonSyntaxError(i);
    const c = text[i++]!;
    if (STOPS_STRING[c] === 0) continue;
    if (c === QUOTE) return i;
    if (c < SPACE) throw new JsonSyntaxError(i - 1);
    if (i >= n) throw new JsonSyntaxError(i);
    const e = text[i++]!;
    if (ESCAPED[e] === 1) continue;
    if (e !== LOWER_U || i + 4 > n) throw new JsonSyntaxError(i - 1);
    if (HEX[text[i]!] !== 1 || HEX[text[i + 1]!] !== 1 || HEX[text[i + 2]!] !== 1 || HEX[text[i + 3]!] !== 1) {
      throw new JsonSyntaxError(i);
    }
    i += 4;
  }
}

const TRUE = Buffer.from("true");
const FALSE = Buffer.from("false");
const NULL = Buffer.from("null");

function skipLiteral(text: Buffer, at: number, literal: Buffer): number {
  for (let k = 0; k < literal.length; k++) if (text[at + k] !== literal[k]) throw new JsonSyntaxError(at + k);
  return at + literal.length;
}

const IN_OBJECT = 1;
const IN_ARRAY = 2;

/** What skipValue reads next. */
const VALUE = 0;
const KEY = 1;
const COLON_NEXT = 2;
const AFTER_VALUE = 3;

/**
 * The end of the value at `at`, checked as JSON.parse checks it, without building it. Containers are tracked on a
 * stack rather than by recursion, so that no nesting is too deep for it (nor is it for JSON.parse). One loop with no
 * call in it: a process reads its first company before V8 has compiled anything, in the interpreter, for which
 * every call costs, and a loop is compiled while it runs.
 */
function skipValue(text: Buffer, at: number): number {
  const open: number[] = [];
  let i = at;
  let next = VALUE;
  for (;;) {
    if (next === AFTER_VALUE && open.length === 0) return i;
    let c = text[i]!;
    while (c === SPACE || c === LF || c === CR || c === TAB) c = text[++i]!;
    if (next === AFTER_VALUE) {
      // A comma before the next value (or key), or the end of the innermost container.
      const inObject = open[open.length - 1] === IN_OBJECT;
      if (c === COMMA) {
        i++;
        next = inObject ? KEY : VALUE;
      } else if (c === (inObject ? CLOSE_BRACE : CLOSE_BRACKET)) {
        open.pop();
        i++;
      } else {
        throw new JsonSyntaxError(i);
      }
      continue;
    }
    if (next === COLON_NEXT) {
      if (c !== COLON) throw new JsonSyntaxError(i);
      i++;
      next = VALUE;
      continue;
    }
    if (c === QUOTE) {
      // A string (a value or a key), as JSON.parse checks one; past the end, `c` is undefined, which stops it too.
      for (;;) {
        c = text[++i]!;
        while (STOPS_STRING[c] === 0) c = text[++i]!;
        if (c === QUOTE) break;
        if (c !== BACKSLASH) throw new JsonSyntaxError(i);
        c = text[++i]!;
        if (ESCAPED[c] === 1) continue;
        if (c !== LOWER_U) throw new JsonSyntaxError(i);
        if (HEX[text[i + 1]!] !== 1 || HEX[text[i + 2]!] !== 1 || HEX[text[i + 3]!] !== 1 || HEX[text[i + 4]!] !== 1) {
          throw new JsonSyntaxError(i);
        }
        i += 4;
      }
      i++;
      next = next === KEY ? COLON_NEXT : AFTER_VALUE;
      continue;
    }
    if (next === KEY) throw new JsonSyntaxError(i);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const close = c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
      c = text[++i]!;
      while (c === SPACE || c === LF || c === CR || c === TAB) c = text[++i]!;
      if (c === close) {
        i++;
        next = AFTER_VALUE;
      } else {
        open.push(close === CLOSE_BRACE ? IN_OBJECT : IN_ARRAY);
        next = close === CLOSE_BRACE ? KEY : VALUE;
      }
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; past the end, `c` is undefined and no digit.
      if (c === MINUS) c = text[++i]!;
      if (c === ZERO) c = text[++i]!;
      else if (c > ZERO && c <= NINE) while ((c = text[++i]!) >= ZERO && c <= NINE);
      else throw new JsonSyntaxError(i);
      if (c === DOT) {
        c = text[++i]!;
        if (!(c >= ZERO && c <= NINE)) throw new JsonSyntaxError(i);
        while ((c = text[++i]!) >= ZERO && c <= NINE);
      }
      if (c === LOWER_E || c === UPPER_E) {
        c = text[++i]!;
        if (c === PLUS || c === MINUS) c = text[++i]!;
        if (!(c >= ZERO && c <= NINE)) throw new JsonSyntaxError(i);
        while ((c = text[++i]!) >= ZERO && c <= NINE);
      }
      next = AFTER_VALUE;
    } else if (c === 0x74) {
      i = skipLiteral(text, i, TRUE);
      next = AFTER_VALUE;
    } else if (c === 0x66) {
      i = skipLiteral(text, i, FALSE);
      next = AFTER_VALUE;
    } else if (c === 0x6e) {
      i = skipLiteral(text, i, NULL);
      next = AFTER_VALUE;
    } else {
      throw new JsonSyntaxError(i);
    }
  }
}

// Feedback for every path of skipValue before it is first compiled: V8 compiles a hot function for the paths it has
// seen taken, and throws the code away the first time another is (the first negative number, the first decimal
// point, …), recompiling in the background while the interpreter goes on: three times over on a process's first
// company. Twenty passes over a short text take about 2 ms, once, when the module loads.
const PATHS = Buffer.from(' {"a" : [-0.5e+1, 0, 12, 1E-2, -7, true, false, null, "\\u0041\\n", {}, [], {"b": ""}]} ');
// Repeated: V8 keeps no feedback for a function's first few calls.
for (let k = 0; k < 20; k++) selectJson(PATHS, new Map());
