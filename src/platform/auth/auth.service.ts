import { timingSafeEqual } from "node:crypto";
import type { Clock } from "../clock";
import { InvalidArgumentError, UnauthenticatedError } from "../errors";
import { generateApiKey, generateKeyId, HASH_BYTES, hashApiKey } from "./auth.keys";
import { parseScopes, requireScope, type Scope, scopesFromStore, WILDCARD_SCOPE } from "./auth.scopes";
import {
  type ApiKeyInfo,
  type ApiKeyRow,
  type ApiKeyStore,
  type CreateApiKeyInput,
  type CreatedApiKey,
  type Principal,
  toApiKeyInfo,
} from "./auth.types";

export const DEFAULT_RATE_PER_MINUTE = 600;
export const DEFAULT_DAILY_QUOTA = 100_000;

/**
 * The bootstrap key is for local trial, tests and load tests: limits that never get in the way. A bulk of 100
 * costs 100 units, and the bench runs a few hundred of those a second: a million a minute was passed in 2026-11.
 */
export const BOOTSTRAP_KEY_ID = "bootstrap";
export const BOOTSTRAP_RATE_PER_MINUTE = 1_000_000_000;
export const BOOTSTRAP_DAILY_QUOTA = 1_000_000_000_000;

/**
 * How long a successful lookup is reused. This is also the longest a key
 * revoked by another process (the keys CLI, `npm run keys`) keeps working in a running
 * server; a key revoked through this service's `revoke` stops at once.
 * Expiry is checked on every request, cached or not. Replicas over one PostgreSQL store share nothing else about
 * keys: 4 s keeps "revoked through one replica, refused by every replica within 5 s" true with a second to spare
 * (a key created anywhere works everywhere at once: failures are never cached).
 */
export const DEFAULT_CACHE_TTL_MS = 4_000;
export const DEFAULT_CACHE_MAX_ENTRIES = 1_000;

export const MAX_KEY_NAME_LENGTH = 100;

export interface ApiKeyServiceOptions {
  /** MDG_BOOTSTRAP_API_KEY: one key with every scope, kept in memory as its hash only. */
  bootstrapKey?: string;
  /** 0 turns the cache off. */
  cacheTtlMs?: number;
  cacheMaxEntries?: number;
}

interface CacheEntry {
  hash: Buffer;
  principal: Principal;
  /** Unix seconds, as stored. */
  expiresAt: number | null;
  /** Epoch milliseconds of the service clock. */
  freshUntil: number;
}

/**
 * Authenticates `x-api-key` values and manages keys. Every failure to
 * authenticate (missing, empty, repeated, unknown, revoked or expired key)
 * throws the same UnauthenticatedError, so a caller cannot tell them apart.
 * Errors of the store itself propagate unchanged: an unreachable store is a
 * fault of the service (500), not a bad key.
 */
export class ApiKeyService {
  private readonly bootstrapHash: Buffer | undefined;
  private readonly bootstrapPrincipal: Principal = Object.freeze({
    keyId: BOOTSTRAP_KEY_ID,
    name: "bootstrap key (MDG_BOOTSTRAP_API_KEY)",
    scopes: new Set<Scope>([WILDCARD_SCOPE]),
    ratePerMinute: BOOTSTRAP_RATE_PER_MINUTE,
    dailyQuota: BOOTSTRAP_DAILY_QUOTA,
  });
  private readonly cacheTtlMs: number;
  private readonly cacheMaxEntries: number;
  /** Keyed by the hex hash; a Map iterates in insertion order, which makes eviction of the oldest cheap. */
  private readonly cache = new Map<string, CacheEntry>();
  /** Lookups of stored keys answered from the cache or not (read by /metrics); the bootstrap key needs neither. */
  readonly cacheStats = { hits: 0, misses: 0 };

  constructor(
    private readonly store: ApiKeyStore,
    private readonly clock: Clock,
    opts: ApiKeyServiceOptions = {},
  ) {
    this.bootstrapHash = opts.bootstrapKey ? Buffer.from(hashApiKey(opts.bootstrapKey), "hex") : undefined;
    this.cacheTtlMs = Math.max(0, opts.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS);
    this.cacheMaxEntries = Math.max(1, opts.cacheMaxEntries ?? DEFAULT_CACHE_MAX_ENTRIES);
  }

