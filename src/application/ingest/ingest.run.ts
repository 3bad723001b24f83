import { setImmediate as turn } from "node:timers/promises";
import type { ImportSink } from "../../domain/ports/source.import";
import { hasIngestCompanies, hasIngestState, type IngestLoad } from "../../domain/ports/source.ingest";
import type { ProviderHttp } from "../../sources/providers/provider.http";
import type { IngestQuery, Provider } from "../../sources/providers/provider.types";
import { type ImportKind, KINDS } from "../import/import.kinds";
import type { ImportProgress } from "../import/import.progress";
import type { InputFile, InputRecord } from "../import/import.readers";
import {
  EXIT_FAILURE,
  EXIT_OK,
  EXIT_REJECTED,
  exitCode,
  type ImportInput,
  type ImportSummary,
  runImport,
} from "../import/import.run";

export interface IngestOptions {
  query: IngestQuery;
  /** Rejected rows, all imports of the run together, before it stops (exit 1). */
  maxErrors: number;
  /** The rejection report of each import: `PATH` with `.csv` turned into `.<kind>.csv`. */
  reportPath: string;
  /** Rows per write transaction (the import's default when unset). */
  batchRows?: number;
  /** Ends the run between two batches (the service shutting down); what the provider keeps is not written. */
  signal?: AbortSignal;
}

export interface IngestDeps {
  provider: Provider;
  http: ProviderHttp;
  /** Whether the store exists already: a missing one is created only once the provider has answered. */
  storeExists(): boolean;
  /** Opens the store's import sink, creating an empty store (never the sample) when there is none. */
  openSink(): Promise<{ sink: ImportSink; close(): Promise<void> }>;
  progress(label: string): ImportProgress;
  log(line: string): void;
}

export interface IngestResult {
  dataset: string;
  calls: number;
  imports: ImportSummary[];
  exitCode: number;
  /** True when `signal` ended the run: the batches written stay, and the next run starts from the same state. */
  interrupted: boolean;
}

/** The report file of one kind: `ingest-rejections.csv` becomes `ingest-rejections.fx.csv`. */
export function reportPathOf(path: string, kind: string): string {
  return /\.csv$/i.test(path) ? path.replace(/\.csv$/i, `.${kind}.csv`) : `${path}.${kind}.csv`;
}

const RUN = 1_000;

/**
 * A load as the import pipeline reads a file: its columns and its records in runs; its size counted in records.
 * Each run starts on a turn of its own of the event loop: a store whose writes are synchronous (SQLite) answers
 * already-settled promises, so without it a whole import would run as one task, and a service ingesting on a
 * schedule would answer no request until the end.
 */
function inputOf(load: IngestLoad, records: Iterable<InputRecord>): ImportInput {
  return {
    name: load.name,
    size: load.count,
    async open(): Promise<InputFile> {
      let read = 0;
      async function* runs(): AsyncGenerator<InputRecord[]> {
        let run: InputRecord[] = [];
        for (const r of records) {
          run.push(r);
          if (run.length >= RUN) {
            read += run.length;
            yield run;
            run = [];
            await turn();
          }
        }
        read += run.length;
        if (run.length > 0) yield run;
      }
      return { format: "csv", columns: [...load.columns], records: runs(), bytesRead: () => read, size: load.count };
    },
  };
}

/** The records of a create-only load the store lacks (an exchange's code, a listing's symbol not yet held). */
async function missingOnly(load: IngestLoad, sink: ImportSink): Promise<InputRecord[]> {
  const all = [...load.records];
  if (load.kind === "exchanges") {
    const known = await sink.exchanges();
    return all.filter((r) => !known.has(String(r.values.code).toUpperCase()));
  }
  if (load.kind === "securities") {
    const out: InputRecord[] = [];
    for (const r of all) if (!(await sink.findListing(String(r.values.symbol)))) out.push(r);
    return out;
  }
  throw new Error(`create-only ${load.kind}: only exchanges and securities can be created only`);
}

/**
 * One ingest: asks the provider (with what the last run kept), then runs each of its imports through the import
 * pipeline (the same parsing, validation, upserts in batches, report and progress as `npm run import`), in order.
 * Nothing is written when the provider fails or sends what cannot be read, and a store that did not exist is not
 * even created. What the provider keeps for its next run is written once every import went in (rows it rejected
 * stay rejected on a rerun too); a run stopped by --max-errors keeps nothing, so the next one starts over.
 */
export async function runIngest(opts: IngestOptions, deps: IngestDeps): Promise<IngestResult> {
  const { provider } = deps;
  const stateKey = provider.name;
  let opened = deps.storeExists() ? await deps.openSink() : undefined;
  try {
    const state = opened && hasIngestState(opened.sink) ? await opened.sink.readIngestState(stateKey) : undefined;
    const sinkNow = opened?.sink;
    const companies = async () => (sinkNow && hasIngestCompanies(sinkNow) ? sinkNow.companiesWithCik() : []);
    const cryptoListings = async () => (sinkNow && hasIngestCompanies(sinkNow) ? sinkNow.cryptoListings() : []);
    const isListed = async (symbol: string) => (sinkNow ? (await sinkNow.findListing(symbol)) !== null : false);
    const plan = await provider.fetch(opts.query, deps.http, state, { companies, cryptoListings, isListed });
    deps.log(`${provider.name} ${plan.dataset}: ${plan.calls} call${plan.calls === 1 ? "" : "s"}`);
    for (const note of plan.notes) deps.log(`${provider.name} ${plan.dataset}: ${note}`);
    opened ??= await deps.openSink();
    const sink = opened.sink;
    const imports: ImportSummary[] = [];
    let rejected = 0;
    let interrupted = false;
    for (const load of plan.loads) {
      if (opts.signal?.aborted) {
        interrupted = true;
        break;
      }
      if (!(KINDS as readonly string[]).includes(load.kind))
        throw new Error(`${provider.name}: no import kind ${load.kind}`);
      const records = load.createOnly ? await missingOnly(load, sink) : load.records;
      const count = load.createOnly ? (records as InputRecord[]).length : load.count;
      if (count === 0) continue;
      const summary = await runImport(
        {
          kind: load.kind as ImportKind,
          files: [],
          inputs: [inputOf({ ...load, count }, records)],
          dryRun: false,
          maxErrors: Math.max(1, opts.maxErrors - rejected),
          reportPath: reportPathOf(opts.reportPath, load.kind),
          batchRows: opts.batchRows,
          signal: opts.signal,
        },
        sink,
        deps.progress(`${provider.name} ${load.kind}`),
      );
      rejected += summary.rejected;
      imports.push(summary);
      interrupted ||= summary.interrupted;
      if (summary.stopped || summary.interrupted) break;
    }
    const codes = imports.map(exitCode);
    const code =
      interrupted || codes.includes(EXIT_FAILURE)
        ? EXIT_FAILURE
        : codes.includes(EXIT_REJECTED)
          ? EXIT_REJECTED
          : EXIT_OK;
    if (code !== EXIT_FAILURE && plan.nextState !== undefined && hasIngestState(sink)) {
      await sink.writeIngestState(stateKey, plan.nextState);
    }
    return { dataset: plan.dataset, calls: plan.calls, imports, exitCode: code, interrupted };
  } finally {
    await opened?.close();
  }
}
