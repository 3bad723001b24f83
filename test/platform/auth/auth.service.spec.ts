import { inspect } from "node:util";
import { hashApiKey } from "../../../src/platform/auth/auth.keys";
import {
  ApiKeyService,
  BOOTSTRAP_DAILY_QUOTA,
  BOOTSTRAP_KEY_ID,
  BOOTSTRAP_RATE_PER_MINUTE,
  DEFAULT_CACHE_TTL_MS,
  DEFAULT_DAILY_QUOTA,
  DEFAULT_RATE_PER_MINUTE,
} from "../../../src/platform/auth/auth.service";
import { ForbiddenError, InvalidArgumentError, UnauthenticatedError } from "../../../src/platform/errors";
import type { ApiKeyRow } from "../../../src/platform/auth/auth.types";
import { FakeKeyStore, ManualClock } from "./fakes";

// The module object itself (an `import * as` would be a copy), so a spy sees the service's calls.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const nodeCrypto: typeof import("node:crypto") = require("node:crypto");

const T0 = "2026-03-02T10:00:00Z";
const T0_SECONDS = Date.parse(T0) / 1000;

function setup(opts: { bootstrapKey?: string; cacheTtlMs?: number; cacheMaxEntries?: number } = {}) {
  const store = new FakeKeyStore();
  const clock = new ManualClock(T0);
  const service = new ApiKeyService(store, clock, opts);
  return { store, clock, service };
}

/** A stored row for a secret the test chooses. */
function rowFor(secret: string, overrides: Partial<ApiKeyRow> = {}): ApiKeyRow {
  return {
    id: `key_${hashApiKey(secret).slice(0, 12)}`,
    name: "test key",
    hash: hashApiKey(secret),
    scopes: ["etf"],
    createdAt: T0_SECONDS - 86_400,
    expiresAt: null,
    revokedAt: null,
    ratePerMinute: 60,
    dailyQuota: 1_000,
    ...overrides,
  };
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a rejection");
}

afterEach(() => jest.restoreAllMocks());

