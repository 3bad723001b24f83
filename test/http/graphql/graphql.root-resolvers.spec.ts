import "reflect-metadata";
import { execute, parse, type GraphQLObjectType, type GraphQLSchema } from "graphql";
import { buildSchemaSync } from "type-graphql";
import { createContext } from "../../../src/http/http.context";
import { rootFieldsDirect } from "../../../src/http/graphql/graphql.root-resolvers";
import { authChecker, getSchema, NO_TOPICS, RESOLVERS } from "../../../src/http/graphql/schema";
import type { Principal } from "../../../src/platform/auth/auth.types";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { gql } from "../../helpers/graphql";
import { primarySymbols } from "../../helpers/stock-samples";

/**
 * The root fields with a direct resolver (src/http/graphql/graphql.root-resolvers.ts) answer what type-graphql's own
 * handler answers, and so do the resolver classes' field resolvers:
 * data, NOT_FOUND, UNAUTHENTICATED without a key, FORBIDDEN without the scope.
 */
let t: TestApp;
let pristine: GraphQLSchema;
const principals: Record<string, Principal | null> = { none: null };

beforeAll(async () => {
  t = await createTestApp();
  pristine = buildSchemaSync({ resolvers: RESOLVERS, authChecker, validate: false, pubSub: NO_TOPICS });
  principals.all = await t.apiKeys.authenticate(BOOTSTRAP_KEY);
  for (const scope of ["crypto", "etf"] as const) {
    const { key } = await t.apiKeys.create({ name: `direct-root-${scope}`, scopes: [scope] });
    principals[scope] = await t.apiKeys.authenticate(key);
  }
});
afterAll(() => t.close());

async function run(schema: GraphQLSchema, query: string, principal: Principal | null): Promise<unknown> {
  const result = await execute({
    schema,
    document: parse(query),
    contextValue: createContext(t.deps, "direct-root", principal),
  });
  return JSON.parse(JSON.stringify(result)) as unknown;
}

describe("root fields with a direct resolver", () => {
  it("replace the hot root fields and field resolvers in a fresh build, and none twice", () => {
    const fresh = buildSchemaSync({ resolvers: RESOLVERS, authChecker, validate: false, pubSub: NO_TOPICS });
    const before = fresh.getQueryType()!.getFields();
    const kept = { quote: before.quote!.resolve, cryptoPrice: before.cryptoPrice!.resolve, etf: before.etf!.resolve };
    const metrics = (fresh.getType("Quote") as GraphQLObjectType).getFields().metrics!.resolve;
    expect(rootFieldsDirect(fresh, authChecker, false)).toBeGreaterThanOrEqual(4);
    expect((fresh.getType("Quote") as GraphQLObjectType).getFields().metrics!.resolve).not.toBe(metrics);
    const after = fresh.getQueryType()!.getFields();
    expect(after.quote!.resolve).not.toBe(kept.quote);
    expect(after.cryptoPrice!.resolve).not.toBe(kept.cryptoPrice);
    expect(after.etf!.resolve).not.toBe(kept.etf);
    expect(rootFieldsDirect(fresh, authChecker, true)).toBe(0);
  });

  it("answer as type-graphql's handler does, for every key and outcome", async () => {
    const [etf] = primarySymbols(t.source.db, "etf", 1);
    const [stock] = primarySymbols(t.source.db, "stock", 1);
    const queries = [
      `{ quote(symbol: "${stock}") { symbol c currency metrics { eps } } }`,
      `{ quote(symbol: "BTC-USD") { symbol c id name type isin metrics { eps } } }`,
      `{ quote(symbol: "${stock}") { id name type isin } }`,
      `{ etf(symbol: "${etf}") { currency exchange holdings { id } sectorExposure { sector weight } ` +
        `countryExposure { country } fundamentals { expenseRatio } } }`,
      `{ quote(symbol: "NO-SUCH-SYMBOL") { symbol } }`,
      `{ quote { symbol } }`,
      `{ cryptoPrice(symbol: "BTC-USD") { id symbol price } }`,
      `{ cryptoPrice(symbol: "NOPE-USD") { symbol } }`,
      `{ etf(symbol: "${etf}") { id symbol profile { name } } }`,
      `{ a: quote(symbol: "${etf}") { symbol } b: etf(symbol: "${etf}") { symbol } ` +
        `c: cryptoPrice(symbol: "BTC") { id } }`,
      `{ quotes(symbols: ["BTC-USD", "${etf}"]) { symbol } }`,
    ];
    let errors = 0;
    for (const query of queries) {
      for (const [who, principal] of Object.entries(principals)) {
        const direct = await run(getSchema(), query, principal);
        expect({ who, query, answer: direct }).toEqual({ who, query, answer: await run(pristine, query, principal) });
        errors += (direct as { errors?: unknown[] }).errors?.length ?? 0;
      }
    }
    // The comparison covers refusals, not only data.
    expect(errors).toBeGreaterThan(10);
  });

  it("refuse over HTTP without a key and without the scope, with the codes of the error mapping", async () => {
    const none = await gql(t, `{ cryptoPrice(symbol: "BTC-USD") { symbol } }`, {}, null);
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: "UNAUTHENTICATED" } }] });
    const [etf] = primarySymbols(t.source.db, "etf", 1);
    const { key } = await t.apiKeys.create({ name: "direct-root-http", scopes: ["crypto"] });
    const scoped = await gql(t, `{ etf(symbol: "${etf}") { symbol } }`, {}, key);
    expect(scoped.body).toMatchObject({ errors: [{ path: ["etf"], extensions: { code: "FORBIDDEN" } }] });
  });
});
