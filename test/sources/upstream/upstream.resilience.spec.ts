import { UpstreamUnavailableError } from "../../../src/platform/errors";
import { upstreamReadiness } from "../../../src/sources/upstream/upstream.client";
import type { UpstreamResult } from "../../../src/sources/upstream/upstream.types";
import { metricValue, quote, startBench, type Bench } from "./upstream.fixture";

/**
 * The client against a real upstream through the fault proxy: what it costs the upstream (counted at the proxy)
 * and what the caller gets, when the upstream is fine, slow, failing or refusing.
 */
let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());
afterEach(() => {
  bench.proxy.fault(null);
  bench.proxy.resetCounts();
});

const sym = (i: number) => bench.symbols[i]!;
const BREAKER_OPEN = /circuit breaker|breaker open/;

describe("coalescing", () => {
  it("100 concurrent identical cold requests cost 1 upstream call, and all get its answer", async () => {
    const { client } = bench.client();
    const answers = await Promise.all(Array.from({ length: 100 }, () => client.request(quote(sym(0)))));
    expect(bench.proxy.count()).toBe(1);
    expect(answers.every((a) => a.status === 200 && (a.body as { symbol: string }).symbol === sym(0))).toBe(true);
  });

  it("key order does not matter, and a batch joins calls already in flight", async () => {
    const { client } = bench.client();
    const body = { symbol: sym(1), currency: "EUR" };
    const single = client.request({ path: "/v0/quote", body, kind: "quote" });
    const reordered = client.request({ path: "/v0/quote", body: { currency: "EUR", symbol: sym(1) }, kind: "quote" });
    const batch = client.requestMany(
      [sym(1), sym(2), sym(3), sym(2)].map((s) => ({ ...quote(s), body: { ...body, symbol: s } })),
    );
    const [a, b, many] = await Promise.all([single, reordered, batch]);
    expect(a).toEqual(b);
    expect(bench.proxy.count("/v0/quote")).toBe(1);
    expect(bench.proxy.count("/v0/bulk")).toBe(1);
    const sent = JSON.parse(bench.proxy.calls().find((c) => c.path === "/v0/bulk")!.body) as {
      symbols: { symbol: string }[];
    };
    expect(sent.symbols.map((s) => s.symbol)).toEqual([sym(2), sym(3)]);
    expect((many as UpstreamResult[]).map((r) => (r.body as { symbol: string }).symbol)).toEqual([
      sym(1),
      sym(2),
      sym(3),
      sym(2),
    ]);
  });
});

describe("the cache", () => {
  it("answers within a kind's TTL without the upstream, with the answer's age", async () => {
    const { client, clock, registry } = bench.client();
    await client.request(quote(sym(4)));
    clock.advance(4_000);
    const again = await client.request(quote(sym(4)));
    expect(again).toMatchObject({ status: 200, stale: false, ageSeconds: 4 });
    expect(bench.proxy.count()).toBe(1);
    clock.advance(1_000);
    await client.request(quote(sym(4)));
    expect(bench.proxy.count()).toBe(2);
    expect(await metricValue(registry, 'mdg_upstream_cache_total{result="hit"}')).toBe(1);
    expect(await metricValue(registry, 'mdg_upstream_cache_total{result="miss"}')).toBe(2);
    const calls = 'mdg_upstream_request_duration_seconds_count{endpoint="/v0/quote",outcome="ok"}';
    expect(await metricValue(registry, calls)).toBe(2);
    expect(await metricValue(registry, "mdg_upstream_breaker_state")).toBe(0);
  });

  it("keeps reference data an hour and bars a day", async () => {
    const { client, clock } = bench.client();
    const profile = { path: "/v0/etf/profile", body: { symbol: sym(0) }, kind: "reference" as const };
    const list = { path: "/v0/list/etfs", body: { limit: 2 }, kind: "bars" as const };
    await client.request(profile);
    await client.request(list);
    clock.advance(3_599_000);
    await client.request(profile);
    await client.request(list);
    expect(bench.proxy.count()).toBe(2);
    clock.advance(2_000);
    await client.request(profile);
    await client.request(list);
    expect(bench.proxy.count()).toBe(3);
  });

  it("stays within MDG_UPSTREAM_CACHE_MB: the least recently used answers go first", async () => {
    const { client } = bench.client({ MDG_UPSTREAM_CACHE_MB: "0.02" });
    await client.requestMany(bench.symbols.slice(0, 100).map(quote));
    expect(client.cacheStats().bytes).toBeLessThanOrEqual(0.02 * 2 ** 20);
    expect(client.cacheStats().entries).toBeLessThan(100);
    bench.proxy.resetCounts();
    await client.request(quote(sym(0)));
    expect(bench.proxy.count()).toBe(1);
  });
});

