import { closeSync, createReadStream, openSync, readSync, statSync } from "node:fs";
import { createGunzip } from "node:zlib";
import type { Readable } from "node:stream";
import { ProviderFormatError } from "../../sources/providers/provider.types";
import { readCompanyQuarters } from "../../sources/providers/sec/sec.facts";
import { FINANCIAL_COLUMNS, quarterValues } from "../../sources/providers/sec/sec.provider";

/** One record of an input file: its cells by column name, and where it stands in the file. */
export interface InputRecord {
  /** CSV: the line the record starts on (the header is line 1). JSON Lines: the line number. */
  row: number;
  values: Record<string, unknown>;
}

/** An open input file: its columns (CSV: the header row; JSON Lines: the first object's keys) and its records. */
export interface InputFile {
  /** `sec-companyfacts`: the SEC's company-facts document of one company, read whole (secCompanyFacts). */
  format: "csv" | "jsonl" | "json" | "sec-companyfacts";
  columns: string[];
  /** Records in runs (a CSV chunk's records together), so a file costs few promises. */
  records: AsyncGenerator<InputRecord[]>;
  /**
   * CSV: `records` again, where from now on a line without quotes that `parse` answers a row for (not undefined)
   * comes out as that row in a run of ParsedLines; `parse` answers undefined for a line it leaves to the records.
   */
  parseLines?(parse: (line: string) => unknown): AsyncGenerator<InputRecord[] | ParsedLines>;
  /** Bytes of the file read so far (compressed bytes for a gzip file), for progress. */
  bytesRead(): number;
  size: number;
}

/** A file that cannot be read as a whole (not CSV nor JSON Lines, a broken header): the import fails. */
export class InputError extends Error {
  override name = "InputError";
}

