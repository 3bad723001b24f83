import { MAX_OPERATION_NAMES } from "../../../src/platform/metrics/metrics";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";

/** The value of one series of the exposition text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^([^{ ]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

/** Every distinct value of one label across a metric's series. */
function labelValues(text: string, name: string, label: string): Set<string> {
  const out = new Set<string>();
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const m = new RegExp(`${label}="((?:[^"\\\\]|\\\\.)*)"`).exec(line);
    if (m) out.add(m[1]!);
  }
  return out;
}

describe("GET /metrics", () => {
  let t: TestApp;
  let createdKey: { key: string; row: { id: string } };
  let text: string;

  beforeAll(async () => {
    t = await createTestApp();
    createdKey = (await t.apiKeys.create({ name: "metrics-test", scopes: ["*"] })) as typeof createdKey;

    await t.post("/v1/quote", { symbol: "BTC-USD" }).expect(200);
    await t.post("/v1/quote", { symbol: "BTC-USD" }).expect(200);
    await t.post("/v0/quote/", { symbol: "BTC-USD" }).expect(200);
    await t.post("/v1/crypto/price", { symbol: "BTC-USD" }, createdKey.key).expect(200);
    await t.post("/v1/crypto/price", { symbol: "ETH-USD" }, createdKey.key).expect(200);
    await t.post("/v1/quote", { symbol: "BTC-USD" }, "not-a-key").expect(401);
    await t.post("/v1/quote", { symbol: "NO-SUCH-SYMBOL-XYZ" }).expect(404);
    await t.http.post("/v1/no/such/path?secret=1").set("x-api-key", BOOTSTRAP_KEY).expect(404);
    await t.http
      .post("/graphql")
      .set("content-type", "application/json")
      .set("x-api-key", BOOTSTRAP_KEY)
      .send({ query: 'query QuoteForMetrics { quote(symbol: "BTC-USD") { c } }', operationName: "QuoteForMetrics" })
      .expect(200);
    await t.http
      .post("/graphql")
      .set("content-type", "application/json")
      .set("x-api-key", BOOTSTRAP_KEY)
      .send({ query: "{ __typename }" })
      .expect(200);

    const res = await t.http.get("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    text = res.text;
  });
  afterAll(() => t.close());

  it("counts requests and their latency per route-table path and status", () => {
    expect(sample(text, "mdg_http_requests_total", { route: "/v1/quote", status: "200" })).toBe(2);
    // A trailing slash is the same route, as the router treats it.
    expect(sample(text, "mdg_http_requests_total", { route: "/v0/quote", status: "200" })).toBe(1);
    expect(sample(text, "mdg_http_requests_total", { route: "/v1/quote", status: "401" })).toBe(1);
    expect(sample(text, "mdg_http_requests_total", { route: "/v1/quote", status: "404" })).toBe(1);
    expect(sample(text, "mdg_http_request_duration_seconds_count", { route: "/v1/quote", status: "200" })).toBe(2);
    expect(
      sample(text, "mdg_http_request_duration_seconds_bucket", { route: "/v1/quote", status: "200", le: "+Inf" }),
    ).toBe(2);
    expect(
      sample(text, "mdg_http_request_duration_seconds_sum", { route: "/v1/quote", status: "200" }),
    ).toBeGreaterThan(0);
  });

  it("labels paths outside the route table as unmatched, never the raw URL", () => {
    expect(sample(text, "mdg_http_requests_total", { route: "unmatched", status: "404" })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain("/v1/no/such/path");
    expect(text).not.toContain("secret");
  });

  it("times GraphQL operations by operation name", () => {
    expect(
      sample(text, "mdg_graphql_operation_duration_seconds_count", { operation: "QuoteForMetrics", outcome: "ok" }),
    ).toBe(1);
    expect(
      sample(text, "mdg_graphql_operation_duration_seconds_count", { operation: "anonymous", outcome: "ok" }),
    ).toBe(1);
    expect(sample(text, "mdg_http_requests_total", { route: "/graphql", status: "200" })).toBe(2);
  });

  it("times store calls and records DataLoader batch sizes by data-source method", () => {
    expect(
      sample(text, "mdg_store_query_duration_seconds_count", { method: "getInstrumentsBySymbols" }),
    ).toBeGreaterThan(0);
    expect(sample(text, "mdg_dataloader_batch_size_count", { method: "getInstrumentsBySymbols" })).toBeGreaterThan(0);
    expect(sample(text, "mdg_dataloader_batch_size_sum", { method: "getInstrumentsBySymbols" })).toBeGreaterThanOrEqual(
      1,
    );
  });

  it("reports the API-key cache's hits, misses and hit ratio", () => {
    // The created key: one miss (first lookup goes to the store), then a hit; the bootstrap key needs no lookup.
    expect(sample(text, "mdg_auth_key_cache_misses_total")).toBeGreaterThanOrEqual(1);
    expect(sample(text, "mdg_auth_key_cache_hits_total")).toBeGreaterThanOrEqual(1);
    const ratio = sample(text, "mdg_auth_key_cache_hit_ratio")!;
    expect(ratio).toBeGreaterThan(0);
    expect(ratio).toBeLessThan(1);
  });

  it("exposes process metrics", () => {
    expect(sample(text, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(text).toContain("nodejs_eventloop_lag_seconds");
  });

  it("holds no API key, key id or key name", () => {
    for (const secret of [BOOTSTRAP_KEY, createdKey.key, createdKey.row.id, "metrics-test", "not-a-key"])
      expect(text).not.toContain(secret);
    expect(labelValues(text, "mdg_", "key").size).toBe(0);
  });

  it("keeps label sets bounded whatever clients send", async () => {
    for (let i = 0; i < 30; i++) await t.http.post(`/v1/random-${i}`).set("x-api-key", BOOTSTRAP_KEY);
    for (let i = 0; i < MAX_OPERATION_NAMES + 20; i++) {
      await t.http
        .post("/graphql")
        .set("content-type", "application/json")
        .set("x-api-key", BOOTSTRAP_KEY)
        .send({ query: `query Op${i} { __typename }` });
    }
    const after = (await t.http.get("/metrics")).text;
    const routes = labelValues(after, "mdg_http_requests_total", "route");
    expect([...routes].filter((r) => r.includes("random"))).toEqual([]);
    const operations = labelValues(after, "mdg_graphql_operation_duration_seconds_count", "operation");
    expect(operations.size).toBeLessThanOrEqual(MAX_OPERATION_NAMES + 2); // + "anonymous" and "other"
    expect(operations.has("other")).toBe(true);
  });
});

describe("GET /metrics settings", () => {
  it("is absent (404) with MDG_METRICS_ENABLED=false", async () => {
    const t = await createTestApp({ env: { MDG_METRICS_ENABLED: "false" } });
    try {
      expect((await t.http.get("/metrics")).status).toBe(404);
      await t.post("/v1/quote", { symbol: "BTC-USD" }).expect(200);
    } finally {
      await t.close();
    }
  });

  it("needs `Authorization: Bearer <token>` when MDG_METRICS_TOKEN is set", async () => {
    const t = await createTestApp({ env: { MDG_METRICS_TOKEN: "scrape-token-123" } });
    try {
      expect((await t.http.get("/metrics")).status).toBe(404);
      expect((await t.http.get("/metrics").set("authorization", "Bearer wrong-token-12")).status).toBe(404);
      const ok = await t.http.get("/metrics").set("authorization", "Bearer scrape-token-123");
      expect(ok.status).toBe(200);
      expect(ok.text).toContain("mdg_http_requests_total");
    } finally {
      await t.close();
    }
  });
});
