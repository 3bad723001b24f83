import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { DEV_KEY_FILE, devKeyPath, ensureDevKey } from "../../../src/platform/auth/auth.dev-key";
import { API_KEY_PATTERN, hashApiKey } from "../../../src/platform/auth/auth.keys";
import { ApiKeyService } from "../../../src/platform/auth/auth.service";
import { loadConfig } from "../../../src/platform/config";
import { PostgresApiKeyStore } from "../../../src/sources/postgres/postgres.keys";
import { migratePostgres } from "../../../src/sources/postgres/postgres.migrate";
import { createPostgresPool } from "../../../src/sources/postgres/postgres.source";
import { openSqliteSource, type SqliteSource } from "../../../src/sources/sqlite/sqlite.source";
import { createTestDatabase } from "../../helpers/postgres";
import { ManualClock } from "./fakes";

let dir: string;
let source: SqliteSource;
let logs: string[];
const clock = new ManualClock("2026-11-20T15:00:00Z");

/** A fresh, empty key store in a data directory of its own, and a logger whose lines the test reads. */
function setUp() {
  dir = mkdtempSync(join(tmpdir(), "mdg-dev-key-"));
  source = openSqliteSource(join(dir, "market.db"));
  logs = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString("utf8"));
      done();
    },
  });
  return {
    apiKeys: new ApiKeyService(source.keys, clock, { cacheTtlMs: 0 }),
    logger: pino({ level: "info" }, sink),
    config: (env: Record<string, string> = {}) =>
      loadConfig({ MDG_SQLITE_PATH: join(dir, "market.db"), NODE_ENV: "development", LOG_LEVEL: "silent", ...env }),
  };
}

afterEach(async () => {
  await source.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the local development key of a first start", () => {
  it("is created when no key exists, written to data/dev-key with mode 0600, and only its path is logged", async () => {
    const { apiKeys, logger, config } = setUp();
    const outcome = await ensureDevKey(config(), apiKeys, logger);
    const path = join(dir, DEV_KEY_FILE);
    expect(outcome).toMatchObject({ created: true, path });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const key = readFileSync(path, "utf8").trim();
    expect(key).toMatch(API_KEY_PATTERN);
    const principal = await apiKeys.authenticate(key);
    expect([...principal.scopes]).toEqual(["*"]);
    const logged = logs.join("");
    expect(logged).toContain(path);
    expect(logged).not.toContain(key);
    expect(logged).not.toContain(hashApiKey(key));
    // No scratch file is left beside it.
    expect(existsSync(`${path}.${process.pid}.tmp`)).toBe(false);
  });

  it("is not created again once any key exists: the file and the store stay as they are", async () => {
    const { apiKeys, logger, config } = setUp();
    await ensureDevKey(config(), apiKeys, logger);
    const path = join(dir, DEV_KEY_FILE);
    const first = readFileSync(path, "utf8");
    expect(await ensureDevKey(config(), apiKeys, logger)).toEqual({ created: false, reason: "keys exist" });
    expect(readFileSync(path, "utf8")).toBe(first);
    expect(await apiKeys.list()).toHaveLength(1);
  });

  it("is not created when a key exists, even a revoked one", async () => {
    const { apiKeys, logger, config } = setUp();
    const { row } = await apiKeys.create({ name: "ops", scopes: ["etf"] });
    await apiKeys.revoke(row.id);
    expect(await ensureDevKey(config(), apiKeys, logger)).toEqual({ created: false, reason: "keys exist" });
    expect(existsSync(join(dir, DEV_KEY_FILE))).toBe(false);
  });

  it("is not created when MDG_BOOTSTRAP_API_KEY is set", async () => {
    const { apiKeys, logger, config } = setUp();
    const outcome = await ensureDevKey(
      config({ MDG_BOOTSTRAP_API_KEY: "a-bootstrap-key-0123456789" }),
      apiKeys,
      logger,
    );
    expect(outcome).toEqual({ created: false, reason: "bootstrap key set" });
    expect(await apiKeys.list()).toHaveLength(0);
  });

  it("is refused under NODE_ENV=production, which logs how to make a key instead", async () => {
    const { apiKeys, logger, config } = setUp();
    expect(await ensureDevKey(config({ NODE_ENV: "production" }), apiKeys, logger)).toEqual({
      created: false,
      reason: "production",
    });
    expect(existsSync(join(dir, DEV_KEY_FILE))).toBe(false);
    expect(await apiKeys.list()).toHaveLength(0);
    expect(logs.join("")).toContain("npm run keys -- create --name NAME --scopes SCOPES");
  });

  it("never replaces an existing file: the store gets no key, and the log names the file", async () => {
    const { apiKeys, logger, config } = setUp();
    const path = join(dir, DEV_KEY_FILE);
    writeFileSync(path, "mdg_an_earlier_key\n", { mode: 0o600 });
    expect(await ensureDevKey(config(), apiKeys, logger)).toEqual({ created: false, reason: "file exists", path });
    expect(readFileSync(path, "utf8")).toBe("mdg_an_earlier_key\n");
    // Nothing was created, so the next start, once the file is gone, makes the key.
    expect(await apiKeys.list()).toHaveLength(0);
    expect(logs.join("")).toContain(`its local key file ${path} exists already`);
    rmSync(path);
    expect(await ensureDevKey(config(), apiKeys, logger)).toMatchObject({ created: true, path });
  });

  it("revokes the key when the file cannot be written", async () => {
    // A scratch name already taken (as a link someone left would be) is refused, never written through.
    const { apiKeys, logger, config } = setUp();
    const scratch = `${join(dir, DEV_KEY_FILE)}.${process.pid}.tmp`;
    writeFileSync(scratch, "someone else's\n");
    expect(await ensureDevKey(config(), apiKeys, logger)).toEqual({ created: false, reason: "not written" });
    const [row] = await apiKeys.list();
    expect(row!.revokedAt).not.toBeNull();
    expect(readFileSync(scratch, "utf8")).toBe("someone else's\n");
    expect(existsSync(join(dir, DEV_KEY_FILE))).toBe(false);
  });
});

