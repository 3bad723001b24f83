import { getIntrospectionQuery, Kind, Lexer, parse, Source, TokenKind, type OperationDefinitionNode } from "graphql";
import { getComplexity } from "graphql-query-complexity";
import {
  costEstimator,
  introspectionBound,
  measureOperation,
} from "../../../src/http/graphql/graphql.operation-limits";
import { getSchema } from "../../../src/http/graphql/schema";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";

/**
 * GraphQL limits (docs/operations.md "Limits and hardening"): each at the limit and one
 * past it, refused before execution (no store query runs), whatever the
 * names say; introspection and suggestions follow NODE_ENV=production;
 * batches are refused unless enabled; REST and bulk are not subject to them.
 */
const LIMITS = {
  MDG_GRAPHQL_MAX_DEPTH: "4",
  MDG_GRAPHQL_MAX_ALIASES: "3",
  MDG_GRAPHQL_MAX_ROOT_FIELDS: "3",
  // Every operation costs 100 before its fields (COST_UNIT.operation): 100 left for them.
  MDG_GRAPHQL_MAX_COST: "200",
};

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: LIMITS });
});
afterAll(() => t.close());

function gql(app: TestApp, body: unknown, key: string | null = BOOTSTRAP_KEY) {
  let r = app.http.post("/graphql").set("content-type", "application/json");
  if (key !== null) r = r.set("x-api-key", key);
  return r.send(body as object);
}

/** Runs the query and answers the response with the number of store queries it caused. */
async function run(query: string, variables?: Record<string, unknown>, app = t) {
  const { result, queries } = await app.countQueries(() => gql(app, { query, variables }));
  return { res: result, queries };
}

async function expectRefused(query: string, reason: string, variables?: Record<string, unknown>) {
  const { res, queries } = await run(query, variables);
  expect({
    status: res.status,
    code: res.body.errors?.[0]?.extensions?.code,
    reason: res.body.errors?.[0]?.extensions?.reason,
  }).toEqual({
    status: 400,
    code: "GRAPHQL_VALIDATION_FAILED",
    reason,
  });
  expect(res.body.data).toBeUndefined();
  // Refused before execution: no resolver ran, so the store saw nothing (and no quota was charged).
  expect(queries).toBe(0);
  expect(res.headers["ratelimit"]).toBeUndefined();
  return res;
}

async function expectAccepted(query: string, variables?: Record<string, unknown>) {
  const { res, queries } = await run(query, variables);
  expect(res.status).toBe(200);
  expect(res.body.errors?.map((e: { extensions: { code: string } }) => e.extensions.code) ?? []).not.toContain(
    "GRAPHQL_VALIDATION_FAILED",
  );
  expect(queries).toBeGreaterThan(0);
  return res;
}

describe("depth (MDG_GRAPHQL_MAX_DEPTH=4)", () => {
  it("accepts 4 levels and refuses 5, with the limit and the depth", async () => {
    await expectAccepted(`{ etf(symbol: "QUEU") { fundamentals { valuation { asOf } } } }`);
    const res = await expectRefused(
      `{ etf(symbol: "QUEU") { fundamentals { valuation { marketCapBreakdown { large } } } } }`,
      "QUERY_TOO_DEEP",
    );
    expect(res.body.errors[0].extensions).toMatchObject({ limit: 4, actual: 5 });
  });

  it("counts the levels inside fragments and inline fragments", async () => {
    await expectRefused(
      '{ etf(symbol: "QUEU") { ...F } } ' +
        "fragment F on Etf { fundamentals { ... on EtfFundamentals { valuation { marketCapBreakdown { large } } } } }",
      "QUERY_TOO_DEEP",
    );
  });
});

describe("aliases (MDG_GRAPHQL_MAX_ALIASES=3)", () => {
  it("accepts 3 aliases and refuses 4", async () => {
    await expectAccepted(`{ quote(symbol: "BTC-USD") { a: c b: c c: c } }`);
    await expectRefused(`{ quote(symbol: "BTC-USD") { a: c b: c c: c d: c } }`, "TOO_MANY_ALIASES");
  });

  it("counts an aliased fragment once per use", async () => {
    await expectRefused(
      `{ quote(symbol: "BTC-USD") { ...A ...A } } fragment A on Quote { a: c b: d }`,
      "TOO_MANY_ALIASES",
    );
  });
});

