import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../helpers/entry";

/** 200,000 bars: 40 batches of the import's 5,000, so a kill lands between some and before most. */
const LISTINGS = 20;
const DAYS = 10_000;
// Ends in 2007, before any day the sample has.
const FIRST_DAY = Date.UTC(1980, 0, 1) / 1000;

/** One store of the test data set, as the scenario reads and writes it. */
export interface KillStore {
  /** The environment that points the import CLI at this store. */
  env: Record<string, string>;
  /** The first `n` stocks' symbols, in listing order. */
  stocks(n: number): Promise<string[]>;
  barCount(): Promise<number>;
  /** Every table of market data, each as its row count and a hash of its rows in the order of all their columns. */
  dump(): Promise<Record<string, { rows: number; sha256: string }>>;
}

/** Rows in the order of all their columns, as one count and one hash. */
export function digest(rows: Iterable<unknown>): { rows: number; sha256: string } {
  const h = createHash("sha256");
  let n = 0;
  for (const row of rows) {
    h.update(JSON.stringify(row)).update("\n");
    n++;
  }
  return { rows: n, sha256: h.digest("hex") };
}

/** The import CLI as a user runs it (`npm run import`), on its own process. */
function importCli(store: KillStore, file: string, dir: string) {
  return spawn(
    process.execPath,
    [
      "-r",
      "@swc-node/register",
      "src/application/cli/import.cli.ts",
      "daily-bars",
      file,
      "--report",
      join(dir, "rejections.csv"),
    ],
    { cwd: ROOT, env: { PATH: process.env.PATH, TZ: "UTC", ...store.env }, stdio: ["ignore", "pipe", "pipe"] },
  );
}

async function runToEnd(store: KillStore, file: string, dir: string): Promise<{ code: number | null; err: string }> {
  const child = importCli(store, file, dir);
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, err };
}

/**
 * `kill -9` mid-way through a large import into `killed`, the same command again, and one clean run into
 * `clean` (a second copy of the same data set): both stores end with the same rows.
 */
export async function killAndRerun(killed: KillStore, clean: KillStore, dir: string): Promise<void> {
  // Stocks of the sample store: some have computed bars, which the import writes out in its first batches.
  const symbols = await killed.stocks(LISTINGS);
  expect(symbols).toHaveLength(LISTINGS);
  const lines = ["symbol,day,o,h,l,c,v"];
  symbols.forEach((symbol, i) => {
    for (let d = 0; d < DAYS; d++) {
      const o = 10 + ((i * 37 + d) % 400) / 4;
      const c = o + ((d % 7) - 3) / 4;
      const day = new Date((FIRST_DAY + d * 86_400) * 1000).toISOString().slice(0, 10);
      lines.push(`${symbol},${day},${o},${Math.max(o, c) + 0.5},${Math.min(o, c) - 0.25},${c},${1_000 + d}`);
    }
  });
  const file = join(dir, "bars.csv");
  writeFileSync(file, lines.join("\n") + "\n");
  const before = await killed.barCount();

  // Killed once some batches are committed (the rows count from outside, as another process sees them).
  const child = importCli(killed, file, dir);
  let seen = before;
  while (child.exitCode === null && seen < before + 10_000) {
    await new Promise((r) => setTimeout(r, 20));
    seen = await killed.barCount();
  }
  child.kill("SIGKILL");
  const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
  expect({ code, signal }).toEqual({ code: null, signal: "SIGKILL" });
  const afterKill = await killed.barCount();

  const rerun = await runToEnd(killed, file, dir);
  expect(rerun.code).toBe(0);
  const single = await runToEnd(clean, file, dir);
  expect(single.code).toBe(0);
  expect(single.err).toContain(`daily-bars: ${DAYS * LISTINGS} inserted, 0 changed, 0 unchanged, 0 rejected`);
  // The kill came between the first batches and the last: the rerun found some stored and wrote the rest.
  expect(afterKill).toBeGreaterThan(before);
  expect(afterKill).toBeLessThan(await clean.barCount());
  const counts = /daily-bars: (\d+) inserted, 0 changed, (\d+) unchanged, 0 rejected/.exec(rerun.err);
  expect(counts).not.toBeNull();
  expect(Number(counts![1]) + Number(counts![2])).toBe(DAYS * LISTINGS);
  expect(Number(counts![2])).toBeGreaterThan(0);

  expect(await killed.dump()).toEqual(await clean.dump());
}
