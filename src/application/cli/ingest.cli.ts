#!/usr/bin/env node
/**
 * The ingest tool: fetches a public provider's data and loads it into the service's own store through the import
 * pipeline.
 *
 *   npm run ingest -- <provider> [dataset] [--since YYYY-MM-DD] [--symbols A,B]
 *
 * `main` takes its dependencies as arguments so tests drive it directly; the entry at the bottom wires the store
 * MDG_DATA_SOURCE names and the provider's base URL from the configuration. Exit codes are the import's: 0 every
 * row went in, 2 some rows were rejected, 1 failure (a bad command line, a provider that failed or sent what cannot
 * be read, a store error, or --max-errors reached).
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { type Config, loadConfig } from "../../platform/config";
import type { ImportSink } from "../../domain/ports/source.import";
import { PROVIDERS, providerHttp, ProviderSetupError } from "../../sources/providers/provider.registry";
import type { ProviderHttp } from "../../sources/providers/provider.http";
import type { IngestQuery } from "../../sources/providers/provider.types";
import { ImportSetupError } from "../import/import.kinds";
import { importProgress } from "../import/import.progress";
import { DEFAULT_MAX_ERRORS, EXIT_FAILURE, summaryLines } from "../import/import.run";
import { runIngest } from "../ingest/ingest.run";
import { openConfiguredSink } from "./import.cli";

const PROGRAM = "ingest";

export const USAGE = `Usage: mdg-ingest <provider> [dataset] [options]   (npm run ingest -- <provider> …)

Providers and datasets (docs/providers.md):
${Object.values(PROVIDERS)
  .map((p) => `  ${p.name}: ${p.datasets.join(", ")}`)
  .join("\n")}
Without a dataset, the provider fetches its history the first time, then only what is new.

Options:
  --since YYYY-MM-DD  only rows on or after this day
  --symbols A,B       only these symbols (ecb: pairs such as EURUSD,USDJPY, the rates table taking every currency;
                      sec: tickers, or the listed companies; kraken: pairs such as BTC-USD; tiingo: the tickers,
                      required the first time)
  --max-errors N      stop after N rejected rows (default ${DEFAULT_MAX_ERRORS}); exit code 1
  --report PATH       the rejection reports, one per kind (default ingest-rejections.csv: ingest-rejections.fx.csv, …)

The store is the one the service's configuration names (MDG_DATA_SOURCE, MDG_SQLITE_PATH); a SQLite store that
does not exist yet is created empty (never with the sample). Base URLs: MDG_PROVIDER_<NAME>_URL; keys (tiingo):
MDG_PROVIDER_<NAME>_KEY, never shown.`;

export interface IngestCliOutput {
  log(line: string): void;
  error(line: string): void;
}

export interface IngestCliDeps {
  http(provider: string): ProviderHttp;
  storeExists(): boolean;
  openSink(): Promise<{ sink: ImportSink; close(): Promise<void> }>;
  out: IngestCliOutput;
  tty: boolean;
}

class UsageError extends Error {
  override name = "UsageError";
}

function messageOf(e: unknown): string {
  const message = typeof e === "object" && e !== null ? (e as { message?: unknown }).message : undefined;
  return typeof message === "string" ? message : String(e);
}

interface IngestArgs {
  provider: string;
  query: IngestQuery;
  maxErrors: number;
  reportPath: string;
}

export function parseIngestArgs(argv: readonly string[]): IngestArgs | "help" {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        since: { type: "string" },
        symbols: { type: "string" },
        "max-errors": { type: "string" },
        report: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (e) {
    throw new UsageError(messageOf(e));
  }
  const { values, positionals } = parsed;
  if (values.help || positionals[0] === "help") return "help";
  const names = Object.keys(PROVIDERS).join(", ");
  const [name, dataset, ...rest] = positionals;
  if (name === undefined) throw new UsageError(`a provider is required: ${names}`);
  const provider = PROVIDERS[name];
  if (!provider) throw new UsageError(`unknown provider ${JSON.stringify(name)}; expected one of ${names}`);
  if (dataset !== undefined && !provider.datasets.includes(dataset)) {
    throw new UsageError(
      `${name}: unknown dataset ${JSON.stringify(dataset)}; expected ${provider.datasets.join(", ")}`,
    );
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  const since = values.since;
  if (since !== undefined) {
    const at = new Date(`${since}T00:00:00Z`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(since) || Number.isNaN(at.getTime()) || !at.toISOString().startsWith(since)) {
      throw new UsageError("--since: expected a calendar day, YYYY-MM-DD");
    }
  }
  let symbols: string[] | undefined;
  if (values.symbols !== undefined) {
    symbols = values.symbols
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    if (symbols.length === 0) throw new UsageError("--symbols: expected a comma list of symbols");
  }
  let maxErrors = DEFAULT_MAX_ERRORS;
  if (values["max-errors"] !== undefined) {
    if (!/^[1-9]\d*$/.test(values["max-errors"]))
      throw new UsageError("--max-errors: expected a positive whole number");
    maxErrors = Number(values["max-errors"]);
  }
  return {
    provider: name,
    query: { dataset, since, symbols },
    maxErrors,
    reportPath: values.report ?? "ingest-rejections.csv",
  };
}

/** Runs one ingest; resolves to the process exit code. */
export async function main(argv: readonly string[], deps: IngestCliDeps): Promise<number> {
  let args: IngestArgs | "help";
  try {
    args = parseIngestArgs(argv);
  } catch (e) {
    deps.out.error(`${PROGRAM}: ${messageOf(e)}`);
    deps.out.error(`Run "mdg-ingest --help" for usage.`);
    return EXIT_FAILURE;
  }
  if (args === "help") {
    deps.out.log(USAGE);
    return 0;
  }
  const provider = PROVIDERS[args.provider]!;
  try {
    const result = await runIngest(
      { query: args.query, maxErrors: args.maxErrors, reportPath: args.reportPath },
      {
        provider,
        http: deps.http(provider.name),
        storeExists: deps.storeExists,
        openSink: deps.openSink,
        progress: (label) => importProgress(label, deps.tty, (l) => deps.out.error(l)),
        log: (l) => deps.out.error(l),
      },
    );
    for (const s of result.imports) {
      for (const line of summaryLines(s, false)) deps.out.error(`${provider.name} ${result.dataset} ${line}`);
    }
    if (result.imports.length === 0) deps.out.error(`${provider.name} ${result.dataset}: nothing new`);
    return result.exitCode;
  } catch (e) {
    const known = e instanceof ImportSetupError || e instanceof ProviderSetupError;
    deps.out.error(`${PROGRAM}: ${known ? "" : "failed: "}${messageOf(e)}`);
    return EXIT_FAILURE;
  }
}

/**
 * The store of MDG_DATA_SOURCE, opened for writing: a SQLite file that does not exist is created with the schema
 * and nothing else (the service then serves it as it is, never building the sample over it); refused in gateway
 * mode.
 */
export function openIngestSink(config: Config): Promise<{ sink: ImportSink; close(): Promise<void> }> {
  return openConfiguredSink(config, { createStore: true, verb: "ingest" });
}

if (require.main === module) {
  let config: Config | undefined;
  try {
    config = loadConfig();
  } catch (e) {
    console.error(`${PROGRAM}: ${messageOf(e)}`);
    process.exitCode = EXIT_FAILURE;
  }
  if (config) {
    const c = config;
    main(process.argv.slice(2), {
      http: (name) => providerHttp(name, c.providers),
      storeExists: () => c.dataSource !== "sqlite" || existsSync(c.sqlitePath),
      openSink: () => openIngestSink(c),
      out: console,
      tty: process.stderr.isTTY === true,
    }).then(
      (code) => {
        process.exitCode = code;
      },
      (e: unknown) => {
        console.error(`${PROGRAM}: failed: ${messageOf(e)}`);
        process.exitCode = EXIT_FAILURE;
      },
    );
  }
}
