import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { csvRecords, InputError, openInput, ProfilesScanner } from "../../../src/application/import/import.readers";

async function* chunks(...parts: string[]): AsyncGenerator<string> {
  yield* parts;
}

async function all(parts: string[]): Promise<{ line: number; cells: string[] }[]> {
  const out: { line: number; cells: string[] }[] = [];
  for await (const run of csvRecords(chunks(...parts))) out.push(...run);
  return out;
}

describe("CSV records", () => {
  it("splits plain lines and reads quoted cells (commas, doubled quotes, line breaks) across chunks", async () => {
    const text = '\ufeffa,b,c\r\n1,"x, y",3\r\n\r\n2,"say ""hi""\nthere",4\n5,6,7';
    for (const cut of [1, 7, 14, 20, 30, text.length]) {
      expect(await all([text.slice(0, cut), text.slice(cut)])).toEqual([
        { line: 1, cells: ["a", "b", "c"] },
        { line: 2, cells: ["1", "x, y", "3"] },
        { line: 4, cells: ["2", 'say "hi"\nthere', "4"] },
        { line: 6, cells: ["5", "6", "7"] },
      ]);
    }
  });

  it("fails on a quote never closed", async () => {
    await expect(all(['a,b\n1,"open\n2,3\n'])).rejects.toThrow(InputError);
  });
});

describe("input files", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "mdg-import-readers-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads a gzip CSV whatever its name, dropping the ECB's trailing empty column, flagging extra cells", async () => {
    const path = join(dir, "rates.csv");
    writeFileSync(path, gzipSync("Date,USD,\n2026-01-02,1.1,\n2026-01-03,1.2,9\n"));
    const input = await openInput(path);
    expect(input.columns).toEqual(["Date", "USD"]);
    const rows = [];
    for await (const run of input.records) rows.push(...run);
    expect(rows).toEqual([
      { row: 2, values: { Date: "2026-01-02", USD: "1.1" } },
      { row: 3, values: { Date: "2026-01-03", USD: "1.2", __error: "3 cells, but the header has 2" } },
    ]);
  });

  it("hands lines to a line parser in file order, a record after parsed lines before the next line", async () => {
    const path = join(dir, "lines.csv");
    // Past the first chunk of the stream (64 KiB), which is read before a parser can be set.
    const pad = "x".repeat(40);
    const lines = Array.from({ length: 3_000 }, (_, i) => `${i < 2_000 ? "A" : "B"},${i},${pad}`);
    writeFileSync(path, ["key,n,pad", ...lines, `A,"3000",${pad}`, "", `A,3001,${pad}`].join("\r\n"));
    const input = await openInput(path);
    // The parser reads the lines of a key it has been taught: the consumer teaches it each key it gets a record of.
    const known = new Set<string>();
    const out: { how: string; line: number; n: number }[] = [];
    for await (const run of input.parseLines!((line) => (known.has(line.split(",")[0]!) ? line : undefined))) {
      if (Array.isArray(run)) {
        for (const r of run) {
          known.add(String(r.values.key));
          out.push({ how: "record", line: r.row, n: Number(r.values.n) });
        }
      } else {
        run.rows.forEach((text, i) =>
          out.push({ how: "line", line: run.lines[i]!, n: Number(String(text).split(",")[1]) }),
        );
      }
    }
    // Every line once, in the file's order, with its line number (the header is line 1, the empty line counts).
    expect(out.map((o) => o.n)).toEqual(Array.from({ length: 3_002 }, (_, i) => i));
    expect(out.map((o) => o.line)).toEqual([...Array.from({ length: 3_001 }, (_, i) => i + 2), 3_004]);
    // The first chunk's lines are records; after it, A's lines are parsed, B's first is a record (the parser does
    // not know B) and every B line after it is parsed: that record came out before the next line was offered.
    expect(out[0]!.how).toBe("record");
    expect(out.slice(1_500, 2_000).every((o) => o.how === "line")).toBe(true);
    expect(out[2_000]!.how).toBe("record");
    expect(out.slice(2_001, 3_000).every((o) => o.how === "line")).toBe(true);
    expect(out.slice(3_000).map((o) => o.how)).toEqual(["record", "line"]);
  });
});

describe("a JSON document's asset profiles", () => {
  const doc = JSON.stringify({
    meta: { date: "2026-11-20T00:00:00.000Z", note: 'a "quoted" ] and } in a string' },
    accounts: [{ id: "a", balances: [{ value: 1 }] }],
    assetProfiles: [
      { symbol: "X]}", marketData: [{ date: "2026-11-19", marketPrice: 1 }], note: 'back\\slash "q" {[' },
      7,
      "text, with a comma",
      { symbol: "Y", marketData: [] },
    ],
    tags: [],
  });

  it("hands out each element whole, whatever the chunks, and keeps the root's keys", () => {
    const expected = (JSON.parse(doc) as { assetProfiles: unknown[] }).assetProfiles;
    for (const size of [1, 2, 3, 7, 64, doc.length]) {
      const scanner = new ProfilesScanner();
      const out: unknown[] = [];
      for (let at = 0; at < doc.length; at += size) out.push(...scanner.feed(doc.slice(at, at + size)));
      expect({ size, out: out.map((t) => JSON.parse(t as string)) }).toEqual({ size, out: expected });
      expect(scanner.keys).toEqual(["meta", "accounts", "assetProfiles", "tags"]);
      expect(scanner.ended).toBe(true);
    }
  });

  it("refuses an element over its bound, and a document that is not one object", () => {
    const small = new ProfilesScanner(40);
    expect(() => {
      for (let at = 0; at < doc.length; at += 16) small.feed(doc.slice(at, at + 16));
    }).toThrow(/an asset profile of this JSON document is over/);
    expect(() => new ProfilesScanner().feed("[1, 2]")).toThrow(InputError);
    expect(() => new ProfilesScanner().feed("{} {}")).toThrow(/not a JSON document holding one object/);
  });
});
