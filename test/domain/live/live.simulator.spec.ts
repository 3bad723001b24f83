import { LiveHub } from "../../../src/domain/live/live.hub";
import { TickSimulator } from "../../../src/domain/live/live.simulator";
import type { LiveEvent } from "../../../src/domain/live/live.types";
import type { Quote } from "../../../src/domain/quote/quote.types";
import { ROW_STORE_ANSWERS } from "../../../src/domain/answers";
import { createContext } from "../../../src/http/http.context";
import { createTestApp, type TestApp } from "../../helpers/app";
import { manualClock } from "../../helpers/clock";
import { BOOTSTRAP_KEY, TEST_ANCHOR } from "../../helpers/constants";

describe("the tick simulator", () => {
  let t: TestApp;
  let symbol: string;
  let other: string;
  let reads: string[];
  let lastQuote: (s: string) => Promise<Quote>;

  beforeAll(async () => {
    t = await createTestApp();
    [symbol, other] = t.source.db
      .prepare(
        `SELECT l.symbol FROM listings l JOIN securities s ON s.id = l.security_id
         WHERE s.type = 'stock' AND l.is_primary = 1 ORDER BY s.id LIMIT 2`,
      )
      .pluck()
      .all() as string[];
    const ctx = createContext(t.deps, "test", await t.apiKeys.authenticate(BOOTSTRAP_KEY));
    lastQuote = (s) => {
      reads.push(s);
      return ROW_STORE_ANSWERS.quote.get(ctx, { symbol: s });
    };
  });
  beforeEach(() => (reads = []));
  afterAll(() => t.close());

  async function walk(seed: number, ticks: number): Promise<{ prices: number[]; events: LiveEvent[] }> {
    const hub = new LiveHub();
    const clock = manualClock(`${TEST_ANCHOR}T15:00:00Z`);
    const simulator = new TickSimulator(hub, lastQuote, { seed, tickMs: 0, clock });
    const events: LiveEvent[] = [];
    const sub = hub.subscribe("quote", symbol, null, (e) => events.push(e));
    await simulator.ready(symbol);
    for (let i = 0; i < ticks; i++) {
      clock.advance(1_000);
      simulator.tick();
    }
    sub.close();
    simulator.tick();
    return { prices: events.map((e) => (e.channel === "quote" ? e.quote.c : NaN)), events };
  }

  it("walks from the last stored quote, the same way for the same seed, another way for another", async () => {
    const stored = (await lastQuote(symbol)).c;
    const a = await walk(42, 20);
    const b = await walk(42, 20);
    const c = await walk(43, 20);
    expect(a.prices).toHaveLength(20);
    expect(a.prices).toEqual(b.prices);
    expect(c.prices).not.toEqual(a.prices);
    expect(new Set(a.prices).size).toBeGreaterThan(1);
    // 0.1 % a tick: twenty ticks stay within a few percent of the stored price.
    for (const p of a.prices) expect(Math.abs(p / stored - 1)).toBeLessThan(0.05);
    for (const e of a.events) expect(e.origin).toBe("simulated");
  });

  it("reads and moves only subscribed symbols, and stops moving one once unsubscribed", async () => {
    const { events } = await walk(7, 3);
    // Three ticks while subscribed; the tick after `close` published nothing.
    expect(events).toHaveLength(3);
    expect(reads.filter((s) => s === symbol)).toHaveLength(1);
    expect(reads).not.toContain(other);
  });

  it("keeps the quote's day consistent: high and low hold every price, change against the previous close", async () => {
    const { events } = await walk(11, 10);
    for (const e of events) {
      if (e.channel !== "quote") continue;
      const q = e.quote;
      expect(q.h).toBeGreaterThanOrEqual(q.c);
      expect(q.l).toBeLessThanOrEqual(q.c);
      expect(q.d).toBeCloseTo(q.c - q.pc, 8);
    }
  });
});
