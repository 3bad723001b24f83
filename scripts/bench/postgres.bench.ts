import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Client } from "pg";

/**
 * The PostgreSQL rows of `npm run bench`: the service started as the bench starts it, with
 * MDG_DATA_SOURCE=postgres on a database of the bench's own, created empty, filled by the service's first start
 * (the sample built as SQLite, then COPYed in), measured, and dropped. The measuring itself is bench.ts's.
 */

/** DATABASE_URL with its database replaced by `name`. */
export function databaseUrl(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs one statement on the server of `base` (CREATE/DROP DATABASE cannot run inside the target database). */
export async function adminQuery(base: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: base });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function createDatabase(base: string, name: string): Promise<void> {
  await adminQuery(base, `CREATE DATABASE ${name}`);
}

export async function dropDatabase(base: string, name: string): Promise<void> {
  // WITH (FORCE): a service killed mid-run may leave a connection behind for a moment.
  await adminQuery(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

export interface FirstStart {
  /** Spawn to /readyz answering 200. */
  readyMs: number;
  /** From the service's own log line ("built the generated sample data set"). */
  sampleMs: number | null;
  buildMs: number | null;
  copyMs: number | null;
  /** The factory's log lines about the copy: rows and seconds per table, then the keys and indexes. */
  copySteps: string[];
  /** Its peak RSS over the start (VmHWM), MiB. */
  peakMb: number;
  /** CPU seconds of the service process over the start (the SQLite build runs in a worker thread of it). */
  cpuSeconds: number;
}

/**
 * A first start of the service on the empty database: from spawn to ready, with the build and COPY parts as the
 * source factory reports them (Sources.sampleBuilt, logged at info). The SQLite build goes to `dir`, emptied first,
 * so every run pays the whole first start, as a new deployment does.
 */
export async function firstStart(opts: {
  args: string[];
  env: NodeJS.ProcessEnv;
  dir: string;
  port: number;
  cwd: string;
  cpuSecondsOf: (pid: number) => number;
  peakMbOf: (pid: number) => number;
  log: (msg: string) => void;
}): Promise<FirstStart> {
  rmSync(opts.dir, { recursive: true, force: true });
  mkdirSync(opts.dir, { recursive: true });
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, opts.args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env, LOG_LEVEL: "info", PORT: String(opts.port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let sample: { ms?: number; buildMs?: number; copyMs?: number } | null = null;
  const copySteps: string[] = [];
  let tail = "";
  let pending = "";
  child.stdout!.on("data", (d: Buffer) => {
    pending += d.toString();
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      tail = (tail + line + "\n").slice(-4000);
      const step = /rows in [\d.]+ s|keys and indexes: /.test(line) ? /"msg":"\s*([^"]+)"/.exec(line) : null;
      if (step) copySteps.push(step[1]!);
      if (!line.includes("built the generated sample data set")) continue;
      try {
        sample = JSON.parse(line) as typeof sample;
      } catch {
        // not JSON: the timings stay unknown and the report says so
      }
    }
  });
  child.stderr!.on("data", (d: Buffer) => (tail = (tail + d.toString()).slice(-4000)));
  try {
    const until = Date.now() + 600_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the PostgreSQL service exited (${child.exitCode}): ${tail}`);
      if (Date.now() > until) throw new Error(`the PostgreSQL service was not ready within 600 s: ${tail}`);
      const res = await fetch(`http://127.0.0.1:${opts.port}/readyz`).catch(() => null);
      if (res?.status === 200) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const readyMs = performance.now() - started;
    // VmHWM is the high-water mark of the whole start; CPU time is cumulative: one reading at ready covers it.
    const peakMb = opts.peakMbOf(child.pid!);
    const cpu = opts.cpuSecondsOf(child.pid!);
    const s = sample as { ms?: number; buildMs?: number; copyMs?: number } | null;
    opts.log(
      `PostgreSQL first start: ready in ${(readyMs / 1000).toFixed(1)} s (build ${s?.buildMs ?? "?"} ms, ` +
        `copy ${s?.copyMs ?? "?"} ms)`,
    );
    return {
      readyMs,
      sampleMs: s?.ms ?? null,
      buildMs: s?.buildMs ?? null,
      copyMs: s?.copyMs ?? null,
      copySteps,
      peakMb,
      cpuSeconds: cpu,
    };
  } finally {
    await stopChild(child);
  }
}

/** SIGTERM, then waits for the exit (the port must be free for the next service). */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

/** The SQLite file the first start built, for the bench's inputs when no other store was read. */
export function builtSample(dir: string, seed: number, anchor: string, scale: number): string | null {
  const file = join(dir, `sample-${seed}-${anchor}-${scale}.db`);
  return existsSync(file) ? file : null;
}
