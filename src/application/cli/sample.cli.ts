import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { parseArgs } from "node:util";
import { ensureSampleStore } from "../../tools/sample/sample.store";

/**
 * Builds a sample store from the command line:
 *   node -r @swc-node/register src/application/cli/sample.cli.ts --out PATH --seed N --anchor YYYY-MM-DD [--force]
 * or loads it into the PostgreSQL database of DATABASE_URL (seed, anchor and scale default to MDG_SAMPLE_*):
 *   node -r @swc-node/register src/application/cli/sample.cli.ts --target postgres \
 *     [--seed N] [--anchor DAY] [--replace]
 */

const USAGE =
  "usage: sample.cli --out PATH --seed N --anchor YYYY-MM-DD [--force]\n" +
  "       sample.cli --target postgres [--seed N] [--anchor YYYY-MM-DD] [--replace]   (DATABASE_URL)";

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      out: { type: "string" },
      seed: { type: "string" },
      anchor: { type: "string" },
      force: { type: "boolean", default: false },
      target: { type: "string", default: "sqlite" },
      replace: { type: "boolean", default: false },
      // Undocumented on purpose: small stores for tests and experiments.
      scale: { type: "string" },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.target === "postgres" && !values.help) return toPostgres(values);
  if (values.help || values.target !== "sqlite" || !values.out || !values.anchor) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const seed = Number(values.seed ?? "42");
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

/**
 * Loads the sample into DATABASE_URL's database, in one transaction under the migration lock: an empty database, or
 * one whose schema holds no security and no API key, gets it; one holding data is refused unless `--replace`, which
 * drops every table first (API keys included). The SQLite build beside MDG_SQLITE_PATH is reused when there.
 */
async function toPostgres(values: {
  seed?: string;
  anchor?: string;
  scale?: string;
  replace?: boolean;
  out?: string;
}): Promise<number> {
  const { loadConfig } = await import("../../platform/config");
  const env: NodeJS.ProcessEnv = { ...process.env, MDG_DATA_SOURCE: "postgres" };
  if (values.seed !== undefined) env.MDG_SAMPLE_SEED = values.seed;
  if (values.anchor !== undefined) env.MDG_SAMPLE_ANCHOR_DATE = values.anchor;
  if (values.scale !== undefined) env.MDG_SAMPLE_SCALE = values.scale;
  let config;
  try {
    config = loadConfig(env);
  } catch (e) {
    process.stderr.write(`sample: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.out !== undefined) {
    process.stderr.write(`sample: --out is for SQLite; --target postgres loads DATABASE_URL\n`);
    return 2;
  }
  const { createPostgresPool } = await import("../../sources/postgres/postgres.source");
  const { migratePostgres, HoldsDataError } = await import("../../sources/postgres/postgres.migrate");
  const { loadSample, sampleBuildPath, discardSampleBuild } = await import("../../sources/postgres/postgres.sample");
  const log = (msg: string) => process.stderr.write(`${msg}\n`);
  const pool = createPostgresPool({ url: config.postgres.url!, poolSize: 1, statementTimeoutMs: 0 });
  try {
    const file = sampleBuildPath(config.sqlitePath, config.sample);
    let timing: Awaited<ReturnType<typeof loadSample>> | undefined;
    const started = Date.now();
    await migratePostgres(pool, {
      replace: values.replace ? "always" : "if-no-data",
      fillEmpty: async (client) =>
        void (timing = await loadSample(client, file, config.sample, ensureSampleStore, { log })),
    });
    if (timing) discardSampleBuild(file, timing, log);
    const { seed, anchorDate, scale } = config.sample;
    const lines = [
      `database:       DATABASE_URL (loaded${values.replace ? ", replacing what it held" : ""})`,
      `seed / anchor:  ${seed} / ${anchorDate}${scale !== 1 ? `, scale ${scale}` : ""}`,
      `rows:           ${(timing?.rows ?? 0).toLocaleString("en-US")}`,
      `SQLite build:   ${timing?.buildMs ? `${(timing.buildMs / 1000).toFixed(1)} s` : `reused ${file}`}`,
      `copy:           ${((timing?.copyMs ?? 0) / 1000).toFixed(1)} s`,
      `total:          ${((Date.now() - started) / 1000).toFixed(1)} s`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    return 0;
  } catch (e) {
    if (e instanceof HoldsDataError) {
      process.stderr.write(`sample: ${e.message}; pass --replace to drop it and load the sample\n`);
      return 1;
    }
    throw e;
  } finally {
    await pool.end();
  }
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
