#!/usr/bin/env node
/**
 * The keys tool: manages API keys in the service's own store.
 *
 *   npm run keys -- create --name NAME --scopes crypto,etf [--expires 2027-01-01] [--rate 600] [--quota 100000]
 *   npm run keys -- list
 *   npm run keys -- revoke KEY_ID
 *
 * `main` takes its store, clock and output as arguments so tests drive it
 * directly; the entry at the bottom wires the real ones from the environment.
 * Exit codes: 0 done, 1 the operation failed (unknown id, store error),
 * 2 bad arguments.
 *
 * A running server caches successful key lookups for a few seconds
 * (DEFAULT_CACHE_TTL_MS), so a key revoked here stops working there within
 * that time, not instantly.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { type Clock, systemClock } from "../../platform/clock";
import { isAppError } from "../../platform/errors";
import { type Config, loadConfig } from "../../platform/config";
import { API_KEY_PREFIX, describeArgument, KEYS_COMMAND } from "../../platform/auth/auth.keys";
import { parseScopes, type Scope, SCOPES } from "../../platform/auth/auth.scopes";
import {
  ApiKeyService,
  DEFAULT_CACHE_TTL_MS,
  DEFAULT_DAILY_QUOTA,
  DEFAULT_RATE_PER_MINUTE,
} from "../../platform/auth/auth.service";
import type { ApiKeyInfo, ApiKeyStore } from "../../platform/auth/auth.types";
import type { Sources } from "../../sources/source.factory";

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Prefix of its messages. */
const PROGRAM = "keys";
const COMMAND = KEYS_COMMAND;

/** Where the CLI writes; `console` fits. */
export interface CliOutput {
  log(line: string): void;
  error(line: string): void;
}

export interface CliDeps {
  source: ApiKeyStore;
  clock: Clock;
  out: CliOutput;
}

export const USAGE = `Usage: ${COMMAND} <command> [options]

Commands:
  create --name NAME --scopes SCOPES [--expires DATE] [--rate N] [--quota N]
        Create a key and print its secret, once.
        SCOPES  comma-separated, from: ${SCOPES.join(", ")} (* means all)
        DATE    YYYY-MM-DD: the key works through the end of that day (UTC) and
                expires at 00:00 UTC of the next; or an ISO 8601 date-time with
                zone, e.g. 2027-01-01T12:00:00Z, the exact instant it expires;
                no expiry when absent
        --rate  requests per minute (default ${DEFAULT_RATE_PER_MINUTE})
        --quota requests per day (default ${DEFAULT_DAILY_QUOTA})
  list  Show every key: id, name, scopes, status, dates and limits (never a secret).
  revoke KEY_ID
        Revoke a key by its id (key_...), as shown by list. Running servers
        stop accepting it within ${DEFAULT_CACHE_TTL_MS / 1000} seconds.
  help  Show this text.

The store is the SQLite file named by MDG_SQLITE_PATH (default ./data/market.db).`;

/** The message of anything thrown (an Error of another realm included, as under jest). */
function messageOf(e: unknown): string {
  const message = typeof e === "object" && e !== null ? (e as { message?: unknown }).message : undefined;
  return typeof message === "string" ? message : String(e);
}

/** A mistake in the command line: reported with a hint, exit code 2. */
class UsageError extends Error {
  override name = "UsageError";
}

/** Runs one command; resolves to the process exit code. Never prints a secret except the one `create` made. */
export async function main(argv: readonly string[], deps: CliDeps): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "create":
        return await create(rest, deps);
      case "list":
        return await list(rest, deps);
      case "revoke":
        return await revoke(rest, deps);
      case "help":
      case "--help":
      case "-h":
        deps.out.log(USAGE);
        return EXIT_OK;
      case undefined:
        throw new UsageError("a command is required: create, list or revoke");
      default:
        throw new UsageError(`unknown command ${describeArgument(command)}; expected create, list or revoke`);
    }
  } catch (e) {
    if (e instanceof UsageError || (isAppError(e) && e.code === "INVALID_ARGUMENT")) {
      deps.out.error(`${PROGRAM}: ${e.message}`);
      deps.out.error(`Run "${COMMAND} help" for usage.`);
      return EXIT_USAGE;
    }
    deps.out.error(`${PROGRAM}: failed: ${messageOf(e)}`);
    return EXIT_FAILURE;
  }
}

