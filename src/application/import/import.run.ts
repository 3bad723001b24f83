import { createWriteStream, statSync, type WriteStream } from "node:fs";
import { once } from "node:events";
import { setImmediate as turn } from "node:timers/promises";
import { basename } from "node:path";
import type { ImportSink } from "../../domain/ports/source.import";
import { type ImportKind, type KindOptions, planFile } from "./import.kinds";
import { type InputFile, type InputRecord, openInput } from "./import.readers";
import type { ImportProgress } from "./import.progress";
import { RowError } from "./import.validate";

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_REJECTED = 2;

export const DEFAULT_MAX_ERRORS = 1_000;
export const DEFAULT_BATCH_ROWS = 5_000;

/**
 * Something to import that is not a file on disk (the rows a provider fetched): its name in the report, a size in
 * the unit its `bytesRead` counts, and how to open it as records.
 */
export interface ImportInput {
  name: string;
  size: number;
  open(): Promise<InputFile>;
}

export interface ImportOptions extends KindOptions {
  kind: ImportKind;
  files: readonly string[];
  /** Read instead of `files` when given. */
  inputs?: readonly ImportInput[];
  maxErrors: number;
  /** The rejection report (CSV), written when a row is rejected. */
  reportPath: string;
  batchRows?: number;
  /** Ends the import between two batches: those written stay, and a rerun resumes (the service shutting down). */
  signal?: AbortSignal;
}

export interface ImportSummary {
  kind: ImportKind;
  /** Records read from the files. */
  rows: number;
  inserted: number;
  changed: number;
  unchanged: number;
  /** Records rejected (a record is rejected whole). */
  rejected: number;
  /** True when --max-errors ended the import early. */
  stopped: boolean;
  /** True when `signal` ended it early. */
  interrupted: boolean;
  /** The report file, when a row was rejected. */
  report?: string;
  /** Rows of other kinds a file also wrote (a Ghostfolio export's securities). */
  also: Record<string, { inserted: number; changed: number; unchanged: number }>;
  /** What the files held and left out, by file (an SEC document's partial quarters). */
  notes: string[];
}

