import type { LiveHub, LiveSubscription } from "./live.hub";
import type { LiveChannel, LiveEvent, LiveResolution } from "./live.types";

/** One topic of the hub: a symbol's quote, or its bars of one resolution. */
export interface LiveTopic {
  channel: LiveChannel;
  symbol: string;
  resolution: LiveResolution | null;
}

export interface LiveEventsOptions {
  /** Events waiting for the consumer past which it is given up on: `onOverflow` is called and the stream ends. */
  maxQueued: number;
  onOverflow(): void;
  /** Called once when the stream ends, whoever ended it (`return`, `throw`, an overflow). */
  onEnd?(): void;
}

/**
 * The hub's changes of some topics as an async iterator, for a consumer that pulls (GraphQL subscriptions). The hub
 * pushes synchronously; events wait in a bounded queue until pulled. Ending the iterator (`return`, which graphql-js
 * calls when the client completes the operation or the connection closes) ends every hub subscription at once, so
 * nothing is delivered to it afterwards.
 */
export function liveEvents(
  hub: LiveHub,
  topics: readonly LiveTopic[],
  opts: LiveEventsOptions,
): AsyncIterableIterator<LiveEvent> {
  const queue: LiveEvent[] = [];
  let waiting: ((r: IteratorResult<LiveEvent>) => void) | undefined;
  let done = false;

  const end = (): void => {
    if (done) return;
    done = true;
    for (const s of subscriptions) s.close();
    queue.length = 0;
    waiting?.({ value: undefined, done: true });
    waiting = undefined;
    opts.onEnd?.();
  };

  const push = (event: LiveEvent): void => {
    if (done) return;
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve({ value: event, done: false });
      return;
    }
    if (queue.length >= opts.maxQueued) {
      end();
      opts.onOverflow();
      return;
    }
    queue.push(event);
  };

  const subscriptions: LiveSubscription[] = topics.map((t) => hub.subscribe(t.channel, t.symbol, t.resolution, push));

  const iterator: AsyncIterableIterator<LiveEvent> = {
    next() {
      if (queue.length > 0) return Promise.resolve({ value: queue.shift()!, done: false });
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return() {
      end();
      return Promise.resolve({ value: undefined, done: true });
    },
    throw(err: unknown) {
      end();
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
