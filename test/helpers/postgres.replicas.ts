import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { TEST_ANCHOR, TEST_SCALE, TEST_SEED, TEST_STORE_PATH } from "./constants";

/**
 * A database of its own on the server of DATABASE_URL (other suites and other people share it), and the
 * environment a replica needs to open it: its first opener migrates it and fills it with the test data set, copied
 * from the SQLite test store the way a first start copies the sample it built (here reused: same seed, anchor,
 * scale). `drop()` removes the database and the scratch folder.
 */
export interface ReplicaDatabase {
  name: string;
  url: string;
  env: NodeJS.ProcessEnv;
  /** Plain SQL on the database, as a loader or someone at psql would run it. */
  sql(text: string, params?: unknown[]): Promise<pg.QueryResult>;
  drop(): Promise<void>;
}

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

export async function createReplicaDatabase(prefix: string): Promise<ReplicaDatabase> {
  const name = `mdg_${prefix}_${process.pid}_${randomBytes(4).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  const dir = mkdtempSync(join(tmpdir(), `mdg-${prefix}-`));
  symlinkSync(TEST_STORE_PATH, join(dir, `sample-${TEST_SEED}-${TEST_ANCHOR}-${TEST_SCALE}.db`));
  const writer = new pg.Pool({ connectionString: url.toString(), max: 2 });
  writer.on("error", () => undefined);
  return {
    name,
    url: url.toString(),
    env: {
      MDG_DATA_SOURCE: "postgres",
      DATABASE_URL: url.toString(),
      MDG_SQLITE_PATH: join(dir, "unused.db"),
      MDG_SAMPLE_SEED: String(TEST_SEED),
      MDG_SAMPLE_ANCHOR_DATE: TEST_ANCHOR,
      MDG_SAMPLE_SCALE: String(TEST_SCALE),
    },
    sql: (text, params) => writer.query(text, params),
    drop: async () => {
      await writer.end();
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
