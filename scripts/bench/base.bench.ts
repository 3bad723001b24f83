import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The base commit of the before-and-after comparison, checked out, installed and built beside the current tree so
 * that one bench run measures both: a detached git worktree under data/ (ignored), reused while it stays at that
 * commit.
 *
 * Install: when the base's package-lock.json is the current one byte for byte, its node_modules is a symlink to the
 * current tree's (nothing to install); otherwise `npm ci --ignore-scripts` (from npm's cache, no install scripts) and
 * the current tree's compiled better-sqlite3 copied in when both lock files pin the same version, since compiling it
 * takes a minute of one core and its prebuilt download needs a host besides the registry; `npm rebuild better-sqlite3`
 * when the versions differ. A marker holding the lock file's hash lets the next run skip the install.
 */

/**
 * The commit the current tree is compared with. It must open the bench's store: a base older than the store's schema
 * refuses it at start ("store schema version N is newer than this build knows"), so it moves forward when a change
 * adds a migration.
 */
export const DEFAULT_BASE = "af86f68";

export interface BaseTree {
  /** The full commit hash. */
  commit: string;
  dir: string;
  /** How node_modules was provided, for the report. */
  install: string;
}

type Log = (msg: string) => void;

function sh(cmd: string, args: string[], cwd: string, log?: Log): string {
  if (log) log(`${cwd}: ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(" ")} in ${cwd} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return r.stdout;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The version of `name` a package-lock.json pins, or null. */
function lockedVersion(lock: string, name: string): string | null {
  const packages = (JSON.parse(lock) as { packages?: Record<string, { version?: string }> }).packages ?? {};
  return packages[`node_modules/${name}`]?.version ?? null;
}

/** Checks out, installs and builds `ref` under `<root>/data/bench-base-<commit>`, reusing what is already there. */
export function prepareBase(root: string, ref: string, log: Log): BaseTree {
  const commit = sh("git", ["rev-parse", "--verify", `${ref}^{commit}`], root).trim();
  const dir = join(root, "data", `bench-base-${commit.slice(0, 12)}`);
  const head = existsSync(join(dir, ".git"))
    ? spawnSync("git", ["rev-parse", "HEAD"], { cwd: dir, encoding: "utf8" }).stdout.trim()
    : "";
  if (head !== commit) {
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(root, "data"), { recursive: true });
    sh("git", ["worktree", "prune"], root);
    sh("git", ["worktree", "add", "--detach", dir, commit], root, log);
  }

  const currentLock = readFileSync(join(root, "package-lock.json"), "utf8");
  const baseLock = readFileSync(join(dir, "package-lock.json"), "utf8");
  const modules = join(dir, "node_modules");
  const marker = join(modules, ".bench-base-lock");
  let install: string;
  if (baseLock === currentLock) {
    install = "package-lock.json identical to the current one: node_modules is a symlink to the current tree's";
    const linked = existsSync(modules) && lstatSync(modules).isSymbolicLink();
    if (!linked) {
      rmSync(modules, { recursive: true, force: true });
      symlinkSync(join(root, "node_modules"), modules, "dir");
    }
  } else {
    const sqlite = lockedVersion(baseLock, "better-sqlite3");
    const same = sqlite !== null && sqlite === lockedVersion(currentLock, "better-sqlite3");
    install =
      "package-lock.json differs from the current one: `npm ci --ignore-scripts`, then " +
      (same
        ? `better-sqlite3 ${sqlite}'s compiled binding copied from the current tree (the same version)`
        : "`npm rebuild better-sqlite3` (another version than the current tree's)");
    const fresh = existsSync(marker) && readFileSync(marker, "utf8") === sha256(baseLock);
    if (!fresh) {
      if (existsSync(modules) && lstatSync(modules).isSymbolicLink()) rmSync(modules);
      sh("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], dir, log);
      if (same) {
        cpSync(join(root, "node_modules/better-sqlite3/build"), join(modules, "better-sqlite3/build"), {
          recursive: true,
        });
      } else {
        sh("npm", ["rebuild", "better-sqlite3"], dir, log);
      }
      writeFileSync(marker, sha256(baseLock));
    }
  }

  // The worktree stays at `commit`, so a build found there is the commit's.
  if (!existsSync(join(dir, "dist/main.js"))) sh("npm", ["run", "build"], dir, log);
  return { commit, dir, install };
}
