// @requires-env DATABASE_URL postgres://postgres@127.0.0.1:5432/test
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { loadConfig } from "../../src/platform/config";
import { openSources } from "../../src/app.sources";
import { TEST_ANCHOR, TEST_SCALE, TEST_SEED, TEST_STORE_PATH } from "../helpers/constants";
import { createTestDatabase, type TestDatabase } from "../helpers/postgres";

/**
 * A first start on an empty PostgreSQL database builds the sample as SQLite, copies it in, and then removes the
 * SQLite file it built: the database holds the sample, and the file would double its disk. A build that was there
 * before the start is someone else's, and stays.
 */
const RUN = process.env.DATABASE_URL ? describe : describe.skip;

RUN("PostgreSQL first start: the SQLite build it made is removed once the copy has committed", () => {
  let db: TestDatabase;
  let dir: string;
  beforeEach(async () => {
    db = await createTestDatabase("firststart");
    dir = mkdtempSync(join(tmpdir(), "mdg-first-start-"));
  });
  afterEach(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(sample: { seed: number; anchor: string; scale: number }): Promise<string[]> {
    const lines: string[] = [];
    const config = loadConfig({
      MDG_DATA_SOURCE: "postgres",
      DATABASE_URL: db.url,
      MDG_SQLITE_PATH: join(dir, "market.db"),
      MDG_SAMPLE_SEED: String(sample.seed),
      MDG_SAMPLE_ANCHOR_DATE: sample.anchor,
      MDG_SAMPLE_SCALE: String(sample.scale),
      LOG_LEVEL: "silent",
    });
    const sources = await openSources(config, { log: (msg) => lines.push(msg) });
    await sources.close();
    return lines;
  }

  async function securities(): Promise<number> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      return Number((await client.query("SELECT count(*) AS n FROM securities")).rows[0].n);
    } finally {
      await client.end();
    }
  }

  it("builds, copies, and leaves no SQLite file behind", async () => {
    const lines = await start({ seed: 7, anchor: TEST_ANCHOR, scale: 0.001 });
    expect(await securities()).toBeGreaterThan(0);
    expect(readdirSync(dir).filter((f) => f.startsWith("sample-"))).toEqual([]);
    expect(lines.some((l) => /^Removed the SQLite build at .*sample-7-.*\.db \(\d+ MiB\)/.test(l))).toBe(true);
  });

  it("keeps a build that was there before it started, and copies from it", async () => {
    const kept = `sample-${TEST_SEED}-${TEST_ANCHOR}-${TEST_SCALE}.db`;
    symlinkSync(TEST_STORE_PATH, join(dir, kept));
    const lines = await start({ seed: TEST_SEED, anchor: TEST_ANCHOR, scale: TEST_SCALE });
    expect(await securities()).toBeGreaterThan(0);
    expect(readdirSync(dir)).toContain(kept);
    expect(lines.some((l) => l.startsWith("Kept the SQLite build"))).toBe(true);
  });
});