async function create(args: readonly string[], deps: CliDeps): Promise<number> {
  const { values } = parseOptions(args, {
    name: { type: "string" },
    scopes: { type: "string" },
    expires: { type: "string" },
    rate: { type: "string" },
    quota: { type: "string" },
  });
  if (values.name === undefined) throw new UsageError("create: --name is required");
  if (values.scopes === undefined) throw new UsageError("create: --scopes is required");
  let scopes: Scope[];
  try {
    scopes = parseScopes(values.scopes);
  } catch (e) {
    throw new UsageError(`--scopes: ${messageOf(e)}`);
  }
  const expiresAt = values.expires === undefined ? undefined : parseExpiry(values.expires, deps.clock);
  const ratePerMinute = values.rate === undefined ? undefined : parsePositiveInt("--rate", values.rate);
  const dailyQuota = values.quota === undefined ? undefined : parsePositiveInt("--quota", values.quota);

  const service = new ApiKeyService(deps.source, deps.clock);
  const { key, row } = await service.create({ name: values.name, scopes, expiresAt, ratePerMinute, dailyQuota });

  const out = deps.out;
  out.log(`Created API key ${row.id} (${JSON.stringify(row.name)}).`);
  out.log(`  scopes   ${row.scopes.join(", ")}`);
  out.log(`  expires  ${row.expiresAt === null ? "never" : expiryText(row.expiresAt)}`);
  out.log(`  limits   ${row.ratePerMinute} requests/minute, ${row.dailyQuota} requests/day`);
  out.log("");
  out.log(`  secret   ${key}`);
  out.log("");
  out.log("WARNING: this is the only time the secret is shown; it cannot be shown again.");
  out.log("Store it now (a password manager or secret store). Clients send it in the x-api-key header.");
  out.log(`If it is lost or leaked: ${COMMAND} revoke ${row.id}`);
  return EXIT_OK;
}

async function list(args: readonly string[], deps: CliDeps): Promise<number> {
  parseOptions(args, {});
  const keys = await new ApiKeyService(deps.source, deps.clock).list();
  if (keys.length === 0) {
    deps.out.log(`No API keys yet. Create one with: ${COMMAND} create --name NAME --scopes SCOPES`);
    return EXIT_OK;
  }
  const now = deps.clock.now().getTime();
  const sorted = [...keys].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  const header = ["ID", "NAME", "SCOPES", "STATUS", "CREATED", "EXPIRES", "REVOKED", "RATE/MIN", "QUOTA/DAY"];
  const rows = sorted.map((k) => [
    k.id,
    printable(k.name),
    k.scopes.join(","),
    status(k, now),
    formatInstant(k.createdAt),
    k.expiresAt === null ? "-" : formatInstant(k.expiresAt),
    k.revokedAt === null ? "-" : formatInstant(k.revokedAt),
    String(k.ratePerMinute),
    String(k.dailyQuota),
  ]);
  for (const line of table(header, rows)) deps.out.log(line);
  return EXIT_OK;
}

async function revoke(args: readonly string[], deps: CliDeps): Promise<number> {
  const { positionals } = parseOptions(args, {}, true);
  if (positionals.length !== 1) throw new UsageError("revoke: expected exactly one KEY_ID");
  const id = positionals[0]!;
  if (id.toLowerCase().startsWith(API_KEY_PREFIX)) {
    // Someone pasted the secret itself. Do not repeat it; it should probably be revoked, by its id.
    throw new UsageError(`revoke takes the key id (key_...) shown by "${COMMAND} list", not the secret`);
  }
  const revoked = await new ApiKeyService(deps.source, deps.clock).revoke(id);
  if (!revoked) {
    deps.out.error(`${PROGRAM}: no active key with id ${describeArgument(id)} (unknown or already revoked)`);
    return EXIT_FAILURE;
  }
  deps.out.log(`Revoked ${id}. Running servers stop accepting it within ${DEFAULT_CACHE_TTL_MS / 1000} seconds.`);
  return EXIT_OK;
}

type StringOptions = Record<string, { type: "string" }>;

/**
 * util.parseArgs with our own messages: its own ones quote stray arguments,
 * and a stray argument may be a pasted secret.
 */
function parseOptions<O extends StringOptions>(args: readonly string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals });
  } catch (e) {
    const code = (e as { code?: string }).code;
    const known = Object.keys(options).map((o) => `--${o}`);
    switch (code) {
      case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
        throw new UsageError(
          `unknown option; ${known.length > 0 ? `expected ${known.join(", ")}` : "this command takes none"}`,
        );
      case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
        throw new UsageError("unexpected argument; every value goes after its option, e.g. --name NAME");
      case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
        const option = /'(--[\w-]+)/.exec(messageOf(e))?.[1];
        if (option !== undefined && known.includes(option)) throw new UsageError(`${option} is missing its value`);
        throw new UsageError(`an option is missing its value; expected ${known.map((o) => `${o} VALUE`).join(", ")}`);
      }
      default:
        throw new UsageError("could not read the arguments");
    }
  }
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