describe("ApiKeyService.authenticate", () => {
  it("answers a created key with its principal, which holds neither the secret nor its hash", async () => {
    const { service } = setup();
    const { key, row } = await service.create({
      name: "ci",
      scopes: ["etf", "stock"],
      ratePerMinute: 30,
      dailyQuota: 500,
    });

    const principal = await service.authenticate(key);

    expect(principal).toEqual({
      keyId: row.id,
      name: "ci",
      scopes: new Set(["etf", "stock"]),
      ratePerMinute: 30,
      dailyQuota: 500,
    });
    const shown = inspect(principal, { depth: 5 });
    expect(shown).not.toContain(key);
    expect(shown).not.toContain(hashApiKey(key));
  });

  it("throws one UnauthenticatedError for missing, empty, repeated, unknown, revoked and expired keys", async () => {
    const { store, service } = setup();
    const { key: valid } = await service.create({ name: "valid", scopes: ["etf"] });
    store.rows.set("revoked", rowFor("revoked-secret", { id: "key_revoked", revokedAt: T0_SECONDS - 10 }));
    store.rows.set("expired", rowFor("expired-secret", { id: "key_expired", expiresAt: T0_SECONDS - 1 }));
    store.rows.set("expires-now", rowFor("expires-now-secret", { id: "key_expires_now", expiresAt: T0_SECONDS }));

    const cases: Array<[string, string | string[] | undefined]> = [
      ["missing", undefined],
      ["empty", ""],
      ["repeated (array)", [valid, valid]],
      ["single-element array", [valid]],
      ["unknown", "mdg_thisKeyWasNeverIssuedAAAAAAAAAAAAAAAAAAAAAAAA"],
      ["whitespace", "   "],
      ["revoked", "revoked-secret"],
      ["expired", "expired-secret"],
      ["expiring this second", "expires-now-secret"],
    ];
    const seen = [];
    for (const [label, header] of cases) {
      const e = await rejection(service.authenticate(header));
      expect(e).toBeInstanceOf(UnauthenticatedError);
      seen.push({
        label,
        name: e.name,
        code: (e as UnauthenticatedError).code,
        message: e.message,
        details: (e as UnauthenticatedError).details,
      });
      for (const secret of [valid, "revoked-secret", "expired-secret"]) expect(e.message).not.toContain(secret);
    }
    const distinct = new Set(seen.map(({ label: _label, ...rest }) => JSON.stringify(rest)));
    expect(distinct).toEqual(
      new Set([
        JSON.stringify({
          name: "UnauthenticatedError",
          code: "UNAUTHENTICATED",
          message: "a valid x-api-key header is required",
        }),
      ]),
    );
    // The valid key still works: the failures above were about the header, not the key.
    await expect(service.authenticate(valid)).resolves.toMatchObject({ name: "valid" });
  });

  it("looks keys up by their sha256 hex digest; the store never sees the secret", async () => {
    const { store, service } = setup();
    const { key } = await service.create({ name: "k", scopes: ["crypto"] });

    await service.authenticate(key);

    const expected = nodeCrypto.createHash("sha256").update(key).digest("hex");
    expect(store.lookedUp).toEqual([expected]);
    expect(JSON.stringify([...store.rows.values()])).not.toContain(key);
  });

  it("confirms the stored hash with crypto.timingSafeEqual on the 32 hash bytes", async () => {
    const { service } = setup({ cacheTtlMs: 0 });
    const { key } = await service.create({ name: "k", scopes: ["crypto"] });
    const spy = jest.spyOn(nodeCrypto, "timingSafeEqual");

    await service.authenticate(key);

    expect(spy).toHaveBeenCalledTimes(1);
    const [a, b] = spy.mock.calls[0]!;
    expect(Buffer.from(a as Uint8Array)).toEqual(Buffer.from(hashApiKey(key), "hex"));
    expect(Buffer.from(b as Uint8Array)).toHaveLength(32);
  });

  it("rejects a row the store returns for another hash (the final comparison is ours, not the index's)", async () => {
    const { store, service } = setup();
    const other = rowFor("someone-else");
    store.findApiKeyByHash = async () => other;

    await expect(service.authenticate("a-different-secret")).rejects.toBeInstanceOf(UnauthenticatedError);
  });

  it("treats a malformed stored hash as no match instead of crashing", async () => {
    const { store, service } = setup();
    store.findApiKeyByHash = async () => rowFor("x", { hash: "abc" });

    await expect(service.authenticate("x")).rejects.toBeInstanceOf(UnauthenticatedError);
  });

  it("lets errors of the store through: an unreachable store is a fault (500), not a bad key (401)", async () => {
    const { store, service } = setup();
    store.failWith = new Error("database is locked");

    const e = await rejection(service.authenticate("whatever"));
    expect(e).not.toBeInstanceOf(UnauthenticatedError);
    expect(e.message).toBe("database is locked");
  });
});

describe("bootstrap key", () => {
  const BOOTSTRAP = "local-trial-bootstrap-key-0123456789";

  it("grants every scope with generous limits, without touching the store", async () => {
    const { store, service } = setup({ bootstrapKey: BOOTSTRAP });

    const principal = await service.authenticate(BOOTSTRAP);

    expect(principal).toMatchObject({
      keyId: BOOTSTRAP_KEY_ID,
      ratePerMinute: BOOTSTRAP_RATE_PER_MINUTE,
      dailyQuota: BOOTSTRAP_DAILY_QUOTA,
    });
    expect([...principal.scopes]).toEqual(["*"]);
    for (const scope of ["crypto", "etf", "fund", "stock", "dividend", "search", "bulk", "portfolio", "*"] as const) {
      expect(() => service.requireScope(principal, scope)).not.toThrow();
    }
    expect(BOOTSTRAP_RATE_PER_MINUTE).toBeGreaterThan(DEFAULT_RATE_PER_MINUTE);
    expect(BOOTSTRAP_DAILY_QUOTA).toBeGreaterThan(DEFAULT_DAILY_QUOTA);
    expect(store.lookedUp).toEqual([]);
  });

  it("is compared in constant time and held only as its hash", async () => {
    const { service } = setup({ bootstrapKey: BOOTSTRAP });
    const spy = jest.spyOn(nodeCrypto, "timingSafeEqual");

    await service.authenticate(BOOTSTRAP);

    expect(spy).toHaveBeenCalledTimes(1);
    expect(inspect(service, { depth: 10, showHidden: true })).not.toContain(BOOTSTRAP);
  });

  it("does not accept near misses, and stored keys keep working beside it", async () => {
    const { service } = setup({ bootstrapKey: BOOTSTRAP });
    const { key } = await service.create({ name: "k", scopes: ["fund"] });

    await expect(service.authenticate(BOOTSTRAP + " ")).rejects.toBeInstanceOf(UnauthenticatedError);
    await expect(service.authenticate(BOOTSTRAP.slice(0, -1))).rejects.toBeInstanceOf(UnauthenticatedError);
    await expect(service.authenticate(key)).resolves.toMatchObject({ name: "k" });
  });

  it("does not exist when none is configured", async () => {
    const { service } = setup({ bootstrapKey: undefined });
    await expect(service.authenticate(BOOTSTRAP)).rejects.toBeInstanceOf(UnauthenticatedError);
    await expect(service.authenticate("")).rejects.toBeInstanceOf(UnauthenticatedError);
  });
});

