import type { Scope } from "./auth.scopes";

/** Who is calling: what a request carries once its `x-api-key` is accepted. Never holds the key or its hash. */
export interface Principal {
  /** Public key id (`key_…`, or `bootstrap`): safe to log. */
  keyId: string;
  name: string;
  scopes: ReadonlySet<Scope>;
  ratePerMinute: number;
  dailyQuota: number;
}

/** A stored API key. Only the key's hash is stored; times are Unix seconds. */
export interface ApiKeyRow {
  id: string;
  name: string;
  hash: string;
  scopes: string[];
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  ratePerMinute: number;
  dailyQuota: number;
}

/**
 * Where the service keeps its API keys, apart from market data: a gateway
 * keeps its own keys even when its market data comes from elsewhere
 * (src/sources/source.factory.ts opens both).
 */
export interface ApiKeyStore {
  findApiKeyByHash(hash: string): Promise<ApiKeyRow | null>;
  /** Fails when the id or the hash is already stored. */
  insertApiKey(row: ApiKeyRow): Promise<void>;
  /** Every key, revoked and expired ones included, oldest first. */
  listApiKeys(): Promise<ApiKeyRow[]>;
  /** False when no such key, or it was already revoked. */
  revokeApiKey(id: string, at: number): Promise<boolean>;
}

/** A stored key as it may be shown: the row without its hash. Times are Unix seconds. */
export interface ApiKeyInfo {
  id: string;
  name: string;
  scopes: string[];
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  ratePerMinute: number;
  dailyQuota: number;
}

export interface CreateApiKeyInput {
  name: string;
  scopes: readonly Scope[] | string;
  /** The key stops working at this instant; never when absent. */
  expiresAt?: Date;
  ratePerMinute?: number;
  dailyQuota?: number;
}

export interface CreatedApiKey {
  /** The secret. It exists only here: show it once, then drop it. */
  key: string;
  row: ApiKeyInfo;
}

export function toApiKeyInfo(row: ApiKeyRow): ApiKeyInfo {
  // Fields picked one by one, so a secret added to the row later is not shown by default.
  return {
    id: row.id,
    name: row.name,
    scopes: [...row.scopes],
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
    ratePerMinute: row.ratePerMinute,
    dailyQuota: row.dailyQuota,
  };
}
