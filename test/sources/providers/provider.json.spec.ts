import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type JsonSelection, JsonSyntaxError, selectJson } from "../../../src/sources/providers/provider.json";

const FACTS = readFileSync(
  join(__dirname, "..", "..", "fixtures", "providers", "sec", "CIK0000320193.companyfacts.json"),
);

const sel = (entries: [string, true | JsonSelection][]): JsonSelection => new Map(entries);
const bytes = (text: string) => Buffer.from(text, "utf8");

/** What selectJson must give: JSON.parse's value, less the members the selection leaves out. */
function expected(value: unknown, selection: JsonSelection): unknown {
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const pick = selection.get(k);
    if (pick === undefined) continue;
    Object.defineProperty(out, k, {
      value: pick === true ? v : expected(v, pick),
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return out;
}

/** Either JSON.parse's value, selected, or "rejected"; the same of selectJson. */
function both(text: Buffer, selection: JsonSelection): { parse: unknown; select: unknown } {
  let parse: unknown;
  let select: unknown;
  try {
    parse = expected(JSON.parse(text.toString("utf8")), selection);
  } catch {
    parse = "rejected";
  }
  try {
    select = selectJson(text, selection);
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    select = "rejected";
  }
  return { parse, select };
}

const FACTS_SELECTION = sel([
  ["cik", true],
  ["entityName", true],
  [
    "facts",
    sel([
      [
        "us-gaap",
        sel([
          ["Revenues", true],
          ["Assets", true],
          ["NoSuchConcept", true],
        ]),
      ],
    ]),
  ],
]);

/** A small document with every kind of value, strings meant to mislead a scanner, and space everywhere. */
const TRICKY = ` {
  "skip": {"a": "}{][\\"\\\\", "b": ["\\"{", {"c": [[], {}, [{}], -0.5e+10, 0, 1E-2, true, false, null]}],
    "d": "\\u007b\\ud83d\\ude00"},
  "keep\\u0031" : [ "\\"}" , { "x" : "\\\\\\"" } ] ,
  "deep": {"in": {"label": "a \\"quoted\\" {brace} [bracket] \\\\ and \\/ \\b\\f\\n\\r\\t", "v": 12},
    "other": "é ü 漢 🙂"},
  "__proto__": {"polluted": true},
  "twice": 1, "twice": {"in": 2, "out": 3},
  "tail": "}" }\t\r\n`;

const TRICKY_SELECTION = sel([
  ["keep1", true],
  ["deep", sel([["in", true]])],
  ["__proto__", true],
  ["twice", sel([["in", true]])],
  ["absent", true],
]);

describe("selectJson: the members selected of a JSON document, the rest checked but not built", () => {
  it("gives what JSON.parse gives for the members selected, in their order, and nothing else", () => {
    const got = selectJson(FACTS, FACTS_SELECTION) as { facts: { "us-gaap": Record<string, unknown> } };
    const whole = JSON.parse(FACTS.toString("utf8")) as { facts: { "us-gaap": Record<string, unknown> } };
    expect(got).toEqual(expected(whole, FACTS_SELECTION));
    expect(Object.keys(got)).toEqual(["cik", "entityName", "facts"]);
    expect(Object.keys(got.facts["us-gaap"])).toEqual(["Assets", "Revenues"]);
    expect(got.facts["us-gaap"].Assets).toEqual(whole.facts["us-gaap"].Assets);
  });

  it("reads keys with escapes, quotes and braces inside strings, space anywhere, __proto__ and repeated keys", () => {
    const got = selectJson(bytes(TRICKY), TRICKY_SELECTION) as Record<string, unknown>;
    expect(got).toEqual(expected(JSON.parse(TRICKY), TRICKY_SELECTION));
    expect(got.keep1).toEqual(['"}', { x: '\\"' }]);
    expect(got.deep).toEqual({ in: { label: 'a "quoted" {brace} [bracket] \\ and / \b\f\n\r\t', v: 12 } });
    // An own member, as JSON.parse makes it, not the object's prototype.
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(got, "__proto__")?.value).toEqual({ polluted: true });
    // The last of a repeated key, selected within when it is an object.
    expect(got.twice).toEqual({ in: 2 });
    expect(selectJson(bytes('{"twice": {"in": 2}, "twice": [1]}'), TRICKY_SELECTION)).toEqual({ twice: [1] });
  });

  it("gives a root that is not an object, and a member that is not one where the selection goes deeper, whole", () => {
    expect(selectJson(bytes(' [1, {"a": 2}] '), TRICKY_SELECTION)).toEqual([1, { a: 2 }]);
    expect(selectJson(bytes('"text"'), TRICKY_SELECTION)).toBe("text");
    expect(selectJson(bytes("null"), TRICKY_SELECTION)).toBeNull();
    expect(selectJson(bytes('{"deep": [{"in": 1}], "other": 2}'), TRICKY_SELECTION)).toEqual({ deep: [{ in: 1 }] });
    expect(selectJson(bytes('{"deep": "x"}'), TRICKY_SELECTION)).toEqual({ deep: "x" });
  });

  it("decodes UTF-8 as JSON.parse of the decoded text does, malformed sequences included", () => {
    const text = Buffer.concat([
      bytes('{"keep1": "a'),
      Buffer.from([0xc3, 0xff, 0xe2, 0x82]),
      bytes('", "x": "'),
      Buffer.from([0xf0, 0x9f]),
      bytes('"}'),
    ]);
    const { parse, select } = both(text, TRICKY_SELECTION);
    expect(select).toEqual(parse);
    expect(select).toEqual({ keep1: "a\ufffd\ufffd\ufffd" });
  });

  it.each([
    ["nothing", ""],
    ["space only", " \n"],
    ["a byte-order mark", "\ufeff{}"],
    ["a second value", "{} {}"],
    ["a trailing comma", '{"a": 1,}'],
    ["a trailing comma in a skipped array", '{"s": [1,]}'],
    ["a missing colon", '{"s" 1}'],
    ["a key that is not a string", '{"a": {1: 2}}'],
    ["a single-quoted string", "{\"s\": 'x'}"],
    ["a control character in a skipped string", '{"s": "a\tb"}'],
    ["a control character in a skipped key", '{"s": {"a\nb": 1}}'],
    ["an unknown escape", '{"s": "\\x41"}'],
    ["a short unicode escape", '{"s": "\\u12"}'],
    ["a unicode escape that is not hexadecimal", '{"s": "\\u12g4"}'],
    ["a leading zero", '{"s": 01}'],
    ["a bare minus", '{"s": -}'],
    ["a point without digits", '{"s": 1.}'],
    ["a leading point", '{"s": .5}'],
    ["a leading plus", '{"s": +1}'],
    ["an exponent without digits", '{"s": 1e+}'],
    ["a hexadecimal number", '{"s": 0x10}'],
    ["Infinity", '{"s": Infinity}'],
    ["NaN", '{"s": NaN}'],
    ["a truncated literal", '{"s": tru}'],
    ["a literal in capitals", '{"s": True}'],
    ["a literal run on", '{"s": nulll}'],
    ["an unclosed string", '{"s": "abc'],
    ["an unclosed array", '{"s": [1, 2'],
    ["a mismatched bracket", '{"s": [1, 2}'],
    ["a comment", '{"s": 1 /* no */}'],
  ])("rejects %s, as JSON.parse does", (_name, text) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(() => selectJson(bytes(text), TRICKY_SELECTION)).toThrow(JsonSyntaxError);
  });

  it("agrees with JSON.parse on every cut of a document", () => {
    const text = bytes(TRICKY);
    let accepted = 0;
    for (let end = 0; end <= text.length; end++) {
      const { parse, select } = both(text.subarray(0, end), TRICKY_SELECTION);
      expect({ end, select }).toEqual({ end, select: parse });
      if (parse !== "rejected") accepted++;
    }
    // The whole, and the whole short of some of its trailing space.
    expect(accepted).toBe(4);
  });

  it("agrees with JSON.parse on thousands of documents with one byte changed", () => {
    const text = bytes(TRICKY);
    // A fixed sequence, so that a failure is the same on every run.
    let seed = 20261127;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = bytes(' \t\n{}[]",:\\/-+.0123456789eEtrufalsn\u0000x');
    let rejected = 0;
    for (let n = 0; n < 5000; n++) {
      const changed = Buffer.from(text);
      const at = Math.floor(next() * changed.length);
      changed[at] = alphabet[Math.floor(next() * alphabet.length)]!;
      const { parse, select } = both(changed, TRICKY_SELECTION);
      expect({ n, at, select }).toEqual({ n, at, select: parse });
      if (parse === "rejected") rejected++;
    }
    // Both outcomes are tried often.
    expect(rejected).toBeGreaterThan(1000);
    expect(rejected).toBeLessThan(4900);
  });

  it("steps over nesting deeper than a recursive reader could follow", () => {
    const deep = `{"skip": ${"[".repeat(200_000)}${"]".repeat(200_000)}, "keep1": 1}`;
    expect(selectJson(bytes(deep), TRICKY_SELECTION)).toEqual({ keep1: 1 });
    expect(() => selectJson(bytes(`{"skip": ${"[".repeat(200_000)}}`), TRICKY_SELECTION)).toThrow(JsonSyntaxError);
  });
});
