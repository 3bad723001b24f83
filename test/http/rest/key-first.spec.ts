import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";

/**
 * Spec section 5, docs/contract.md section 2: the key is checked before anything about the path, so an unknown path
 * cannot be told from a known one without a valid key. The open pages stay open.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const UNKNOWN = ["/v0/no/such/endpoint", "/v1/nope", "/v1", "/nope", "/api/v1/quote", "/graphql/extra", "/admin"];

describe("the key before the path", () => {
  it.each(UNKNOWN)("%s: 401 without a key, 401 with an invalid one, 404 with a valid one", async (path) => {
    expectErrorBody(await t.http.post(path).send({}), 401, "UNAUTHENTICATED");
    expectErrorBody(await t.http.get(path), 401, "UNAUTHENTICATED");
    expectErrorBody(await t.http.post(path).set("x-api-key", "not-a-key").send({}), 401, "UNAUTHENTICATED");
    const known = await t.http.post(path).set("x-api-key", BOOTSTRAP_KEY).send({});
    expectErrorBody(known, 404, "NOT_FOUND");
  });

  it("answers a known path with a wrong method 401 without a key, 404 with one", async () => {
    expectErrorBody(await t.http.delete("/v1/quote"), 401, "UNAUTHENTICATED");
    expectErrorBody(await t.http.delete("/v1/quote").set("x-api-key", BOOTSTRAP_KEY), 404, "NOT_FOUND");
    expectErrorBody(await t.http.get("/v1/bulk").set("x-api-key", BOOTSTRAP_KEY), 404, "NOT_FOUND");
  });

  it("tells an unknown path from a known one by nothing without a key", async () => {
    const known = await t.http.post("/v1/quote").send({ symbol: "BTC-USD" });
    const unknown = await t.http.post("/v1/quotes-of-everything").send({ symbol: "BTC-USD" });
    expect([known.status, unknown.status]).toEqual([401, 401]);
    expect(unknown.body.message).toBe(known.body.message);
  });

  it("keeps the open pages open: health, readiness, OpenAPI, GraphiQL", async () => {
    expect((await t.http.get("/healthz")).status).toBe(200);
    expect((await t.http.get("/readyz")).status).toBe(200);
    expect((await t.http.get("/openapi.json")).status).toBe(200);
    const page = await t.http.get("/graphql").set("accept", "text/html");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/text\/html/);
  });

  it("never asks a preflight (OPTIONS) for a key", async () => {
    for (const path of ["/v1/quote", "/v1/nope", "/nope"]) {
      const res = await t.http.options(path).set("origin", "http://example.test");
      expect({ path, status: res.status }).not.toEqual({ path, status: 401 });
    }
  });
});
