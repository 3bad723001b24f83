import { randomUUID } from "node:crypto";
import Redis from "ioredis";
import { Quote } from "../../domain/quote/quote.types";
import type { LiveOrigin, LiveRelay, QuoteChange } from "../../domain/live/live.types";

export interface RedisLiveRelayOptions {
  url: string;
  /** MDG_REDIS_KEY_PREFIX: channels are `<prefix>live:<symbol>`. */
  prefix: string;
  /** Changes of other replicas, for the symbols followed. */
  deliver(change: QuoteChange): void;
  /** A writer (an import, a provider run) committed a change to this symbol's data in the store (a notice). */
  changedInStore?(symbol: string): void;
  /** The first failure of an outage, and the recovery (said once each, never per message). */
  onState?(up: boolean, err?: Error): void;
}

/** A replica's change carries its quote; a writer's notice says only that the store changed (`changed`). */
type Wire = { from: string; origin: LiveOrigin; quote: Record<string, unknown> } | { from: string; changed: true };

const channelOf = (prefix: string, symbol: string) => `${prefix}live:${symbol}`;

/**
 * Live changes across replicas over Redis pub/sub, one channel per symbol. A replica listens to a symbol's channel
 * only while it has a subscriber of it (`follow`/`unfollow`, driven by the hub), so a symbol nobody watches costs no
 * traffic but the publisher's one PUBLISH, which Redis drops. A replica ignores its own messages: its subscribers were
 * served when it published.
 *
 * Redis going away never stops local delivery (the hub delivers before and regardless of the relay): a publish while
 * disconnected is dropped at once, and the listening connection reconnects and listens to its channels again by
 * itself (ioredis re-subscribes), so cross-replica delivery resumes when Redis is back. Changes published meanwhile
 * are lost to other replicas; the next change of a symbol carries its whole quote.
 */
export class RedisLiveRelay implements LiveRelay {
  private readonly id = randomUUID();
  private readonly publisher: Redis;
  private readonly listener: Redis;
  private up = true;

  constructor(private readonly opts: RedisLiveRelayOptions) {
    const retryStrategy = (times: number) => Math.min(100 * 2 ** Math.min(times, 5), 2_000);
    this.publisher = new Redis(opts.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy });
    // Its SUBSCRIBEs wait for a connection rather than fail: they are what must hold once Redis is back.
    this.listener = new Redis(opts.url, { maxRetriesPerRequest: null, retryStrategy, autoResubscribe: true });
    const down = (err: Error) => this.state(false, err);
    this.publisher.on("error", down);
    this.listener.on("error", down);
    this.listener.on("ready", () => this.state(true));
    this.listener.on("message", (channel: string, text: string) => this.received(channel, text));
  }

  /** Resolves once both connections are ready (tests; start-up does not wait). */
  async ready(): Promise<void> {
    await Promise.all(
      [this.publisher, this.listener].map((c) =>
        c.status === "ready" ? undefined : new Promise<void>((r) => c.once("ready", () => r())),
      ),
    );
  }

  publish(change: QuoteChange): void {
    if (this.publisher.status !== "ready") return;
    const wire: Wire = { from: this.id, origin: change.origin, quote: { ...change.quote } };
    this.publisher
      .publish(this.channel(change.symbol), JSON.stringify(wire))
      .catch((err: Error) => this.state(false, err));
  }

  follow(symbol: string): void {
    this.listener.subscribe(this.channel(symbol)).catch((err: Error) => this.state(false, err));
  }

  unfollow(symbol: string): void {
    this.listener.unsubscribe(this.channel(symbol)).catch((err: Error) => this.state(false, err));
  }

  async close(): Promise<void> {
    this.publisher.disconnect();
    this.listener.disconnect();
  }

  private channel(symbol: string): string {
    return channelOf(this.opts.prefix, symbol);
  }

  private received(channel: string, text: string): void {
    let wire: Wire;
    try {
      wire = JSON.parse(text) as Wire;
    } catch {
      return;
    }
    if (wire.from === this.id) return;
    const symbol = channel.slice(this.opts.prefix.length + "live:".length);
    if ("changed" in wire) {
      this.opts.changedInStore?.(symbol);
      return;
    }
    this.opts.deliver({ symbol, quote: Object.assign(new Quote(), wire.quote), origin: wire.origin });
  }

  private state(up: boolean, err?: Error): void {
    if (up === this.up) return;
    this.up = up;
    this.opts.onState?.(up, err);
  }
}

/**
 * A writer's notices (the import and ingest commands, a provider run): after each commit, the symbols whose quotes or
 * bars it wrote, one PUBLISH each on the symbol's live channel, so that a replica with a subscriber of one reads it at
 * once rather than at its next look at the store's data version. Redis drops a notice nobody listens to. A notice that
 * cannot be sent is dropped: the replicas' own look at the store still finds the change.
 */
export class RedisStoreNotices {
  private readonly id = randomUUID();
  private readonly client: Redis;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    this.client = new Redis(url, {
      enableOfflineQueue: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      lazyConnect: false,
    });
    this.client.on("error", () => undefined);
  }

  async notify(symbols: Iterable<string>): Promise<void> {
    const text = JSON.stringify({ from: this.id, changed: true } satisfies Wire);
    const pipeline = this.client.pipeline();
    let n = 0;
    for (const symbol of symbols) {
      pipeline.publish(channelOf(this.prefix, symbol), text);
      n++;
    }
    if (n === 0) return;
    await pipeline.exec().catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
