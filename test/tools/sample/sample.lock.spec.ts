import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { ensureSampleStore } from "../../../src/tools/sample/sample.store";

/**
 * One builder per store path (src/tools/sample/sample.lock.ts): `<store>.lock`, leftover scratch files of dead
 * processes, and a build ended by its signal. Tiny stores (scale 0.005) so each build takes a few seconds.
 */
const OPTS = { seed: 3, anchorDate: "2026-11-20", scale: 0.005 };

/** A pid that was just used and is no longer running. */
function deadPid(): number {
  const done = spawnSync(process.execPath, ["-e", ""]);
  return done.pid as number;
}

/** A lock file as a process on this host writes it. */
const lockOf = (pid: number) => JSON.stringify({ pid, host: hostname(), startedAt: new Date().toISOString() });

/** A process that runs until killed: its pid is alive. */
function livingProcess(): ChildProcess {
  return spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
}

describe("sample store lock and leftovers", () => {
  let dir: string;
  let store: string;
  let logs: string[];
  const log = (msg: string) => logs.push(msg);
  const living: ChildProcess[] = [];

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "mdg-lock-"));
    store = path.join(dir, "market.db");
    logs = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  afterAll(() => {
    for (const child of living) child.kill("SIGKILL");
  });

  it("removes scratch files of dead processes at start, keeps a live one's, and releases its lock", async () => {
    const dead = deadPid();
    const alive = livingProcess();
    living.push(alive);
    for (const suffix of ["", "-wal", "-shm", ".side"])
      writeFileSync(`${store}.building-${dead}${suffix}`, "x".repeat(1024));
    writeFileSync(`${store}.building-${alive.pid}`, "x");

    const result = await ensureSampleStore(store, { ...OPTS, log });

    expect(result.built).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(["market.db", `market.db.building-${alive.pid}`]);
    expect(logs).toContainEqual(
      expect.stringMatching(new RegExp(`^Removed market\\.db\\.building-${dead}, left by process ${dead} `)),
    );
  }, 60_000);

  it("removes a dead process's scratch files also when the store already exists", async () => {
    writeFileSync(store, "");
    const dead = deadPid();
    // Every file SQLite and the helper thread name after a scratch store. Which of them a kill leaves depends on the
    // instant it lands (the side store lives from the price history's start to its adoption, a journal for a
    // transaction), so the kills below are not relied on to show each one.
    for (const suffix of ["", "-journal", "-wal", "-shm", ".side", ".side-journal", ".side-wal", ".side-shm"]) {
      writeFileSync(`${store}.building-${dead}${suffix}`, "x".repeat(4096));
    }

    await expect(ensureSampleStore(store, { ...OPTS, log })).resolves.toEqual({ built: false });
    expect(readdirSync(dir)).toEqual(["market.db"]);
  });

  it("takes over a lock whose process is gone", async () => {
    const dead = deadPid();
    writeFileSync(`${store}.lock`, lockOf(dead));

    const result = await ensureSampleStore(store, { ...OPTS, log });

    expect(result.built).toBe(true);
    expect(logs).toContainEqual(`Taking over the sample store lock ${store}.lock: process ${dead} is gone`);
    expect(existsSync(`${store}.lock`)).toBe(false);
  }, 60_000);

  it("takes over a lock from another host that its holder stopped touching", async () => {
    const alive = livingProcess();
    living.push(alive);
    const lock = { pid: alive.pid, host: "elsewhere", startedAt: "2026-11-20T00:00:00Z" };
    writeFileSync(`${store}.lock`, JSON.stringify(lock));
    const longAgo = new Date(Date.now() - 120_000);
    utimesSync(`${store}.lock`, longAgo, longAgo);

    await expect(ensureSampleStore(store, { ...OPTS, log })).resolves.toMatchObject({ built: true });
    expect(logs).toContainEqual(
      expect.stringMatching(/^Taking over the sample store lock .*: not touched for 1\d\d s$/),
    );
  }, 60_000);

  it("stops waiting when its signal aborts, leaving the holder's lock alone", async () => {
    const holder = livingProcess();
    living.push(holder);
    const lock = lockOf(holder.pid as number);
    writeFileSync(`${store}.lock`, lock);
    const abort = new AbortController();
    const waiting = ensureSampleStore(store, { ...OPTS, log, signal: abort.signal });
    setTimeout(() => abort.abort(new Error("SIGTERM")), 500);

    await expect(waiting).rejects.toThrow("SIGTERM");
    expect(readFileSync(`${store}.lock`, "utf8")).toBe(lock);
    expect(readdirSync(dir)).toEqual(["market.db.lock"]);
  });

  it("waits while a live process holds the lock, then opens the store it built without building", async () => {
    const holder = livingProcess();
    living.push(holder);
    writeFileSync(`${store}.lock`, lockOf(holder.pid as number));
    let settled = false;
    const waiting = ensureSampleStore(store, { ...OPTS, log }).finally(() => (settled = true));

    await new Promise((r) => setTimeout(r, 1_000));
    expect(settled).toBe(false);
    expect(logs).toContainEqual(expect.stringMatching(new RegExp(`^Waiting for process ${holder.pid} on `)));
    expect(existsSync(store)).toBe(false);

    // The holder "finishes": its store appears, then its lock goes.
    const built = path.join(dir, "built-elsewhere.db");
    await ensureSampleStore(built, { ...OPTS, log: () => undefined });
    copyFileSync(built, store);
    rmSync(`${store}.lock`);

    await expect(waiting).resolves.toEqual({ built: false });
    expect(logs.some((l) => l.startsWith("Building sample store"))).toBe(false);
  }, 60_000);

  it("ends the build when its signal aborts: no store, no scratch file, no lock", async () => {
    const abort = new AbortController();
    const building = ensureSampleStore(store, {
      ...OPTS,
      log,
      signal: abort.signal,
      onProgress: (_done, _total, stage) => {
        if (stage === "fx rates") abort.abort(new Error("stop"));
      },
    });
    await expect(building).rejects.toThrow("stop");
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);
});

