import Database from "better-sqlite3";
import request from "supertest";
import { CompiledOperations } from "../../src/http/graphql/graphql.compiled";
import { corpus, KEPT_HEADERS, withoutRequestIds, type Ask } from "../helpers/answers";
import { TEST_STORE_PATH } from "../helpers/constants";
import { startFaultProxy, type FaultProxy } from "../helpers/fault-proxy";
import { GATEWAY_KEY, startGateway, type TestGateway } from "../helpers/gateway";
import { startUpstream, type TestUpstream } from "../helpers/upstream";

/**
 * Gateway mode end to end: a gateway built by the source factory, a fault proxy, and a second instance
 * of this service as the upstream. The proxy counts what reaches the upstream.
 */
let upstream: TestUpstream;
let proxy: FaultProxy;
let gateway: TestGateway;
let stocks: string[];
/** Every answer body and header block the gateways gave, for the test that no upstream key leaks. */
const seen: string[] = [];
const others: TestGateway[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
  proxy = await startFaultProxy(upstream.url);
  // Some answers of the list (three years of daily ETF metrics) take the upstream seconds on a busy machine: the
  // comparison is about what is answered, so the timeout only catches hangs here.
  gateway = await startGateway(upstream, proxy, { MDG_UPSTREAM_TIMEOUT_MS: "20000" });
  const list = await upstream.app.post("/v0/list/stocks", { limit: 400 }).expect(200);
  stocks = (list.body as { results: { symbol: string }[] }).results.map((s) => s.symbol);
});

afterEach(() => proxy.fault(null));

afterAll(async () => {
  for (const g of others) await g.close();
  await gateway?.close();
  await proxy?.close();
  await upstream?.close();
});

async function ask(http: ReturnType<typeof request>, a: Ask, key: string | null): Promise<request.Response> {
  let r = http.post(a.path).set("content-type", "application/json");
  if (key !== null) r = r.set("x-api-key", key);
  return typeof a.body === "string" ? r.send(a.body) : r.send(JSON.stringify(a.body ?? {}));
}

const keptHeaders = (res: request.Response) =>
  Object.fromEntries(KEPT_HEADERS.filter((h) => res.headers[h] !== undefined).map((h) => [h, res.headers[h]]));

function remember(res: request.Response): request.Response {
  seen.push(JSON.stringify(res.headers), res.text);
  return res;
}

async function another(env: NodeJS.ProcessEnv = {}): Promise<TestGateway> {
  const g = await startGateway(upstream, proxy, env);
  others.push(g);
  return g;
}

it("answers the fixed requests (every REST endpoint, some GraphQL) as the upstream (request ids apart)", async () => {
  const db = new Database(TEST_STORE_PATH, { readonly: true, fileMustExist: true });
  const asks = corpus(db);
  db.close();
  const direct = request(upstream.app.app);
  const differences: string[] = [];
  for (const a of asks) {
    // The same key stands for "the client's": the gateway's own key at the gateway, the upstream's at the upstream.
    const mine = a.key === undefined ? GATEWAY_KEY : a.key;
    const theirs = a.key === undefined ? upstream.key : a.key;
    const [viaGateway, fromUpstream] = [remember(await ask(gateway.http, a, mine)), await ask(direct, a, theirs)];
    const got = {
      status: viaGateway.status,
      headers: keptHeaders(viaGateway),
      body: withoutRequestIds(viaGateway.body),
    };
    const want = {
      status: fromUpstream.status,
      headers: keptHeaders(fromUpstream),
      body: withoutRequestIds(fromUpstream.body),
    };
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      differences.push(
        `${a.name}\n  gateway:  ${JSON.stringify(got).slice(0, 400)}` +
          `\n  upstream: ${JSON.stringify(want).slice(0, 400)}`,
      );
    }
  }
  expect(asks.length).toBeGreaterThan(300);
  expect(differences).toEqual([]);
});

it("GraphQL quotes of 50 symbols cost one upstream call", async () => {
  const some = stocks.slice(100, 150);
  expect(some).toHaveLength(50);
  proxy.resetCounts();
  const res = remember(
    await gateway
      .post("/graphql", {
        query: 'query($s: [String!]!) { quotes(symbols: $s, currency: "EUR") { symbol currency } }',
        variables: { s: some },
      })
      .expect(200),
  );
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data.quotes.map((q: { symbol: string }) => q.symbol)).toEqual(some);
  expect(proxy.count()).toBe(1);
});

