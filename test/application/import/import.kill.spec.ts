import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_STORE_PATH } from "../../helpers/constants";
import { digest, killAndRerun, type KillStore } from "./import.kill.scenario";

let dir: string;

/** A copy of the test store, read with its own connection each time (as another process sees it). */
function sqliteStore(name: string): KillStore {
  const path = join(dir, name);
  const src = new Database(TEST_STORE_PATH, { readonly: true });
  src.exec(`VACUUM INTO '${path.replace(/'/g, "''")}'`);
  src.close();
  const read = <T>(run: (db: Database.Database) => T): T => {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return run(db);
    } finally {
      db.close();
    }
  };
  return {
    env: { MDG_DATA_SOURCE: "sqlite", MDG_SQLITE_PATH: path },
    stocks: async (n) =>
      read(
        (db) =>
          db
            .prepare(
              `SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id WHERE s.type = 'stock'
               ORDER BY l.id LIMIT ?`,
            )
            .pluck()
            .all(n) as string[],
      ),
    barCount: async () => read((db) => db.prepare("SELECT count(*) FROM daily_bars").pluck().get() as number),
    dump: async () =>
      read((db) => {
        const tables = db
          .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
          .pluck()
          .all() as string[];
        const out: Record<string, { rows: number; sha256: string }> = {};
        for (const t of tables) {
          const n = (db.prepare(`SELECT count(*) FROM pragma_table_info(?)`).pluck().get(t) as number) || 1;
          const order = Array.from({ length: n }, (_, i) => i + 1).join(", ");
          out[t] = digest(db.prepare(`SELECT * FROM "${t}" ORDER BY ${order}`).raw().iterate());
        }
        return out;
      }),
  };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mdg-import-kill-"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

it("after kill -9 mid-way through a large import, the same command again leaves what one clean run did", async () => {
  await killAndRerun(sqliteStore("killed.db"), sqliteStore("clean.db"), dir);
}, 180_000);
