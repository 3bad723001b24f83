import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteImportSink } from "../../../src/sources/sqlite/sqlite.import";
import { createTestApp } from "../../helpers/app";
import { TEST_STORE_PATH } from "../../helpers/constants";
import { importConformance } from "./import.conformance";

/** The ImportSink conformance cases on SQLite: a copy of the test store, the CLI on a connection of its own. */
describe("ImportSink conformance: SQLite", () => {
  importConformance(async () => {
    const dir = mkdtempSync(join(tmpdir(), "mdg-import-sqlite-"));
    const store = join(dir, "store.db");
    const src = new Database(TEST_STORE_PATH, { readonly: true });
    src.exec(`VACUUM INTO '${store.replace(/'/g, "''")}'`);
    src.close();
    const app = await createTestApp({ storePath: store, ownIndex: true });
    return {
      app,
      openSink: async () => {
        const db = new Database(store);
        db.pragma("busy_timeout = 5000");
        const sink = new SqliteImportSink(db);
        return { sink, close: () => sink.close() };
      },
      sql: async (text) => {
        const db = new Database(store, { readonly: true });
        try {
          return db.prepare(text).all() as Record<string, unknown>[];
        } finally {
          db.close();
        }
      },
      settle: async () => undefined,
      close: async () => {
        await app.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});
