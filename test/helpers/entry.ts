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

/** The real entry started by `startEntry`: its process, the port it listens on, its log lines so far, its exit. */
export interface StartedEntry {
  child: ChildProcess;
  port: number;
  lines: string[];
  exited: Promise<number | null>;
}

/** `spawnEntry(env)`, resolved once it logs that it listens (rejected if it exits first or takes over 45 s). */
export async function startEntry(env: NodeJS.ProcessEnv): Promise<StartedEntry> {
  const child = spawnEntry(env);
  const lines: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let buffered = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`service did not start: ${lines.join("\n").slice(-2000)}`)),
      45_000,
    );
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        lines.push(line);
        const m = /"port":(\d+)/.exec(line);
        if (m && line.includes("listening")) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      }
    });
    child.stderr!.on("data", (c: Buffer) => lines.push(c.toString("utf8")));
    void exited.then((code) =>
      reject(new Error(`service exited with ${code} before listening: ${lines.join("\n").slice(-2000)}`)),
    );
  });
  return { child, port, lines, exited };
}
