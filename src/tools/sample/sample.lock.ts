import { closeSync, openSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * `<store>.lock`: one builder per store path, across processes. Created with O_EXCL, it holds the builder's pid,
 * host and start time; the builder touches it every few seconds. A waiting process takes it over when its holder is
 * gone: the pid is dead on this host, or the file has not been touched for LOCK_STALE_MS (a holder on another host or
 * in another pid namespace, which `kill(pid, 0)` cannot see).
 */

const POLL_MS = 200;
const HEARTBEAT_MS = 5_000;
const LOCK_STALE_MS = 60_000;
/** A lock file with no content yet is being written; only one that stays empty this long is abandoned. */
const EMPTY_LOCK_GRACE_MS = 5_000;
const WAIT_LOG_EVERY_MS = 10_000;

interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
}

export interface StoreLock {
  /** Removes the lock file if it is still this one. Idempotent. */
  release(): void;
}

/** Locks this process holds (a second call in the same process waits for the first like another process would). */
const heldHere = new Set<string>();

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Every file of a build's scratch store: the file itself and whatever is named after it, by SQLite (`-journal`, `-wal`,
 * `-shm`) or by the build (`.side`, the helper thread's bars, sample.helper.ts, with its own `-journal`, …). Derived
 * from the name rather than listed, so a file a later version adds is not forgotten.
 */
function scratchFamily(dir: string, base: string): string[] {
  // `…building-12` is not a file of `…building-1`: the name must not go on with a digit.
  return readdirSync(dir).filter((n) => n === base || (n.startsWith(base) && !/^\d/.test(n.slice(base.length))));
}

/** Removes a scratch store and every file named after it (see scratchFamily). */
export function removeScratchFiles(file: string): void {
  const dir = path.dirname(file);
  let names: string[];
  try {
    names = scratchFamily(dir, path.basename(file));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  for (const name of names) rmSync(path.join(dir, name), { force: true });
}

function lockPath(store: string): string {
  return `${store}.lock`;
}

function readLock(file: string): { raw: string; info: LockInfo | undefined; ageMs: number } | undefined {
  try {
    const raw = readFileSync(file, "utf8");
    const ageMs = Date.now() - statSync(file).mtimeMs;
    let info: LockInfo | undefined;
    try {
      const parsed = JSON.parse(raw) as Partial<LockInfo>;
      if (typeof parsed.pid === "number" && typeof parsed.host === "string") info = parsed as LockInfo;
    } catch {
      info = undefined;
    }
    return { raw, info, ageMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/** Why the lock's holder is gone, or undefined while it may still be building. */
function staleReason(file: string, lock: { info: LockInfo | undefined; ageMs: number }): string | undefined {
  const here = lock.info !== undefined && lock.info.host === hostname();
  // A holder of this host known to be gone says so whatever the lock's age: the surer of the two reasons.
  if (here && lock.info!.pid !== process.pid && !processAlive(lock.info!.pid)) {
    return `process ${lock.info!.pid} is gone`;
  }
  if (lock.ageMs > LOCK_STALE_MS) return `not touched for ${Math.round(lock.ageMs / 1000)} s`;
  if (!lock.info) return lock.ageMs > EMPTY_LOCK_GRACE_MS ? "unreadable" : undefined;
  if (!here) return undefined;
  // Our own pid in a lock we do not hold: left by an earlier life of a container whose process is always pid 1.
  if (lock.info.pid === process.pid) {
    return heldHere.has(file) ? undefined : `left by an earlier process ${lock.info.pid}`;
  }
  return undefined;
}

function tryCreate(file: string, raw: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, "wx");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
  try {
    writeSync(fd, raw);
  } finally {
    closeSync(fd);
  }
  return true;
}

function hold(file: string, raw: string): StoreLock {
  heldHere.add(file);
  const heartbeat = setInterval(() => {
    const now = new Date();
    try {
      utimesSync(file, now, now);
    } catch {
      // Gone (taken over after a long stall): release() below finds it is no longer ours.
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    clearInterval(heartbeat);
    heldHere.delete(file);
    process.removeListener("exit", release);
    if (readLock(file)?.raw === raw) rmSync(file, { force: true });
  };
  // process.exit() mid-build (a second SIGTERM) still frees the lock; a kill -9 leaves it to the stale check.
  process.once("exit", release);
  return { release };
}

/**
 * Takes the store's lock, waiting (with a log line now and then) while a live process holds it. Rejects with the
 * signal's reason when it is aborted while waiting.
 */
export async function acquireStoreLock(
  store: string,
  log: (msg: string) => void,
  signal?: AbortSignal,
): Promise<StoreLock> {
  const file = lockPath(store);
  let waitingSince: number | undefined;
  let lastLog = 0;
  for (;;) {
    signal?.throwIfAborted();
    const raw = JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString() });
    if (tryCreate(file, raw)) {
      if (waitingSince !== undefined) log(`Sample store lock ${file} is free after ${seconds(waitingSince)} s`);
      return hold(file, raw);
    }
    const lock = readLock(file);
    if (lock === undefined) continue;
    const stale = staleReason(file, lock);
    if (stale !== undefined) {
      log(`Taking over the sample store lock ${file}: ${stale}`);
      // Only the lock that was judged: another waiter may have replaced it in the meantime.
      if (readLock(file)?.raw === lock.raw) rmSync(file, { force: true });
      continue;
    }
    const now = Date.now();
    const holder = lock.info ? `process ${lock.info.pid} on ${lock.info.host}` : "another process";
    if (waitingSince === undefined) {
      waitingSince = now;
      lastLog = now;
      log(`Waiting for ${holder}, which is building the sample store (${file} is locked)`);
    } else if (now - lastLog >= WAIT_LOG_EVERY_MS) {
      lastLog = now;
      log(`Still waiting for ${holder} to build the sample store (${seconds(waitingSince)} s)`);
    }
    try {
      await sleep(POLL_MS, undefined, { signal });
    } catch (e) {
      // The abort's own reason, as a build ended by it gives, rather than a generic AbortError.
      signal?.throwIfAborted();
      throw e;
    }
  }
}

function seconds(since: number): string {
  return ((Date.now() - since) / 1000).toFixed(1);
}

/**
 * What builds of `store` by processes that no longer run left behind: `<store>.building-<pid>` and every file named
 * after it (scratchFamily), the `sample.cli --force` rebuilds `<store>.rebuild-<pid>` and theirs (their own lock and
 * scratch files included), and a `<store>.lock` whose holder is gone. A live builder's files are never touched, and
 * nothing is removed while a live process holds the lock. Also removes scratch files whose pid is ours while we are
 * not building (an earlier life of this pid, in a container whose process is always pid 1). Every start calls it.
 */
export function removeBuildLeftovers(store: string, log: (msg: string) => void): void {
  const lockFile = lockPath(store);
  const lock = readLock(lockFile);
  if (lock !== undefined) {
    const stale = staleReason(lockFile, lock);
    if (stale === undefined) return;
    if (!heldHere.has(lockFile) && readLock(lockFile)?.raw === lock.raw) {
      try {
        rmSync(lockFile, { force: true });
        log(`Removed the sample store lock ${lockFile}: ${stale}`);
      } catch (e) {
        log(`Could not remove the sample store lock ${lockFile} (${stale}): ${(e as Error).message}`);
      }
    }
  }
  removeLeftoverScratchFiles(store, log);
}

/**
 * Removes `<store>.building-<pid>` and `<store>.rebuild-<pid>` with every file named after them, whose process is
 * dead, or whose pid is ours while we are not building. Call it only when no live process holds the lock.
 */
export function removeLeftoverScratchFiles(store: string, log: (msg: string) => void): void {
  const dir = path.dirname(store);
  const own = path.basename(store);
  const seen = new Set<string>();
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(`${own}.`)) continue;
    const match = /^\.(building|rebuild)-(\d+)/.exec(name.slice(own.length));
    if (!match) continue;
    const base = own + match[0];
    if (seen.has(base)) continue;
    seen.add(base);
    const pid = Number(match[2]);
    if (!Number.isSafeInteger(pid) || pid <= 0) continue;
    const ours = pid === process.pid && !heldHere.has(lockPath(store));
    if (!ours && processAlive(pid)) continue;
    const names = scratchFamily(dir, base);
    let bytes = 0;
    for (const n of names) {
      try {
        bytes += statSync(path.join(dir, n)).size;
      } catch {
        // Gone meanwhile: nothing to count.
      }
    }
    try {
      for (const n of names) rmSync(path.join(dir, n), { force: true });
    } catch (e) {
      // A read-only volume must not stop a start that only needs to read the store.
      log(`Could not remove ${base}, left by process ${pid} that no longer runs: ${(e as Error).message}`);
      continue;
    }
    const files = names.length === 1 ? "1 file" : `${names.length} files`;
    log(`Removed ${base}, left by process ${pid} that no longer runs (${files}, ${(bytes / 2 ** 20).toFixed(1)} MiB)`);
  }
}