describe("a build killed at each stage (kill -9)", () => {
  /** Every stage the build reports, in order (the first is before its worker starts). */
  const STAGES = [
    "start",
    "planning",
    "reference data",
    "fx rates",
    "financials",
    "dividends and splits",
    "securities",
    "etfs",
    "funds",
    "indices",
    "price history",
    "quotes",
    "checks",
    "done",
  ];
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** Runs the build in a process that kills itself at `stage`; answers its pid and the files it left. */
  function killedAt(stage: string): Promise<{ dir: string; pid: number; left: string[]; stages: string[] }> {
    const dir = mkdtempSync(path.join(tmpdir(), "mdg-killed-"));
    dirs.push(dir);
    const child = spawn(
      process.execPath,
      ["-r", "@swc-node/register", "test/helpers/sample-build.ts", path.join(dir, "market.db"), stage],
      { cwd: path.join(__dirname, "..", "..", ".."), stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout?.on("data", (c: Buffer) => (out += c.toString()));
    return new Promise((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (code, signal) => {
        if (signal !== "SIGKILL") reject(new Error(`the build ended with ${code ?? signal}, not killed at ${stage}`));
        else resolve({ dir, pid: child.pid as number, left: readdirSync(dir).sort(), stages: out.split("\n") });
      });
    });
  }

  /** A few builds at a time: two cores. */
  let results: Promise<Map<string, Awaited<ReturnType<typeof killedAt>>>>;
  beforeAll(() => {
    results = (async () => {
      const done = new Map<string, Awaited<ReturnType<typeof killedAt>>>();
      const queue = [...STAGES];
      const runner = async () => {
        for (let stage = queue.shift(); stage !== undefined; stage = queue.shift())
          done.set(stage, await killedAt(stage));
      };
      await Promise.all([runner(), runner(), runner()]);
      return done;
    })();
  });

  it.each(STAGES)(
    "leaves nothing a later start does not remove, killed at %s",
    async (stage) => {
      const { dir, pid, left, stages } = (await results).get(stage) as Awaited<ReturnType<typeof killedAt>>;
      if (stage !== "start") expect(stages).toContain(stage);
      // What the kill left: the lock, and from the worker's start on, the scratch store and the files named after it.
      expect(left).toContain("market.db.lock");
      if (stage !== "start") expect(left).toContain(`market.db.building-${pid}`);
      expect(left.every((n) => n === "market.db.lock" || n.startsWith(`market.db.building-${pid}`))).toBe(true);

      // A later start: the store is there (another process finished it), so it only cleans up.
      const store = path.join(dir, "market.db");
      writeFileSync(store, "");
      const logs: string[] = [];
      await expect(ensureSampleStore(store, { ...OPTS, log: (m) => logs.push(m) })).resolves.toEqual({ built: false });
      expect(readdirSync(dir)).toEqual(["market.db"]);
      expect(logs).toContainEqual(`Removed the sample store lock ${store}.lock: process ${pid} is gone`);
    },
    180_000,
  );
});
