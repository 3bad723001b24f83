import { createHash } from "node:crypto";
import { Writable } from "node:stream";
import { loadConfig } from "../../../src/platform/config";
import { createLogger } from "../../../src/platform/logger";
import { createTestApp, type TestApp } from "../../helpers/app";
import { manualClock } from "../../helpers/clock";
import { BOOTSTRAP_KEY, TEST_ANCHOR } from "../../helpers/constants";
import { expectErrorBody } from "../../helpers/expect";

/**
 * Keys: the same 401 for missing, empty, unknown, revoked and expired keys,
 * over REST and /graphql; and a key never shows up in the logs (the service's
 * own logger at its most verbose), in an error body or in /metrics, whatever
 * the request did with it.
 */
const clock = manualClock(`${TEST_ANCHOR}T15:00:00Z`);
const logs: string[] = [];
let t: TestApp;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  // The production logger (redaction and all), at its lowest level, writing JSON lines to memory.
  const logger = createLogger(loadConfig({ LOG_LEVEL: "trace", NODE_ENV: "test" }), sink);
  t = await createTestApp({ clock, logger });
});
afterAll(() => t.close());
beforeEach(() => clock.set(`${TEST_ANCHOR}T15:00:00Z`));

describe("one 401 for every key that does not work", () => {
  it("answers missing, empty, unknown, revoked and expired keys alike on REST and /graphql", async () => {
    const revoked = await t.apiKeys.create({ name: "leak-revoked", scopes: ["*"] });
    await t.apiKeys.revoke(revoked.row.id);
    const expiring = await t.apiKeys.create({
      name: "leak-expiring",
      scopes: ["*"],
      expiresAt: new Date(`${TEST_ANCHOR}T16:00:00Z`),
    });
    expect((await t.post("/v1/crypto/price", { symbol: "BTC-USD" }, expiring.key)).status).toBe(200);
    clock.set(`${TEST_ANCHOR}T16:00:01Z`);

    const cases: Record<string, string | null> = {
      missing: null,
      empty: "",
      unknown: "mdg_" + "u".repeat(43),
      garbage: "not a key at all",
      revoked: revoked.key,
      expired: expiring.key,
    };
    const rest = new Set<string>();
    const graphql = new Set<string>();
    for (const key of Object.values(cases)) {
      const res = await t.post("/v1/crypto/price", { symbol: "BTC-USD" }, key);
      expectErrorBody(res, 401, "UNAUTHENTICATED");
      const { requestId: _id, ...body } = res.body;
      rest.add(
        JSON.stringify({
          body,
          headers: Object.keys(res.headers)
            .filter((h) => !["date", "x-request-id"].includes(h))
            .sort(),
        }),
      );

      let g = t.http.post("/graphql").set("content-type", "application/json");
      if (key !== null) g = g.set("x-api-key", key);
      const gres = await g.send({ query: `{ cryptoPrice(symbol: "BTC-USD") { price } }` });
      // No key at all, like any key that does not work, is a 401 before the document is read.
      expect(gres.status).toBe(401);
      graphql.add(JSON.stringify(gres.body));
    }
    expect(rest.size).toBe(1);
    expect(graphql.size).toBe(1);
  });
});

describe("a key never leaks", () => {
  it("is absent from every log line, error body and metric, whatever the request did with it", async () => {
    const { key } = await t.apiKeys.create({ name: "leak-check", scopes: ["crypto"] });
    const wrong = "mdg_" + "w".repeat(43);
    const secrets = [key, wrong, BOOTSTRAP_KEY];
    const bodies: string[] = [];
    const keep = (res: { text: string }) => bodies.push(res.text);

    // With the key where it belongs: answered, refused by scope, refused as malformed, and unknown paths.
    keep(await t.post("/v1/crypto/price", { symbol: "BTC-USD" }, key));
    keep(await t.post("/v1/etf/profile", { symbol: "QUEU" }, key));
    keep(await t.post("/v1/crypto/price", '{"symbol":', key));
    keep(await t.post("/v1/nope", {}, key));
    // A wrong key, a key pasted where it does not belong (body, path, query, another header).
    keep(await t.post("/v1/crypto/price", { symbol: "BTC-USD" }, wrong));
    keep(await t.post("/v1/crypto/price", { symbol: key }, key));
    keep(await t.post("/v1/quote", { symbol: wrong, isin: key, currency: key }, BOOTSTRAP_KEY));
    keep(await t.post(`/v1/${key}`, {}, key));
    keep(await t.post(`/v1/crypto/price?api_key=${key}`, { symbol: "BTC-USD" }, key));
    keep(await t.http.post("/v1/crypto/price").set("authorization", `Bearer ${key}`).send({ symbol: "BTC-USD" }));
    // Bulk echoes each item's `symbol` as sent (the contract's shape): only its error must not repeat the key.
    const bulk = await t.post(
      "/v1/bulk",
      { endpoint: "crypto/price", symbols: [{ symbol: key }, { symbol: "BTC-USD" }] },
      BOOTSTRAP_KEY,
    );
    expect(bulk.body.results[0].statusCode).toBe(404);
    bodies.push(JSON.stringify(bulk.body.results[0].error));
    // /graphql: with the key, a wrong key, a key in a variable and in an argument.
    keep(
      await t.http
        .post("/graphql")
        .set("x-api-key", key)
        .send({ query: `{ cryptoPrice(symbol: "BTC-USD") { price } }` }),
    );
    keep(
      await t.http
        .post("/graphql")
        .set("x-api-key", wrong)
        .send({ query: `{ cryptoPrice(symbol: "BTC-USD") { price } }` }),
    );
    keep(
      await t.http
        .post("/graphql")
        .set("x-api-key", key)
        .send({ query: `query($s: String!) { cryptoPrice(symbol: $s) { price } }`, variables: { s: key } }),
    );
    keep(
      await t.http
        .post("/graphql")
        .set("x-api-key", key)
        .send({ query: `{ quote(symbol: "${key}") { c } }` }),
    );
    // A fault of the service while the key is in hand: a closed store answers 500.
    const broken = await createTestApp({
      logger: createLogger(
        loadConfig({ LOG_LEVEL: "trace", NODE_ENV: "test" }),
        new Writable({ write: (c, _e, cb) => (logs.push(String(c)), cb()) }),
      ),
    });
    await broken.source.close();
    const fault = await broken.post("/v1/quote", { symbol: "BTC-USD" }, BOOTSTRAP_KEY);
    expect(fault.status).toBe(500);
    keep(fault);
    await broken.close();

    const metrics = await t.http.get("/metrics");
    bodies.push(metrics.text ?? "");

    expect(logs.length).toBeGreaterThan(10);
    const hashes = secrets.map((k) => createHash("sha256").update(k).digest("hex"));
    // Neither a key nor its hash (the stored form must not be copied around either).
    const leaks = [...logs.map((l) => `log: ${l}`), ...bodies.map((b) => `body: ${b}`)].filter((line) =>
      [...secrets, ...hashes].some((s) => line.includes(s)),
    );
    expect(leaks).toEqual([]);
  });
});
