import { expectErrorBody } from "../../helpers/expect";
import { createTestApp, type TestApp } from "../../helpers/app";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe.each(["v0", "v1"])("the five-status rule on /%s", (v) => {
  it("answers 401 UNAUTHENTICATED without a key, whatever the body", async () => {
    const res = await t.post(`/${v}/crypto/price`, '{"symbol":', null);
    expectErrorBody(res, 401, "UNAUTHENTICATED");
  });

  it("answers 401 for an empty, unknown or garbage key with the same message", async () => {
    const messages = new Set<string>();
    for (const key of ["", "nope", "mdg_" + "x".repeat(43), "\u00ff\u00fe"]) {
      const res = await t.http.post(`/${v}/crypto/price`).set("x-api-key", key).send({ symbol: "BTC-USD" });
      expectErrorBody(res, 401, "UNAUTHENTICATED");
      messages.add(res.body.message);
    }
    expect(messages.size).toBe(1);
  });

  it("answers 401 for a revoked key and 403 FORBIDDEN for a key lacking the scope", async () => {
    const etfOnly = await t.apiKeys.create({ name: "etf-only", scopes: ["etf"] });
    const denied = await t.post(`/${v}/crypto/price`, { symbol: "BTC-USD" }, etfOnly.key);
    expectErrorBody(denied, 403, "FORBIDDEN");
    expect(denied.body.message).toContain("crypto");
    expect(JSON.stringify(denied.body)).not.toContain(etfOnly.key);

    const revoked = await t.apiKeys.create({ name: "revoked", scopes: ["*"] });
    await t.apiKeys.revoke(revoked.row.id);
    // A fresh service has no cached lookup of this key.
    const fresh = await createTestApp();
    try {
      expectErrorBody(
        await fresh.post(`/${v}/crypto/price`, { symbol: "BTC-USD" }, revoked.key),
        401,
        "UNAUTHENTICATED",
      );
    } finally {
      await fresh.close();
    }
  });

  it("answers 404 NOT_FOUND for an unknown symbol", async () => {
    const res = await t.post(`/${v}/crypto/price`, { symbol: "NOPE-USD" });
    expectErrorBody(res, 404, "NOT_FOUND");
    expect(res.body.message).toContain("NOPE-USD");
  });

  it.each([
    ['{"symbol":', "body"],
    ["[1,2]", "body"],
    ['"BTC-USD"', "body"],
    ["null", "body"],
    ["{}", "symbol"],
    ['{"symbol":42}', "symbol"],
    ['{"symbol":""}', "symbol"],
    ['{"symbol":["BTC-USD"]}', "symbol"],
  ])("answers 404 INVALID_ARGUMENT for the body %s, naming %s", async (body, field) => {
    const res = await t.post(`/${v}/crypto/price`, body);
    expectErrorBody(res, 404, "INVALID_ARGUMENT");
    expect(res.body.message.startsWith(`${field}:`)).toBe(true);
    expect(res.body.details[0].field).toBe(field);
  });

  it("answers 404 INVALID_ARGUMENT, not 413, for a body over the limit", async () => {
    const res = await t.post(`/${v}/crypto/price`, JSON.stringify({ symbol: "BTC-USD", pad: "x".repeat(200 * 1024) }));
    expectErrorBody(res, 404, "INVALID_ARGUMENT");
    expect(res.body.message).toContain("limit");
  });

  it("answers 404, not 415, for an unsupported content encoding", async () => {
    const res = await t.http
      .post(`/${v}/crypto/price`)
      .set("x-api-key", "test-bootstrap-key-0123456789")
      .set("content-type", "application/json")
      .set("content-encoding", "br-nonsense")
      .send('{"symbol":"BTC-USD"}');
    expectErrorBody(res, 404, "INVALID_ARGUMENT");
  });

  it("answers 404, not 405, for a wrong method, and 404 for an unknown path", async () => {
    // GET reads an endpoint whose body is flat (rest.get.spec.ts); the others are no method of this API.
    for (const method of ["put", "delete", "patch"] as const) {
      const res = await t.http[method](`/${v}/crypto/price`).set("x-api-key", "test-bootstrap-key-0123456789");
      expectErrorBody(res, 404, "NOT_FOUND");
    }
    expectErrorBody(await t.post(`/${v}/no/such/endpoint`, {}), 404, "NOT_FOUND");
  });

  it("accepts JSON sent as text/plain, with no content type, and any Accept", async () => {
    const plain = await t.http
      .post(`/${v}/crypto/price`)
      .set("x-api-key", "test-bootstrap-key-0123456789")
      .set("content-type", "text/plain")
      .set("accept", "text/plain")
      .send('{"symbol":"BTC-USD"}');
    expect(plain.status).toBe(200);
    expect(plain.headers["content-type"]).toMatch(/^application\/json/);
    expect(plain.body.symbol).toBe("BTC-USD");
  });

  it("ignores fields beyond those listed", async () => {
    const res = await t.post(`/${v}/crypto/price`, { symbol: "BTC-USD", currency: "EUR", extra: { deep: [1] } });
    expect(res.status).toBe(200);
  });
});

describe("versions", () => {
  it("carries Deprecation, Sunset and Link on every /v0 answer, errors included", async () => {
    for (const res of [await t.post("/v0/quote", { symbol: "BTC-USD" }), await t.post("/v0/quote", {}, null)]) {
      expect(res.headers["deprecation"]).toBe("@1735689599");
      expect(res.headers["sunset"]).toBe("Tue, 31 Dec 2024 23:59:59 GMT");
      expect(res.headers["link"]).toBe('</v1/quote>; rel="successor-version"');
    }
  });

  it("carries none of them on /v1", async () => {
    const res = await t.post("/v1/quote", { symbol: "BTC-USD" });
    expect(res.status).toBe(200);
    expect(res.headers["deprecation"]).toBeUndefined();
    expect(res.headers["sunset"]).toBeUndefined();
  });
});

describe("request ids and internal errors", () => {
  it("keeps a sane incoming x-request-id and echoes it in the error body", async () => {
    const res = await t.http.post("/v1/quote").set("x-request-id", "trace-123").send({});
    expect(res.headers["x-request-id"]).toBe("trace-123");
    expect(res.body.requestId).toBe("trace-123");
  });

  it("answers 500 INTERNAL without internals when the store fails", async () => {
    const broken = await createTestApp();
    await broken.source.close();
    const res = await broken.post("/v1/quote", { symbol: "BTC-USD" });
    expectErrorBody(res, 500, "INTERNAL");
    expect(res.body.message).toBe("internal error");
    expect(JSON.stringify(res.body)).not.toMatch(/sqlite|at .*\.ts|stack/i);
  });
});