  /** The principal for a raw `x-api-key` header value (as Node gives it: string, array or undefined). */
  async authenticate(rawHeader: string | string[] | undefined): Promise<Principal> {
    return this.authenticateNow(rawHeader);
  }

  /**
   * `authenticate` without a promise where none is needed (the bootstrap key, a key in the cache, a refusal, thrown):
   * the doors' hot path. A promise only when the store must be asked.
   */
  authenticateNow(rawHeader: string | string[] | undefined): Principal | Promise<Principal> {
    // An array means the header came more than once: refuse rather than guess which one counts.
    if (typeof rawHeader !== "string" || rawHeader.length === 0) throw new UnauthenticatedError();

    const hex = hashApiKey(rawHeader);
    const presented = Buffer.from(hex, "hex");
    if (this.bootstrapHash !== undefined && timingSafeEqual(presented, this.bootstrapHash)) {
      return this.bootstrapPrincipal;
    }

    const now = this.clock.now().getTime();
    const cached = this.fromCache(hex, now);
    if (cached !== undefined) return confirmed(cached, presented, now, true);
    return this.lookup(hex, now).then(({ entry, usable }) => confirmed(entry, presented, now, usable));
  }

  /** Throws ForbiddenError naming the missing scope unless the principal has it (or `*`). */
  requireScope(principal: Principal, scope: Scope): void {
    requireScope(principal.scopes, scope);
  }

  /** Creates and stores a key. The returned `key` is the only copy of the secret; the store keeps its hash. */
  async create(input: CreateApiKeyInput): Promise<CreatedApiKey> {
    const name = validateName(input.name);
    const scopes = parseScopes(typeof input.scopes === "string" ? input.scopes : [...input.scopes]);
    const ratePerMinute = validateLimit("ratePerMinute", input.ratePerMinute ?? DEFAULT_RATE_PER_MINUTE);
    const dailyQuota = validateLimit("dailyQuota", input.dailyQuota ?? DEFAULT_DAILY_QUOTA);
    const now = this.clock.now().getTime();
    let expiresAt: number | null = null;
    if (input.expiresAt !== undefined) {
      const at = input.expiresAt.getTime();
      if (Number.isNaN(at))
        throw new InvalidArgumentError("expiresAt: not a valid date", [{ field: "expiresAt", issue: "invalid" }]);
      if (at <= now)
        throw new InvalidArgumentError("expiresAt: must be in the future", [{ field: "expiresAt", issue: "past" }]);
      expiresAt = Math.floor(at / 1000);
    }

    const key = generateApiKey();
    const row: ApiKeyRow = {
      id: generateKeyId(),
      name,
      hash: hashApiKey(key),
      scopes,
      createdAt: Math.floor(now / 1000),
      expiresAt,
      revokedAt: null,
      ratePerMinute,
      dailyQuota,
    };
    await this.store.insertApiKey(row);
    return { key, row: toApiKeyInfo(row) };
  }

  /** Every stored key, revoked and expired ones included; never a secret or a hash. */
  async list(): Promise<ApiKeyInfo[]> {
    return (await this.store.listApiKeys()).map(toApiKeyInfo);
  }

  /** Revokes a key by its public id; false when no active key has that id. Takes effect at once in this process. */
  async revoke(id: string): Promise<boolean> {
    const revoked = await this.store.revokeApiKey(id, Math.floor(this.clock.now().getTime() / 1000));
    for (const [hex, entry] of this.cache) {
      if (entry.principal.keyId === id) this.cache.delete(hex);
    }
    return revoked;
  }

  private fromCache(hex: string, now: number): CacheEntry | undefined {
    const entry = this.cache.get(hex);
    if (entry === undefined) {
      this.cacheStats.misses++;
      return undefined;
    }
    if (entry.freshUntil <= now) {
      this.cache.delete(hex);
      this.cacheStats.misses++;
      return undefined;
    }
    this.cacheStats.hits++;
    return entry;
  }

