import { LiveHub } from "../../../src/domain/live/live.hub";
import { liveEvents } from "../../../src/domain/live/live.iterator";
import { Quote } from "../../../src/domain/quote/quote.types";

/** A quote of `symbol` at price `c` (only what the hub and the bar builder read). */
function quote(symbol: string, c: number, t = 1_700_000_000): Quote {
  return Object.assign(new Quote(), { symbol, c, t, v: 0, currency: "USD" });
}

describe("liveEvents: the hub's changes as an async iterator", () => {
  it("yields the changes of its topics in order, and ends its hub subscriptions on return", async () => {
    const hub = new LiveHub();
    let ended = 0;
    const events = liveEvents(
      hub,
      [
        { channel: "quote", symbol: "A", resolution: null },
        { channel: "candle", symbol: "A", resolution: "1" },
      ],
      { maxQueued: 10, onOverflow: () => undefined, onEnd: () => ended++ },
    );
    expect(hub.size).toBe(2);
    hub.publish({ symbol: "A", quote: quote("A", 1), origin: "store" });
    hub.publish({ symbol: "B", quote: quote("B", 2), origin: "store" });
    const first = await events.next();
    const second = await events.next();
    expect(first.value).toMatchObject({ channel: "quote", symbol: "A" });
    expect(second.value).toMatchObject({ channel: "candle", symbol: "A", bar: { c: 1, closed: false } });
    // One waiting for the next change gets it as soon as it is published.
    const waiting = events.next();
    hub.publish({ symbol: "A", quote: quote("A", 3), origin: "upstream" });
    expect((await waiting).value).toMatchObject({ channel: "quote", quote: { c: 3 }, origin: "upstream" });

    await events.return!();
    expect(hub.size).toBe(0);
    expect(hub.wanted()).toEqual([]);
    expect(ended).toBe(1);
    hub.publish({ symbol: "A", quote: quote("A", 4), origin: "store" });
    expect(await events.next()).toEqual({ value: undefined, done: true });
    await events.return!();
    expect(ended).toBe(1);
  });

  it("gives up on a consumer past its bound: onOverflow, the subscriptions ended, the stream done", async () => {
    const hub = new LiveHub();
    let overflows = 0;
    const events = liveEvents(hub, [{ channel: "quote", symbol: "A", resolution: null }], {
      maxQueued: 3,
      onOverflow: () => overflows++,
    });
    for (let i = 0; i < 5; i++) hub.publish({ symbol: "A", quote: quote("A", i), origin: "store" });
    expect(overflows).toBe(1);
    expect(hub.size).toBe(0);
    expect(await events.next()).toEqual({ value: undefined, done: true });
  });
});