function isGzip(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const b = Buffer.alloc(2);
    return readSync(fd, b, 0, 2, 0) === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/** Byte chunks of the file, gunzipped when it starts with gzip's magic bytes; never the whole file at once. */
function byteStream(path: string, counter: { bytes: () => number }): Readable {
  const raw = createReadStream(path);
  counter.bytes = () => raw.bytesRead;
  const bytes = isGzip(path) ? raw.pipe(createGunzip()) : raw;
  raw.on("error", (e) => bytes.destroy(e));
  return bytes;
}

/** Text chunks of the file (byteStream, decoded as UTF-8). */
function textStream(path: string, counter: { bytes: () => number }): Readable {
  return byteStream(path, counter).setEncoding("utf8");
}

/** The cells of one complete CSV record that holds quotes (RFC 4180: commas, doubled quotes, line breaks inside). */
function quotedCells(record: string): string[] {
  const cells: string[] = [];
  let cell = "";
  let quoted = false;
  let afterQuote = false;
  for (let i = 0; i < record.length; i++) {
    const ch = record[i] as string;
    if (quoted) {
      if (ch === '"') {
        quoted = false;
        afterQuote = true;
      } else cell += ch;
    } else if (ch === '"') {
      // A doubled quote inside a quoted cell, or the opening quote of one.
      if (afterQuote) cell += '"';
      quoted = true;
      afterQuote = false;
    } else if (ch === ",") {
      cells.push(cell);
      cell = "";
      afterQuote = false;
    } else {
      cell += ch;
    }
  }
  cells.push(cell);
  return cells;
}

function quoteCount(s: string): number {
  let n = 0;
  for (let at = s.indexOf('"'); at >= 0; at = s.indexOf('"', at + 1)) n++;
  return n;
}

/** A CSV record's cells, with the line it starts on. */
export interface CsvRecord {
  line: number;
  cells: string[];
}

/**
 * Rows a plan's line parser (FilePlan.line) read straight from lines of the file, in file order, with the line of
 * each: what the records between them would have become.
 */
export interface ParsedLines {
  rows: unknown[];
  lines: number[];
}

/**
 * CSV records (RFC 4180), each with the line it starts on. A line without quotes is split on its commas (most
 * files, and the fast path); a record with quotes is read cell by cell and may span lines while a quote is open.
 * A byte-order mark is dropped; `\r\n` and `\n` both end a record; empty lines are skipped.
 */
export function csvRecords(chunks: AsyncIterable<string>): AsyncGenerator<CsvRecord[]> {
  return csvRuns(chunks, () => undefined) as AsyncGenerator<CsvRecord[]>;
}

/**
 * `csvRecords`, but a line without quotes that `parser()` answers a row for comes out as that row (in a run of
 * ParsedLines) instead of as a record; the runs keep the file's order.
 */
async function* csvRuns(
  chunks: AsyncIterable<string>,
  parser: () => ((line: string) => unknown) | undefined,
): AsyncGenerator<CsvRecord[] | ParsedLines> {
  let carry = "";
  let line = 0;
  let first = true;
  let record: string | null = null;
  let recordLine = 0;
  let quotes = 0;
  let records: CsvRecord[] = [];
  let parsed: ParsedLines | null = null;
  /** The last line taken was parsed; a record was just taken after such a line. */
  let afterParsed = false;
  let settle = false;
  const out: (CsvRecord[] | ParsedLines)[] = [];
  const close = () => {
    if (records.length > 0) out.push(records);
    if (parsed) out.push(parsed);
    records = [];
    parsed = null;
  };
  /** Takes one physical line, adding the record or row it completes, if any. */
  const take = (raw: string, parse: ((line: string) => unknown) | undefined): void => {
    line++;
    const piece = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (record === null) {
      if (piece === "") return;
      if (piece.indexOf('"') < 0) {
        const row = parse?.(piece);
        if (row !== undefined) {
          if (records.length > 0) close();
          parsed ??= { rows: [], lines: [] };
          parsed.rows.push(row);
          parsed.lines.push(line);
          afterParsed = true;
          return;
        }
        if (parsed) close();
        records.push({ line, cells: piece.split(",") });
        // The parse of a record after parsed lines may teach the parser (a new symbol's listing): it comes out
        // before the next line is offered.
        settle = afterParsed;
        afterParsed = false;
        return;
      }
      record = piece;
      recordLine = line;
      quotes = quoteCount(piece);
    } else {
      record += "\n" + piece;
      quotes += quoteCount(piece);
    }
    if (quotes % 2 === 1) return;
    if (parsed) close();
    records.push({ line: recordLine, cells: quotedCells(record) });
    record = null;
    afterParsed = false;
  };
  for await (let chunk of chunks) {
    if (first) {
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
      first = false;
    }
    const text = carry + chunk;
    const parse = parser();
    let from = 0;
    for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", from)) {
      take(text.slice(from, at), parse);
      from = at + 1;
      if (settle) {
        settle = false;
        close();
        yield* out.splice(0);
      }
    }
    carry = text.slice(from);
    close();
    yield* out.splice(0);
  }
  if (carry !== "") {
    take(carry, parser());
    close();
    yield* out.splice(0);
  }
  if (record !== null) throw new InputError(`line ${recordLine}: a quoted cell is never closed`);
}

/** Lines of the text, each with its number; the last one may lack its line break. */
async function* lines(chunks: AsyncIterable<string>): AsyncGenerator<{ line: number; text: string }> {
  let rest = "";
  let n = 0;
  for await (const chunk of chunks) {
    const text = rest + chunk;
    let from = 0;
    for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", from)) {
      n++;
      yield { line: n, text: text.slice(from, at).replace(/\r$/, "") };
      from = at + 1;
    }
    rest = text.slice(from);
  }
  if (rest !== "") yield { line: n + 1, text: rest.replace(/\r$/, "") };
}

/** `.jsonl`, `.ndjson` (optionally `.gz`) are JSON Lines; `.json` a JSON document; anything else is CSV. */
export function formatOf(path: string): "csv" | "jsonl" | "json" {
  if (/\.(jsonl|ndjson)(\.gz)?$/i.test(path)) return "jsonl";
  return /\.json(\.gz)?$/i.test(path) ? "json" : "csv";
}

/**
 * The largest single element of a JSON document's `assetProfiles` list (one asset profile with its market data):
 * the document is streamed, but each element is parsed whole, so this bounds the memory an import takes.
 */
export const MAX_JSON_ELEMENT_BYTES = 64 * 1024 * 1024;

/**
 * Walks a JSON document chunk by chunk without holding it: keeps the root object's keys, and hands out the raw text
 * of each element of its `assetProfiles` list as it completes. The rest of the document is skipped, its brackets
 * counted (and its strings followed) only to know where it ends.
 */
