import { createTestApp, type TestApp } from "../../helpers/app";
import { loadConfig } from "../../../src/platform/config";
import { heavyGate } from "../../../src/platform/quotas/quota.heavy";
import type { BarRangeKey } from "../../../src/domain/ports/source.types";
import type { MarketDataSource } from "../../../src/domain/ports/source.capabilities";
import { withDailyBars } from "../../helpers/stock-samples";

/**
 * The process's heavy capacity (MDG_HEAVY_CAPACITY) is held by a candle call over ten years, converted into JPY (so
 * priced as heavy: over 1,000), whose bars do not come
 * until the test lets them: a stuck heavy operation, without timing anything. A heavy call that finds it spent
 * waits in line at most MDG_HEAVY_QUEUE_MS, then answers 500 BUSY with Retry-After, on each door; one that gets the
 * capacity within that wait is served; light calls are served all along.
 */
const FROM_2016 = 1_451_606_400;
const LONG_RANGE_S = 1_000 * 86_400;
const HEAVY_CANDLE = { from: FROM_2016, resolution: "D", currency: "JPY" };

let t: TestApp;
let symbol: string;
let release: () => void = () => undefined;
let gate: Promise<void> = Promise.resolve();
/** Long-range daily bar reads, each counted when it reaches the store. */
let longReads = 0;

function arm(): void {
  gate = new Promise<void>((r) => (release = r));
}

/** The store, except that a read of daily bars over more than 1,000 days waits for `release`. */
function heldLongReads(source: MarketDataSource): MarketDataSource {
  const read = source.getDailyBars!.bind(source);
  const out = Object.create(source) as MarketDataSource;
  Object.defineProperty(out, "getDailyBars", {
    value: async (keys: readonly BarRangeKey[]) => {
      if (keys.some((k) => k.to - k.from > LONG_RANGE_S)) {
        await gate;
        longReads++;
      }
      return read(keys);
    },
  });
  return out;
}

const keys: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestApp({
    env: { MDG_HEAVY_CAPACITY: "1", MDG_HEAVY_QUEUE_MS: "1000" },
    market: (source) => heldLongReads(source),
  });
  symbol = withDailyBars(t.source.db, "stock").symbol;
  for (const name of ["a", "b", "c", "d", "e", "light"]) {
    keys[name] = (await t.apiKeys.create({ name: `heavy-capacity-${name}`, scopes: ["stock", "bulk"] })).key;
  }
});
afterAll(async () => {
  release();
  await t.close();
});

/** Sent at once (supertest sends a request only when it is awaited or `then` is called). */
const sent = <T>(request: PromiseLike<T>): Promise<T> => Promise.resolve(request);

const candle = (key: string) => sent(t.post("/v1/candle", { symbol, ...HEAVY_CANDLE }, key));

async function until(what: () => boolean): Promise<void> {
  for (let i = 0; i < 2_000 && !what(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(what()).toBe(true);
}

describe("MDG_HEAVY_CAPACITY and MDG_HEAVY_QUEUE_MS", () => {
  it("refuses heavy calls that waited out the line with 500 BUSY and Retry-After, and serves the rest", async () => {
    const capacity = heavyGate(t.deps.config);
    arm();
    let heldDone = false;
    const held = candle(keys.a!).then((r) => ((heldDone = true), r));
    await until(() => capacity.stats().running === 1);

    // Light calls are served while the capacity is spent.
    expect((await t.post("/v1/quote", { symbol }, keys.light)).status).toBe(200);

    const rest = candle(keys.b!);
    const graphql = sent(
      t.http
        .post("/graphql")
        .set("content-type", "application/json")
        .set("x-api-key", keys.c!)
        .send({
          query:
            `{ candle(symbol: ${JSON.stringify(symbol)}, from: ${FROM_2016}, resolution: "D", ` +
            'currency: "JPY") { c } }',
        }),
    );
    const bulk = sent(t.post("/v1/bulk", { endpoint: "candle", symbols: [{ symbol }], params: HEAVY_CANDLE }, keys.d));
    await until(() => capacity.stats().waiting === 3);
    expect((await t.post("/v1/quote", { symbol }, keys.light)).status).toBe(200);

    const [r, g, b] = await Promise.all([rest, graphql, bulk]);
    // All three were refused while the held call still ran: they did not wait for it, nor for the request timeout.
    expect(heldDone).toBe(false);
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ statusCode: 500, error: "Internal Server Error", code: "BUSY" });
    expect(r.body.message).toMatch(/MDG_HEAVY_QUEUE_MS/);
    expect(r.headers["retry-after"]).toBe("1");
    expect(g.status).toBe(500);
    expect(g.body.data).toBeUndefined();
    expect(g.body.errors).toEqual([expect.objectContaining({ extensions: { code: "BUSY", reason: "BUSY" } })]);
    expect(g.headers["retry-after"]).toBe("1");
    expect(b.status).toBe(500);
    expect(b.body.code).toBe("BUSY");
    expect(b.headers["retry-after"]).toBe("1");
    // None of the refused calls read the store, and the line is empty again.
    expect(longReads).toBe(0);
    expect(capacity.stats()).toEqual({ running: 1, waiting: 0 });

    // A call that gets the capacity within its wait is served.
    const next = candle(keys.e!);
    await until(() => capacity.stats().waiting === 1);
    release();
    const [first, second] = await Promise.all([held, next]);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body.s).toBe("ok");
    expect(longReads).toBe(2);
    expect(capacity.stats()).toEqual({ running: 0, waiting: 0 });
    expect(capacity.inFlight(keys.e!)).toBe(0);
  });
});

describe("heavy capacity settings", () => {
  it("default to one per worker thread and a one-second line, and refuse nonsense", () => {
    const config = loadConfig({});
    expect(config.heavyCapacity).toBeGreaterThanOrEqual(1);
    expect(config.heavyQueueMs).toBe(1_000);
    expect(loadConfig({ MDG_HEAVY_QUEUE_MS: "0" }).heavyQueueMs).toBe(0);
    for (const bad of ["", "-1", "1.5", "x"]) {
      expect(() => loadConfig({ MDG_HEAVY_QUEUE_MS: bad })).toThrow(/MDG_HEAVY_QUEUE_MS/);
      expect(() => loadConfig({ MDG_HEAVY_CAPACITY: bad })).toThrow(/MDG_HEAVY_CAPACITY/);
    }
  });
});