describe("timeouts", () => {
  it("with 5 s of upstream latency, the call ends in UPSTREAM_UNAVAILABLE at the timeout, not after 5 s", async () => {
    const { client } = bench.client();
    bench.proxy.fault({ kind: "latency", ms: 5_000 });
    const outcome = await Promise.race([
      client.request(quote(sym(5))).then(
        () => "answered",
        (e: unknown) => e,
      ),
      // A hang bound only: generous, far above the 2 s timeout.
      new Promise((resolve) => setTimeout(() => resolve("hung"), 4_500).unref()),
    ]);
    expect(outcome).toBeInstanceOf(UpstreamUnavailableError);
    expect((outcome as Error).message).toMatch(/timeout/);
  });

  it("serves the cached answer stale when the upstream is slow past the timeout", async () => {
    // The default timeout: a shorter one could fail the first, cold call on a busy machine.
    const { client, clock } = bench.client();
    const first = await client.request(quote(sym(6)));
    clock.advance(60_000);
    bench.proxy.fault({ kind: "hang" });
    const late = await client.request(quote(sym(6)));
    expect(late).toEqual({ ...first, stale: true, ageSeconds: 60 });
  });
});

describe("stale-if-error", () => {
  it("serves the last good answer marked stale with its age while the upstream fails, then recovers", async () => {
    const { client, clock, registry } = bench.client({ MDG_UPSTREAM_RETRIES: "0" });
    const good = await client.request(quote(sym(7)));
    clock.advance(90_000);
    bench.proxy.fault({ kind: "status", status: 503 });
    const stale = await client.request(quote(sym(7)));
    expect(stale).toEqual({ status: 200, body: good.body, stale: true, ageSeconds: 90 });
    expect(await metricValue(registry, 'mdg_upstream_cache_total{result="stale"}')).toBe(1);
    bench.proxy.fault(null);
    const back = await client.request(quote(sym(7)));
    expect(back).toMatchObject({ status: 200, stale: false, ageSeconds: 0 });
    expect(client.state().breaker).toBe("closed");
  });

  it("gives up on an answer older than its TTL plus 24 h", async () => {
    const { client, clock } = bench.client({ MDG_UPSTREAM_RETRIES: "0" });
    await client.request(quote(sym(8)));
    clock.advance((86_400 + 5) * 1000 + 1);
    bench.proxy.fault({ kind: "status", status: 500 });
    await expect(client.request(quote(sym(8)))).rejects.toBeInstanceOf(UpstreamUnavailableError);
  });

  it("caches a 404 for the reference TTL but never serves it stale", async () => {
    const { client, clock } = bench.client({ MDG_UPSTREAM_RETRIES: "0" });
    const unknown = quote("NOSUCHSYMBOL");
    expect((await client.request(unknown)).status).toBe(404);
    clock.advance(3_000_000);
    expect(await client.request(unknown)).toMatchObject({ status: 404, stale: false });
    expect(bench.proxy.count()).toBe(1);
    clock.advance(700_000);
    bench.proxy.fault({ kind: "status", status: 500 });
    await expect(client.request(unknown)).rejects.toBeInstanceOf(UpstreamUnavailableError);
  });

  it("serves stale items of a batch whose bulk call failed, and fails only the items it never had", async () => {
    const { client, clock } = bench.client({ MDG_UPSTREAM_RETRIES: "0" });
    await client.requestMany([sym(9), sym(10)].map(quote));
    clock.advance(10_000);
    bench.proxy.fault({ kind: "status", status: 500 });
    const answers = await client.requestMany([sym(9), sym(10), sym(11)].map(quote));
    expect(answers.slice(0, 2)).toMatchObject([
      { status: 200, stale: true, ageSeconds: 10 },
      { status: 200, stale: true, ageSeconds: 10 },
    ]);
    expect(answers[2]).toBeInstanceOf(UpstreamUnavailableError);
  });
});