describe("root fields (MDG_GRAPHQL_MAX_ROOT_FIELDS=3)", () => {
  it("accepts 3 root fields and refuses 4, fragments expanded", async () => {
    await expectAccepted(
      `{ quote(symbol: "BTC-USD") { c } cryptoPrice(symbol: "BTC-USD") { price } listCrypto(limit: 1) { nextCursor } }`,
    );
    await expectRefused(
      '{ quote(symbol: "BTC-USD") { c } ...R } ' +
        'fragment R on Query { cryptoPrice(symbol: "BTC-USD") { price } ' +
        "listCrypto(limit: 1) { nextCursor } listEtfs(limit: 1) { nextCursor } }",
      "TOO_MANY_ROOT_FIELDS",
    );
  });
});

describe("cost (MDG_GRAPHQL_MAX_COST=200)", () => {
  // An operation costs 100, and a page 1 + limit × (its item's objects): here 100 + 1 + limit × 1.
  it("accepts cost 200 and refuses 201, also when the size comes from a variable", async () => {
    await expectAccepted(`{ listStocks(limit: 99) { results { symbol } } }`);
    const res = await expectRefused(`{ listStocks(limit: 100) { results { symbol } } }`, "QUERY_TOO_COSTLY");
    expect(res.body.errors[0].extensions).toMatchObject({ limit: 200, actual: 201 });
    await expectRefused(`query($n: Int) { listStocks(limit: $n) { results { symbol } } }`, "QUERY_TOO_COSTLY", {
      n: 100,
    });
  });

  it("costs ranges by the days they span: 50 a candle and one unit per 6 days, three in another currency", async () => {
    // 20 years of daily bars: far over; 300 days: 100 + 50 + 50 = 200; 301 days: 201.
    await expectRefused(`{ candle(symbol: "BTC-USD", from: 0, to: 631152000) { c } }`, "QUERY_TOO_COSTLY");
    const to = 1_763_596_800;
    const candle = (days: number, currency = "") =>
      `{ candle(symbol: "BTC-USD", resolution: "D", from: ${to - days * 86_400}, to: ${to}${currency}) { c } }`;
    await expectAccepted(candle(300));
    const res = await expectRefused(candle(301), "QUERY_TOO_COSTLY");
    expect(res.body.errors[0].extensions).toMatchObject({ limit: 200, actual: 201 });
    // Converted: 100 + 50 + 3 × 17 = 201 for 102 days.
    const converted = await expectRefused(candle(102, ', currency: "EUR"'), "QUERY_TOO_COSTLY");
    expect(converted.body.errors[0].extensions).toMatchObject({ limit: 200, actual: 201 });
  });

  it("does not skip a fragment, alias or operation named like introspection (__schema bypass)", async () => {
    await expectRefused(
      `query { ...__schema } fragment __schema on Query { listStocks(limit: 100) { results { symbol } } }`,
      "QUERY_TOO_COSTLY",
    );
    await expectRefused(
      `query IntrospectionQuery { __schema: listStocks(limit: 100) { results { symbol } } }`,
      "QUERY_TOO_COSTLY",
    );
    await expectRefused(
      'query __schema { __schema { __typename } __type(name: "Query") { name } ' +
        "listStocks(limit: 100) { results { symbol } } }",
      "QUERY_TOO_COSTLY",
    );
  });

  it("refuses a fragment bomb quickly, measuring each fragment once", async () => {
    const levels = 12;
    const fragments = Array.from({ length: levels }, (_, i) =>
      i === levels - 1
        ? `fragment F${i} on Query { listStocks(limit: 1) { nextCursor } }`
        : `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`,
    ).join(" ");
    const started = Date.now();
    const { res, queries } = await run(`{ ...F0 } ${fragments}`);
    expect(res.status).toBe(400);
    expect(queries).toBe(0);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe("tokens (MDG_GRAPHQL_MAX_TOKENS)", () => {
  const query = `{ quote(symbol: "BTC-USD") { c d } }`;
  const tokens = (() => {
    const lexer = new Lexer(new Source(query));
    let n = 0;
    while (lexer.advance().kind !== TokenKind.EOF) n++;
    return n;
  })();
  let small: TestApp;
  beforeAll(async () => {
    small = await createTestApp({ env: { MDG_GRAPHQL_MAX_TOKENS: String(tokens) } });
  });
  afterAll(() => small.close());

  it("accepts a document of exactly the limit and refuses one token more, unparsed", async () => {
    const ok = await run(query, undefined, small);
    expect(ok.res.status).toBe(200);
    expect(ok.res.body.data.quote.c).toEqual(expect.any(Number));
    const over = await run(query.replace("c d", "c d h"), undefined, small);
    expect(over.res.status).toBe(400);
    expect(over.res.body.errors[0].extensions.code).toBe("GRAPHQL_PARSE_FAILED");
    expect(over.res.body.errors[0].message).toMatch(/tokens/);
    expect(over.queries).toBe(0);
  });
});

describe("the defaults", () => {
  let d: TestApp;
  beforeAll(async () => {
    d = await createTestApp();
  });
  afterAll(() => d.close());

  it("let GraphiQL's introspection query through, and bound introspection at twice its cost", async () => {
    const query = getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true });
    const doc = parse(query);
    const op = doc.definitions.find((x): x is OperationDefinitionNode => x.kind === Kind.OPERATION_DEFINITION)!;
    const fragments = new Map(
      doc.definitions.flatMap((x) => (x.kind === Kind.FRAGMENT_DEFINITION ? [[x.name.value, x] as const] : [])),
    );
    const shape = measureOperation(op, fragments);
    const estimator = costEstimator(getSchema(), 20);
    const cost = getComplexity({ schema: getSchema(), query: doc, estimators: [estimator] });
    const config = d.deps.config.graphql;
    expect(shape.depth).toBeLessThanOrEqual(config.maxDepth);
    // Introspection has its own bound, from the schema: this schema's introspection alone outgrew MDG_GRAPHQL_MAX_COST.
    expect(introspectionBound(getSchema(), estimator)).toBe(2 * cost);
    const res = await gql(d, { query });
    expect(res.status).toBe(200);
    expect(res.body.data.__schema.queryType.name).toBe("Query");
  });

  it("refuse three copies of GraphiQL's type listing under aliases: introspection past its bound", async () => {
    const full = getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true });
    const fragments = full.slice(full.indexOf("fragment FullType"));
    const query =
      "query Q { a: __schema { ...S } b: __schema { ...S } c: __schema { ...S } } " +
      `fragment S on __Schema { types { ...FullType } } ${fragments}`;
    const { result: res, queries } = await d.countQueries(() => gql(d, { query }));
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions).toMatchObject({
      code: "GRAPHQL_VALIDATION_FAILED",
      reason: "QUERY_TOO_COSTLY",
    });
    expect(res.body.errors[0].message).toMatch(/^the operation's introspection costs \d+; at most \d+ is allowed/);
    expect(queries).toBe(0);
  });

  it("refuse a nested introspection query whose answer would explode", async () => {
    const nested =
      "{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }";
    const { result: res, queries } = await d.countQueries(() => gql(d, { query: nested }));
    expect(res.status).toBe(400);
    // graphql-js's MaxIntrospectionDepthRule refuses it first; the cost limit would too (types × fields × … grows per
    // level).
    expect(res.body.errors[0].extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");
    expect(queries).toBe(0);
    const doc = parse(nested);
    const estimator = costEstimator(getSchema(), 20);
    const cost = getComplexity({ schema: getSchema(), query: doc, estimators: [estimator] });
    expect(cost).toBeGreaterThan(introspectionBound(getSchema(), estimator));
  });

  it("refuse batched array bodies unless MDG_GRAPHQL_BATCHING is on", async () => {
    const batch = [
      { query: `{ quote(symbol: "BTC-USD") { c } }` },
      { query: `{ cryptoPrice(symbol: "BTC-USD") { price } }` },
    ];
    const { result: refused, queries } = await d.countQueries(() => gql(d, batch));
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/batching/i);
    expect(queries).toBe(0);
    const on = await createTestApp({ env: { MDG_GRAPHQL_BATCHING: "true" } });
    try {
      const ok = await gql(on, batch);
      expect(ok.status).toBe(200);
      expect(ok.body).toHaveLength(2);
      expect(ok.body[1].data.cryptoPrice.price).toEqual(expect.any(Number));
    } finally {
      await on.close();
    }
  });

  it("do not apply to REST, which runs fixed operations; bulk only meets the cost limit", async () => {
    const shape = { MDG_GRAPHQL_MAX_DEPTH: "2", MDG_GRAPHQL_MAX_ALIASES: "1", MDG_GRAPHQL_MAX_ROOT_FIELDS: "1" };
    const small = await createTestApp({ env: { MDG_GRAPHQL_MAX_COST: "5", ...shape } });
    const shallow = await createTestApp({ env: shape });
    try {
      const list = await small.post("/v1/list/stocks", { limit: 1000 });
      expect(list.status).toBe(200);
      const etfs = (
        small.source.db
          .prepare(
            `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
              WHERE s.type = 'etf' LIMIT 20`,
          )
          .all() as { symbol: string }[]
      ).map((r) => ({ symbol: r.symbol }));
      const bulk = await shallow.post("/v1/bulk", { endpoint: "etf/holdings", symbols: etfs });
      expect(bulk.status).toBe(200);
      expect(bulk.body.results.filter((r: { statusCode: number }) => r.statusCode === 200).length).toBeGreaterThan(0);
      const costly = await small.post("/v1/bulk", { endpoint: "etf/holdings", symbols: etfs });
      expect(costly.status).toBe(404);
      expect(costly.body.code).toBe("INVALID_ARGUMENT");
      expect(costly.body.message).toMatch(/costs \d+ \(100 \+ 20 × \d+ for etf\/holdings\); at most 5 is allowed/);
    } finally {
      await small.close();
      await shallow.close();
    }
  });
});