export class ProfilesScanner {
  /** The root object's keys, in the order seen. */
  readonly keys: string[] = [];
  /** True once the `assetProfiles` list has started. */
  sawProfiles = false;
  /** True once the root object has closed. */
  ended = false;
  private depth = 0;
  private inString = false;
  private escape = false;
  private expectKey = false;
  private key: string | null = null;
  private lastKey = "";
  private inProfiles = false;
  /** The pieces of the element being read (null: between elements), and their length. */
  private element: string[] | null = null;
  private elementLength = 0;

  constructor(private readonly maxElement = MAX_JSON_ELEMENT_BYTES) {}

  feed(chunk: string): string[] {
    const out: string[] = [];
    // An element left open by the last chunk goes on from this chunk's start.
    let from = this.element !== null ? 0 : -1;
    const begin = (i: number) => {
      this.element = [];
      this.elementLength = 0;
      from = i;
    };
    const finish = (end: number) => {
      (this.element as string[]).push(chunk.slice(from, end));
      out.push((this.element as string[]).join(""));
      this.element = null;
      from = -1;
    };
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk[i] as string;
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (ch === "\\") this.escape = true;
        else if (ch === '"') {
          this.inString = false;
          if (this.key !== null) {
            this.lastKey = this.key;
            this.keys.push(this.key);
            this.key = null;
          }
        } else if (this.key !== null) this.key += ch;
        continue;
      }
      if (ch === " " || ch === "\n" || ch === "\r" || ch === "\t" || ch === "\ufeff") continue;
      if (this.depth === 0) {
        if (this.ended || ch !== "{") throw new InputError("not a JSON document holding one object");
        this.depth = 1;
        this.expectKey = true;
        continue;
      }
      const between = this.inProfiles && this.depth === 2 && this.element === null;
      if (ch === '"') {
        this.inString = true;
        if (this.depth === 1 && this.expectKey) this.key = "";
        else if (between) begin(i);
      } else if (ch === "{" || ch === "[") {
        if (this.depth === 1 && this.lastKey === "assetProfiles" && ch === "[" && !this.sawProfiles) {
          this.inProfiles = this.sawProfiles = true;
        } else if (between) begin(i);
        this.depth++;
      } else if (ch === "}" || ch === "]") {
        this.depth--;
        if (this.inProfiles && this.depth === 2 && this.element !== null) finish(i + 1);
        else if (this.inProfiles && this.depth === 1) {
          if (this.element !== null) finish(i);
          this.inProfiles = false;
        } else if (this.depth === 0) this.ended = true;
      } else if (ch === ":" && this.depth === 1) {
        this.expectKey = false;
      } else if (ch === ",") {
        if (this.depth === 1) this.expectKey = true;
        else if (this.inProfiles && this.depth === 2 && this.element !== null) finish(i);
      } else if (between) begin(i);
    }
    if (this.element !== null) {
      const rest = chunk.slice(from);
      this.element.push(rest);
      this.elementLength += rest.length;
      if (this.elementLength > this.maxElement) {
        throw new InputError(
          `an asset profile of this JSON document is over ${this.maxElement / 1024 / 1024} MiB, ` +
            "the most one is read whole; write its rows as JSON Lines or CSV instead",
        );
      }
    }
    return out;
  }
}

/** The records of one element of `assetProfiles`: the profile, then a record per point of its `marketData`. */
function profileRecords(text: string, row: number): InputRecord[] {
  let p: unknown;
  try {
    p = JSON.parse(text);
  } catch {
    return [{ row, values: { __error: "not valid JSON" } }];
  }
  if (!p || typeof p !== "object" || Array.isArray(p)) {
    return [{ row, values: { __error: "an asset profile is not a JSON object" } }];
  }
  const { marketData, ...profile } = p as Record<string, unknown>;
  const out: InputRecord[] = [{ row, values: { ...profile, __profile: row } }];
  if (Array.isArray(marketData)) {
    marketData.forEach((m, j) => {
      out.push({
        row,
        values:
          m && typeof m === "object" && !Array.isArray(m)
            ? { ...(m as Record<string, unknown>), __point: j }
            : { __point: j, __error: `marketData[${j}] is not a JSON object` },
      });
    });
  }
  return out;
}

