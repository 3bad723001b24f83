import { ApolloServer } from "@apollo/server";
import { buildSchema, getIntrospectionQuery, parse, print } from "graphql";
import { CompiledOperations } from "../../../src/http/graphql/graphql.compiled";
import { apolloStages } from "../../../src/http/graphql/graphql.pipeline";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { primarySymbols } from "../../helpers/stock-samples";
import { gql as gqlRequest } from "../../helpers/graphql";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const gql = (query: string, variables?: Record<string, unknown>, key?: string | null) =>
  gqlRequest(t, query, variables, key);

const primary = (type: string, n: number, where = "") => primarySymbols(t.source.db, type, n, where);

/** Status and body of one call, without what differs between calls (the request id in error details). */
async function answer(query: string, variables: Record<string, unknown>, key?: string | null) {
  const res = await gql(query, variables, key);
  return {
    status: res.status,
    body: JSON.parse(JSON.stringify(res.body, (k, v) => (k === "requestId" ? undefined : v))) as unknown,
  };
}

/**
 * Apollo executes an operation with graphql-js until it has run a few times,
 * then with its graphql-jit compiled form where that answers without errors
 * (src/http/graphql/graphql.compiled.ts, graphql.pipeline.ts): every call of the same operation must
 * answer the same, errors included.
 */
describe("POST /graphql answers the same before and after an operation is compiled", () => {
  const CALLS = 6;

  async function sameEveryCall(query: string, variables: Record<string, unknown>, key?: string | null) {
    const first = await answer(query, variables, key);
    for (let i = 1; i < CALLS; i++) expect(await answer(query, variables, key)).toEqual(first);
    return first;
  }

  it("data, with nested field resolvers", async () => {
    const [etf] = primary("etf", 1);
    const first = await sameEveryCall(`query SameEtf($s: String) { etf(symbol: $s) { symbol profile { name aum } } }`, {
      s: etf,
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ data: { etf: { symbol: etf } } });
  });

  it("a FORBIDDEN list item, at its index", async () => {
    const [etf] = primary("etf", 1);
    const key = (await t.apiKeys.create({ name: "compiled-crypto-only", scopes: ["crypto"] })).key;
    const query = `query SameQuotes($s: [String!]!) { quotes(symbols: $s) { symbol } }`;
    const first = await sameEveryCall(query, { s: ["BTC-USD", etf] }, key);
    expect(first.body).toMatchObject({
      data: { quotes: [{ symbol: "BTC-USD" }, null] },
      errors: [{ path: ["quotes", 1], extensions: { code: "FORBIDDEN" } }],
    });
  });

  it("a resolver's BAD_USER_INPUT, with its locations", async () => {
    const query = `query SameLimit($s: [String!]!) { quotes(symbols: $s) { symbol } }`;
    const first = await sameEveryCall(query, { s: Array.from({ length: 101 }, () => "BTC-USD") });
    expect(first.body).toMatchObject({
      errors: [{ path: ["quotes"], locations: [{ line: 1, column: 35 }], extensions: { code: "BAD_USER_INPUT" } }],
    });
  });

  it("NOT_FOUND of a non-null root field", async () => {
    const first = await sameEveryCall(`query SameMissing($s: String) { quote(symbol: $s) { symbol } }`, {
      s: "NO-SUCH-SYMBOL",
    });
    expect(first.body).toMatchObject({ data: null, errors: [{ path: ["quote"], extensions: { code: "NOT_FOUND" } }] });
  });

  it("a document of two operations, with a fragment and @include, run by name", async () => {
    const [etf] = primary("etf", 1);
    const query = `
      fragment Facts on Etf { symbol profile { name aum } }
      query First($s: String, $more: Boolean!) { etf(symbol: $s) { ...Facts holdings @include(if: $more) { atDate } } }
      query Second($s: String) { etf(symbol: $s) { symbol } }`;
    const res = async (operationName: string, variables: Record<string, unknown>) => {
      const r = await t.http.post("/graphql").set("x-api-key", BOOTSTRAP_KEY).send({ query, operationName, variables });
      return { status: r.status, body: r.body as unknown };
    };
    for (const more of [true, false]) {
      const first = await res("First", { s: etf, more });
      for (let i = 1; i < 6; i++) expect(await res("First", { s: etf, more })).toEqual(first);
      expect(first.body).toMatchObject({ data: { etf: { symbol: etf, profile: { name: expect.any(String) } } } });
      const fields = Object.keys((first.body as { data: { etf: object } }).data.etf);
      expect(fields).toEqual(more ? ["symbol", "profile", "holdings"] : ["symbol", "profile"]);
    }
    for (let i = 0; i < 6; i++)
      expect(await res("Second", { s: etf })).toEqual({ status: 200, body: { data: { etf: { symbol: etf } } } });
  });

  it("GraphiQL's introspection query", async () => {
    const first = await sameEveryCall(getIntrospectionQuery(), {});
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ data: { __schema: { queryType: { name: "Query" } } } });
  });

  it("a variable of the wrong type: 400 BAD_USER_INPUT", async () => {
    const query = `query SameVariables($s: String) { quote(symbol: $s) { symbol } }`;
    // Compiled on good calls first, then sent a bad variable.
    for (let i = 0; i < CALLS; i++) expect((await answer(query, { s: "BTC-USD" })).status).toBe(200);
    const bad = await answer(query, { s: { not: "a string" } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errors: [{ extensions: { code: "BAD_USER_INPUT" } }] });
    expect(JSON.stringify(bad.body)).toContain('Variable \\"$s\\" got invalid value');
  });
});

