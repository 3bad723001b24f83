import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");

/** Runs `npm run keys -- <args>` as the CLI runs (its TypeScript entry, from the project root) with `env`. */
export function runKeysCli(env: NodeJS.ProcessEnv, ...args: string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ["-r", "@swc-node/register", "src/application/cli/keys.cli.ts", ...args], {
    cwd: ROOT,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
}