it("a REST bulk of 100 quotes costs one upstream call", async () => {
  const some = stocks.slice(150, 250);
  expect(some).toHaveLength(100);
  proxy.resetCounts();
  const res = remember(
    await gateway
      .post("/v1/bulk", { endpoint: "quote", symbols: some.map((symbol) => ({ symbol })), params: { currency: "GBP" } })
      .expect(200),
  );
  const results = res.body.results as { symbol: string; statusCode: number }[];
  expect(results.map((r) => [r.symbol, r.statusCode])).toEqual(some.map((s) => [s, 200]));
  expect(proxy.count()).toBe(1);
});

it("passes a candle's adjustment to the upstream, each adjustment its own cache entry", async () => {
  const symbol = stocks[270]!;
  const range = { symbol, from: "2026-06-01", to: "2026-09-30" };
  proxy.resetCounts();
  const plain = remember(await gateway.post("/v1/candle", range).expect(200));
  // `splits` named is the default's request: answered from the cache.
  const named = remember(await gateway.post("/v1/candle", { ...range, adjustment: "splits" }).expect(200));
  expect(named.body).toEqual(plain.body);
  expect(proxy.count("/v1/candle")).toBe(1);
  const none = remember(await gateway.post("/v1/candle", { ...range, adjustment: "none" }).expect(200));
  const all = remember(await gateway.post("/v1/candle", { ...range, adjustment: "all" }).expect(200));
  remember(await gateway.post("/v1/candle", { ...range, adjustment: "NONE" }).expect(200));
  expect(proxy.count("/v1/candle")).toBe(3);
  const sent = proxy.calls().map((c) => (JSON.parse(c.body) as { adjustment?: string }).adjustment);
  expect(sent).toEqual([undefined, "none", "all"]);
  expect(none.body.key).toBe(`${plain.body.key}:none`);
  expect(all.body.key).toBe(`${plain.body.key}:all`);
  const direct = await upstream.app.post("/v1/candle", { ...range, adjustment: "none" }, upstream.key);
  expect(none.body).toEqual(withoutRequestIds(direct.body));
});

it("marks a stale answer after the upstream failed: REST x-data-stale and Age, GraphQL extensions.stale", async () => {
  // Quotes expire at once here, so the second ask must go upstream, fail, and fall back to the last good answer.
  const g = await another({ MDG_UPSTREAM_TTL_QUOTE_S: "0", MDG_UPSTREAM_RETRIES: "0" });
  const symbol = stocks[260]!;
  const fresh = remember(await g.post("/v1/quote", { symbol }).expect(200));
  expect(fresh.headers["x-data-stale"]).toBeUndefined();
  proxy.fault({ kind: "status", status: 503 });
  const stale = remember(await g.post("/v1/quote", { symbol }).expect(200));
  expect(stale.headers["x-data-stale"]).toBe("true");
  expect(Number(stale.headers.age)).toBeGreaterThanOrEqual(0);
  expect(stale.body).toEqual(fresh.body);
  const gql = remember(
    await g.post("/graphql", {
      query: "query($s: String!) { quote(symbol: $s) { symbol c } }",
      variables: { s: symbol },
    }),
  );
  expect(gql.status).toBe(200);
  expect(gql.body.data.quote).toEqual({ symbol, c: fresh.body.c });
  expect(gql.body.extensions).toMatchObject({ stale: true });
  expect(typeof gql.body.extensions.staleAgeSeconds).toBe("number");
  // The same operation again: compiled by graphql-jit on its third run (graphql.compiled.ts), whose answer must be
  // marked stale alike, headers in the same order.
  const direct = jest.spyOn(CompiledOperations.prototype, "get");
  const names = (res: request.Response) => Object.keys(res.headers).filter((n) => n !== "date");
  try {
    for (let i = 0; i < 4; i++) {
      const again = await g.post("/graphql", {
        query: "query($s: String!) { quote(symbol: $s) { symbol c } }",
        variables: { s: symbol },
      });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({
        data: gql.body.data,
        extensions: { stale: true, staleAgeSeconds: expect.any(Number) },
      });
      expect(again.headers["x-data-stale"]).toBe("true");
      expect(Number(again.headers.age)).toBe(again.body.extensions.staleAgeSeconds);
      expect(names(again)).toEqual(names(gql));
    }
    expect(direct.mock.results.slice(-2).map((r) => !!r.value)).toEqual([true, true]);
  } finally {
    direct.mockRestore();
  }
  proxy.fault(null);
  const recovered = remember(await g.post("/v1/quote", { symbol }).expect(200));
  expect(recovered.headers["x-data-stale"]).toBeUndefined();
});