describe("requireScope", () => {
  it("throws ForbiddenError naming the missing scope and never the key", async () => {
    const { service } = setup();
    const { key } = await service.create({ name: "etf only", scopes: ["etf"] });
    const principal = await service.authenticate(key);

    expect(() => service.requireScope(principal, "etf")).not.toThrow();
    let error: unknown;
    try {
      service.requireScope(principal, "crypto");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ForbiddenError).code).toBe("FORBIDDEN");
    expect((error as Error).message).toContain('"crypto"');
    expect((error as Error).message).not.toContain(key);
    expect((error as Error).message).not.toContain(hashApiKey(key));
  });

  it("lets * stand for every scope, and asks for * itself only from keys that have it", async () => {
    const { service } = setup();
    const all = await service.authenticate((await service.create({ name: "all", scopes: ["*"] })).key);
    const some = await service.authenticate((await service.create({ name: "some", scopes: ["etf", "bulk"] })).key);

    expect(() => service.requireScope(all, "dividend")).not.toThrow();
    expect(() => service.requireScope(some, "bulk")).not.toThrow();
    expect(() => service.requireScope(some, "*")).toThrow(ForbiddenError);
  });
});

describe("lookup cache", () => {
  it("serves repeated requests from memory", async () => {
    const { store, service } = setup();
    const { key } = await service.create({ name: "k", scopes: ["etf"] });

    for (let i = 0; i < 5; i++) await service.authenticate(key);

    expect(store.lookedUp).toHaveLength(1);
  });

  it("honours a revocation made by another process (the CLI) once the TTL has passed", async () => {
    const { store, clock, service } = setup();
    const { key, row } = await service.create({ name: "k", scopes: ["etf"] });
    await service.authenticate(key);

    await store.revokeApiKey(row.id, T0_SECONDS);
    clock.advance(DEFAULT_CACHE_TTL_MS - 1);
    await expect(service.authenticate(key)).resolves.toMatchObject({ keyId: row.id });

    clock.advance(1);
    await expect(service.authenticate(key)).rejects.toBeInstanceOf(UnauthenticatedError);
  });

  it("honours a revocation through the service at once", async () => {
    const { service } = setup();
    const { key, row } = await service.create({ name: "k", scopes: ["etf"] });
    await service.authenticate(key);

    await expect(service.revoke(row.id)).resolves.toBe(true);

    await expect(service.authenticate(key)).rejects.toBeInstanceOf(UnauthenticatedError);
    await expect(service.revoke(row.id)).resolves.toBe(false);
  });

  it("checks expiry on every request, cached or not", async () => {
    const { store, clock, service } = setup({ cacheTtlMs: 60_000 });
    const { key } = await service.create({ name: "k", scopes: ["etf"], expiresAt: new Date(Date.parse(T0) + 2_000) });
    await service.authenticate(key);

    clock.advance(2_000);

    await expect(service.authenticate(key)).rejects.toBeInstanceOf(UnauthenticatedError);
    expect(store.lookedUp).toHaveLength(1);
  });

  it("stays within its size bound, dropping the oldest entry", async () => {
    const { store, service } = setup({ cacheMaxEntries: 2 });
    const keys = [];
    for (const name of ["a", "b", "c"]) keys.push((await service.create({ name, scopes: ["etf"] })).key);

    for (const key of keys) await service.authenticate(key);
    expect(store.lookedUp).toHaveLength(3);
    await service.authenticate(keys[2]!);
    await service.authenticate(keys[1]!);
    expect(store.lookedUp).toHaveLength(3);
    await service.authenticate(keys[0]!);
    expect(store.lookedUp).toHaveLength(4);
  });

  it("does not remember failures: a key stored after a failed attempt works at once", async () => {
    const { store, service } = setup();
    await expect(service.authenticate("fresh-secret")).rejects.toBeInstanceOf(UnauthenticatedError);

    store.rows.set("fresh", rowFor("fresh-secret"));

    await expect(service.authenticate("fresh-secret")).resolves.toMatchObject({ name: "test key" });
  });

  it("can be turned off", async () => {
    const { store, service } = setup({ cacheTtlMs: 0 });
    const { key } = await service.create({ name: "k", scopes: ["etf"] });
    await service.authenticate(key);
    await service.authenticate(key);
    expect(store.lookedUp).toHaveLength(2);
  });

  it("ignores scopes in the store that this version does not know (grants less, never more)", async () => {
    const { store, service } = setup();
    store.rows.set("x", rowFor("future-secret", { scopes: ["etf", "options"] }));

    const principal = await service.authenticate("future-secret");

    expect([...principal.scopes]).toEqual(["etf"]);
  });
});

