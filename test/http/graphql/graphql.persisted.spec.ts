import { persistedQueries } from "../../../src/http/graphql/graphql.persisted";

/** The APQ cache (src/http/graphql/graphql.persisted.ts) is bounded by the query text it holds. */
describe("persisted query cache", () => {
  const hash = (n: number) => n.toString(16).padStart(64, "0");

  it("keeps texts up to its size, dropping the least recently used first", async () => {
    const { cache } = persistedQueries(1_000);
    const text = (n: number) => `{ q${n} }`.padEnd(136, " ");
    // 136 + 64 = 200 characters each: five fit.
    for (let n = 0; n < 5; n++) await cache!.set(hash(n), text(n));
    expect(await cache!.get(hash(0))).toBe(text(0));
    await cache!.set(hash(5), text(5));
    // 0 was read last before 5 came, so 1 went.
    expect(await cache!.get(hash(1))).toBeUndefined();
    expect(await cache!.get(hash(0))).toBe(text(0));
    expect(await cache!.get(hash(5))).toBe(text(5));
  });

  it("does not keep a text larger than the whole cache, and keeps what it held", async () => {
    const { cache } = persistedQueries(1_000);
    await cache!.set(hash(1), "{ a }");
    await cache!.set(hash(2), "x".repeat(1_000));
    expect(await cache!.get(hash(2))).toBeUndefined();
    expect(await cache!.get(hash(1))).toBe("{ a }");
  });
});