describe("the circuit breaker", () => {
  const env = { MDG_UPSTREAM_RETRIES: "0" };

  it("opens at half of 10 calls failing: then 0 upstream calls and immediate failures, or stale answers", async () => {
    const { client, clock, registry } = bench.client(env);
    const cached = await client.request(quote(sym(20)));
    clock.advance(6_000);
    for (let i = 0; i < 4; i++) await client.request(quote(sym(21 + i)));
    bench.proxy.fault({ kind: "status", status: 500 });
    for (let i = 0; i < 4; i++) await expect(client.request(quote(sym(25 + i)))).rejects.toThrow(/5xx/);
    expect(client.state().breaker).toBe("closed");
    await expect(client.request(quote(sym(29)))).rejects.toThrow(/5xx/);
    expect(client.state()).toEqual({ breaker: "open", lastFailure: "5xx" });
    expect(upstreamReadiness(client.state())).toEqual({
      ready: false,
      upstream: { breaker: "open", lastFailure: "5xx" },
    });
    expect(await metricValue(registry, "mdg_upstream_breaker_state")).toBe(2);

    bench.proxy.resetCounts();
    bench.proxy.fault(null);
    const refused = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => client.request(quote(sym(30 + i)))));
    expect(refused.every((r) => r.status === "rejected" && BREAKER_OPEN.test(String(r.reason)))).toBe(true);
    expect(await client.request(quote(sym(20)))).toEqual({ ...cached, stale: true, ageSeconds: 6 });
    expect(bench.proxy.count()).toBe(0);
    expect(await metricValue(registry, "mdg_upstream_short_circuits_total")).toBe(51);
  });

  it("after 30 s lets one probe through: its success closes the breaker, its failure opens it again", async () => {
    const { client, clock } = bench.client(env);
    bench.proxy.fault({ kind: "status", status: 500 });
    for (let i = 0; i < 10; i++) await client.request(quote(sym(40 + i))).catch(() => undefined);
    expect(client.state().breaker).toBe("open");
    clock.advance(29_999);
    await expect(client.request(quote(sym(50)))).rejects.toThrow(BREAKER_OPEN);
    clock.advance(1);
    expect(client.state().breaker).toBe("half-open");

    // The probe fails: open again for 30 s.
    bench.proxy.resetCounts();
    await expect(client.request(quote(sym(51)))).rejects.toThrow(/5xx/);
    expect(client.state().breaker).toBe("open");
    expect(bench.proxy.count()).toBe(1);

    clock.advance(30_000);
    bench.proxy.resetCounts();
    bench.proxy.fault({ kind: "latency", ms: 200 });
    // Half-open: the first call is the probe; the others fail at once while it runs.
    const calls = Array.from({ length: 5 }, (_, i) => client.request(quote(sym(52 + i))));
    const settled = await Promise.allSettled(calls);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "rejected", "rejected", "rejected"]);
    expect(bench.proxy.count()).toBe(1);
    expect(client.state().breaker).toBe("closed");
    await client.request(quote(sym(53)));
    expect(bench.proxy.count()).toBe(2);
  });

  it("counts only the rolling 10 s window", async () => {
    const { client, clock } = bench.client(env);
    bench.proxy.fault({ kind: "status", status: 500 });
    for (let i = 0; i < 9; i++) await client.request(quote(sym(60 + i))).catch(() => undefined);
    clock.advance(11_000);
    await client.request(quote(sym(69))).catch(() => undefined);
    expect(client.state().breaker).toBe("closed");
  });
});

