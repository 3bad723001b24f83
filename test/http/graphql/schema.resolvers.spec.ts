import "reflect-metadata";
import { isObjectType, type GraphQLField } from "graphql";
import { getSchema, plainFieldsUnwrapped } from "../../../src/http/graphql/schema";

/**
 * The schema's post-pass (src/http/graphql/schema.ts): type-graphql's wrapper comes off plain fields only. The answers
 * themselves are what the REST, GraphQL and contract suites check; this checks which fields lost their wrapper.
 */
describe("plain fields without type-graphql's wrapper", () => {
  const schema = getSchema();
  const field = (type: string, name: string): GraphQLField<unknown, unknown> => {
    const t = schema.getType(type);
    if (!isObjectType(t)) throw new Error(`${type}: not an object type`);
    return t.getFields()[name]!;
  };

  it("read plain fields with graphql's default resolver", () => {
    expect(field("Quote", "c").resolve).toBeUndefined();
    expect(field("Quote", "symbol").resolve).toBeUndefined();
    expect(field("HistoricalPrice", "fiftyDays").resolve).toBeUndefined();
  });

  it("keep the resolvers of root fields (scope checks) and of `@FieldResolver` fields", () => {
    expect(field("Query", "quote").resolve).toBeInstanceOf(Function);
    expect(field("Query", "etf").resolve).toBeInstanceOf(Function);
    expect(field("Quote", "metrics").resolve).toBeInstanceOf(Function);
    expect(field("Etf", "holdings").resolve).toBeInstanceOf(Function);
  });

  it("runs once: a second pass over the built schema finds nothing left to unwrap", () => {
    expect(plainFieldsUnwrapped(schema)).toBe(0);
  });
});
