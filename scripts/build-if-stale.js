#!/usr/bin/env node
// @ts-check
/**
 * `npm start`'s prestart: builds dist/ only when a source changed since the last build, so a later start begins at
 * once.
 *
 * Stale when dist/main.js or the stamp is missing, or any file under src/ (or a tsconfig, .swcrc, package.json,
 * package-lock.json) is newer than the stamp. A checkout or an edit gives files a new mtime, so either rebuilds; the
 * stamp takes the time the build started, so a file saved during a build is seen by the next start.
 *
 * Starting needs JavaScript, not a type check: each file goes through swc with the project's .swcrc, the transform the
 * test suite runs (under a second for every file, where `tsc` takes 8-60 s). `npm run typecheck` and `npm run build`
 * (tsc) check the types; CI runs both.
 */
const { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } = require("node:fs");
const { dirname, join, relative } = require("node:path");

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
  for (const f of ["tsconfig.json", "tsconfig.build.json", ".swcrc", "package.json", "package-lock.json"]) {
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
console.log(
  built < 0 ? "Compiling the TypeScript sources into dist/..." : "Sources changed since the last build: compiling...",
);
/** Every .ts file under `dir` but declarations. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}
const swc = require("@swc/core");
const src = join(root, "src");
const files = sources(src);
for (const file of files) {
  // Without the source maps .swcrc inlines for the tests: they would double the size of dist.
  const { code } = swc.transformFileSync(file, { cwd: root, sourceMaps: false });
  const out = join(root, "dist", relative(src, file).replace(/\.ts$/, ".js"));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, code);
}
console.log(`Compiled ${files.length} files in ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s`);
writeFileSync(stamp, "");
utimesSync(stamp, started, started);