describe("one local key file per store", () => {
  const at = (env: Record<string, string>) => devKeyPath(loadConfig({ LOG_LEVEL: "silent", ...env }));
  const gateway = {
    MDG_DATA_SOURCE: "upstream",
    MDG_UPSTREAM_URL: "https://api.example.com",
    MDG_UPSTREAM_API_KEY: "k",
  };

  it("is named after the store, in the folder of MDG_SQLITE_PATH", () => {
    expect(at({})).toBe(join("data", "dev-key"));
    expect(at({ MDG_SQLITE_PATH: "/srv/mdg/market.db" })).toBe("/srv/mdg/dev-key");
    expect(at({ MDG_SQLITE_PATH: "/srv/mdg/small.db" })).toBe("/srv/mdg/dev-key.small");
    expect(at({ MDG_SQLITE_PATH: "/srv/mdg/my store.sqlite3" })).toBe("/srv/mdg/dev-key.my_store");
    const pg = { MDG_DATA_SOURCE: "postgres", DATABASE_URL: "postgres://u:secret@db.example:5432/mdg" };
    expect(at(pg)).toBe(join("data", "dev-key.postgres-mdg"));
    // A gateway's keys: in its SQLite file (a store of its own), or in DATABASE_URL's table shared with that store.
    expect(at({ ...gateway, MDG_SQLITE_PATH: "data/gateway.db" })).toBe(join("data", "dev-key.gateway"));
    expect(at({ ...gateway, ...pg, MDG_GATEWAY_KEYS: "postgres" })).toBe(join("data", "dev-key.postgres-mdg"));
  });

  it("keeps both keys working when two SQLite stores start in one folder", async () => {
    const { apiKeys, logger, config } = setUp();
    const other = openSqliteSource(join(dir, "other.db"));
    try {
      const otherKeys = new ApiKeyService(other.keys, clock, { cacheTtlMs: 0 });
      const otherConfig = config({ MDG_SQLITE_PATH: join(dir, "other.db") });
      const second = await ensureDevKey(otherConfig, otherKeys, logger);
      const first = await ensureDevKey(config(), apiKeys, logger);
      expect(second).toMatchObject({ created: true, path: join(dir, "dev-key.other") });
      expect(first).toMatchObject({ created: true, path: join(dir, DEV_KEY_FILE) });
      // Started again, each finds its key and writes nothing.
      expect(await ensureDevKey(otherConfig, otherKeys, logger)).toEqual({ created: false, reason: "keys exist" });
      expect(await ensureDevKey(config(), apiKeys, logger)).toEqual({ created: false, reason: "keys exist" });
      const key = readFileSync(join(dir, DEV_KEY_FILE), "utf8").trim();
      const otherKey = readFileSync(join(dir, "dev-key.other"), "utf8").trim();
      expect(key).not.toBe(otherKey);
      expect([...(await apiKeys.authenticate(key)).scopes]).toEqual(["*"]);
      expect([...(await otherKeys.authenticate(otherKey)).scopes]).toEqual(["*"]);
      expect(logs.join("")).toContain(join(dir, "dev-key.other"));
    } finally {
      await other.close();
    }
  });

  const withPostgres = process.env.DATABASE_URL ? it : it.skip;
  withPostgres("keeps both keys working when a PostgreSQL store starts beside the SQLite one", async () => {
    const { apiKeys, logger, config } = setUp();
    const db = await createTestDatabase("devkey");
    const pool = createPostgresPool({ url: db.url, poolSize: 1, statementTimeoutMs: 10_000 });
    try {
      await migratePostgres(pool);
      const pgKeys = new ApiKeyService(new PostgresApiKeyStore(pool), clock, { cacheTtlMs: 0 });
      expect(await ensureDevKey(config(), apiKeys, logger)).toMatchObject({ created: true });
      const pgConfig = config({ MDG_DATA_SOURCE: "postgres", DATABASE_URL: db.url });
      const pgPath = join(dir, `dev-key.postgres-${db.name}`);
      expect(await ensureDevKey(pgConfig, pgKeys, logger)).toMatchObject({ created: true, path: pgPath });
      const key = readFileSync(join(dir, DEV_KEY_FILE), "utf8").trim();
      expect([...(await apiKeys.authenticate(key)).scopes]).toEqual(["*"]);
      expect([...(await pgKeys.authenticate(readFileSync(pgPath, "utf8").trim())).scopes]).toEqual(["*"]);
    } finally {
      await pool.end();
      await db.drop();
    }
  });
});
