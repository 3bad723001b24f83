import request from "supertest";
import { RELAYED, modelMismatches } from "../domain/relay/relay.sdk";
import { expectErrorBody } from "../helpers/expect";
import { startFaultProxy, type FaultProxy } from "../helpers/fault-proxy";
import { GATEWAY_KEY, startGateway, type TestGateway } from "../helpers/gateway";
import { validatingAgent } from "../helpers/openapi";
import { recordedAnswer, startRecordedUpstream, type RecordedUpstream } from "../helpers/recorded-upstream";

/**
 * Gateway mode passes the endpoints no store serves to its upstream and answers what it answered, with the gateway's
 * cache and failure rules (docs/contract.md section 9). The upstream answers the Bavest Python SDK's own fixtures
 * (recorded-upstream.ts), since a second instance of this service answers these NOT_AVAILABLE; a fault proxy between
 * them counts the calls and injects failures. Every answer is checked against the OpenAPI document and parsed
 * against the Python SDK's model as it declares it (relay.sdk.ts).
 */
let upstream: RecordedUpstream;
let proxy: FaultProxy;
let gateway: TestGateway;
let http: ReturnType<typeof request>;
const others: TestGateway[] = [];

beforeAll(async () => {
  upstream = await startRecordedUpstream();
  proxy = await startFaultProxy(upstream.url);
  gateway = await startGateway(upstream, proxy, { MDG_UPSTREAM_RETRIES: "0" });
  http = validatingAgent(request(gateway.app));
});

afterEach(() => proxy.fault(null));

afterAll(async () => {
  for (const g of others) await g.close();
  await gateway?.close();
  await proxy?.close();
  await upstream?.close();
});

const post = (h: ReturnType<typeof request>, path: string, body: unknown) =>
  h.post(path).set("content-type", "application/json").set("x-api-key", GATEWAY_KEY).send(JSON.stringify(body));

describe.each(RELAYED)("$path through the gateway", (c) => {
  it("answers the upstream's answer to the Python SDK's body on /v0 and /v1, asked once, in its model", async () => {
    proxy.resetCounts();
    const want = recordedAnswer(c.path);
    for (const v of ["v0", "v1"]) {
      const res = await post(http, `/${v}/${c.path}`, c.python.body).expect(200);
      expect(res.body).toEqual(want);
      expect(res.headers["x-data-stale"]).toBeUndefined();
      expect({ path: c.path, mismatches: modelMismatches(res.body, c.model) }).toEqual({
        path: c.path,
        mismatches: [],
      });
    }
    // The second version's call was the same upstream request: the cache answered it.
    expect(proxy.count(`/v0/${c.path}`)).toBe(1);
    expect(proxy.count()).toBe(1);
  });
});

it("passes the request as the client named it: identifiers as sent, SDK times as whole Unix seconds", async () => {
  await post(http, "/v1/stock/ipo/prospectus", { from: 1_667_260_800.25, to: "1670371200750" }).expect(200);
  expect(upstream.received("/v0/stock/ipo/prospectus").at(-1)).toEqual({ from: 1_667_260_800, to: 1_670_371_200 });
  await post(http, "/v1/calender/economics", { event: "economics", from: "2022-11-01" }).expect(200);
  expect(upstream.received("/v0/calender/economics").at(-1)).toEqual({ event: "economics", from: 1_667_260_800 });
  await post(http, "/v1/news", { ignored: true }).expect(200);
  expect(upstream.received("/v0/news").at(-1)).toEqual({});
});

it("the upstream's 404 is ours: the Dart client's ISIN the recording does not know is NOT_FOUND", async () => {
  for (const c of RELAYED.filter((r) => r.dart && "isin" in r.dart.body)) {
    const res = await post(http, `/v1/${c.path}`, c.dart!.body);
    expectErrorBody(res, 404, "NOT_FOUND");
    expect(upstream.received(`/v0/${c.path}`).at(-1)).toEqual(c.dart!.body);
  }
  for (const c of RELAYED.filter((r) => r.dart && "symbol" in r.dart.body)) {
    expect((await post(http, `/v1/${c.path}`, c.dart!.body).expect(200)).body).toEqual(recordedAnswer(c.path));
  }
});

it("a failing upstream: 500 UPSTREAM_UNAVAILABLE without a good answer, else the last good one, stale", async () => {
  const g = await startGateway(upstream, proxy, { MDG_UPSTREAM_TTL_REFERENCE_S: "0", MDG_UPSTREAM_RETRIES: "0" });
  others.push(g);
  const h = validatingAgent(request(g.app));
  proxy.fault({ kind: "status", status: 503 });
  expectErrorBody(await post(h, "/v1/sentiment", { symbol: "AAPL" }), 500, "UPSTREAM_UNAVAILABLE");
  proxy.fault(null);
  const fresh = await post(h, "/v1/sentiment", { symbol: "AAPL" }).expect(200);
  expect(fresh.headers["x-data-stale"]).toBeUndefined();
  proxy.fault({ kind: "status", status: 503 });
  const stale = await post(h, "/v1/sentiment", { symbol: "AAPL" }).expect(200);
  expect(stale.headers["x-data-stale"]).toBe("true");
  expect(Number(stale.headers.age)).toBeGreaterThanOrEqual(0);
  expect(stale.body).toEqual(fresh.body);
  // A 404 is never served stale.
  proxy.fault(null);
  expectErrorBody(await post(h, "/v1/sentiment", { symbol: "NOPE" }), 404, "NOT_FOUND");
  proxy.fault({ kind: "status", status: 503 });
  expectErrorBody(await post(h, "/v1/sentiment", { symbol: "NOPE" }), 500, "UPSTREAM_UNAVAILABLE");
});

it("GraphQL and bulk answer the same upstream answer", async () => {
  const gql = await http
    .post("/graphql")
    .set("content-type", "application/json")
    .set("x-api-key", GATEWAY_KEY)
    .send({ query: '{ stockEsg(symbol: "AAPL") economicCalendar(event: "economics", from: 1667260800) marketNews }' })
    .expect(200);
  expect(gql.body.errors).toBeUndefined();
  expect(gql.body.data.stockEsg).toEqual(recordedAnswer("stock/esg"));
  expect(gql.body.data.economicCalendar).toEqual(recordedAnswer("calender/economics"));
  expect(gql.body.data.marketNews).toEqual(recordedAnswer("news"));

  const bulk = await post(http, "/v1/bulk", { endpoint: "stock/analyst_estimates", symbols: [{ symbol: "AAPL" }] });
  expect(bulk.status).toBe(200);
  expect(bulk.body.results).toEqual([
    { symbol: "AAPL", statusCode: 200, data: recordedAnswer("stock/analyst_estimates") },
  ]);
});

it("the upstream's key appears in no answer", async () => {
  const res = await post(http, "/v1/stock/news", { symbol: "AAPL" }).expect(200);
  expect(JSON.stringify(res.headers) + res.text).not.toContain(upstream.key);
});
