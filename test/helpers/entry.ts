import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { join } from "node:path";

/** The repository's root: where `npm start` runs. */
export const ROOT = join(__dirname, "..", "..");

/**
 * The real entry (`src/main.ts`, from source) as a child process, with a clean environment (nothing of the
 * test runner's leaks in) plus `env`: production mode on a free loopback port unless `env` says otherwise.
 */
export function spawnEntry(env: NodeJS.ProcessEnv, stdio: StdioOptions = ["ignore", "pipe", "pipe"]): ChildProcess {
  return spawn(process.execPath, ["-r", "@swc-node/register", "src/main.ts"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, TZ: "UTC", NODE_ENV: "production", HOST: "127.0.0.1", PORT: "0", ...env },
    stdio,
  });
}
