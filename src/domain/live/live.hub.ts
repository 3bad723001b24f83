import type { Quote } from "../quote/quote.types";
import { BarBuilder } from "./live.bars";
import type { LiveChannel, LiveEvent, LiveListener, LiveRelay, LiveResolution, QuoteChange } from "./live.types";

/** Called when a symbol gets its first subscriber on this replica (`true`) and loses its last (`false`). */
export type DemandListener = (symbol: string, wanted: boolean) => void;

/** One subscription: `close` ends it (idempotent). */
export interface LiveSubscription {
  readonly channel: LiveChannel;
  readonly symbol: string;
  readonly resolution: LiveResolution | null;
  close(): void;
}

/** What a push compares: a quote whose price, time, day range and volume are the same did not change. */
export const quoteFingerprint = (q: Quote) => `${q.c} ${q.t} ${q.h} ${q.l} ${q.o} ${q.pc} ${q.v}`;

const topicOf = (channel: LiveChannel, symbol: string, resolution: LiveResolution | null) =>
  channel === "quote" ? `quote ${symbol}` : `candle ${symbol} ${resolution}`;

/**
 * The live prices of one replica: who is subscribed to what, and the delivery of each change to them. Every source
 * of changes (the tick simulator, the store's change log, a gateway's poll) calls `publish`; with a relay (Redis), a
 * change published on one replica is also delivered on the others, and a replica listens to a symbol's channel only
 * while it has a subscriber of that symbol. Bars are built here from the quotes delivered, for the resolutions
 * someone subscribed to, so every source of quotes gets candles alike.
 *
 * A quote equal to the last one delivered of its symbol is not delivered again: the same change can arrive twice,
 * from this replica's read of a store that another replica also read and relayed, or from a writer's notice.
 *
 * Delivery is synchronous and in order; a listener must not throw (the doors' listeners only queue bytes).
 */
export class LiveHub {
  private readonly topics = new Map<string, Set<LiveListener>>();
  /** Subscriptions per symbol, every channel together: what the relay and the simulator follow. */
  private readonly demand = new Map<string, number>();
  private readonly bars = new Map<string, BarBuilder>();
  /** The fingerprint of the last quote delivered or seen of each symbol subscribed here. */
  private readonly last = new Map<string, string>();
  private readonly demandListeners: DemandListener[] = [];
  private relay: LiveRelay | undefined;
  /** Changes delivered to at least one listener, and listener calls made, since start. */
  readonly stats = { changes: 0, deliveries: 0 };

  /** Sends this replica's changes to the others and takes theirs in, for the symbols subscribed here. */
  connect(relay: LiveRelay): void {
    this.relay = relay;
    for (const symbol of this.demand.keys()) relay.follow(symbol);
  }

  onDemand(listener: DemandListener): void {
    this.demandListeners.push(listener);
  }

  /** Symbols with at least one subscriber on this replica. */
  wanted(): string[] {
    return [...this.demand.keys()];
  }

  isWanted(symbol: string): boolean {
    return this.demand.has(symbol);
  }

  /** Subscriptions on this replica now. */
  get size(): number {
    let n = 0;
    for (const count of this.demand.values()) n += count;
    return n;
  }

  subscribe(
    channel: LiveChannel,
    symbol: string,
    resolution: LiveResolution | null,
    listener: LiveListener,
  ): LiveSubscription {
    const topic = topicOf(channel, symbol, resolution);
    let listeners = this.topics.get(topic);
    if (!listeners) this.topics.set(topic, (listeners = new Set()));
    // The same function twice is two subscriptions to the caller: wrap it so each can end alone.
    const own: LiveListener = (event) => listener(event);
    listeners.add(own);
    if (channel === "candle" && !this.bars.has(topic)) this.bars.set(topic, new BarBuilder(symbol, resolution!));
    const count = (this.demand.get(symbol) ?? 0) + 1;
    this.demand.set(symbol, count);
    if (count === 1) this.demandChanged(symbol, true);
    let open = true;
    return {
      channel,
      symbol,
      resolution,
      close: () => {
        if (!open) return;
        open = false;
        listeners.delete(own);
        if (listeners.size === 0) {
          this.topics.delete(topic);
          this.bars.delete(topic);
        }
        const left = (this.demand.get(symbol) ?? 1) - 1;
        if (left > 0) this.demand.set(symbol, left);
        else {
          this.demand.delete(symbol);
          this.last.delete(symbol);
          this.demandChanged(symbol, false);
        }
      },
    };
  }

  /** A change made on this replica: delivered here, and to the other replicas through the relay. */
  publish(change: QuoteChange): void {
    if (this.demand.has(change.symbol) && this.last.get(change.symbol) === quoteFingerprint(change.quote)) return;
    this.relay?.publish(change);
    this.deliver(change);
  }

  /** The quote of a subscribed symbol as a feed read it without a change to publish: what the next one compares to. */
  seen(symbol: string, quote: Quote): void {
    if (this.demand.has(symbol)) this.last.set(symbol, quoteFingerprint(quote));
  }

  /** A change to deliver to this replica's subscribers (the relay calls this for other replicas' changes). */
  deliver(change: QuoteChange): void {
    const { symbol, quote, origin } = change;
    if (!this.demand.has(symbol)) return;
    const fingerprint = quoteFingerprint(quote);
    if (this.last.get(symbol) === fingerprint) return;
    this.last.set(symbol, fingerprint);
    this.stats.changes++;
    const quoteListeners = this.topics.get(topicOf("quote", symbol, null));
    if (quoteListeners) this.emit(quoteListeners, { channel: "quote", symbol, quote, origin });
    for (const resolution of ["1", "5", "D"] as const) {
      const topic = topicOf("candle", symbol, resolution);
      const builder = this.bars.get(topic);
      const listeners = this.topics.get(topic);
      if (!builder || !listeners) continue;
      for (const bar of builder.tick(quote)) this.emit(listeners, { channel: "candle", symbol, bar, origin });
    }
  }

  private emit(listeners: Set<LiveListener>, event: LiveEvent): void {
    for (const listener of listeners) {
      this.stats.deliveries++;
      listener(event);
    }
  }

  private demandChanged(symbol: string, wanted: boolean): void {
    if (wanted) this.relay?.follow(symbol);
    else this.relay?.unfollow(symbol);
    for (const listener of this.demandListeners) listener(symbol, wanted);
  }
}
