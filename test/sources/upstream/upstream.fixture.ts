import { Writable } from "node:stream";
import { Registry } from "prom-client";
import { ROUTES } from "../../../src/http/rest/rest.routes";
import { loadConfig } from "../../../src/platform/config";
import { createLogger } from "../../../src/platform/logger";
import {
  bulkPathsOf,
  createUpstreamClient,
  type GatewayUpstreamClient,
} from "../../../src/sources/upstream/upstream.client";
import { manualClock, type ManualClock } from "../../helpers/clock";
import { TEST_ANCHOR } from "../../helpers/constants";
import { startFaultProxy, type FaultProxy } from "../../helpers/fault-proxy";
import { startUpstream, type TestUpstream } from "../../helpers/upstream";

/**
 * The upstream client's test bench: a real upstream (this service over the test store) behind the fault proxy,
 * and clients made against the proxy with a hand-moved clock, their own metrics registry and captured log lines.
 */
export interface Bench {
  upstream: TestUpstream;
  proxy: FaultProxy;
  /** Stock symbols of the test store, at least 250. */
  symbols: string[];
  client(env?: NodeJS.ProcessEnv, opts?: { key?: string }): Made;
  close(): Promise<void>;
}

export interface Made {
  client: GatewayUpstreamClient;
  clock: ManualClock;
  registry: Registry;
  /** Every JSON log line the client wrote. */
  logs: string[];
}

export async function startBench(): Promise<Bench> {
  const upstream = await startUpstream();
  const proxy = await startFaultProxy(upstream.url);
  const list = await upstream.app.post("/v0/list/stocks", { limit: 300 }).expect(200);
  const symbols = (list.body as { results: { symbol: string }[] }).results.map((s) => s.symbol);
  const made: GatewayUpstreamClient[] = [];
  return {
    upstream,
    proxy,
    symbols,
    client(env = {}, opts = {}) {
      const config = loadConfig({
        MDG_DATA_SOURCE: "upstream",
        MDG_UPSTREAM_URL: proxy.url,
        MDG_UPSTREAM_API_KEY: opts.key ?? upstream.key,
        LOG_LEVEL: "info",
        NODE_ENV: "test",
        ...env,
      });
      const logs: string[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          logs.push(...chunk.toString("utf8").split("\n").filter(Boolean));
          done();
        },
      });
      const logger = createLogger(config, sink);
      const clock = manualClock(`${TEST_ANCHOR}T15:00:00Z`);
      const registry = new Registry();
      const client = createUpstreamClient(config, {
        logger,
        clock,
        registry,
        bulkPaths: bulkPathsOf(ROUTES),
        random: () => 0,
      });
      made.push(client);
      return { client, clock, registry, logs };
    },
    async close() {
      await Promise.all(made.map((c) => c.close()));
      await proxy.close();
      await upstream.close();
    },
  };
}

export const quote = (symbol: string) => ({ path: "/v0/quote", body: { symbol }, kind: "quote" as const });

/** The value of one series in the registry's exposition, 0 when absent. */
export async function metricValue(registry: Registry, series: string): Promise<number> {
  const text = await registry.metrics();
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}
