import Redis from "ioredis";
import { LRUCache } from "lru-cache";
import type { UpstreamConfig } from "../../platform/config";
import { hashedKey } from "./upstream.keys";
import type { UpstreamDataKind } from "./upstream.types";

/** One upstream answer as the cache keeps it: what it was, of what kind, and when the upstream produced it. */
export interface CachedAnswer {
  status: 200 | 404;
  body: unknown;
  kind: UpstreamDataKind;
  /** Epoch ms (the client's clock) of the upstream's answer. */
  fetchedAt: number;
  /** Length of its JSON text: the memory budget's estimate. */
  bytes: number;
}

export interface RedisCacheOptions {
  url: string;
  /** `MDG_REDIS_KEY_PREFIX`; the cache's keys are `<prefix>upstream:<sha256 of path and body>`. */
  prefix: string;
  timeoutMs: number;
  /** After a Redis failure, how long the cache keeps to memory before trying Redis again. */
  cooldownMs: number;
  onError: (err: Error) => void;
}

/**
 * Upstream answers by request key: in this process's memory (least recently used dropped first past
 * `MDG_UPSTREAM_CACHE_MB`) and, with REDIS_URL, in Redis too so that replicas share them. Each is kept for its TTL
 * plus the stale-if-error window (a 404 for its TTL only: it is never served stale). Redis never fails a call: a
 * slow or absent Redis is a miss, and the cache keeps to memory for a cooling period.
 */
export class UpstreamCache {
  private readonly memory: LRUCache<string, CachedAnswer>;
  private readonly redis: Redis | undefined;
  private redisDownUntil = 0;
  private closing = false;

  constructor(
    private readonly config: Pick<UpstreamConfig, "ttlSeconds" | "staleSeconds" | "cacheBytes">,
    private readonly now: () => number,
    private readonly redisOpts?: RedisCacheOptions,
  ) {
    this.memory = new LRUCache<string, CachedAnswer>({
      maxSize: config.cacheBytes,
      // UTF-16 text, the key, and the object around them.
      sizeCalculation: (v, k) => Math.max(1, 2 * (v.bytes + k.length) + 160),
    });
    if (redisOpts) {
      this.redis = new Redis(redisOpts.url, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: redisOpts.timeoutMs,
        connectTimeout: Math.max(1_000, redisOpts.timeoutMs),
        // No reconnect once closing: a pending attempt would keep the process alive after close().
        retryStrategy: (times) => (this.closing ? null : Math.min(100 * 2 ** Math.min(times, 5), 2_000)),
      });
      this.redis.on("error", redisOpts.onError);
    }
  }

  /** Resolves once Redis accepts commands, or after `timeoutMs` (the cache works from memory meanwhile). */
  async ready(timeoutMs: number): Promise<boolean> {
    const redis = this.redis;
    if (!redis) return false;
    if (redis.status === "ready") return true;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), timeoutMs);
      const onReady = () => done(true);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        redis.off("ready", onReady);
        resolve(ok);
      };
      redis.on("ready", onReady);
    });
  }

  get sharesViaRedis(): boolean {
    return this.redis !== undefined;
  }

  ttlMs(entry: Pick<CachedAnswer, "kind" | "status">): number {
    return 1000 * (entry.status === 404 ? this.config.ttlSeconds.reference : this.config.ttlSeconds[entry.kind]);
  }

  /** How long an entry is worth keeping: its TTL, plus the stale window for a good answer. */
  keepMs(entry: Pick<CachedAnswer, "kind" | "status">): number {
    return this.ttlMs(entry) + (entry.status === 200 ? 1000 * this.config.staleSeconds : 0);
  }

  isFresh(entry: CachedAnswer): boolean {
    return this.now() - entry.fetchedAt < this.ttlMs(entry);
  }

  /** Still within TTL plus the stale window (a 404 never is, past its TTL). */
  isServable(entry: CachedAnswer): boolean {
    return this.now() - entry.fetchedAt <= this.keepMs(entry);
  }

  ageSeconds(entry: CachedAnswer): number {
    return Math.max(0, Math.floor((this.now() - entry.fetchedAt) / 1000));
  }

  /** The entry in memory, fresh or not, while it is worth keeping. */
  peek(key: string): CachedAnswer | undefined {
    const e = this.memory.get(key);
    if (e && !this.isServable(e)) {
      this.memory.delete(key);
      return undefined;
    }
    return e;
  }

  /** Entries from Redis (undefined where absent, unreadable, or Redis is down); memory gets what it lacked. */
  async fetchShared(keys: readonly string[]): Promise<(CachedAnswer | undefined)[]> {
    const redis = this.redis;
    if (!redis || keys.length === 0 || Date.now() < this.redisDownUntil) return keys.map(() => undefined);
    let raw: (string | null)[];
    try {
      raw = await redis.mget(...keys.map((k) => this.redisKey(k)));
    } catch {
      this.redisDown();
      return keys.map(() => undefined);
    }
    return raw.map((text, i) => {
      const e = text === null ? undefined : parseEntry(text);
      if (!e || !this.isServable(e)) return undefined;
      const mine = this.memory.get(keys[i]!);
      if (!mine || mine.fetchedAt < e.fetchedAt) this.memory.set(keys[i]!, e);
      return e;
    });
  }

  set(key: string, entry: CachedAnswer): void {
    this.memory.set(key, entry);
    const redis = this.redis;
    if (!redis || Date.now() < this.redisDownUntil) return;
    const value = JSON.stringify({ s: entry.status, b: entry.body, k: entry.kind, t: entry.fetchedAt, n: entry.bytes });
    redis.set(this.redisKey(key), value, "PX", Math.max(1, this.keepMs(entry))).catch(() => this.redisDown());
  }

  clear(): void {
    this.memory.clear();
  }

  get stats(): { entries: number; bytes: number } {
    return { entries: this.memory.size, bytes: this.memory.calculatedSize };
  }

  async close(): Promise<void> {
    const redis = this.redis;
    if (!redis) return;
    this.closing = true;
    // QUIT needs a connection; one still connecting (or retrying) is simply dropped, its reconnect timer with it.
    if (redis.status !== "ready") {
      redis.disconnect();
      return;
    }
    try {
      await redis.quit();
    } catch {
      redis.disconnect();
    }
  }

  private redisKey(key: string): string {
    return `${this.redisOpts!.prefix}upstream:${hashedKey(key)}`;
  }

  private redisDown(): void {
    // Real time, not the injected clock: the cooling period is about Redis, not about the data's age.
    this.redisDownUntil = Date.now() + this.redisOpts!.cooldownMs;
  }
}

function parseEntry(text: string): CachedAnswer | undefined {
  try {
    const v = JSON.parse(text) as { s?: unknown; b?: unknown; k?: unknown; t?: unknown; n?: unknown };
    if ((v.s !== 200 && v.s !== 404) || typeof v.t !== "number") return undefined;
    if (v.k !== "quote" && v.k !== "bars" && v.k !== "reference") return undefined;
    return { status: v.s, body: v.b, kind: v.k, fetchedAt: v.t, bytes: typeof v.n === "number" ? v.n : text.length };
  } catch {
    return undefined;
  }
}