/**
 * A JSON document, streamed: its root object's keys are its columns. A Ghostfolio export (an `assetProfiles`
 * list) gives each asset profile as a record (row: its number in the list, from 1) followed by a record per point
 * of its `marketData` (the same row; `__point` its index). Only one profile is held at a time.
 */
async function jsonDocument(path: string, counter: { bytes: () => number }, size: number): Promise<InputFile> {
  const scanner = new ProfilesScanner();
  const chunks = (textStream(path, counter) as AsyncIterable<string>)[Symbol.asyncIterator]();
  const pending: string[] = [];
  // The columns are the keys seen up to the profiles (or all of them): a Ghostfolio export lists them early.
  while (!scanner.sawProfiles && !scanner.ended) {
    const n = await chunks.next();
    if (n.done) break;
    pending.push(...scanner.feed(n.value));
  }
  if (scanner.keys.length === 0 && !scanner.ended) throw new InputError("not a JSON document holding one object");
  async function* gen(): AsyncGenerator<InputRecord[]> {
    let row = 0;
    for (const text of pending.splice(0)) yield profileRecords(text, ++row);
    for (;;) {
      const n = await chunks.next();
      if (n.done) break;
      for (const text of scanner.feed(n.value)) yield profileRecords(text, ++row);
    }
    if (!scanner.ended) throw new InputError("the JSON document ends before its object closes");
  }
  return { format: "json", columns: [...scanner.keys], records: gen(), bytesRead: () => counter.bytes(), size };
}

/**
 * The largest SEC company-facts document read: it is read whole (its quarters are derived from all its facts at once).
 * The largest filers' are some 20 MiB.
 */
export const MAX_COMPANY_FACTS_BYTES = 64 * 1024 * 1024;

/** The marker of a quarter the SEC's facts lack a figure of: the figures it lacks, for the plan's note. */
export const SEC_MISSING = "__missing";

