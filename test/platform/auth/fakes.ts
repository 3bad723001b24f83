import type { Clock } from "../../../src/platform/clock";
import type { ApiKeyStore } from "../../../src/platform/auth/auth.types";
import type { ApiKeyRow } from "../../../src/platform/auth/auth.types";

/** An ApiKeyStore in memory, counting lookups. */
export class FakeKeyStore implements ApiKeyStore {
  readonly rows = new Map<string, ApiKeyRow>();
  readonly lookedUp: string[] = [];
  failWith: Error | undefined;

  async findApiKeyByHash(hash: string): Promise<ApiKeyRow | null> {
    this.lookedUp.push(hash);
    if (this.failWith) throw this.failWith;
    for (const row of this.rows.values()) if (row.hash === hash) return { ...row, scopes: [...row.scopes] };
    return null;
  }

  async insertApiKey(row: ApiKeyRow): Promise<void> {
    if (this.failWith) throw this.failWith;
    if (this.rows.has(row.id)) throw new Error("duplicate id");
    this.rows.set(row.id, { ...row, scopes: [...row.scopes] });
  }

  async listApiKeys(): Promise<ApiKeyRow[]> {
    if (this.failWith) throw this.failWith;
    return [...this.rows.values()].map((r) => ({ ...r, scopes: [...r.scopes] }));
  }

  async revokeApiKey(id: string, at: number): Promise<boolean> {
    if (this.failWith) throw this.failWith;
    const row = this.rows.get(id);
    if (!row || row.revokedAt !== null) return false;
    row.revokedAt = at;
    return true;
  }
}

/** A clock a test moves by hand. */
export class ManualClock implements Clock {
  private at: number;
  constructor(iso: string) {
    this.at = Date.parse(iso);
  }
  now(): Date {
    return new Date(this.at);
  }
  advance(ms: number): void {
    this.at += ms;
  }
}
