import type { Pool } from "pg";
import type { ApiKeyRow, ApiKeyStore } from "../../platform/auth/auth.types";
import type { SourceStats } from "../../domain/ports/source.capabilities";
import { toApiKey, type Raw } from "../source.rows";

/**
 * API keys in PostgreSQL's `api_keys` table (the same columns as SQLite's, src/sources/sqlite/sqlite.keys.ts): every
 * replica reads the one table, so a key created or revoked through one is seen by the others on their next lookup.
 * Its statements count in the market source's `stats` when both share a pool.
 */
export class PostgresApiKeyStore implements ApiKeyStore {
  constructor(
    private readonly pool: Pool,
    private readonly stats: SourceStats = { queries: 0 },
  ) {}

  private async query(sql: string, params: unknown[] = []): Promise<{ rows: Raw[]; rowCount: number }> {
    this.stats.queries++;
    const res = await this.pool.query(sql, params);
    return { rows: res.rows as Raw[], rowCount: res.rowCount ?? 0 };
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRow | null> {
    // A NUL byte cannot be in PostgreSQL text, so no stored hash has one.
    if (hash.includes("\0")) return null;
    // One row whether a key has this hash or not (all NULL when none), decoded alike, as SQLite's store does.
    const { rows } = await this.query(
      `SELECT k.* FROM (SELECT $1::text AS hash) AS q LEFT JOIN api_keys AS k ON k.hash = q.hash`,
      [hash],
    );
    const r = rows[0] as Raw;
    const row = toApiKey(r);
    return r.id === null ? null : row;
  }

  async insertApiKey(row: ApiKeyRow): Promise<void> {
    await this.query(
      `INSERT INTO api_keys (id, name, hash, scopes, created_at, expires_at, revoked_at, rate_per_minute, daily_quota)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        row.id,
        row.name,
        row.hash,
        row.scopes.join(" "),
        row.createdAt,
        row.expiresAt,
        row.revokedAt,
        row.ratePerMinute,
        row.dailyQuota,
      ],
    );
  }

  async listApiKeys(): Promise<ApiKeyRow[]> {
    const { rows } = await this.query(`SELECT * FROM api_keys ORDER BY created_at, id`);
    return rows.map(toApiKey);
  }

  async revokeApiKey(id: string, at: number): Promise<boolean> {
    if (id.includes("\0")) return false;
    const r = await this.query(`UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`, [at, id]);
    return r.rowCount > 0;
  }
}
