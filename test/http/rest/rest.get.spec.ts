import type { Response } from "supertest";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";

/**
 * `GET /v0|v1/<path>?…` on every read endpoint whose body is flat: the same answer, status and headers as the POST of
 * the same fields, with `Cache-Control: private, max-age=…` on a 200 and `no-store` otherwise. The requests are the
 * served OpenAPI document's own examples (which name this store's securities), so every endpoint is asked.
 */
let t: TestApp;
let doc: { paths: Record<string, { get?: unknown; post?: PostOperation }> };

interface PostOperation {
  requestBody?: { content: { "application/json": { examples?: Record<string, { value: Record<string, unknown> }> } } };
}

beforeAll(async () => {
  t = await createTestApp();
  doc = (await t.http.get("/openapi.json")).body;
});
afterAll(() => t.close());

/** The fields of a body as a query string: a list as a repeated key. */
function queryOf(body: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(body)) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, String(v));
  }
  return params.toString();
}

/** What two answers to the same question must share: everything but the request id, the date and the counters. */
function comparable(res: Response) {
  const { requestId: _id, ...body } = res.body as Record<string, unknown>;
  const headers = Object.fromEntries(
    Object.entries(res.headers).filter(
      ([k]) => !["x-request-id", "date", "ratelimit", "cache-control", "content-length", "etag"].includes(k),
    ),
  );
  return { status: res.status, body, headers };
}

function examplesOf(path: string): Record<string, unknown>[] {
  const examples = doc.paths[path]!.post!.requestBody?.content["application/json"].examples ?? {};
  return Object.values(examples).map((e) => e.value);
}

describe("GET on every read endpoint with a flat body", () => {
  it("is offered on every path but bulk, screener and portfolio (lists of objects), documented with queries", () => {
    const withGet = Object.keys(doc.paths).filter((p) => doc.paths[p]!.get);
    const without = Object.keys(doc.paths).filter((p) => !doc.paths[p]!.get);
    const portfolio = ["allocation", "chart", "metric", "metrics", "price", "region", "sector", "stats"].flatMap(
      (p) => [`/v0/portfolio/${p}`, `/v1/portfolio/${p}`],
    );
    expect(without.sort()).toEqual(["/v0/bulk", "/v1/bulk", "/v0/screener", "/v1/screener", ...portfolio].sort());
    expect(withGet.length).toBeGreaterThan(50);
  });

  it("answers what the POST answers, for every example of every endpoint, with a private Cache-Control", async () => {
    let asked = 0;
    for (const path of Object.keys(doc.paths)) {
      if (!doc.paths[path]!.get || path.endsWith("/status") || path.endsWith("/quota")) continue;
      for (const body of examplesOf(path)) {
        const post = await t.post(path, body).ok(() => true);
        const get = await t.http
          .get(`${path}?${queryOf(body)}`)
          .set("x-api-key", BOOTSTRAP_KEY)
          .ok(() => true);
        expect({ path, asked: body, ...comparable(get) }).toEqual({ path, asked: body, ...comparable(post) });
        if (get.status === 200) expect(get.headers["cache-control"]).toMatch(/^private, max-age=[1-9]\d*$/);
        else expect(get.headers["cache-control"]).toBe("no-store");
        expect(post.headers["cache-control"]).toBeUndefined();
        asked++;
      }
    }
    expect(asked).toBeGreaterThan(50);
  });

  it("keeps quotes short and reference data longer", async () => {
    const fund = examplesOf("/v1/fund/profile")[0]!;
    const quote = await t.http.get("/v1/quote?symbol=BTC-USD").set("x-api-key", BOOTSTRAP_KEY);
    const profile = await t.http.get(`/v1/fund/profile?${queryOf(fund)}`).set("x-api-key", BOOTSTRAP_KEY);
    expect(quote.headers["cache-control"]).toBe("private, max-age=5");
    expect(profile.headers["cache-control"]).toBe("private, max-age=3600");
  });

  it("reads numbers, lists and day texts from the query as the body's schema does", async () => {
    const list = await t.http.get("/v1/list/etfs?limit=2").set("x-api-key", BOOTSTRAP_KEY);
    expect(list.status).toBe(200);
    expect(list.body.results).toHaveLength(2);
    const search = await t.http
      .get("/v1/search?query=bitcoin&types=crypto&types=forex&limit=3")
      .set("x-api-key", BOOTSTRAP_KEY);
    expect(search.status).toBe(200);
    expect(search.body.results.every((r: { type: string }) => ["crypto", "forex"].includes(r.type))).toBe(true);
    const byDay = await t.http
      .get("/v1/candle?symbol=BTC-USD&resolution=W&from=2026-01-01")
      .set("x-api-key", BOOTSTRAP_KEY);
    const bySecond = await t.http
      .get(`/v1/candle?symbol=BTC-USD&resolution=W&from=${Date.parse("2026-01-01T00:00:00Z") / 1000}`)
      .set("x-api-key", BOOTSTRAP_KEY);
    expect(byDay.status).toBe(200);
    expect(bySecond.body.t).toEqual(byDay.body.t);
  });

  it("refuses what the POST refuses, with its message and no-store", async () => {
    const get = await t.http.get("/v1/list/etfs?limit=many").set("x-api-key", BOOTSTRAP_KEY);
    const post = await t.post("/v1/list/etfs", { limit: "many" });
    expect(get.status).toBe(404);
    expect(get.body.message).toBe(post.body.message);
    expect(get.headers["cache-control"]).toBe("no-store");
    const twice = await t.http.get("/v1/quote?symbol=BTC-USD&symbol=ETH-USD").set("x-api-key", BOOTSTRAP_KEY);
    expect(twice.status).toBe(404);
    expect(twice.body.code).toBe("INVALID_ARGUMENT");
    const noKey = await t.http.get("/v1/quote?symbol=BTC-USD");
    expect(noKey.status).toBe(401);
  });

  it("leaves bulk POST only", async () => {
    const res = await t.http.get("/v1/bulk?endpoint=quote&symbols=BTC-USD").set("x-api-key", BOOTSTRAP_KEY);
    expect(res.status).toBe(404);
    expect(res.body.message).toMatch(/answers POST only/);
  });
});