it("answers 500 UPSTREAM_UNAVAILABLE with the request id when the upstream is down and nothing is cached", async () => {
  const g = await another({ MDG_UPSTREAM_RETRIES: "0" });
  proxy.fault({ kind: "status", status: 500 });
  const res = remember(await g.post("/v1/quote", { symbol: stocks[270] }));
  expect(res.status).toBe(500);
  expect(res.body).toMatchObject({ statusCode: 500, code: "UPSTREAM_UNAVAILABLE" });
  expect(res.body.requestId).toBe(res.headers["x-request-id"]);
  const gql = remember(
    await g.post("/graphql", {
      query: "query($s: String!) { quote(symbol: $s) { c } }",
      variables: { s: stocks[271] },
    }),
  );
  expect(gql.body.errors[0].extensions).toMatchObject({
    code: "INTERNAL_SERVER_ERROR",
    reason: "UPSTREAM_UNAVAILABLE",
  });
});

it("answers the upstream's 401 (our configuration is wrong) as 500, never as the client's 401", async () => {
  const g = await another();
  proxy.fault({ kind: "status", status: 401 });
  const res = remember(await g.post("/v1/quote", { symbol: stocks[280] }));
  expect(res.status).toBe(500);
  expect(res.body.code).toBe("UPSTREAM_UNAVAILABLE");
  const bulk = remember(await g.post("/v1/bulk", { endpoint: "quote", symbols: [{ symbol: stocks[281] }] }));
  expect(bulk.status).toBe(200);
  expect(bulk.body.results[0]).toMatchObject({ statusCode: 500, error: { code: "UPSTREAM_UNAVAILABLE" } });
});

it("reports the upstream's state on /readyz", async () => {
  const res = remember(await gateway.http.get("/readyz").expect(200));
  expect(res.body).toMatchObject({ status: "ready", dataSource: "upstream", upstream: { breaker: "closed" } });
});

it("serves the upstream client's metrics on /metrics beside the app's", async () => {
  remember(await gateway.post("/v1/quote", { symbol: stocks[290] }).expect(200));
  const res = remember(await gateway.http.get("/metrics").expect(200));
  expect(res.text).toMatch(/^# HELP mdg_http_request_duration_seconds /m);
  expect(res.text).toMatch(/^mdg_upstream_request_duration_seconds_count\{/m);
  expect(res.text).toMatch(/^mdg_upstream_breaker_state /m);
});

it("answers what the upstream does not serve with 404 NOT_AVAILABLE", async () => {
  const res = remember(
    await gateway.post("/graphql", { query: '{ indexConstituents(symbol: "SPX") { symbol } }' }).expect(200),
  );
  expect(res.body.errors[0].extensions).toMatchObject({ code: "NOT_FOUND", reason: "NOT_AVAILABLE" });
  const name = remember(
    await gateway.post("/graphql", {
      query: "query($s: String!) { quote(symbol: $s) { symbol name } }",
      variables: { s: stocks[0] },
    }),
  );
  expect(name.body.errors[0].extensions).toMatchObject({ code: "NOT_FOUND", reason: "NOT_AVAILABLE" });
});

it("never shows the upstream key in an answer or a log line", () => {
  const logs = [gateway, ...others].flatMap((g) => g.logs);
  expect(seen.length).toBeGreaterThan(300);
  expect(logs.length).toBeGreaterThan(0);
  for (const text of [...seen, ...logs]) expect(text).not.toContain(upstream.key);
});
