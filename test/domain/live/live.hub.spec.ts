import { LiveHub } from "../../../src/domain/live/live.hub";
import type { LiveEvent, LiveRelay, QuoteChange } from "../../../src/domain/live/live.types";
import { Quote } from "../../../src/domain/quote/quote.types";

function quote(symbol: string, c: number, t = 1_700_000_000): Quote {
  return Object.assign(new Quote(), { symbol, c, t, v: 0, currency: "USD" });
}

/** The relay port as the hub uses it, keeping what it was given (Redis's own behaviour is live.redis.spec's). */
function recordingRelay() {
  const published: QuoteChange[] = [];
  const relay: LiveRelay = {
    publish: (change) => void published.push(change),
    follow: () => undefined,
    unfollow: () => undefined,
    close: async () => undefined,
  };
  return { relay, published };
}

describe("LiveHub: the same quote twice is one change", () => {
  it("delivers and relays a quote equal to the last one of its symbol once, from whichever side it came", () => {
    const hub = new LiveHub();
    const { relay, published } = recordingRelay();
    hub.connect(relay);
    const got: LiveEvent[] = [];
    const sub = hub.subscribe("quote", "A", null, (e) => got.push(e));

    hub.publish({ symbol: "A", quote: quote("A", 1), origin: "store" });
    // The same quote again: read by this replica's own look at the store after another replica relayed it.
    hub.deliver({ symbol: "A", quote: quote("A", 1), origin: "store" });
    hub.publish({ symbol: "A", quote: quote("A", 1), origin: "store" });
    expect(got).toHaveLength(1);
    expect(published).toHaveLength(1);

    hub.deliver({ symbol: "A", quote: quote("A", 2), origin: "store" });
    hub.publish({ symbol: "A", quote: quote("A", 2), origin: "store" });
    expect(got.map((e) => (e.channel === "quote" ? e.quote.c : null))).toEqual([1, 2]);
    expect(published).toHaveLength(1);
    sub.close();
  });

  it("compares with a quote a feed saw unchanged, and forgets it with the last subscriber", () => {
    const hub = new LiveHub();
    const got: LiveEvent[] = [];
    let sub = hub.subscribe("quote", "A", null, (e) => got.push(e));
    hub.seen("A", quote("A", 5));
    hub.deliver({ symbol: "A", quote: quote("A", 5), origin: "store" });
    expect(got).toHaveLength(0);
    hub.deliver({ symbol: "A", quote: quote("A", 5, 1_700_000_060), origin: "store" });
    expect(got).toHaveLength(1);

    sub.close();
    sub = hub.subscribe("quote", "A", null, (e) => got.push(e));
    hub.deliver({ symbol: "A", quote: quote("A", 5, 1_700_000_060), origin: "store" });
    expect(got).toHaveLength(2);
    sub.close();
  });
});
