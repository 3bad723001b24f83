#!/usr/bin/env node
/**
 * The import tool: loads files users already have into the service's own store.
 *
 *   npm run import -- <kind> <file>… [options]
 *
 * `main` takes the store and its output as arguments so tests drive it directly; the entry at the bottom wires
 * the store MDG_DATA_SOURCE names. Exit codes: 0 every row went in, 2 some rows were rejected, 1 failure (a bad
 * command line, an unreadable file, a store error, or --max-errors reached).
 */
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { type Config, loadConfig } from "../../platform/config";
import type { ImportSink } from "../../domain/ports/source.import";
import {
  FORMAT_KINDS,
  FORMATS,
  type ImportFormat,
  ImportSetupError,
  type ImportKind,
  KINDS,
} from "../import/import.kinds";
import { InputError } from "../import/import.readers";
import { notifyingSink } from "../import/import.notify";
import { importProgress } from "../import/import.progress";
import {
  DEFAULT_MAX_ERRORS,
  EXIT_FAILURE,
  exitCode,
  type ImportOptions,
  runImport,
  summaryLines,
} from "../import/import.run";

const PROGRAM = "import";

export const USAGE = `Usage: mdg-import <kind> <file>… [options]   (npm run import -- <kind> <file>…)

Kinds: ${KINDS.join(", ")} (columns: docs/import.md)
Files: CSV with a header row, JSON Lines (.jsonl, .ndjson), a Ghostfolio export (.json), or the SEC's
company facts of one company (.json, financials); any may be gzip-compressed. The format is recognised by
the file's columns, or named with --format.

Options:
  --format F         ${FORMATS.join(", ")} (native: the store's own columns)
  --dry-run          validate every row, write nothing
  --max-errors N     stop after N rejected rows (default ${DEFAULT_MAX_ERRORS}); exit code 1
  --report PATH      the rejection report (CSV; default import-rejections.csv)
  --symbol S         a price download (Yahoo or Stooq columns): the listing it is for
  --exchange X       with --symbol: the listing on that exchange; or the exchange of a new one;
                     a Ghostfolio export: the exchange of its listings (default MANUAL, created when missing)
  --currency C       with --symbol: the file's currency (GBp, GBX, ZAc: prices in pence or cents)
  --name N           with --symbol: the name of a new security
  --type T           with --symbol: the type of a new security (stock, etf, fund; default stock)
  --prices P         with --symbol: raw (as traded) or adjusted (for splits, as Yahoo's Close)

The store is the one the service's configuration names (MDG_DATA_SOURCE; MDG_SQLITE_PATH or DATABASE_URL).`;

/** Where the CLI writes; `console` fits. */
export interface ImportCliOutput {
  log(line: string): void;
  error(line: string): void;
}

export interface ImportCliDeps {
  /** Opens the store's import sink (called once, after the arguments are checked). */
  openSink(): Promise<{ sink: ImportSink; close(): Promise<void> }>;
  out: ImportCliOutput;
  /** Draw a progress bar (an interactive terminal) rather than plain lines. */
  tty: boolean;
}

class UsageError extends Error {
  override name = "UsageError";
}

function messageOf(e: unknown): string {
  const message = typeof e === "object" && e !== null ? (e as { message?: unknown }).message : undefined;
  return typeof message === "string" ? message : String(e);
}

