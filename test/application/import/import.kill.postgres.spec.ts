// @requires-env DATABASE_URL postgres://postgres@127.0.0.1:5432/test
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { createTestDatabase, type TestDatabase } from "../../helpers/postgres";
import { digest, killAndRerun, type KillStore } from "./import.kill.scenario";

const RUN = process.env.DATABASE_URL ? describe : describe.skip;
if (!process.env.DATABASE_URL) console.warn("SKIPPED import.kill.postgres.spec.ts: DATABASE_URL is unset");

/**
 * Not market data: the change notices' bookkeeping counts statements, not rows (a killed run and its rerun make
 * more), and each database's migrations carry the time they ran.
 */
const BOOKKEEPING = new Set(["mdg_change_version", "mdg_change_log", "schema_migrations"]);

RUN("kill -9 during an import into PostgreSQL", () => {
  let dir: string;
  const dbs: TestDatabase[] = [];
  const clients: pg.Client[] = [];

  async function postgresStore(prefix: string): Promise<KillStore> {
    const db = await createTestDatabase(prefix, { load: true });
    dbs.push(db);
    // A connection of the test's own: it sees what the import's process has committed, and nothing else.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    clients.push(client);
    const rows = async (sql: string, params: unknown[] = []) =>
      (await client.query({ text: sql, values: params, rowMode: "array" })).rows as unknown[][];
    return {
      env: { MDG_DATA_SOURCE: "postgres", DATABASE_URL: db.url },
      stocks: async (n) =>
        (
          await rows(
            `SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id WHERE s.type = 'stock'
             ORDER BY l.id LIMIT $1`,
            [n],
          )
        ).map((r) => r[0] as string),
      barCount: async () => Number((await rows("SELECT count(*) FROM daily_bars"))[0]![0]),
      dump: async () => {
        const tables = (
          await rows(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`)
        ).map((r) => r[0] as string);
        const out: Record<string, { rows: number; sha256: string }> = {};
        for (const t of tables.filter((name) => !BOOKKEEPING.has(name))) {
          const [[n]] = (await rows(
            `SELECT count(*) FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`,
            [t],
          )) as [[string]];
          const order = Array.from({ length: Number(n) }, (_, i) => i + 1).join(", ");
          out[t] = digest(await rows(`SELECT * FROM "${t}" ORDER BY ${order}`));
        }
        return out;
      },
    };
  }

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "mdg-import-kill-pg-"));
  });

  afterAll(async () => {
    for (const c of clients) await c.end();
    for (const db of dbs) await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("after kill -9 mid-way through a large import, the same command again leaves what one clean run did", async () => {
    await killAndRerun(await postgresStore("kill"), await postgresStore("kill_clean"), dir);
  }, 300_000);
});