  /**
   * One path for every key the store is asked about, whether it holds a row for it or not, and whatever that row says:
   * the same store call, the same decoding (a missing row decodes ABSENT_ROW), the same comparison of hashes (in
   * `confirmed`), and only then the verdict. A revoked key, an expired one and one never issued thus cost the same
   * steps, and a caller cannot learn from the time of a 401 that a key once existed
   * (test/platform/auth/auth.timing.spec.ts counts the steps; `BENCH_ONLY=keys npm run bench` measures the time).
   */
  private async lookup(hex: string, now: number): Promise<Lookup> {
    const found = await this.store.findApiKeyByHash(hex);
    const row = found ?? ABSENT_ROW;
    const entry: CacheEntry = {
      hash: Buffer.from(row.hash, "hex"),
      principal: Object.freeze({
        keyId: row.id,
        name: row.name,
        scopes: scopesFromStore(row.scopes),
        ratePerMinute: row.ratePerMinute,
        dailyQuota: row.dailyQuota,
      }),
      expiresAt: row.expiresAt,
      freshUntil: now + this.cacheTtlMs,
    };
    // Failures are not cached: a key created a moment ago by the CLI works on its first request.
    const usable = found !== null && row.revokedAt === null && !isExpired(row.expiresAt, now);
    if (usable && this.cacheTtlMs > 0) {
      this.cache.delete(hex);
      while (this.cache.size >= this.cacheMaxEntries) {
        const oldest = this.cache.keys().next();
        if (oldest.done) break;
        this.cache.delete(oldest.value);
      }
      this.cache.set(hex, entry);
    }
    return { entry, usable };
  }
}

/** What a lookup answers: the row decoded (ABSENT_ROW's when there was none) and whether it may authenticate. */
interface Lookup {
  entry: CacheEntry;
  usable: boolean;
}

/**
 * Decoded in place of a row the store does not have, so that an unknown key takes the path of a known one. Its hash
 * (all zero bits, of the right length) is the SHA-256 of no key anyone can find, and it is never usable anyway.
 */
const ABSENT_ROW: ApiKeyRow = Object.freeze({
  id: "",
  name: "",
  hash: "00".repeat(HASH_BYTES),
  scopes: Object.freeze(["crypto"]) as string[],
  createdAt: 0,
  expiresAt: null,
  revokedAt: 0,
  ratePerMinute: 0,
  dailyQuota: 0,
});

/**
 * The entry's principal if it may authenticate, is the presented key's and is not expired. The lookup by hash goes
 * through an index, whose comparisons are not constant-time; confirming the bytes here keeps the final decision
 * independent of where they differ. The bytes are compared whatever `usable` says, so every lookup ends alike.
 */
function confirmed(entry: CacheEntry, presented: Buffer, now: number, usable: boolean): Principal {
  const same = sameHash(entry.hash, presented);
  if (!usable || !same || isExpired(entry.expiresAt, now)) throw new UnauthenticatedError();
  return entry.principal;
}

function sameHash(stored: Buffer, presented: Buffer): boolean {
  // timingSafeEqual throws on different lengths; a malformed stored hash simply does not match.
  return stored.length === HASH_BYTES && presented.length === HASH_BYTES && timingSafeEqual(stored, presented);
}

function isExpired(expiresAt: number | null, nowMs: number): boolean {
  return expiresAt !== null && nowMs >= expiresAt * 1000;
}

function validateName(raw: string): string {
  const name = typeof raw === "string" ? raw.trim() : "";
  if (name.length === 0)
    throw new InvalidArgumentError("name: expected a non-empty string", [{ field: "name", issue: "required" }]);
  if (name.length > MAX_KEY_NAME_LENGTH) {
    throw new InvalidArgumentError(`name: at most ${MAX_KEY_NAME_LENGTH} characters`, [
      { field: "name", issue: "too long" },
    ]);
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) {
    throw new InvalidArgumentError("name: control characters are not allowed", [{ field: "name", issue: "invalid" }]);
  }
  return name;
}

function validateLimit(field: "ratePerMinute" | "dailyQuota", value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new InvalidArgumentError(`${field}: expected a positive whole number`, [{ field, issue: "invalid" }]);
  }
  return value;
}