export function parseImportArgs(argv: readonly string[]): ImportOptions | "help" {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        "dry-run": { type: "boolean" },
        format: { type: "string" },
        "max-errors": { type: "string" },
        report: { type: "string" },
        symbol: { type: "string" },
        exchange: { type: "string" },
        currency: { type: "string" },
        name: { type: "string" },
        type: { type: "string" },
        prices: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (e) {
    throw new UsageError(messageOf(e));
  }
  const { values, positionals } = parsed;
  if (values.help || positionals[0] === "help") return "help";
  const [kind, ...files] = positionals;
  if (kind === undefined) throw new UsageError(`a kind is required: ${KINDS.join(", ")}`);
  if (!(KINDS as readonly string[]).includes(kind)) {
    throw new UsageError(`unknown kind ${JSON.stringify(kind)}; expected one of ${KINDS.join(", ")}`);
  }
  if (files.length === 0) throw new UsageError("at least one file is required");
  for (const f of files) {
    if (!existsSync(f) || !statSync(f).isFile()) throw new UsageError(`${f}: no such file`);
  }
  let maxErrors = DEFAULT_MAX_ERRORS;
  if (values["max-errors"] !== undefined) {
    if (!/^[1-9]\d*$/.test(values["max-errors"]))
      throw new UsageError("--max-errors: expected a positive whole number");
    maxErrors = Number(values["max-errors"]);
  }
  if (values.prices !== undefined && values.prices !== "raw" && values.prices !== "adjusted") {
    throw new UsageError("--prices: expected raw or adjusted");
  }
  const format = values.format as ImportFormat | undefined;
  if (format !== undefined) {
    if (!(FORMATS as readonly string[]).includes(format)) {
      throw new UsageError(`--format: unknown format ${JSON.stringify(format)}; expected one of ${FORMATS.join(", ")}`);
    }
    if (!FORMAT_KINDS[format].includes(kind as ImportKind)) {
      throw new UsageError(`--format ${format} is for ${FORMAT_KINDS[format].join(" or ")}, not ${kind}`);
    }
  }
  const ghostfolio = format === "ghostfolio" || files.some((f) => /\.json(\.gz)?$/i.test(f));
  const priceOptions = ["exchange", "currency", "name", "type", "prices"] as const;
  if (values.symbol === undefined) {
    const stray = priceOptions.filter((o) => values[o] !== undefined && !(ghostfolio && o === "exchange"));
    if (stray.length > 0) throw new UsageError(`--${stray[0]} goes with --symbol (a price download)`);
  }
  if (values.symbol !== undefined && kind !== "daily-bars") throw new UsageError("--symbol is for daily-bars");
  return {
    kind: kind as ImportKind,
    files,
    dryRun: values["dry-run"] ?? false,
    format,
    maxErrors,
    reportPath: values.report ?? "import-rejections.csv",
    symbol: values.symbol,
    exchange: values.exchange,
    currency: values.currency,
    name: values.name,
    type: values.type,
    prices: values.prices as "raw" | "adjusted" | undefined,
  };
}

/** Runs one import; resolves to the process exit code. */
export async function main(argv: readonly string[], deps: ImportCliDeps): Promise<number> {
  let opts: ImportOptions | "help";
  try {
    opts = parseImportArgs(argv);
  } catch (e) {
    deps.out.error(`${PROGRAM}: ${messageOf(e)}`);
    deps.out.error(`Run "mdg-import --help" for usage.`);
    return EXIT_FAILURE;
  }
  if (opts === "help") {
    deps.out.log(USAGE);
    return 0;
  }
  let opened: { sink: ImportSink; close(): Promise<void> } | undefined;
  try {
    opened = await deps.openSink();
    const progress = importProgress(opts.kind, deps.tty, (l) => deps.out.error(l));
    const summary = await runImport(opts, opened.sink, progress);
    for (const line of summaryLines(summary, opts.dryRun)) deps.out.error(line);
    return exitCode(summary);
  } catch (e) {
    const known = e instanceof ImportSetupError || e instanceof InputError;
    deps.out.error(`${PROGRAM}: ${known ? "" : "failed: "}${messageOf(e)}`);
    return EXIT_FAILURE;
  } finally {
    await opened?.close();
  }
}

/**
 * The store of MDG_DATA_SOURCE, opened for writing (never building the sample); refused in gateway mode. A SQLite
 * store must exist, unless `createStore` (the ingest's first run into an empty folder): then a missing file is
 * created with the schema and nothing else.
 */
export async function openConfiguredSink(
  config: Config,
  { createStore = false, verb = "import" }: { createStore?: boolean; verb?: "import" | "ingest" } = {},
): Promise<{ sink: ImportSink; close(): Promise<void> }> {
  if (config.dataSource === "upstream") {
    throw new ImportSetupError(
      `MDG_DATA_SOURCE=upstream (gateway mode) has no store of its own to ${verb} into; ` +
        `${verb} into the SQLite or PostgreSQL store the upstream service reads`,
    );
  }
  if (config.dataSource === "sqlite") {
    if (createStore) mkdirSync(dirname(config.sqlitePath), { recursive: true });
    else if (!existsSync(config.sqlitePath)) {
      throw new ImportSetupError(
        `no store at ${config.sqlitePath} (MDG_SQLITE_PATH); start the service once, or point it at a store`,
      );
    }
  }
  const { openSources } = await import("../../sources/source.factory");
  const sources = await openSources(config, { buildSample: false });
  if (!sources.importSink) {
    await sources.close();
    throw new ImportSetupError(`MDG_DATA_SOURCE=${config.dataSource}: this store takes no imports`);
  }
  const sink = sources.importSink();
  if (!config.rateLimit.redisUrl) return { sink, close: () => sources.close() };
  // With Redis, each commit of quotes or bars also tells the replicas which symbols changed (docs/live.md).
  const { RedisStoreNotices } = await import("../../sources/live/live.redis");
  const notices = new RedisStoreNotices(config.rateLimit.redisUrl, config.rateLimit.redisKeyPrefix);
  return {
    sink: notifyingSink(sink, (symbols) => notices.notify(symbols)),
    close: async () => {
      await notices.close();
      await sources.close();
    },
  };
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
      openSink: () => openConfiguredSink(c),
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
