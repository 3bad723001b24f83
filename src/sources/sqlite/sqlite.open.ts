import { accessSync, closeSync, constants, openSync, readSync, statSync, type Stats } from "node:fs";
import { dirname, resolve } from "node:path";
import { StartupError } from "../../platform/errors";

/** The first 16 bytes of every SQLite 3 database file. */
const SQLITE_HEADER = "SQLite format 3\0";

/**
 * What is wrong with the store path, in words an operator can act on, or undefined when nothing is visibly wrong.
 * A missing file is fine when `write` is set (the sample store is built there) as long as its folder can be made.
 * As root, permission bits are not enforced and cannot be seen this way; SQLite's own error then speaks.
 */
export function storePathProblem(path: string, opts: { write: boolean }): string | undefined {
  const full = resolve(path);
  const stat = statOrNone(full);
  if (stat === undefined) {
    if (!opts.write) return `${path} does not exist`;
    let parent = dirname(full);
    while (statOrNone(parent) === undefined && dirname(parent) !== parent) parent = dirname(parent);
    if (!statOrNone(parent)?.isDirectory()) return `${path} cannot be created: ${parent} is a file, not a folder`;
    if (!accessible(parent, constants.W_OK | constants.X_OK)) {
      return `${path} cannot be created: ${parent} is not writable`;
    }
    return undefined;
  }
  if (stat.isDirectory()) return `${path} is a folder, not a SQLite file`;
  if (!stat.isFile()) return `${path} is not a regular file`;
  if (!accessible(full, constants.R_OK)) return `${path} is not readable by this process`;
  if (stat.size > 0 && readHeader(full) !== SQLITE_HEADER) return `${path} is not a SQLite database`;
  if (opts.write && !accessible(full, constants.W_OK)) {
    return `${path} is read-only, and the store is written at start (migrations, WAL journal)`;
  }
  // The WAL journal and its shared-memory file are created beside the store.
  if (opts.write && !accessible(dirname(full), constants.W_OK | constants.X_OK)) {
    return `${dirname(full)}, the folder of ${path}, is not writable, and SQLite creates its journal files there`;
  }
  return undefined;
}

/**
 * Checks the store path before anything is created or opened there, so a wrong MDG_SQLITE_PATH ends the start
 * with one line naming it, not with "ENOTDIR: not a directory, mkdir …" or a sample build that fails half-way.
 */
export function assertStorePath(path: string, opts: { write: boolean } = { write: true }): void {
  const problem = storePathProblem(path, opts);
  if (problem !== undefined) throw new StartupError(`MDG_SQLITE_PATH: ${problem}`);
}

/**
 * Runs `open` and turns what SQLite throws while opening and migrating the store ("file is not a database",
 * "unable to open database file", "attempt to write a readonly database") into a StartupError that names the
 * path and the variable.
 */
export function openingStore<T>(path: string, write: boolean, open: () => T): T {
  try {
    return open();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const sqlite = typeof code === "string" && code.startsWith("SQLITE_");
    const missingDir = err instanceof TypeError && /directory does not exist/.test(err.message);
    if (!sqlite && !missingDir) throw err;
    const why = storePathProblem(path, { write }) ?? sqliteReason(String(code), path, (err as Error).message);
    throw new StartupError(`MDG_SQLITE_PATH: ${why}`, { cause: err });
  }
}

function sqliteReason(code: string, path: string, message: string): string {
  if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT") return `${path} is not a SQLite database (${message})`;
  if (code.startsWith("SQLITE_READONLY")) {
    return `${path} cannot be written (${message}); the store is written at start`;
  }
  if (code.startsWith("SQLITE_CANTOPEN")) return `${path} cannot be opened (${message})`;
  return `${path}: ${message} (${code})`;
}

/** The file's stat, or undefined when it does not exist (also when a file stands where a folder of its path should). */
function statOrNone(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw err;
  }
}

function accessible(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

function readHeader(path: string): string {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(SQLITE_HEADER.length);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.toString("latin1", 0, n);
  } finally {
    closeSync(fd);
  }
}
