import "reflect-metadata";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { fillSampleData } from "../src/sample/sample.store";
import { migrate } from "../src/sources/sqlite/sqlite.migrate";
import { TEST_ANCHOR, TEST_SCALE, TEST_SEED, TEST_STORE_PATH } from "./helpers/constants";

/** Builds the shared test store once per run (fresh each run, so a generator change is always tested). */
export default async function globalSetup(): Promise<void> {
  process.env.TZ = "UTC";
  mkdirSync(dirname(TEST_STORE_PATH), { recursive: true });
  const tmp = `${TEST_STORE_PATH}.tmp`;
  rmSync(tmp, { force: true });
  for (const suffix of ["", "-wal", "-shm"]) rmSync(TEST_STORE_PATH + suffix, { force: true });
  const db = new Database(tmp);
  migrate(db);
  fillSampleData(db, { seed: TEST_SEED, anchorDate: TEST_ANCHOR, scale: TEST_SCALE });
  db.close();
  renameSync(tmp, TEST_STORE_PATH);
  if (!existsSync(TEST_STORE_PATH)) throw new Error("test store was not built");
}
