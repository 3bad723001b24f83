import Database from "better-sqlite3";
import { hashApiKey } from "../../../src/platform/auth/auth.keys";
import { ApiKeyService } from "../../../src/platform/auth/auth.service";
import type { ApiKeyRow, ApiKeyStore } from "../../../src/platform/auth/auth.types";
import { UnauthenticatedError } from "../../../src/platform/errors";
import { FIND_BY_HASH, SqliteApiKeyStore } from "../../../src/sources/sqlite/sqlite.keys";
import { migrate } from "../../../src/sources/sqlite/sqlite.migrate";
import { ManualClock } from "./fakes";

// The module object itself (an `import * as` would be a copy), so a spy sees the service's calls.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const nodeCrypto: typeof import("node:crypto") = require("node:crypto");

/**
 * An unknown key, a revoked one and an expired one must take one path (src/platform/auth/auth.service.ts, `lookup`):
 * the same store call, the same rows read and decoded, the same comparison of hashes. Otherwise the time of a 401
 * tells a caller that a key once existed. The steps are counted here; their time is measured by
 * `BENCH_ONLY=keys npm run bench`.
 */
const T0 = "2026-03-02T10:00:00Z";

interface Steps {
  storeCalls: number;
  /** Statements of the key store run, and rows they gave back. */
  statements: number;
  rows: number;
  /** Fields read from those rows (a decoded row reads each of its columns). */
  fieldsRead: number;
  hashComparisons: number;
  outcome: string;
}

/** A native object's member, bound to the object itself (a proxy is not a `this` its methods accept). */
function member(target: object, prop: string | symbol): unknown {
  const value = Reflect.get(target, prop) as unknown;
  return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
}

/** The SQLite key store on an in-memory database, its statements and the rows they return counted. */
function countingSqlite() {
  const db = new Database(":memory:");
  migrate(db);
  const seen = { statements: 0, rows: 0, fieldsRead: 0 };
  const counted = new Proxy(db, {
    get(target, prop) {
      if (prop !== "prepare") return member(target, prop);
      return (sql: string) => {
        const stmt = target.prepare(sql);
        return new Proxy(stmt, {
          get(s, p) {
            if (p !== "get") return member(s, p);
            return (...args: unknown[]) => {
              seen.statements++;
              const row = (s.get as (...a: unknown[]) => Record<string, unknown> | undefined)(...args);
              if (row === undefined) return row;
              seen.rows++;
              return new Proxy(row, {
                get(o, f, rr) {
                  seen.fieldsRead++;
                  return Reflect.get(o, f, rr) as unknown;
                },
              });
            };
          },
        });
      };
    },
  });
  return { db, seen, store: new SqliteApiKeyStore(counted) };
}

/** Wraps a store, counting the calls the service makes. */
function countingStore(inner: ApiKeyStore): { store: ApiKeyStore; calls: () => number } {
  let calls = 0;
  const store: ApiKeyStore = {
    findApiKeyByHash: (hash) => (calls++, inner.findApiKeyByHash(hash)),
    insertApiKey: (row) => inner.insertApiKey(row),
    listApiKeys: () => inner.listApiKeys(),
    revokeApiKey: (id, at) => inner.revokeApiKey(id, at),
  };
  return { store, calls: () => calls };
}

async function setup(opts: { bootstrapKey?: string } = {}) {
  const sqlite = countingSqlite();
  const counting = countingStore(sqlite.store);
  const clock = new ManualClock(T0);
  // The cache off: every key is looked up, the path under test.
  const service = new ApiKeyService(counting.store, clock, { cacheTtlMs: 0, ...opts });
  const revoked = await service.create({ name: "revoked", scopes: ["crypto"] });
  await service.revoke(revoked.row.id);
  const expiring = await service.create({
    name: "expiring",
    scopes: ["crypto"],
    expiresAt: new Date(Date.parse(T0) + 60_000),
  });
  const valid = await service.create({ name: "valid", scopes: ["crypto"] });
  clock.advance(120_000);
  const keys = {
    unknown: "mdg_" + "u".repeat(43),
    revoked: revoked.key,
    expired: expiring.key,
    valid: valid.key,
  };

  const steps = async (key: string): Promise<Steps> => {
    const before = { calls: counting.calls(), ...sqlite.seen };
    const compare = jest.spyOn(nodeCrypto, "timingSafeEqual");
    let outcome: string;
    try {
      outcome = (await service.authenticate(key)).name;
    } catch (e) {
      outcome = e instanceof UnauthenticatedError ? "401" : String(e);
    }
    const hashComparisons = compare.mock.calls.length;
    compare.mockRestore();
    return {
      storeCalls: counting.calls() - before.calls,
      statements: sqlite.seen.statements - before.statements,
      rows: sqlite.seen.rows - before.rows,
      fieldsRead: sqlite.seen.fieldsRead - before.fieldsRead,
      hashComparisons,
      outcome,
    };
  };
  return { service, keys, steps, sqlite };
}

describe("one path for every key the store is asked about", () => {
  it("takes the same steps for an unknown, a revoked, an expired and a valid key", async () => {
    const { keys, steps } = await setup();

    const unknown = await steps(keys.unknown);
    const revoked = await steps(keys.revoked);
    const expired = await steps(keys.expired);
    const valid = await steps(keys.valid);

    expect(unknown).toEqual({
      storeCalls: 1,
      statements: 1,
      rows: 1,
      fieldsRead: 10,
      hashComparisons: 1,
      outcome: "401",
    });
    expect(revoked).toEqual(unknown);
    expect(expired).toEqual(unknown);
    // Only the verdict differs.
    expect(valid).toEqual({ ...unknown, outcome: "valid" });
  });

  it("takes the same steps beside a bootstrap key, which every key is first compared with", async () => {
    const { keys, steps } = await setup({ bootstrapKey: "a-bootstrap-key-0123456789" });

    const unknown = await steps(keys.unknown);
    expect(unknown).toMatchObject({ storeCalls: 1, rows: 1, hashComparisons: 2, outcome: "401" });
    expect(await steps(keys.revoked)).toEqual(unknown);
    expect(await steps(keys.expired)).toEqual(unknown);
  });

  it("gets one row from the store's statement whether a key has the hash or not", async () => {
    const { sqlite, keys } = await setup();
    const one = (key: string) => sqlite.db.prepare(FIND_BY_HASH).all(hashApiKey(key)) as Record<string, unknown>[];

    const absent = one(keys.unknown);
    const present = one(keys.revoked);
    expect(absent).toHaveLength(1);
    expect(present).toHaveLength(1);
    expect(Object.keys(absent[0]!)).toEqual(Object.keys(present[0]!));
    expect(Object.values(absent[0]!).every((v) => v === null)).toBe(true);
    expect(await sqlite.store.findApiKeyByHash(hashApiKey(keys.unknown))).toBeNull();
    expect(await sqlite.store.findApiKeyByHash(hashApiKey(keys.revoked))).toMatchObject<Partial<ApiKeyRow>>({
      name: "revoked",
      scopes: ["crypto"],
    });
  });
});
