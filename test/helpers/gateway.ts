import "reflect-metadata";
import type { RequestListener } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import request from "supertest";
import { createApp, type AppParts } from "../../src/app";
import { SearchIndex } from "../../src/domain/search/search.index";
import { ApiKeyService } from "../../src/platform/auth/auth.service";
import { fixedClock } from "../../src/platform/clock";
import { loadConfig } from "../../src/platform/config";
import { openSources } from "../../src/app.sources";
import { TEST_ANCHOR } from "./constants";
import { startFaultProxy, type FaultProxy } from "./fault-proxy";
import { startUpstream, type TestUpstream } from "./upstream";
import { ROW_STORE_ANSWERS } from "../../src/domain/answers";

/** The gateway's own key: not the upstream's, so a test can tell which one an answer or a log line shows. */
export const GATEWAY_KEY = "gateway-bootstrap-key-0123456789";

export interface TestGateway {
  app: RequestListener;
  /** The WebSocket doors (serveLive) and the live prices' hub. */
  upgrade: AppParts["upgrade"];
  live: AppParts["live"];
  http: ReturnType<typeof request>;
  /** Every log line the gateway (app and upstream client) wrote, as JSON text. */
  logs: string[];
  post(path: string, body?: unknown, key?: string | null): request.Test;
  close(): Promise<void>;
}

/**
 * A gateway as `npm start` builds one with MDG_DATA_SOURCE=upstream (src/sources/source.factory.ts), in front of
 * `proxy` (a fault proxy before a second instance of this service, or before recorded answers: recorded-upstream.ts),
 * with its keys in a fresh SQLite file.
 */
export async function startGateway(
  upstream: Pick<TestUpstream, "key">,
  proxy: FaultProxy,
  env: NodeJS.ProcessEnv = {},
) {
  const dir = mkdtempSync(join(tmpdir(), "mdg-gateway-"));
  const config = loadConfig({
    MDG_DATA_SOURCE: "upstream",
    MDG_UPSTREAM_URL: proxy.url,
    MDG_UPSTREAM_API_KEY: upstream.key,
    MDG_SQLITE_PATH: join(dir, "keys.sqlite"),
    MDG_BOOTSTRAP_API_KEY: GATEWAY_KEY,
    LOG_LEVEL: "info",
    NODE_ENV: "test",
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const logger = pino({ level: "debug" }, sink);
  const sources = await openSources(config, { logger });
  const clock = fixedClock(`${TEST_ANCHOR}T15:00:00Z`);
  const apiKeys = new ApiKeyService(sources.keys, clock, { bootstrapKey: GATEWAY_KEY });
  const { answers, metricsRegistry, upstreamState } = sources;
  const deps = {
    config,
    source: sources.market,
    clock,
    searchIndex: await SearchIndex.empty(),
    answers: answers ?? ROW_STORE_ANSWERS,
    metricsRegistry,
    upstreamState,
  };
  const { app, apollo, upgrade, live } = await createApp(deps, apiKeys, logger);
  const http = request(app);
  const gateway: TestGateway = {
    app,
    upgrade,
    live,
    http,
    logs,
    post(path, body, key = GATEWAY_KEY) {
      let r = http.post(path).set("content-type", "application/json");
      if (key !== null) r = r.set("x-api-key", key);
      return body === undefined ? r : r.send(typeof body === "string" ? body : JSON.stringify(body));
    },
    async close() {
      await Promise.all([live.ws.close(1_000), live.graphql.close(1_000)]);
      await apollo.stop();
      await sources.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return gateway;
}

/** The parts `gatewayPerSuite` starts; each is there once the suite's `beforeAll` has run. */
export interface GatewaySuite {
  readonly upstream: TestUpstream;
  readonly proxy: FaultProxy;
  readonly gateway: TestGateway;
}

/**
 * A second instance of this service as the upstream, a fault proxy before it and a gateway before that, started
 * before the enclosing `describe`'s tests and closed after them: the gateway-mode block of each endpoint's suite.
 */
export function gatewayPerSuite(): GatewaySuite {
  const parts: Partial<{ -readonly [K in keyof GatewaySuite]: GatewaySuite[K] }> = {};
  beforeAll(async () => {
    parts.upstream = await startUpstream();
    parts.proxy = await startFaultProxy(parts.upstream.url);
    parts.gateway = await startGateway(parts.upstream, parts.proxy);
  });
  afterAll(async () => {
    await parts.gateway?.close();
    await parts.proxy?.close();
    await parts.upstream?.close();
  });
  const started = <K extends keyof GatewaySuite>(k: K): GatewaySuite[K] => {
    const part = parts[k];
    if (!part) throw new Error(`gatewayPerSuite: ${k} is read before the suite's beforeAll started it`);
    return part as GatewaySuite[K];
  };
  return {
    get upstream() {
      return started("upstream");
    },
    get proxy() {
      return started("proxy");
    },
    get gateway() {
      return started("gateway");
    },
  };
}
