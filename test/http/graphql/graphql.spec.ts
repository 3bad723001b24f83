import { createTestApp, type TestApp } from "../../helpers/app";
import { gql as gqlRequest } from "../../helpers/graphql";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const gql = (query: string, variables?: Record<string, unknown>, key?: string | null) =>
  gqlRequest(t, query, variables, key);

function topSymbols(n: number): string[] {
  return (
    t.source.db
      .prepare(`SELECT l.symbol FROM listings l JOIN quotes q ON q.listing_id = l.id ORDER BY l.id LIMIT ?`)
      .all(n) as { symbol: string }[]
  ).map((r) => r.symbol);
}

describe("POST /graphql", () => {
  it("answers a quote with the same numbers as REST", async () => {
    const res = await gql(`{ quote(symbol: "BTC-USD") { symbol c pc currency historicalPrice { day } } }`);
    expect(res.status).toBe(200);
    const rest = await t.post("/v1/quote", { symbol: "BTC-USD" });
    expect(res.body.data.quote).toEqual({
      symbol: "BTC-USD",
      c: rest.body.c,
      pc: rest.body.pc,
      currency: "USD",
      historicalPrice: { day: rest.body.historical_price.day },
    });
  });

  it("runs 50 aliased quote fields as one store query", async () => {
    const symbols = topSymbols(50);
    const query = `{ ${symbols.map((s, i) => `q${i}: quote(symbol: ${JSON.stringify(s)}) { symbol c }`).join(" ")} }`;
    const { result: res, queries } = await t.countQueries(() => gql(query));
    expect(res.body.errors).toBeUndefined();
    expect(Object.keys(res.body.data)).toHaveLength(50);
    expect(symbols.map((_, i) => res.body.data[`q${i}`].symbol)).toEqual(symbols);
    expect(queries).toBe(1);
  });

  it("answers 401 UNAUTHENTICATED without a key and for a bad key, with no data", async () => {
    const anon = await gql(`{ quote(symbol: "BTC-USD") { c } }`, undefined, null);
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: "UNAUTHENTICATED" } }] });
    const bad = await gql(`{ quote(symbol: "BTC-USD") { c } }`, undefined, "wrong");
    expect(bad.status).toBe(401);
    expect(bad.body.errors[0].extensions.code).toBe("UNAUTHENTICATED");
    expect(JSON.stringify(bad.body)).not.toContain("wrong");
  });

  it("maps typed errors to extensions.code", async () => {
    const nf = await gql(`{ cryptoPrice(symbol: "NOPE-USD") { price } }`);
    expect(nf.body.errors[0].extensions.code).toBe("NOT_FOUND");
    const bad = await gql(`{ search(query: "") { statusCode } }`);
    expect(bad.body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
    const etfOnly = await t.apiKeys.create({ name: "gql-etf", scopes: ["etf"] });
    const forbidden = await gql(`{ cryptoPrice(symbol: "BTC-USD") { price } }`, undefined, etfOnly.key);
    expect(forbidden.body.errors[0].extensions.code).toBe("FORBIDDEN");
  });

  it("serves GraphiQL to a browser GET without touching the internet", async () => {
    const res = await t.http.get("/graphql").set("accept", "text/html");
    expect(res.status).toBe(200);
    expect(res.text).toContain("graphiql");
    expect(res.text).not.toMatch(/https?:\/\/(?!localhost)/);
  });
});

describe("health", () => {
  it("answers /healthz and /readyz without a key", async () => {
    expect((await t.http.get("/healthz")).body).toEqual({ status: "ok" });
    const ready = await t.http.get("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe("ready");
  });
});