function isCalendarDay(day: string): boolean {
  const at = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().startsWith(day);
}

/**
 * `YYYY-MM-DD`: through the end of that day, UTC (the key expires at 00:00 UTC of the next day: "expires 2027-12-31"
 * read as a last day of use); or an ISO 8601 date-time with an explicit zone, the instant itself. Must lie ahead of
 * the clock.
 */
function parseExpiry(value: string, clock: Clock): Date {
  const expected = "expected YYYY-MM-DD or an ISO 8601 date-time with zone, e.g. 2027-01-01T00:00:00Z";
  let at: Date;
  if (DAY.test(value) && isCalendarDay(value)) {
    at = new Date(Date.parse(`${value}T00:00:00Z`) + 86_400_000);
  } else {
    const m = DATE_TIME.exec(value);
    at = new Date(m && isCalendarDay(m[1]!) ? value : Number.NaN);
  }
  if (Number.isNaN(at.getTime())) throw new UsageError(`--expires: ${expected}; got ${describeArgument(value)}`);
  if (at.getTime() <= clock.now().getTime()) {
    throw new UsageError(`--expires: ${describeArgument(value)} is not in the future`);
  }
  return at;
}

function parsePositiveInt(option: string, value: string): number {
  const n = /^[1-9]\d*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n))
    throw new UsageError(`${option}: expected a positive whole number; got ${describeArgument(value)}`);
  return n;
}

function status(key: ApiKeyInfo, nowMs: number): string {
  if (key.revokedAt !== null) return "revoked";
  if (key.expiresAt !== null && nowMs >= key.expiresAt * 1000) return "expired";
  return "active";
}

/** Unix seconds as `2027-01-01T00:00:00Z`. */
/** `2028-01-01T00:00:00Z (usable through 2027-12-31, UTC)` where it falls at midnight; the instant otherwise. */
function expiryText(seconds: number): string {
  if (seconds % 86_400 !== 0) return formatInstant(seconds);
  const lastDay = new Date((seconds - 86_400) * 1000).toISOString().slice(0, 10);
  return `${formatInstant(seconds)} (usable through ${lastDay}, UTC)`;
}

function formatInstant(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A name as one table cell: no control characters, bounded width. */
function printable(name: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = name.replace(/[\u0000-\u001f\u007f]/g, "?");
  return clean.length > 40 ? `${clean.slice(0, 39)}…` : clean;
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
}

/** Wires the key store of MDG_DATA_SOURCE (src/sources/source.factory.ts) and runs one command. */
async function runFromProcess(argv: readonly string[]): Promise<number> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    console.error(`${PROGRAM}: ${messageOf(e)}`);
    return EXIT_USAGE;
  }
  const readonly = argv[0] === "list";
  if (readonly && config.dataSource === "sqlite" && !existsSync(config.sqlitePath)) {
    console.error(`${PROGRAM}: no database at ${config.sqlitePath} (MDG_SQLITE_PATH); nothing to list`);
    return EXIT_FAILURE;
  }
  // The store opens on first use, so `help` and argument errors never touch the database; the factory is
  // loaded lazily too, so importing this module (tests) does not load the SQLite driver. Never builds sample data.
  let opened: Promise<Sources> | undefined;
  const open = async () => (await (opened ??= openKeySources(config, readonly))).keys;
  const source: ApiKeyStore = {
    findApiKeyByHash: async (hash) => (await open()).findApiKeyByHash(hash),
    insertApiKey: async (row) => (await open()).insertApiKey(row),
    listApiKeys: async () => (await open()).listApiKeys(),
    revokeApiKey: async (id, at) => (await open()).revokeApiKey(id, at),
  };
  try {
    return await main(argv, { source, clock: systemClock, out: console });
  } finally {
    // A source that failed to open has nothing to close.
    await opened?.then(
      (s) => s.close(),
      () => undefined,
    );
  }
}

async function openKeySources(config: Config, readonly: boolean): Promise<Sources> {
  const { openSources } = await import("../../sources/source.factory");
  return openSources(config, { buildSample: false, readonly });
}

if (require.main === module) {
  runFromProcess(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      console.error(`${PROGRAM}: failed: ${messageOf(e)}`);
      process.exitCode = EXIT_FAILURE;
    },
  );
}
