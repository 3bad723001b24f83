import type { ApiKeyRow, DataSource } from "../sources/data-source";
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

/** The part of a data source that key management needs. */
export type ApiKeyStore = Pick<DataSource, "findApiKeyByHash" | "insertApiKey" | "listApiKeys" | "revokeApiKey">;

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