describe("introspection and suggestions", () => {
  const introspect = `{ __schema { queryType { name } } }`;
  const typo = `{ quot(symbol: "BTC-USD") { c } }`;

  it("are on outside production", async () => {
    expect((await gql(t, { query: introspect })).body.data.__schema.queryType.name).toBe("Query");
    expect((await gql(t, { query: typo })).body.errors[0].message).toMatch(/Did you mean/);
  });

  it("are off under NODE_ENV=production", async () => {
    const prod = await createTestApp({ env: { NODE_ENV: "production" } });
    try {
      const res = await gql(prod, { query: introspect });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].message).toMatch(/introspection/i);
      const type = await gql(prod, { query: `{ __type(name: "Query") { name } }` });
      expect(type.status).toBe(400);
      const suggestion = await gql(prod, { query: typo });
      expect(suggestion.status).toBe(400);
      expect(suggestion.body.errors[0].message).not.toMatch(/Did you mean/);
      // Ordinary operations still run.
      expect((await gql(prod, { query: `{ quote(symbol: "BTC-USD") { c } }` })).body.data.quote.c).toEqual(
        expect.any(Number),
      );
    } finally {
      await prod.close();
    }
  });

  it("follow MDG_GRAPHQL_INTROSPECTION over NODE_ENV", async () => {
    const prodOn = await createTestApp({ env: { NODE_ENV: "production", MDG_GRAPHQL_INTROSPECTION: "true" } });
    const devOff = await createTestApp({ env: { NODE_ENV: "development", MDG_GRAPHQL_INTROSPECTION: "false" } });
    try {
      expect((await gql(prodOn, { query: introspect })).body.data.__schema.queryType.name).toBe("Query");
      expect((await gql(devOff, { query: introspect })).status).toBe(400);
    } finally {
      await prodOn.close();
      await devOff.close();
    }
  });
});
