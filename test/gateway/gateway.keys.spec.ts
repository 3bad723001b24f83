// @requires-env DATABASE_URL postgres://postgres@127.0.0.1:5432/test
import { loadConfig } from "../../src/platform/config";
import type { ApiKeyRow } from "../../src/platform/auth/auth.types";
import { openSources, type Sources } from "../../src/app.sources";
import { runKeysCli } from "../helpers/keys-cli";
import { createTestDatabase, type TestDatabase } from "../helpers/postgres";

/**
 * Gateway mode with MDG_GATEWAY_KEYS=postgres: the gateway's own API keys live in DATABASE_URL's database, so a key
 * made through one gateway replica (or the keys CLI) is the key of every replica. The upstream is never called here.
 */
const GATEWAY = {
  LOG_LEVEL: "silent",
  MDG_DATA_SOURCE: "upstream",
  MDG_GATEWAY_KEYS: "postgres",
  MDG_UPSTREAM_URL: "http://127.0.0.1:9",
  MDG_UPSTREAM_API_KEY: "upstream-test-key",
};

describe("the gateway's configuration", () => {
  it("MDG_GATEWAY_KEYS=postgres without DATABASE_URL is refused, naming the variable", () => {
    expect(() => loadConfig({ ...GATEWAY, DATABASE_URL: "" })).toThrow(
      /DATABASE_URL: unset; MDG_GATEWAY_KEYS=postgres needs postgres:\/\//,
    );
  });
});

(process.env.DATABASE_URL ? describe : describe.skip)("gateway keys on PostgreSQL", () => {
  let db: TestDatabase;
  let a: Sources;
  let b: Sources;

  beforeAll(async () => {
    db = await createTestDatabase("gwkeys");
    const config = loadConfig({ ...GATEWAY, DATABASE_URL: db.url });
    a = await openSources(config);
    b = await openSources(config);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it("a key stored through replica A is found by replica B; the database gets no sample data", async () => {
    const row: ApiKeyRow = {
      id: "gw-key-1",
      name: "frontend",
      hash: "a".repeat(64),
      scopes: ["stock", "etf"],
      createdAt: 1_790_000_000,
      expiresAt: null,
      revokedAt: null,
      ratePerMinute: 600,
      dailyQuota: 100_000,
    };
    await a.keys.insertApiKey(row);
    expect(await b.keys.findApiKeyByHash(row.hash)).toEqual(row);
    expect(a.sampleBuilt).toBeUndefined();
    expect(a.market.kind).toBe("upstream");
  });

  it("the keys CLI creates and lists the gateway's keys in that database", () => {
    const env = { ...process.env, ...GATEWAY, DATABASE_URL: db.url };
    const cli = (...args: string[]) => runKeysCli(env, ...args);
    const created = cli("create", "--name", "gateway-cli-key", "--scopes", "stock");
    expect(created.status).toBe(0);
    const listed = cli("list");
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain("gateway-cli-key");
  });
});
