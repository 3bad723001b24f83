import { loadConfig } from "../../../src/platform/config";
import { UpstreamUnavailableError } from "../../../src/platform/errors";
import { ROUTES } from "../../../src/http/rest/rest.routes";
import { bulkPathsOf, createUpstreamClient } from "../../../src/sources/upstream/upstream.client";
import type { UpstreamClient, UpstreamResult } from "../../../src/sources/upstream/upstream.types";
import { startFaultProxy, type FaultProxy } from "../../helpers/fault-proxy";
import { startUpstream, type TestUpstream } from "../../helpers/upstream";

let upstream: TestUpstream;
let proxy: FaultProxy;
let symbols: string[];

beforeAll(async () => {
  upstream = await startUpstream();
  proxy = await startFaultProxy(upstream.url);
  const list = await upstream.app.post("/v0/list/stocks", { limit: 300 }).expect(200);
  symbols = (list.body as { results: { symbol: string }[] }).results.map((s) => s.symbol);
});

afterAll(async () => {
  await proxy.close();
  await upstream.close();
});

let client: UpstreamClient;
afterEach(async () => {
  proxy.fault(null);
  proxy.resetCounts();
  await client?.close();
});

function clientWith(env: NodeJS.ProcessEnv = {}): UpstreamClient {
  const config = loadConfig({
    MDG_DATA_SOURCE: "upstream",
    MDG_UPSTREAM_URL: proxy.url,
    MDG_UPSTREAM_API_KEY: upstream.key,
    LOG_LEVEL: "silent",
    ...env,
  });
  client = createUpstreamClient(config, { bulkPaths: bulkPathsOf(ROUTES) });
  return client;
}

const quote = (symbol: string) => ({ path: "/v0/quote", body: { symbol }, kind: "quote" as const });

describe("the upstream client's basic calls", () => {
  it("passes the upstream's 200 and 404 on, with their bodies", async () => {
    const c = clientWith();
    const ok = await c.request(quote(symbols[0]!));
    expect(ok).toMatchObject({ status: 200, stale: false, ageSeconds: 0 });
    expect((ok.body as { symbol?: string }).symbol).toBe(symbols[0]);
    const missing = await c.request(quote("NOSUCHSYMBOL"));
    expect(missing).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
  });

  it("sends 250 quotes as 3 bulk calls, answered in order", async () => {
    expect(symbols.length).toBeGreaterThanOrEqual(250);
    const some = symbols.slice(0, 250);
    const answers = await clientWith().requestMany(some.map(quote));
    expect(proxy.count()).toBe(3);
    expect(proxy.count("/v0/bulk")).toBe(3);
    const bodies = proxy.calls().map((call) => (JSON.parse(call.body) as { symbols: unknown[] }).symbols.length);
    expect(bodies.sort()).toEqual([100, 100, 50]);
    answers.forEach((a, i) => {
      expect(a).not.toBeInstanceOf(Error);
      expect(((a as UpstreamResult).body as { symbol: string }).symbol).toBe(some[i]);
    });
  });

  it("chunks by MDG_UPSTREAM_BULK_MAX and answers an unknown item with its own 404", async () => {
    const answers = await clientWith({ MDG_UPSTREAM_BULK_MAX: "2" }).requestMany(
      [symbols[0]!, "NOSUCHSYMBOL", symbols[1]!].map(quote),
    );
    // Two symbols in one bulk call; the third alone in its chunk goes as the plain call.
    expect(proxy.count("/v0/bulk")).toBe(1);
    expect(proxy.count("/v0/quote")).toBe(1);
    expect(answers.map((a) => (a as UpstreamResult).status)).toEqual([200, 404, 200]);
  });

  it("sends items that bulk cannot carry one call each", async () => {
    const reqs = ["stocks", "etfs", "funds"].map((l) => ({
      path: `/v0/list/${l}`,
      body: { limit: 1 },
      kind: "reference" as const,
    }));
    const answers = await clientWith().requestMany(reqs);
    expect(proxy.count()).toBe(3);
    expect(proxy.count("/v0/bulk")).toBe(0);
    expect(answers.every((a) => !(a instanceof Error) && a.status === 200)).toBe(true);
  });

  it("keeps at most MDG_UPSTREAM_CONCURRENCY of a batch's single calls in flight", async () => {
    const c = clientWith({ MDG_UPSTREAM_CONCURRENCY: "4" });
    proxy.fault({ kind: "latency", ms: 50 });
    const reqs = Array.from({ length: 20 }, (_, i) => ({
      path: "/v0/search",
      body: { query: symbols[i]! },
      kind: "reference" as const,
    }));
    const answers = await c.requestMany(reqs);
    expect(answers.every((a) => !(a instanceof Error) && a.status === 200)).toBe(true);
    expect(proxy.count("/v0/search")).toBe(20);
    // Never more than 4 at once, and more than one: the batch does run them side by side.
    expect(proxy.peakInFlight()).toBeLessThanOrEqual(4);
    expect(proxy.peakInFlight()).toBeGreaterThan(1);
  });

  it("turns a 500 into UpstreamUnavailableError", async () => {
    const c = clientWith({ MDG_UPSTREAM_RETRIES: "0" });
    proxy.fault({ kind: "status", status: 500 });
    await expect(c.request(quote(symbols[0]!))).rejects.toBeInstanceOf(UpstreamUnavailableError);
  });

  it("turns a malformed body into UpstreamUnavailableError", async () => {
    const c = clientWith({ MDG_UPSTREAM_RETRIES: "0" });
    proxy.fault({ kind: "malformed" });
    await expect(c.request(quote(symbols[0]!))).rejects.toThrow(/malformed/);
  });
});
