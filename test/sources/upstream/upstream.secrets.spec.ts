import type { Registry } from "prom-client";
import { UpstreamUnavailableError } from "../../../src/platform/errors";
import type { GatewayUpstreamClient } from "../../../src/sources/upstream/upstream.client";
import { quote, startBench, type Bench } from "./upstream.fixture";

/**
 * The upstream key is the gateway's secret: whatever happens (answers, every kind of failure, a refused key), it
 * appears in no log line, error, metric or answer. The operator hears of a refused key once a minute at most.
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

const WRONG_KEY = "wrong-upstream-key-s3cr3t-4242";

/** Everything a run left that anyone could read: answers, errors (messages, stacks, fields), logs, metrics, state. */
async function traces(client: GatewayUpstreamClient, registry: Registry, outcomes: unknown[], logs: string[]) {
  const parts = outcomes.map((o) =>
    o instanceof Error
      ? `${String(o)} ${o.stack ?? ""} ${JSON.stringify(o)} ${JSON.stringify(o.cause ?? null)}`
      : JSON.stringify(o),
  );
  return [...parts, ...logs, await registry.metrics(), JSON.stringify(client.state())].join("\n");
}

async function runAll(client: GatewayUpstreamClient, symbols: string[]): Promise<unknown[]> {
  const outcomes: unknown[] = [];
  const keep = (p: Promise<unknown>) =>
    p.then(
      (v) => outcomes.push(v),
      (e: unknown) => outcomes.push(e),
    );
  await keep(client.request(quote(symbols[0]!)));
  await keep(client.requestMany(symbols.slice(1, 4).map(quote)));
  await keep(client.request(quote("NOSUCHSYMBOL")));
  const faults = [
    { kind: "status" as const, status: 500 },
    { kind: "status" as const, status: 429, retryAfter: "0" },
    { kind: "status" as const, status: 401 },
    { kind: "reset" as const },
    { kind: "truncate" as const },
    { kind: "malformed" as const },
  ];
  for (const [i, fault] of faults.entries()) {
    bench.proxy.fault(fault);
    await keep(client.request(quote(symbols[10 + i]!)));
    await keep(client.requestMany(symbols.slice(20 + 3 * i, 23 + 3 * i).map(quote)));
  }
  bench.proxy.fault(null);
  return outcomes;
}

describe("the upstream key never leaks", () => {
  it("through a run of good answers and every kind of failure", async () => {
    const { client, registry, logs } = bench.client({ MDG_UPSTREAM_RETRIES: "1" });
    const outcomes = await runAll(client, bench.symbols);
    expect(outcomes.some((o) => o instanceof UpstreamUnavailableError)).toBe(true);
    expect(outcomes.some((o) => !(o instanceof Error))).toBe(true);
    // The proxy saw the key on the wire: the test would catch it if the client printed what it sent.
    expect(bench.proxy.count()).toBeGreaterThan(10);
    const text = await traces(client, registry, outcomes, logs);
    expect(text).toContain("MDG_UPSTREAM_API_KEY");
    expect(text).not.toContain(bench.upstream.key);
  });

  it("when the upstream refuses it: 500-bound errors, and one clear log line a minute without the key", async () => {
    const { client, registry, logs, clock } = bench.client({}, { key: WRONG_KEY });
    const outcomes: unknown[] = [];
    for (let i = 0; i < 3; i++) outcomes.push(await client.request(quote(bench.symbols[i]!)).catch((e: unknown) => e));
    expect(outcomes.every((o) => o instanceof UpstreamUnavailableError)).toBe(true);
    // The upstream's own 401, not retried.
    expect(bench.proxy.count()).toBe(3);
    const refusals = () => logs.filter((l) => l.includes("the upstream refused MDG_UPSTREAM_API_KEY: check it"));
    expect(refusals()).toHaveLength(1);
    clock.advance(60_000);
    await client.request(quote(bench.symbols[3]!)).catch((e: unknown) => outcomes.push(e));
    expect(refusals()).toHaveLength(2);
    expect(client.state().lastFailure).toBe("unauthorised");
    const text = await traces(client, registry, outcomes, logs);
    expect(text).not.toContain(WRONG_KEY);
    expect(text).not.toContain("s3cr3t");
  });
});