/** A cell of the rejection report, quoted when it must be. */
function csvCell(value: unknown): string {
  const s = value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The rejection report: `file,row,column,value,reason`, opened on the first rejection. */
class RejectionReport {
  private out: WriteStream | undefined;
  constructor(readonly path: string) {}
  async add(file: string, row: number, column: string, value: unknown, reason: string): Promise<void> {
    if (!this.out) {
      this.out = createWriteStream(this.path);
      this.out.write("file,row,column,value,reason\n");
    }
    const line = [file, row, column, value, reason].map(csvCell).join(",") + "\n";
    if (!this.out.write(line)) await once(this.out, "drain");
  }
  get written(): boolean {
    return this.out !== undefined;
  }
  async close(): Promise<void> {
    if (!this.out) return;
    this.out.end();
    await once(this.out, "finish");
  }
}

/**
 * Reads every file of one kind, validates each record, and writes the valid rows through `sink` in batches (one
 * transaction each; none with `dryRun`). A rejected record goes to the report whole and never in part. Stops
 * after `maxErrors` rejections, keeping the batches already written (a rerun upserts them unchanged).
 */
export async function runImport(
  opts: ImportOptions,
  sink: ImportSink,
  progress: ImportProgress,
): Promise<ImportSummary> {
  const summary: ImportSummary = {
    kind: opts.kind,
    rows: 0,
    inserted: 0,
    changed: 0,
    unchanged: 0,
    rejected: 0,
    stopped: false,
    interrupted: false,
    also: {},
    notes: [],
  };
  const report = new RejectionReport(opts.reportPath);
  const batchRows = opts.batchRows ?? sink.batchRows ?? DEFAULT_BATCH_ROWS;
  const inputs: readonly ImportInput[] =
    opts.inputs ??
    opts.files.map((f) => ({ name: basename(f), size: statSync(f).size, open: () => openInput(f, opts.format) }));
  const totalBytes = inputs.reduce((n, i) => n + i.size, 0);
  let doneBytes = 0;
  /**
   * The batch being written. One write is in flight while the next batch is read and validated: on a store in
   * another process (PostgreSQL) the two overlap, and batches still commit one after another, in order.
   */
  let pending: Promise<void> | undefined;
  let failed: { error: unknown } | undefined;
  const settle = async () => {
    await pending;
    pending = undefined;
    if (failed) throw failed.error;
  };
  let input: InputFile | undefined;
  try {
    for (const source of inputs) {
      input = await source.open();
      const name = source.name;
      const plan = await planFile(opts.kind, input, opts, sink);
      let rows: unknown[] = [];
      /** The record of each batch row (a line parsed by plan.line: its line), for the conflicts a batch answers. */
      let origins: (InputRecord | number)[] = [];
      const reject = async (row: number, column: string, value: unknown, reason: string) => {
        summary.rejected++;
        await report.add(name, row, column, value, reason);
        if (summary.rejected >= opts.maxErrors) summary.stopped = true;
      };
      const flush = async () => {
        await settle();
        if (rows.length === 0) return;
        if (!opts.dryRun) {
          const batch = rows;
          const from = origins;
          // Each batch on a turn of the event loop of its own: a store whose writes are synchronous (SQLite) would
          // otherwise run a whole import as one task, and the service ingesting on a schedule would answer nothing.
          await turn();
          pending = plan.write(batch).then(
            async (r) => {
              summary.inserted += r.inserted;
              summary.changed += r.changed;
              summary.unchanged += r.unchanged;
              for (const c of r.conflicts) {
                const o = from[c.index]!;
                if (typeof o === "number") await reject(o, c.column, "", c.reason);
                else await reject(o.row, c.column, o.values[c.column], c.reason);
              }
            },
            (error: unknown) => void (failed = { error }),
          );
        }
        rows = [];
        origins = [];
      };
      const take = async (rec: InputRecord, parsed: unknown[] | Promise<unknown[]>) => {
        try {
          for (const p of parsed instanceof Promise ? await parsed : parsed) {
            rows.push(p);
            origins.push(rec);
          }
        } catch (e) {
          if (!(e instanceof RowError)) throw e;
          await reject(rec.row, e.column, e.value, e.message);
        }
      };
      /** A full batch written; true when the import was interrupted meanwhile (the caller then stops reading). */
      const flushFull = async (): Promise<boolean> => {
        await flush();
        if (!opts.signal?.aborted) return false;
        summary.interrupted = true;
        return true;
      };
      const runs = plan.line && input.parseLines ? input.parseLines(plan.line) : input.records;
      read: for await (const run of runs) {
        if (!Array.isArray(run)) {
          // Lines the plan read straight to rows: valid, and in the file's order with the records around them.
          for (let i = 0; i < run.rows.length; i++) {
            summary.rows++;
            rows.push(run.rows[i]);
            origins.push(run.lines[i]!);
            if (rows.length >= batchRows && (await flushFull())) break read;
          }
          progress.update({ ...state(summary), bytes: doneBytes + (input as InputFile).bytesRead(), totalBytes });
          continue;
        }
        for (const rec of run) {
          if (plan.skip?.(rec.values)) continue;
          summary.rows++;
          if (typeof rec.values.__error === "string") {
            await reject(rec.row, "", "", rec.values.__error);
          } else {
            let parsed: unknown[] | Promise<unknown[]>;
            try {
              parsed = plan.parse(rec.values);
            } catch (e) {
              if (!(e instanceof RowError)) throw e;
              await reject(rec.row, e.column, e.value, e.message);
              parsed = [];
            }
            // Most rows parse at once: they skip take's promise (one per row was a tenth of the import's time).
            if (parsed instanceof Promise) await take(rec, parsed);
            else
              for (const p of parsed) {
                rows.push(p);
                origins.push(rec);
              }
          }
          if (summary.stopped) break read;
          if (rows.length >= batchRows && (await flushFull())) break read;
        }
        progress.update({ ...state(summary), bytes: doneBytes + (input as InputFile).bytesRead(), totalBytes });
      }
      // The rows validated before the limit was reached go in too: a rerun after fixing the file resumes from them.
      if (!summary.interrupted) await flush();
      await settle();
      const also = plan.also?.();
      if (also) {
        const sum = (summary.also[also.kind] ??= { inserted: 0, changed: 0, unchanged: 0 });
        sum.inserted += also.counts.inserted;
        sum.changed += also.counts.changed;
        sum.unchanged += also.counts.unchanged;
      }
      for (const note of plan.notes?.() ?? []) summary.notes.push(`${name}: ${note}`);
      doneBytes += input.size;
      progress.update({ ...state(summary), bytes: doneBytes, totalBytes });
      if (summary.stopped || summary.interrupted) break;
    }
  } finally {
    // A write still in flight when reading failed ends before the caller closes the sink.
    await pending;
    progress.stop();
    await report.close();
    await input?.records.return(undefined);
  }
  if (report.written) summary.report = opts.reportPath;
  return summary;
}

function state(s: ImportSummary): { rows: number; rejected: number } {
  return { rows: s.rows, rejected: s.rejected };
}

export function exitCode(s: ImportSummary): number {
  if (s.stopped || s.interrupted) return EXIT_FAILURE;
  return s.rejected > 0 ? EXIT_REJECTED : EXIT_OK;
}

/** The final lines: counts for the kind, what the dry run did, and where the rejections are. */
export function summaryLines(s: ImportSummary, dryRun: boolean): string[] {
  const lines = [
    dryRun
      ? `${s.kind}: ${s.rows} rows read, ${s.rows - s.rejected} valid, ${s.rejected} rejected` +
        " (dry run: nothing written)"
      : `${s.kind}: ${s.inserted} inserted, ${s.changed} changed, ${s.unchanged} unchanged, ${s.rejected} rejected`,
  ];
  for (const [kind, c] of Object.entries(s.also)) {
    lines.push(`${kind}: ${c.inserted} inserted, ${c.changed} changed, ${c.unchanged} unchanged`);
  }
  lines.push(...s.notes);
  if (s.report) lines.push(`rejected rows: ${s.report}`);
  if (s.stopped)
    lines.push(`stopped after ${s.rejected} rejected rows (--max-errors); the batches before stay written`);
  if (s.interrupted) lines.push("interrupted; the batches before stay written, and a rerun resumes");
  return lines;
}