describe("create, list, revoke", () => {
  it("stores only the hash and answers the secret once, with the row minus its hash", async () => {
    const { store, service } = setup();

    const { key, row } = await service.create({ name: "  reporting  ", scopes: "etf, fund,etf" });

    const stored = store.rows.get(row.id)!;
    expect(stored.hash).toBe(hashApiKey(key));
    expect(JSON.stringify(stored)).not.toContain(key);
    expect(row).not.toHaveProperty("hash");
    expect(row).toEqual({
      id: stored.id,
      name: "reporting",
      scopes: ["etf", "fund"],
      createdAt: T0_SECONDS,
      expiresAt: null,
      revokedAt: null,
      ratePerMinute: DEFAULT_RATE_PER_MINUTE,
      dailyQuota: DEFAULT_DAILY_QUOTA,
    });
    expect(DEFAULT_RATE_PER_MINUTE).toBe(600);
    expect(DEFAULT_DAILY_QUOTA).toBe(100_000);
  });

  it("stores the expiry in Unix seconds", async () => {
    const { service } = setup();
    const { row } = await service.create({ name: "k", scopes: ["etf"], expiresAt: new Date("2027-01-01T00:00:00Z") });
    expect(row.expiresAt).toBe(Date.parse("2027-01-01T00:00:00Z") / 1000);
  });

  it.each([
    ["an empty name", { name: "  ", scopes: ["etf"] }],
    ["a name with a newline", { name: "a\nb", scopes: ["etf"] }],
    ["no scope", { name: "k", scopes: [] }],
    ["an unknown scope", { name: "k", scopes: "etf,options" }],
    ["an expiry in the past", { name: "k", scopes: ["etf"], expiresAt: new Date("2020-01-01T00:00:00Z") }],
    ["an invalid expiry", { name: "k", scopes: ["etf"], expiresAt: new Date(Number.NaN) }],
    ["a zero rate", { name: "k", scopes: ["etf"], ratePerMinute: 0 }],
    ["a fractional quota", { name: "k", scopes: ["etf"], dailyQuota: 1.5 }],
  ])("refuses %s with InvalidArgumentError and stores nothing", async (_label, input) => {
    const { store, service } = setup();
    await expect(service.create(input as never)).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(store.rows.size).toBe(0);
  });

  it("lists keys without secrets or hashes", async () => {
    const { service } = setup();
    const a = await service.create({ name: "a", scopes: ["etf"] });
    const b = await service.create({ name: "b", scopes: ["*"] });

    const listed = await service.list();

    expect(listed.map((k) => k.name).sort()).toEqual(["a", "b"]);
    for (const k of listed) expect(k).not.toHaveProperty("hash");
    const text = JSON.stringify(listed);
    for (const created of [a, b]) {
      expect(text).not.toContain(created.key);
      expect(text).not.toContain(hashApiKey(created.key));
    }
  });
});