describe("compiled operations", () => {
  const schema = buildSchema(`type Query { echo(n: Int!): Int! half(n: Int!): Float }`);
  const fields = schema.getQueryType()!.getFields();
  fields.echo!.resolve = (_: unknown, { n }: { n: number }) => n;
  fields.half!.resolve = (_: unknown, { n }: { n: number }) => (n % 2 ? new Error(`odd ${n}`) : n / 2);
  const documents = Array.from({ length: 600 }, (_, i) => parse(`query Q${i}($n: Int!) { echo(n: $n) half(n: $n) }`));

  it("compile on an operation's third run, and keep the 256 most recently used", () => {
    const ops = new CompiledOperations(schema);
    expect(ops.get(documents[0]!, "Q0")).toBeUndefined();
    expect(ops.get(documents[0]!, "Q0")).toBeUndefined();
    const first = ops.get(documents[0]!, "Q0");
    expect(first).toEqual(expect.objectContaining({ query: expect.any(Function) }));
    expect(ops.get(documents[0]!, "Q0")).toBe(first);
    // 256 other documents compiled push the first one out: it starts counting again.
    for (let i = 1; i <= 256; i++) for (let k = 0; k < 3; k++) ops.get(documents[i]!, `Q${i}`);
    expect(ops.get(documents[0]!, "Q0")).toBeUndefined();
    expect(ops.get(documents[256]!, "Q256")).toEqual(expect.objectContaining({ query: expect.any(Function) }));
  });

  // 600 documents are more than are kept compiled: the first ones are compiled, dropped and compiled again. Even
  // documents answer data (the compiled answer is used), odd ones an error (Apollo runs graphql-js instead).
  it("answer every run of 600 documents, 3 and then 6 times each, as Apollo's first graphql-js run did", async () => {
    const apollo = new ApolloServer({ schema, plugins: [apolloStages([], new CompiledOperations(schema))] });
    await apollo.start();
    const run = async (i: number) => {
      const res = await apollo.executeOperation({ query: print(documents[i]!), variables: { n: i } });
      return JSON.parse(JSON.stringify(res.body)) as unknown;
    };
    const firsts = new Map<number, unknown>();
    for (const round of [3, 6]) {
      for (let i = 0; i < documents.length; i++) {
        for (let k = 0; k < round; k++) {
          const got = await run(i);
          if (!firsts.has(i)) firsts.set(i, got);
          expect(got).toEqual(firsts.get(i));
        }
      }
    }
    expect(firsts.get(2)).toEqual({ kind: "single", singleResult: { data: { echo: 2, half: 1 } } });
    expect(firsts.get(3)).toMatchObject({
      kind: "single",
      singleResult: { data: { echo: 3, half: null }, errors: [{ message: "odd 3", path: ["half"] }] },
    });
    await apollo.stop();
  });
});
