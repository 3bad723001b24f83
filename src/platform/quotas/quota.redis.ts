import Redis from "ioredis";
import type { CounterRequest, CounterResult, CounterStore } from "./quota.types";

/**
 * Check both counters and add `cost` to both only if neither would pass its
 * limit: one script, so two replicas can never both take the last unit.
 * A counter gets its expiry when it is created (INCRBY returned the cost).
 */
const CONSUME_LUA = `
local cost = tonumber(ARGV[1])
local m = tonumber(redis.call('GET', KEYS[1]) or '0')
local d = tonumber(redis.call('GET', KEYS[2]) or '0')
if m + cost > tonumber(ARGV[2]) or d + cost > tonumber(ARGV[3]) then
  return {0, m, d}
end
m = redis.call('INCRBY', KEYS[1], cost)
if m == cost then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
d = redis.call('INCRBY', KEYS[2], cost)
if d == cost then redis.call('PEXPIRE', KEYS[2], ARGV[5]) end
return {1, m, d}
`;

/** Give `cost` back to counters that still exist (a missing one is left missing: no counter without an expiry). */
const REFUND_LUA = `
local cost = tonumber(ARGV[1])
local out = {}
for i = 1, 2 do
  local n = 0
  if redis.call('EXISTS', KEYS[i]) == 1 then
    n = redis.call('DECRBY', KEYS[i], cost)
    if n < 0 then n = redis.call('INCRBY', KEYS[i], -n) end
  end
  out[i] = n
end
return out
`;

type RefundCommand = (minuteKey: string, dayKey: string, cost: number) => Promise<[number, number]>;

type ConsumeCommand = (
  minuteKey: string,
  dayKey: string,
  cost: number,
  minuteLimit: number,
  dayLimit: number,
  minuteTtlMs: number,
  dayTtlMs: number,
) => Promise<[number, number, number]>;

export interface RedisCounterStoreOptions {
  url: string;
  /** A command slower than this fails (and the limiter falls back to memory). */
  timeoutMs: number;
  /** Called on connection errors; the client keeps reconnecting on its own. */
  onError: (err: Error) => void;
}

/**
 * Counters in Redis, shared by every replica. Commands are never queued
 * while disconnected (they fail at once) and time out after `timeoutMs`, so
 * an unreachable Redis costs a request milliseconds, not a hang.
 */
export class RedisCounterStore implements CounterStore {
  readonly kind = "redis" as const;
  readonly client: Redis;
  private readonly consumeCommand: ConsumeCommand;
  private readonly refundCommand: RefundCommand;

  constructor(opts: RedisCounterStoreOptions) {
    this.client = new Redis(opts.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: opts.timeoutMs,
      connectTimeout: Math.max(1_000, opts.timeoutMs),
      retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2_000),
    });
    this.client.on("error", opts.onError);
    this.client.defineCommand("mdgConsume", { numberOfKeys: 2, lua: CONSUME_LUA });
    this.client.defineCommand("mdgRefund", { numberOfKeys: 2, lua: REFUND_LUA });
    const commands = this.client as unknown as { mdgConsume: ConsumeCommand; mdgRefund: RefundCommand };
    this.consumeCommand = commands.mdgConsume.bind(this.client);
    this.refundCommand = commands.mdgRefund.bind(this.client);
  }

  /** Resolves once connected (or rejects after `timeoutMs`): for start-up logs and tests. */
  async ready(timeoutMs: number): Promise<void> {
    if (this.client.status === "ready") return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.client.off("ready", onReady);
        reject(new Error(`Redis not ready after ${timeoutMs} ms`));
      }, timeoutMs);
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      this.client.once("ready", onReady);
    });
  }

  async consume(req: CounterRequest): Promise<CounterResult> {
    const [allowed, minuteUsed, dayUsed] = await this.consumeCommand(
      req.minuteKey,
      req.dayKey,
      req.cost,
      req.minuteLimit,
      req.dayLimit,
      Math.max(1, Math.ceil(req.minuteTtlMs)),
      Math.max(1, Math.ceil(req.dayTtlMs)),
    );
    return { allowed: allowed === 1, minuteUsed: Number(minuteUsed), dayUsed: Number(dayUsed) };
  }

  async refund(req: CounterRequest): Promise<CounterResult> {
    const [minuteUsed, dayUsed] = await this.refundCommand(req.minuteKey, req.dayKey, req.cost);
    return { allowed: true, minuteUsed: Number(minuteUsed), dayUsed: Number(dayUsed) };
  }

  async peek(req: CounterRequest): Promise<CounterResult> {
    const [m, d] = await this.client.mget(req.minuteKey, req.dayKey);
    const minuteUsed = Number(m ?? 0);
    const dayUsed = Number(d ?? 0);
    const allowed = minuteUsed + req.cost <= req.minuteLimit && dayUsed + req.cost <= req.dayLimit;
    return { allowed, minuteUsed, dayUsed };
  }

  async close(): Promise<void> {
    try {
      if (this.client.status === "ready") await this.client.quit();
      else this.client.disconnect();
    } catch {
      this.client.disconnect();
    }
  }
}
