import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiKeyService } from "../../src/platform/auth/auth.service";
import { systemClock } from "../../src/platform/clock";
import { openSqliteSource } from "../../src/sources/sqlite/sqlite.source";
import { ensureSampleStore } from "../../src/tools/sample/sample.store";

/**
 * `BENCH_ONLY=keys npm run bench`: does a revoked key answer at another speed than an unknown one? (It would tell a
 * caller that the key once existed.) Both must take one path, the same lookup and the same hash (src/platform/auth/
 * auth.service.ts; test/platform/auth/auth.timing.spec.ts counts its steps). This measures what is left: interleaved
 * samples of each, p10 and p50, in this process against the service and over HTTP (one keep-alive connection) against
 * the service started as `npm start` starts it, on a tiny store holding 1,000 keys, one of them revoked.
 */

export interface KeyTimingOptions {
  /** Node's arguments to start the service (`dist/main.js` and its flags). */
  startArgs: string[];
  port: number;
  /** Samples of each kind of key, after as many of warm-up. */
  samples: number;
  log(msg: string): void;
}

interface Pair {
  unknown: number[];
  revoked: number[];
}

const KEYS = 1_000;

const quantile = (values: readonly number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
};

/**
 * `samples` of each, the order inside each pair alternating, so drift over the run weighs on both alike. One unknown
 * key throughout, as one revoked key: what a caller comparing two keys sees (a fresh unknown key each time would also
 * measure a cold index page against a warm one).
 */
async function interleaved(samples: number, time: (key: string) => Promise<number>, revoked: string): Promise<Pair> {
  const unknown = `mdg_${randomBytes(32).toString("base64url").slice(0, 43)}`;
  const pair: Pair = { unknown: [], revoked: [] };
  for (let i = 0; i < samples; i++) {
    if (i % 2 === 0) {
      pair.unknown.push(await time(unknown));
      pair.revoked.push(await time(revoked));
    } else {
      pair.revoked.push(await time(revoked));
      pair.unknown.push(await time(unknown));
    }
  }
  return pair;
}

function lines(where: string, p: Pair): string[] {
  const row = (q: number) => {
    const u = quantile(p.unknown, q);
    const r = quantile(p.revoked, q);
    const diff = (r - u).toFixed(1);
    return `p${q * 100}: unknown ${u.toFixed(1)} µs, revoked ${r.toFixed(1)} µs, revoked − unknown ${diff} µs`;
  };
  return [`${where} (${p.unknown.length} samples of each, interleaved)`, `  ${row(0.1)}`, `  ${row(0.5)}`];
}

function post(agent: Agent, port: number, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = '{"symbol":"BTC-USD"}';
    const started = process.hrtime.bigint();
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/v1/crypto/price",
        agent,
        headers: { "x-api-key": key, "content-type": "application/json", "content-length": body.length },
      },
      (res) => {
        res.resume();
        res.on("end", () => {
          if (res.statusCode !== 401) reject(new Error(`expected 401, got ${res.statusCode}`));
          else resolve(Number(process.hrtime.bigint() - started) / 1_000);
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function waitReady(port: number, child: ChildProcess): Promise<void> {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode})`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("the service was not ready within 120 s");
}

export async function keyTimingBench(opts: KeyTimingOptions): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "mdg-bench-keys-"));
  const store = join(dir, "market.db");
  let child: ChildProcess | undefined;
  try {
    opts.log(`key timing: building a tiny store in ${dir}`);
    await ensureSampleStore(store, { seed: 42, anchorDate: "2026-11-20", scale: 0.001, log: () => undefined });
    const source = openSqliteSource(store, { mustExist: true });
    const service = new ApiKeyService(source.keys, systemClock, { cacheTtlMs: 0 });
    let revoked = "";
    for (let i = 0; i < KEYS; i++) {
      const made = await service.create({ name: `bench ${i}`, scopes: ["crypto"] });
      if (i === KEYS / 2) {
        revoked = made.key;
        await service.revoke(made.row.id);
      }
    }
    const inProcess = async (key: string) => {
      const started = process.hrtime.bigint();
      try {
        await service.authenticate(key);
      } catch {
        // Both kinds are refused: the time to refuse is what is measured.
      }
      return Number(process.hrtime.bigint() - started) / 1_000;
    };
    await interleaved(opts.samples, inProcess, revoked);
    const here = await interleaved(opts.samples, inProcess, revoked);
    source.close();

    opts.log(`key timing: starting the service on port ${opts.port}`);
    child = spawn(process.execPath, opts.startArgs, {
      env: {
        ...process.env,
        NODE_ENV: "production",
        HOST: "127.0.0.1",
        PORT: String(opts.port),
        MDG_SQLITE_PATH: store,
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "ignore", "inherit"],
    });
    await waitReady(opts.port, child);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const overHttp = (key: string) => post(agent, opts.port, key);
    await interleaved(opts.samples, overHttp, revoked);
    const http = await interleaved(opts.samples, overHttp, revoked);
    agent.destroy();
    return [
      ...lines("ApiKeyService.authenticate, SQLite store, in this process", here),
      ...lines("POST /v1/crypto/price → 401 over HTTP, one keep-alive connection", http),
    ];
  } finally {
    child?.kill("SIGTERM");
    if (child && child.exitCode === null) await new Promise((r) => child?.once("exit", r));
    rmSync(dir, { recursive: true, force: true });
  }
}
