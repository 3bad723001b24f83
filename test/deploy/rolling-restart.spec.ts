// @requires-env DATABASE_URL postgres://postgres@127.0.0.1:5432/test
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { BOOTSTRAP_KEY, TEST_STORE_PATH } from "../helpers/constants";
import { ROOT } from "../helpers/entry";
import { describeWithNginx, requireNginx } from "../helpers/nginx";
import { createReplicaDatabase } from "../helpers/postgres.replicas";
import { loadConfig } from "../../src/platform/config";
import { openSources } from "../../src/app.sources";

/**
 * Three replicas of the built service (`node dist/main.js`) over one store, behind nginx run from deploy/nginx.conf
 * (its ports and paths rewritten), under steady load from a few clients doing REST quote, etf/profile and /graphql:
 * - a rolling restart (SIGTERM each replica in turn, wait for its exit, start it again, wait until ready) fails not
 *   one request, and every replica answers some;
 * - a replica killed with SIGKILL loses at most the requests it had in flight (nginx retries the rest elsewhere).
 * Over one PostgreSQL database when DATABASE_URL is set (as in CI), else over one SQLite file. The numbers go to
 * test-artifacts/deploy-numbers.json and the console (docs/operations.md "Running N replicas").
 */
const STORE = process.env.MDG_TEST_STORE_PATH ?? TEST_STORE_PATH;
const REPLICAS = 3;
const CLIENTS = 4;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `url` until it answers 200; a hang or a dead process is a failure after `timeoutMs`. */
async function waitFor200(url: string, timeoutMs: number, alive: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`${what} exited before it was ready`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // Not listening yet (MDG_LISTEN_WHEN_READY): try again.
    }
    await sleep(100);
  }
  throw new Error(`${what} not ready within ${timeoutMs} ms`);
}

