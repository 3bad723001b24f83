import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_STORE_PATH } from "../../helpers/constants";
import { ROOT } from "../../helpers/entry";

/** 200,000 bars: 40 batches of the import's 5,000, so a kill lands between some and before most. */
const LISTINGS = 20;
const DAYS = 10_000;
// Ends in 2007, before any day the sample has.
const FIRST_DAY = Date.UTC(1980, 0, 1) / 1000;

let dir: string;

function copyOfTestStore(name: string): string {
  const path = join(dir, name);
  const src = new Database(TEST_STORE_PATH, { readonly: true });
  src.exec(`VACUUM INTO '${path.replace(/'/g, "''")}'`);
  src.close();
  return path;
}

/** Every table, each as its row count and a hash of its rows in the order of all their columns. */
function dump(store: string): Record<string, { rows: number; sha256: string }> {
  const db = new Database(store, { readonly: true });
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .pluck()
      .all() as string[];
    const out: Record<string, { rows: number; sha256: string }> = {};
    for (const t of tables) {
      const n = (db.prepare(`SELECT count(*) FROM pragma_table_info(?)`).pluck().get(t) as number) || 1;
      const order = Array.from({ length: n }, (_, i) => i + 1).join(", ");
      const h = createHash("sha256");
      let rows = 0;
      for (const row of db.prepare(`SELECT * FROM "${t}" ORDER BY ${order}`).raw().iterate()) {
        h.update(JSON.stringify(row)).update("\n");
        rows++;
      }
      out[t] = { rows, sha256: h.digest("hex") };
    }
    return out;
  } finally {
    db.close();
  }
}

function barCount(store: string): number {
  const db = new Database(store, { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT count(*) FROM daily_bars").pluck().get() as number;
  } finally {
    db.close();
  }
}

/** The import CLI as a user runs it (`npm run import`), on its own process, into `store`. */
function importCli(store: string, file: string) {
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
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, TZ: "UTC", MDG_DATA_SOURCE: "sqlite", MDG_SQLITE_PATH: store },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
}

async function runToEnd(store: string, file: string): Promise<{ code: number | null; err: string }> {
  const child = importCli(store, file);
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, err };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mdg-import-kill-"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

it("after kill -9 mid-way through a large import, the same command again leaves what one clean run did", async () => {
  const killed = copyOfTestStore("killed.db");
  const clean = copyOfTestStore("clean.db");
  // Stocks of the sample store: some have computed bars, which the import writes out in its first batches.
  const db = new Database(killed, { readonly: true });
  const symbols = db
    .prepare(
      `SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id WHERE s.type = 'stock'
       ORDER BY l.id LIMIT ?`,
    )
    .pluck()
    .all(LISTINGS) as string[];
  db.close();
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
  const before = barCount(killed);

  // Killed once some batches are committed (the rows count from outside, as another process sees them).
  const child = importCli(killed, file);
  let seen = before;
  while (child.exitCode === null && seen < before + 10_000) {
    await new Promise((r) => setTimeout(r, 20));
    seen = barCount(killed);
  }
  child.kill("SIGKILL");
  const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
  expect({ code, signal }).toEqual({ code: null, signal: "SIGKILL" });
  const afterKill = barCount(killed);

  const rerun = await runToEnd(killed, file);
  expect(rerun.code).toBe(0);
  const single = await runToEnd(clean, file);
  expect(single.code).toBe(0);
  expect(single.err).toContain(`daily-bars: ${DAYS * LISTINGS} inserted, 0 changed, 0 unchanged, 0 rejected`);
  // The kill came between the first batches and the last: the rerun found some stored and wrote the rest.
  expect(afterKill).toBeGreaterThan(before);
  expect(afterKill).toBeLessThan(barCount(clean));
  const counts = /daily-bars: (\d+) inserted, 0 changed, (\d+) unchanged, 0 rejected/.exec(rerun.err);
  expect(counts).not.toBeNull();
  expect(Number(counts![1]) + Number(counts![2])).toBe(DAYS * LISTINGS);
  expect(Number(counts![2])).toBeGreaterThan(0);

  expect(dump(killed)).toEqual(dump(clean));
}, 180_000);