/** A file's bytes, uncompressed, up to `cap` (InputError beyond). */
async function wholeFile(path: string, counter: { bytes: () => number }, cap: number): Promise<Buffer> {
  const bytes = byteStream(path, counter);
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of bytes as AsyncIterable<Buffer>) {
    n += chunk.length;
    if (n > cap) {
      bytes.destroy();
      throw new InputError(`larger than ${cap / 2 ** 20} MiB, the most read whole`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, n);
}

/** The first characters of a file, uncompressed: enough to tell an SEC company-facts document (`{"cik":…`). */
async function head(path: string): Promise<string> {
  const text = textStream(path, { bytes: () => 0 });
  try {
    for await (const chunk of text as AsyncIterable<string>) return chunk.slice(0, 64);
    return "";
  } finally {
    text.destroy();
  }
}

/** True for the start of the SEC's company-facts document, whose first member is the company's CIK. */
const isCompanyFacts = (start: string) => /^\uFEFF?\s*\{\s*"cik"\s*:/.test(start);

/**
 * The SEC's company-facts document of one company (`/api/xbrl/companyfacts/CIK##########.json`, as the SEC
 * provider fetches it, or a member of the SEC's nightly `companyfacts.zip`), read whole in a worker thread and
 * derived to its quarters exactly as the provider derives them (src/sources/providers/sec/sec.facts.ts). A record a
 * quarter (row: its number, from 1, oldest first), in the financials kind's columns with the file's `cik` in place of
 * the symbol; a quarter whose facts lack a figure carries the figures it lacks in SEC_MISSING instead.
 */
async function secCompanyFacts(path: string, counter: { bytes: () => number }, size: number): Promise<InputFile> {
  const body = await wholeFile(path, counter, MAX_COMPANY_FACTS_BYTES);
  let read;
  try {
    read = await readCompanyQuarters(body, "import");
  } catch (e) {
    if (e instanceof ProviderFormatError) throw new InputError(`not an SEC company-facts document: ${e.message}`);
    throw e;
  }
  const { cik, quarters } = read;
  if (!Number.isSafeInteger(cik) || cik <= 0) throw new InputError("not an SEC company-facts document: no cik");
  const records = quarters.map((q, i): InputRecord => ({
    row: i + 1,
    values:
      q.missing.length > 0
        ? { cik, period_end: q.periodEnd, [SEC_MISSING]: q.missing.join(", ") }
        : { cik, ...quarterValues(q) },
  }));
  async function* gen(): AsyncGenerator<InputRecord[]> {
    if (records.length > 0) yield records;
  }
  return {
    format: "sec-companyfacts",
    columns: ["cik", ...FINANCIAL_COLUMNS.filter((c) => c !== "symbol")],
    records: gen(),
    bytesRead: () => counter.bytes(),
    size,
  };
}

/**
 * Opens an input file as a stream of records. A CSV record's values are its cells by header name (a trailing
 * empty header, as the ECB's files end each line with a comma, is dropped); a JSON Lines record's values are its
 * object's. A record that cannot be read as one (not JSON, not an object, more cells than the header) carries the
 * reason in `values.__error`, so it is rejected as a row while the rest of the file goes in.
 */
export async function openInput(path: string, named?: string): Promise<InputFile> {
  const counter = { bytes: () => 0 };
  const size = statSync(path).size;
  if (named === "sec") return secCompanyFacts(path, counter, size);
  const format = named === "ghostfolio" ? "json" : formatOf(path);
  if (format === "json" && named === undefined && isCompanyFacts(await head(path))) {
    return secCompanyFacts(path, counter, size);
  }
  if (format === "json") return jsonDocument(path, counter, size);
  if (format === "csv") {
    let lineParser: ((line: string) => unknown) | undefined;
    const records = csvRuns(textStream(path, counter), () => lineParser);
    // The header is the first record; the rest of its run are the first rows.
    let head: CsvRecord[] = [];
    for (;;) {
      const n = await records.next();
      if (n.done) throw new InputError("the file is empty: a header row is expected");
      // No line parser yet: every run is records.
      const run = n.value as CsvRecord[];
      if (run.length > 0) {
        head = run;
        break;
      }
    }
    const columns = head[0]!.cells.map((c) => c.trim());
    while (columns.length > 0 && columns[columns.length - 1] === "") columns.pop();
    if (columns.some((c) => c === "")) throw new InputError("the header row has an empty column name");
    const toRecord = (r: CsvRecord): InputRecord => {
      const values: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++) values[columns[i]!] = r.cells[i] ?? "";
      if (r.cells.length > columns.length && r.cells.slice(columns.length).some((c) => c !== "")) {
        values.__error = `${r.cells.length} cells, but the header has ${columns.length}`;
      }
      return { row: r.line, values };
    };
    async function* gen(): AsyncGenerator<InputRecord[] | ParsedLines> {
      if (head.length > 1) yield head.slice(1).map(toRecord);
      for await (const run of records) yield Array.isArray(run) ? run.map(toRecord) : run;
    }
    const runs = gen();
    return {
      format,
      columns,
      // Runs of records only until parseLines is called.
      records: runs as AsyncGenerator<InputRecord[]>,
      parseLines(parse) {
        lineParser = parse;
        return runs;
      },
      bytesRead: () => counter.bytes(),
      size,
    };
  }
  const it = lines(textStream(path, counter));
  const pending: { line: number; text: string }[] = [];
  let columns: string[] = [];
  for (;;) {
    const n = await it.next();
    if (n.done) break;
    pending.push(n.value);
    if (n.value.text.trim() === "") continue;
    try {
      const first = JSON.parse(n.value.text) as unknown;
      if (first && typeof first === "object" && !Array.isArray(first)) columns = Object.keys(first);
    } catch {
      // Reported as that row's rejection below.
    }
    break;
  }
  async function* gen(): AsyncGenerator<InputRecord[]> {
    const all = async function* () {
      yield* pending;
      yield* it;
    };
    for await (const l of all()) {
      if (l.text.trim() === "") continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(l.text);
      } catch {
        yield [{ row: l.line, values: { __error: "not valid JSON" } }];
        continue;
      }
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
        yield [{ row: l.line, values: { __error: "not a JSON object" } }];
        continue;
      }
      yield [{ row: l.line, values: parsed as Record<string, unknown> }];
    }
  }
  return { format, columns, records: gen(), bytesRead: () => counter.bytes(), size };
}