interface Replica {
  port: number;
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

function startReplica(port: number, storeEnv: NodeJS.ProcessEnv): Replica {
  const child = spawn(process.execPath, ["dist/main.js"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      TZ: "UTC",
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      MDG_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
      MDG_LISTEN_WHEN_READY: "true",
      MDG_SHUTDOWN_TIMEOUT_MS: "15000",
      LOG_LEVEL: "warn",
      ...storeEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const keep = (c: Buffer) => {
    output.push(c.toString("utf8"));
    if (output.length > 200) output.shift();
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { port, child, output, exited };
}

async function readyReplica(port: number, storeEnv: NodeJS.ProcessEnv): Promise<Replica> {
  const r = startReplica(port, storeEnv);
  try {
    await waitFor200(`http://127.0.0.1:${port}/readyz`, 120_000, () => r.child.exitCode === null, `replica :${port}`);
  } catch (e) {
    r.child.kill("SIGKILL");
    throw new Error(`${(e as Error).message}: ${r.output.join("").slice(-2000)}`, { cause: e });
  }
  return r;
}

/** deploy/nginx.conf with this run's ports and paths: everything else exactly as shipped. */
function nginxConfig(prefix: string, listenPort: number, replicaPorts: number[]): string {
  const shipped = readFileSync(join(ROOT, "deploy", "nginx.conf"), "utf8");
  const servers = replicaPorts.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join("\n");
  const out = shipped
    .replace(/^user .*;$/m, "")
    .replace(/^pid .*;$/m, `pid ${prefix}/nginx.pid;`)
    .replace(/^error_log \S+/m, `error_log ${prefix}/logs/error.log`)
    .replace(/access_log \S+ mdg;/, `access_log ${prefix}/logs/access.log mdg;`)
    .replace(/(\w+_temp_path) \/var\/lib\/nginx\/(\w+);/g, `$1 ${prefix}/tmp/$2;`)
    .replace(/^ {4}listen \d+;$/m, `    listen 127.0.0.1:${listenPort};`)
    .replace(/(^ {4}server 127\.0\.0\.1:\d+ .*;\n)+/m, `${servers}\n`);
  // A rewrite that silently missed would test some other configuration.
  for (const p of replicaPorts) expect(out).toContain(`server 127.0.0.1:${p} `);
  expect(out).toContain(`listen 127.0.0.1:${listenPort};`);
  expect(out).not.toMatch(/\/var\/(log|lib)\/nginx|\/run\/nginx/);
  return out;
}

interface Nginx {
  port: number;
  child: ChildProcess;
  accessLog: string;
  exited: Promise<number | null>;
}

async function startNginx(replicaPorts: number[]): Promise<Nginx & { prefix: string }> {
  const bin = requireNginx();
  const prefix = mkdtempSync(join(tmpdir(), "mdg-nginx-"));
  mkdirSync(join(prefix, "logs"));
  mkdirSync(join(prefix, "tmp"));
  const port = await freePort();
  const conf = join(prefix, "nginx.conf");
  writeFileSync(conf, nginxConfig(prefix, port, replicaPorts));
  const check = spawnSync(bin, ["-t", "-p", prefix, "-e", join(prefix, "logs", "error.log"), "-c", conf]);
  expect(check.stderr.toString()).toContain("test is successful");
  const child = spawn(bin, ["-p", prefix, "-e", join(prefix, "logs", "error.log"), "-c", conf, "-g", "daemon off;"], {
    stdio: ["ignore", "ignore", "ignore"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  // Every replica is ready, so nginx's own answer through a replica says it is up.
  await waitFor200(`http://127.0.0.1:${port}/healthz`, 15_000, () => child.exitCode === null, "nginx");
  return { port, child, accessLog: join(prefix, "logs", "access.log"), exited, prefix };
}

interface Outcome {
  ok: number;
  failed: { status: number | string; path: string; body: string }[];
}

/**
 * A few clients, each looping over REST quote, etf/profile and a /graphql query through nginx until `stop`. A
 * request fails when it gets no answer or an answer other than 200 with the expected symbol.
 */
function steadyLoad(port: number, stock: string, etf: string) {
  let stopped = false;
  let inFlight = 0;
  const outcome: Outcome = { ok: 0, failed: [] };
  const calls: { path: string; body: unknown; expect: string }[] = [
    { path: "/v1/quote", body: { symbol: stock }, expect: stock },
    { path: "/v1/etf/profile", body: { symbol: etf }, expect: etf },
    {
      path: "/graphql",
      body: { query: `query Q($s: String!) { quote(symbol: $s) { symbol c } }`, variables: { s: stock } },
      expect: stock,
    },
  ];
  const client = async (n: number) => {
    for (let i = n; !stopped; i++) {
      const call = calls[i % calls.length]!;
      inFlight++;
      try {
        const res = await fetch(`http://127.0.0.1:${port}${call.path}`, {
          method: "POST",
          headers: { "x-api-key": BOOTSTRAP_KEY, "content-type": "application/json" },
          body: JSON.stringify(call.body),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        if (res.status === 200 && text.includes(`"${call.expect}"`) && !text.includes('"errors"')) outcome.ok++;
        else outcome.failed.push({ status: res.status, path: call.path, body: text.slice(0, 300) });
      } catch (e) {
        outcome.failed.push({ status: String((e as Error).cause ?? e), path: call.path, body: "" });
      } finally {
        inFlight--;
      }
    }
  };
  const running = Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
  return {
    outcome,
    get inFlight() {
      return inFlight;
    },
    stop: async () => {
      stopped = true;
      await running;
      return outcome;
    },
  };
}

/** From nginx's access log: who answered each request, and how many nginx sent again after a failed attempt. */
function accessStats(path: string) {
  const answeredBy = new Map<string, number>();
  let retried = 0;
  let lines = 0;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const m = /upstream=(\S.*?) upstream_status=(\S.*?) rid=/.exec(line);
    if (!m || !/"POST /.test(line)) continue;
    lines++;
    const addrs = m[1]!.split(/, | : /);
    answeredBy.set(addrs.at(-1)!, (answeredBy.get(addrs.at(-1)!) ?? 0) + 1);
    if (addrs.length > 1) retried++;
  }
  return { lines, answeredBy, retried };
}

function storeSymbols(): { stock: string; etf: string } {
  const db = new Database(STORE, { readonly: true, fileMustExist: true });
  try {
    const pick = (type: string) =>
      (
        db
          .prepare(
            `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id
             WHERE s.type = ? ORDER BY l.symbol LIMIT 1`,
          )
          .get(type) as { symbol: string }
      ).symbol;
    return { stock: pick("stock"), etf: pick("etf") };
  } finally {
    db.close();
  }
}

function recordNumbers(name: string, numbers: Record<string, unknown>): void {
  const file = join(ROOT, "test-artifacts", "deploy-numbers.json");
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    // First record of the run.
  }
  all[name] = { ...numbers, at: new Date().toISOString() };
  mkdirSync(join(ROOT, "test-artifacts"), { recursive: true });
  writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
  console.log(`${name}: ${JSON.stringify(numbers)}`);
}

/** The two tests over one store: `store` gives the replicas' environment, `release` drops what it made. */
function behindNginx(label: string, store: () => Promise<{ env: NodeJS.ProcessEnv; release(): Promise<void> }>) {
  let storeEnv: NodeJS.ProcessEnv = {};
  let release: (() => Promise<void>) | undefined;
  let replicas: Replica[] = [];
  let nginx: (Nginx & { prefix: string }) | undefined;
  let symbols: { stock: string; etf: string };

  beforeAll(async () => {
    requireNginx();
    const build = spawnSync(process.execPath, ["scripts/build-if-stale.js"], { cwd: ROOT, encoding: "utf8" });
    if (build.status !== 0) throw new Error(`build failed: ${build.stdout}${build.stderr}`);
    symbols = storeSymbols();
    ({ env: storeEnv, release } = await store());
    const ports = await Promise.all(Array.from({ length: REPLICAS }, () => freePort()));
    replicas = await Promise.all(ports.map((p) => readyReplica(p, storeEnv)));
    nginx = await startNginx(ports);
  }, 400_000);

  afterAll(async () => {
    for (const r of replicas) if (r.child.exitCode === null) r.child.kill("SIGKILL");
    await Promise.all(replicas.map((r) => r.exited));
    if (nginx && nginx.child.exitCode === null) {
      nginx.child.kill("SIGQUIT");
      await Promise.race([nginx.exited, sleep(5_000)]);
      if (nginx.child.exitCode === null) nginx.child.kill("SIGKILL");
    }
    if (nginx) rmSync(nginx.prefix, { recursive: true, force: true });
    await release?.();
  });

  it("restarts every replica in turn under load without one failed request", async () => {
    const load = steadyLoad(nginx!.port, symbols.stock, symbols.etf);
    await sleep(1_000);
    const restarts: { port: number; exitCode: number | null; downMs: number }[] = [];
    for (let i = 0; i < replicas.length; i++) {
      const old = replicas[i]!;
      const t0 = Date.now();
      old.child.kill("SIGTERM");
      const exitCode = await old.exited;
      replicas[i] = await readyReplica(old.port, storeEnv);
      restarts.push({ port: old.port, exitCode, downMs: Date.now() - t0 });
      // Traffic reaches the restarted replica before the next one goes.
      await sleep(1_500);
    }
    await sleep(1_000);
    const outcome = await load.stop();
    const stats = accessStats(nginx!.accessLog);

    recordNumbers(`rolling restart (${label})`, {
      requests: outcome.ok + outcome.failed.length,
      failed: outcome.failed.length,
      retriedByNginx: stats.retried,
      answeredBy: Object.fromEntries(stats.answeredBy),
      restarts,
    });
    expect(outcome.failed).toEqual([]);
    expect(outcome.ok).toBeGreaterThan(100);
    for (const r of restarts) expect(r.exitCode).toBe(0);
    for (const r of replicas) expect(stats.answeredBy.get(`127.0.0.1:${r.port}`) ?? 0).toBeGreaterThan(0);
  }, 240_000);

  it("loses at most the requests in flight when a replica is killed with SIGKILL", async () => {
    const load = steadyLoad(nginx!.port, symbols.stock, symbols.etf);
    await sleep(1_000);
    const victim = replicas[1]!;
    // Every request a client has not been answered yet; the victim holds at most these.
    const inFlightAtKill = load.inFlight;
    victim.child.kill("SIGKILL");
    await victim.exited;
    await sleep(3_000);
    const outcome = await load.stop();
    const stats = accessStats(nginx!.accessLog);
    const triedVictim = readFileSync(nginx!.accessLog, "utf8")
      .split("\n")
      .filter((l) => l.includes(`127.0.0.1:${victim.port}, `)).length;

    recordNumbers(`SIGKILL one replica (${label})`, {
      requests: outcome.ok + outcome.failed.length,
      failed: outcome.failed.length,
      inFlightAtKill,
      retriedAwayFromVictim: triedVictim,
      failures: outcome.failed,
    });
    expect(outcome.failed.length).toBeLessThanOrEqual(inFlightAtKill);
    expect(outcome.ok).toBeGreaterThan(50);
    // The two survivors answered everything after the kill.
    for (const r of replicas.filter((x) => x !== victim)) {
      expect(stats.answeredBy.get(`127.0.0.1:${r.port}`) ?? 0).toBeGreaterThan(0);
    }
  }, 120_000);
}

const withNginx = describeWithNginx("the rolling-restart and lost-replica tests behind nginx");

// Over one SQLite file when there is no PostgreSQL: the same replicas and nginx, and half of CI's minutes saved when
// there is (each start of a replica is paid again per store).
if (!process.env.DATABASE_URL) {
  withNginx("replicas behind nginx over one SQLite file", () =>
    behindNginx("SQLite", async () => ({
      env: { MDG_DATA_SOURCE: "sqlite", MDG_SQLITE_PATH: STORE },
      release: async () => undefined,
    })),
  );
}

// Over PostgreSQL when DATABASE_URL is set (CI sets it): a database of this run's own, dropped after.
(process.env.DATABASE_URL ? withNginx : describe.skip)("replicas behind nginx over one PostgreSQL database", () =>
  behindNginx("PostgreSQL", async () => {
    const db = await createReplicaDatabase("rolling");
    // Filled here, once (a first start's migration and copy, about 30 s on a busy machine), so the replicas' starts
    // below are the ordinary starts a rolling restart repeats.
    const first = await openSources(loadConfig({ ...db.env, LOG_LEVEL: "silent" }));
    await first.close();
    return { env: db.env, release: () => db.drop() };
  }),
);
