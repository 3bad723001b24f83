// @requires-env DATABASE_URL postgres://postgres@127.0.0.1:5432/test
import type { Pool, PoolClient } from "pg";
import { HoldsDataError, migratePostgres } from "../../src/sources/postgres/postgres.migrate";
import { MIGRATIONS } from "../../src/sources/postgres/postgres.migrations";
import { createPostgresPool } from "../../src/sources/postgres/postgres.source";
import { createTestDatabase, type TestDatabase } from "../helpers/postgres";

/**
 * Migrations at start: under the advisory lock N processes starting at once migrate once and fill an empty database
 * once; the fill is in the migrating transaction (a failed fill leaves no schema); a database holding the schema is
 * never filled; a replacement refuses a database holding data unless told to drop it.
 */
const RUN = process.env.DATABASE_URL ? describe : describe.skip;

RUN("migratePostgres", () => {
  let db: TestDatabase;
  const pools: Pool[] = [];
  const pool = () => {
    const p = createPostgresPool({ url: db.url, poolSize: 2, statementTimeoutMs: 30_000 });
    pools.push(p);
    return p;
  };
  /** A fill that records its call and writes one meta row, as the sample load writes its tables. */
  const filler = (calls: string[], who: string) => async (client: PoolClient) => {
    calls.push(who);
    await client.query("INSERT INTO meta (key, value) VALUES ('filled_by', $1)", [who]);
  };
  const count = async (sql: string) => Number((await pools[0]!.query(sql)).rows[0].n);

  beforeAll(async () => {
    db = await createTestDatabase("migrate");
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await db?.drop();
  });

  it("a fill that fails leaves the database empty, for the next start to fill", async () => {
    const failing = async () => {
      throw new Error("crashed mid-load");
    };
    await expect(migratePostgres(pool(), { fillEmpty: failing })).rejects.toThrow("crashed mid-load");
    expect(await count("SELECT count(*) AS n FROM pg_tables WHERE schemaname = current_schema()")).toBe(0);
  });

  it("four processes starting at once: one migrates and fills, the others find it done", async () => {
    const calls: string[] = [];
    const results = await Promise.all(
      ["a", "b", "c", "d"].map((who) => migratePostgres(pool(), { fillEmpty: filler(calls, who) })),
    );
    expect(calls).toHaveLength(1);
    expect(results.filter((r) => r.filled)).toHaveLength(1);
    expect(results.reduce((n, r) => n + r.ran, 0)).toBe(MIGRATIONS.length);
    expect(await count("SELECT count(*) AS n FROM schema_migrations")).toBe(MIGRATIONS.length);
    expect(await count("SELECT count(*) AS n FROM meta WHERE key = 'filled_by'")).toBe(1);
  });

  it("a database that holds the schema is never filled", async () => {
    const calls: string[] = [];
    const again = await migratePostgres(pool(), { fillEmpty: filler(calls, "later") });
    expect(again).toEqual({ ran: 0, filled: false });
    expect(calls).toEqual([]);
  });

  it("a schema newer than this build is refused", async () => {
    await expect(migratePostgres(pool(), { migrations: [] })).rejects.toThrow(/newer than this build knows/);
  });

  it("replacing refuses a database holding data unless told to drop it", async () => {
    await pools[0]!.query("INSERT INTO securities (id, type, name, currency) VALUES (1, 'stock', 'Kept Inc.', 'USD')");
    const calls: string[] = [];
    const refused = migratePostgres(pool(), { replace: "if-no-data", fillEmpty: filler(calls, "refused") });
    await expect(refused).rejects.toBeInstanceOf(HoldsDataError);
    expect(await count("SELECT count(*) AS n FROM securities")).toBe(1);
    const replaced = await migratePostgres(pool(), { replace: "always", fillEmpty: filler(calls, "replaced") });
    expect(replaced).toEqual({ ran: MIGRATIONS.length, filled: true });
    expect(calls).toEqual(["replaced"]);
    expect(await count("SELECT count(*) AS n FROM securities")).toBe(0);
    expect((await pools[0]!.query("SELECT value FROM meta WHERE key = 'filled_by'")).rows).toEqual([
      { value: "replaced" },
    ]);
  });
});
