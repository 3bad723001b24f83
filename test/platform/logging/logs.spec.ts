import { Writable } from "node:stream";
import { createLogger } from "../../../src/platform/logger";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";

/** Collects the JSON lines a logger writes. */
function captured() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  return { stream, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe("logs", () => {
  let t: TestApp;
  const out = captured();
  let createdKey: string;

  beforeAll(async () => {
    t = await createTestApp({ logger: createLogger({ logLevel: "info", nodeEnv: "production" }, out.stream) });
    createdKey = (await t.apiKeys.create({ name: "log-test", scopes: ["*"] })).key;
  });
  afterAll(() => t.close());

  it("write one JSON line per request with request id, method, route, path, status and latency", async () => {
    const res = await t.http
      .post("/v1/crypto/price?trace=1")
      .set("x-api-key", createdKey)
      .set("x-request-id", "log-test-1")
      .send({ symbol: "BTC-USD" });
    expect(res.status).toBe(200);
    const line = out.records().find((r) => r.requestId === "log-test-1");
    expect(line).toMatchObject({
      level: 30,
      service: "market-data-gateway",
      msg: "request",
      requestId: "log-test-1",
      method: "POST",
      route: "/v1/crypto/price",
      path: "/v1/crypto/price",
      status: 200,
    });
    expect(typeof line!.ms).toBe("number");
    expect(typeof line!.time).toBe("number");
  });

  it("never write an API key: not of a good call, a refused one, or the bootstrap key", async () => {
    await t.http.post("/v1/quote").set("x-api-key", createdKey).send({ symbol: "BTC-USD" }).expect(200);
    await t.http
      .post("/v1/quote")
      .set("x-api-key", "mdg_this-key-does-not-exist-000000")
      .send({ symbol: "BTC-USD" })
      .expect(401);
    await t.http.post("/v1/quote").set("x-api-key", BOOTSTRAP_KEY).send({ symbol: "BTC-USD" }).expect(200);
    await t.http
      .post("/graphql")
      .set("content-type", "application/json")
      .set("x-api-key", "mdg_bad-graphql-key-1111111111")
      .send({ query: "{ __typename }" });
    const text = out.lines.join("\n");
    expect(out.records().filter((r) => r.msg === "request").length).toBeGreaterThanOrEqual(5);
    for (const secret of [
      createdKey,
      "mdg_this-key-does-not-exist-000000",
      BOOTSTRAP_KEY,
      "mdg_bad-graphql-key-1111111111",
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(out.records().find((r) => r.status === 401 && r.route === "/v1/quote")).toBeDefined();
  });

  it("redact a key even where code logs one by mistake", () => {
    const log = createLogger({ logLevel: "info", nodeEnv: "production" }, out.stream);
    log.info({ req: { headers: { "x-api-key": "mdg_logged-by-mistake" } }, apiKey: "mdg_logged-by-mistake-2" }, "oops");
    expect(out.lines.join("\n")).not.toContain("mdg_logged-by-mistake");
    expect(out.records().find((r) => r.msg === "oops")).toMatchObject({
      apiKey: "[redacted]",
      req: { headers: { "x-api-key": "[redacted]" } },
    });
  });
});
