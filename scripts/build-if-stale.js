#!/usr/bin/env node
// @ts-check
/**
 * `npm start`'s prestart: builds dist/ only when a source changed since the last build, so a later start begins at
 * once instead of waiting for the TypeScript compiler (about 20 s, more on a busy machine, even with nothing to do).
 *
 * Stale when dist/main.js or the stamp is missing, or any file under src/ (or a tsconfig, package.json,
 * package-lock.json) is newer than the stamp. A checkout or an edit gives files a new mtime, so either rebuilds; the
 * stamp takes the time the build started, so a file saved during a build is seen by the next start. The build itself
 * is `npm run build` (tsc, incremental).
 */
const { spawnSync } = require("node:child_process");
const { existsSync, readdirSync, statSync, utimesSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");

const root = join(__dirname, "..");
const stamp = join(root, "dist", ".build-stamp");

/** The newest mtime (ms) of the files under `dir`. */
function newest(dir) {
  let max = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const t = entry.isDirectory() ? newest(path) : statSync(path).mtimeMs;
    if (t > max) max = t;
  }
  return max;
}

function inputsNewest() {
  let max = newest(join(root, "src"));
  for (const f of ["tsconfig.json", "tsconfig.build.json", "package.json", "package-lock.json"]) {
    const path = join(root, f);
    if (existsSync(path)) max = Math.max(max, statSync(path).mtimeMs);
  }
  return max;
}

const built = existsSync(stamp) && existsSync(join(root, "dist", "main.js")) ? statSync(stamp).mtimeMs : -1;
if (built >= inputsNewest()) {
  console.log("dist/ is up to date with src/: no build (npm run build forces one)");
  process.exit(0);
}
const started = new Date();
// tsc prints nothing while it works: say what the wait is for, and how long it took.
console.log(
  built < 0
    ? "Compiling the TypeScript sources into dist/ (a first build takes 20-60 s; later starts skip it)..."
    : "Sources changed since the last build: compiling into dist/...",
);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const run = spawnSync(npm, ["run", "--silent", "build"], { cwd: root, stdio: "inherit" });
if (run.status !== 0) process.exit(run.status ?? 1);
console.log(`Compiled in ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s`);
writeFileSync(stamp, "");
utimesSync(stamp, started, started);