describe("retries", () => {
  it("retries 5xx and connection failures (reset, truncated body), within the call", async () => {
    const { client, registry } = bench.client();
    bench.proxy.fault({ kind: "status", status: 502, times: 2 });
    expect((await client.request(quote(sym(80)))).status).toBe(200);
    expect(bench.proxy.count()).toBe(3);
    bench.proxy.resetCounts();
    bench.proxy.fault({ kind: "reset", times: 1 });
    expect((await client.request(quote(sym(81)))).status).toBe(200);
    bench.proxy.fault({ kind: "truncate", times: 1 });
    expect((await client.request(quote(sym(82)))).status).toBe(200);
    expect(bench.proxy.count()).toBe(4);
    expect(await metricValue(registry, 'mdg_upstream_retries_total{endpoint="/v0/quote"}')).toBe(4);
  });

  it("does not retry what cannot change: a malformed body, a 400, a refused key", async () => {
    const { client } = bench.client();
    const faults = [
      { kind: "malformed" as const },
      { kind: "status" as const, status: 400 },
      { kind: "status" as const, status: 401 },
      { kind: "status" as const, status: 403 },
    ];
    for (const fault of faults) {
      bench.proxy.resetCounts();
      bench.proxy.fault(fault);
      await expect(client.request(quote(sym(83)))).rejects.toBeInstanceOf(UpstreamUnavailableError);
      expect(bench.proxy.count()).toBe(1);
    }
  });

  it("honours a 429's Retry-After when it fits in the call's time", async () => {
    const { client } = bench.client({ MDG_UPSTREAM_TIMEOUT_MS: "5000" });
    bench.proxy.fault({ kind: "status", status: 429, retryAfter: "1", times: 1 });
    expect((await client.request(quote(sym(84)))).status).toBe(200);
    const [first, second] = bench.proxy.calls();
    expect(bench.proxy.count()).toBe(2);
    // A lower bound: the retry waited for the upstream's word, however slow the machine.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it("takes a 403 with Retry-After (this contract's spent quota) as a wait, not as a refused key", async () => {
    const { client, logs } = bench.client();
    bench.proxy.fault({ kind: "status", status: 403, retryAfter: "0", times: 1 });
    expect((await client.request(quote(sym(86)))).status).toBe(200);
    expect(bench.proxy.count()).toBe(2);
    expect(logs.filter((l) => l.includes("refused MDG_UPSTREAM_API_KEY"))).toEqual([]);
  });

  it("fails at once when Retry-After is past the call's deadline, rather than wait for nothing", async () => {
    const { client } = bench.client();
    bench.proxy.fault({ kind: "status", status: 429, retryAfter: "30" });
    await expect(client.request(quote(sym(85)))).rejects.toThrow(/429/);
    expect(bench.proxy.count()).toBe(1);
  });

  it("stops at the budget: 20 % of calls (no floor here), however many calls fail", async () => {
    const { client, registry } = bench.client({
      MDG_UPSTREAM_RETRY_MIN_PER_SEC: "0",
      MDG_UPSTREAM_BREAKER_MIN_CALLS: "1000",
    });
    bench.proxy.fault({ kind: "status", status: 500 });
    for (let i = 0; i < 10; i++) await client.request(quote(sym(90 + i))).catch(() => undefined);
    // 10 calls earn 2 retries: the 5th call's and the 10th's.
    expect(bench.proxy.count()).toBe(12);
    expect(await metricValue(registry, 'mdg_upstream_retries_total{endpoint="/v0/quote"}')).toBe(2);
  });

  it("has a floor of retries per second when calls are few", async () => {
    const { client } = bench.client({ MDG_UPSTREAM_RETRY_MIN_PER_SEC: "0.1", MDG_UPSTREAM_RETRIES: "5" });
    bench.proxy.fault({ kind: "status", status: 500 });
    await expect(client.request(quote(sym(100)))).rejects.toThrow(/5xx/);
    // 0.1 a second over the 10 s window: one retry for a lone call.
    expect(bench.proxy.count()).toBe(2);
  });
});
