import type { Database as Db, Statement } from "better-sqlite3";
import type { ApiKeyRow, ApiKeyStore } from "../../platform/auth/auth.types";
import type { SourceStats } from "../../domain/ports/source.capabilities";
import { toApiKey, type Raw } from "../source.rows";

/**
 * API keys in the SQLite file's `api_keys` table. Its own store, apart from
 * market data (a gateway keeps its keys whatever serves its data), on the
 * connection of the file's market data when both live in one file; its
 * statements count in that source's `stats`, as one store.
 */
/** The key with this hash, as one row that is all NULL when there is none (see findApiKeyByHash). */
export const FIND_BY_HASH = "SELECT k.* FROM (SELECT ? AS hash) AS q LEFT JOIN api_keys AS k ON k.hash = q.hash";

export class SqliteApiKeyStore implements ApiKeyStore {
  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly db: Db,
    private readonly stats: SourceStats = { queries: 0 },
  ) {}

  private stmt(sql: string): Statement {
    this.stats.queries++;
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRow | null> {
    // One row whether a key has this hash or not (all NULL when none), decoded alike: the service's one path for
    // every key (src/platform/auth/auth.service.ts, `lookup`) starts here.
    const r = this.stmt(FIND_BY_HASH).get(hash) as Raw;
    const row = toApiKey(r);
    return r.id === null ? null : row;
  }

  async insertApiKey(row: ApiKeyRow): Promise<void> {
    this.stmt(
      `INSERT INTO api_keys (id, name, hash, scopes, created_at, expires_at, revoked_at, rate_per_minute, daily_quota)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      row.id,
      row.name,
      row.hash,
      row.scopes.join(" "),
      row.createdAt,
      row.expiresAt,
      row.revokedAt,
      row.ratePerMinute,
      row.dailyQuota,
    );
  }

  async listApiKeys(): Promise<ApiKeyRow[]> {
    return (this.stmt(`SELECT * FROM api_keys ORDER BY created_at, id`).all() as Raw[]).map(toApiKey);
  }

  async revokeApiKey(id: string, at: number): Promise<boolean> {
    const r = this.stmt(`UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`).run(at, id);
    return r.changes > 0;
  }
}
