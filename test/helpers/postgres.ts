import { randomBytes } from "node:crypto";
import pg, { type PoolClient } from "pg";
import { migratePostgres } from "../../src/sources/postgres/postgres.migrate";
import { copySqliteStore } from "../../src/sources/postgres/postgres.sample";
import { createPostgresPool } from "../../src/sources/postgres/postgres.source";
import { TEST_STORE_PATH } from "./constants";

/** A database of its own on the server of DATABASE_URL, for one suite's run; `drop()` removes it. */
export interface TestDatabase {
  name: string;
  url: string;
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

/**
 * Creates `mdg_<prefix>_<pid>_<random>` (names unique per run: other suites and other people share the server).
 * With `load`, it holds the test data set (test/global-setup.ts builds it as SQLite), migrated and copied the way
 * a first start fills an empty database.
 */
export async function createTestDatabase(prefix: string, opts: { load?: boolean } = {}): Promise<TestDatabase> {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error("DATABASE_URL is unset");
  const name = `mdg_${prefix}_${process.pid}_${randomBytes(4).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(base);
  url.pathname = `/${name}`;
  const db: TestDatabase = {
    name,
    url: url.toString(),
    drop: () => admin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  };
  if (opts.load) {
    const pool = createPostgresPool({ url: db.url, poolSize: 1, statementTimeoutMs: 60_000 });
    try {
      const fillEmpty = async (client: PoolClient) =>
        void (await copySqliteStore(client, TEST_STORE_PATH, () => undefined));
      await migratePostgres(pool, { fillEmpty });
    } catch (e) {
      await db.drop();
      throw e;
    } finally {
      await pool.end();
    }
  }
  return db;
}
