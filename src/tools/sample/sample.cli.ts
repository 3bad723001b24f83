import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { parseArgs } from "node:util";
import { ensureSampleStore } from "./sample.store";

/**
 * Builds a sample store from the command line:
 *   node -r @swc-node/register src/tools/sample/sample.cli.ts --out PATH --seed N --anchor YYYY-MM-DD [--force]
 */

const USAGE = "usage: sample.cli --out PATH --seed N --anchor YYYY-MM-DD [--force]";

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      out: { type: "string" },
      seed: { type: "string", default: "42" },
      anchor: { type: "string" },
      force: { type: "boolean", default: false },
      // Undocumented on purpose: small stores for tests and experiments.
      scale: { type: "string" },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help || !values.out || !values.anchor) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const seed = Number(values.seed);
  if (!Number.isSafeInteger(seed)) {
    process.stderr.write(`--seed must be an integer\n${USAGE}\n`);
    return 2;
  }
  const out = values.out;
  // --force builds beside the old store and swaps it in at the end, so a
  // failed rebuild leaves the old store in place.
  const target = values.force && existsSync(out) ? `${out}.rebuild-${process.pid}` : out;

  const result = await ensureSampleStore(target, {
    seed,
    anchorDate: values.anchor,
    scale: values.scale === undefined ? undefined : Number(values.scale),
  });
  if (!result.built || !result.summary) {
    process.stderr.write(`${out} already exists; pass --force to rebuild it\n`);
    return 1;
  }
  if (target !== out) {
    for (const suffix of ["-wal", "-shm"]) rmSync(out + suffix, { force: true });
    renameSync(target, out);
  }
  const { summary, ms } = result;
  const lines = [
    `store:          ${out}`,
    `seed / anchor:  ${summary.seed} / ${summary.anchorDate} (history from ${summary.historyStart})`,
    `generator:      v${summary.generatorVersion}${summary.scale !== 1 ? `, scale ${summary.scale}` : ""}`,
    `file size:      ${(statSync(out).size / 1024 / 1024).toFixed(1)} MiB`,
    `build time:     ${((ms ?? 0) / 1000).toFixed(1)} s`,
    "rows:",
    ...Object.entries(summary.rows)
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([table, n]) => `  ${table.padEnd(24)} ${n.toLocaleString("en-US").padStart(12)}`),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  },
);
