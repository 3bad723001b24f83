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
  /** The first failure of an outage, and the recovery (said once each, never per message). */
  onState?(up: boolean, err?: Error): void;
}

interface Wire {
  from: string;
  origin: LiveOrigin;
  quote: Record<string, unknown>;
}

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
    return `${this.opts.prefix}live:${symbol}`;
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
    this.opts.deliver({ symbol, quote: Object.assign(new Quote(), wire.quote), origin: wire.origin });
  }

  private state(up: boolean, err?: Error): void {
    if (up === this.up) return;
    this.up = up;
    this.opts.onState?.(up, err);
  }
}
