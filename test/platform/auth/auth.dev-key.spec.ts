import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { DEV_KEY_FILE, ensureDevKey } from "../../../src/platform/auth/auth.dev-key";
import { API_KEY_PATTERN, hashApiKey } from "../../../src/platform/auth/auth.keys";
import { ApiKeyService } from "../../../src/platform/auth/auth.service";
import { loadConfig } from "../../../src/platform/config";
import { openSqliteSource, type SqliteSource } from "../../../src/sources/sqlite/sqlite.source";
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

  it("replaces a stale file of an earlier store, and revokes the key when the file cannot be written", async () => {
    const { apiKeys, logger, config } = setUp();
    const path = join(dir, DEV_KEY_FILE);
    writeFileSync(path, "mdg_stale\n", { mode: 0o644 });
    await ensureDevKey(config(), apiKeys, logger);
    expect(readFileSync(path, "utf8")).not.toContain("stale");
    expect(statSync(path).mode & 0o777).toBe(0o600);

    // A scratch name already taken (as a link someone left would be) is refused, never written through.
    const again = setUpAgain();
    writeFileSync(`${join(again.dir, DEV_KEY_FILE)}.${process.pid}.tmp`, "someone else's\n");
    const outcome = await ensureDevKey(again.config, again.apiKeys, logger);
    expect(outcome).toEqual({ created: false, reason: "not written" });
    const [row] = await again.apiKeys.list();
    expect(row!.revokedAt).not.toBeNull();
    expect(readFileSync(`${join(again.dir, DEV_KEY_FILE)}.${process.pid}.tmp`, "utf8")).toBe("someone else's\n");
    await again.close();
  });
});

/** A second data directory within one test. */
function setUpAgain() {
  const d = mkdtempSync(join(tmpdir(), "mdg-dev-key-"));
  const s = openSqliteSource(join(d, "market.db"));
  return {
    dir: d,
    apiKeys: new ApiKeyService(s.keys, clock, { cacheTtlMs: 0 }),
    config: loadConfig({ MDG_SQLITE_PATH: join(d, "market.db"), NODE_ENV: "development", LOG_LEVEL: "silent" }),
    close: async () => {
      await s.close();
      rmSync(d, { recursive: true, force: true });
    },
  };
}
