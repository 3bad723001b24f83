import type { SecurityRow } from "../../src/domain/ports/source.types";
import { createLoaders } from "../../src/domain/ports/source.loaders";
import { openSqliteSource, type SqliteSource } from "../../src/sources/sqlite/sqlite.source";
import { TEST_STORE_PATH } from "../helpers/constants";

let store: SqliteSource;
beforeAll(() => {
  store = openSqliteSource(TEST_STORE_PATH, { readonly: true });
});
afterAll(() => store.close());

/** The store with a per-call key limit, recording the size of each call. */
function limited(maxBatchSize: number | undefined, calls: number[]): SqliteSource {
  const out = Object.create(store) as SqliteSource;
  Object.defineProperty(out, "maxBatchSize", { value: maxBatchSize });
  Object.defineProperty(out, "getSecuritiesByIds", {
    value: (ids: readonly number[]): Promise<(SecurityRow | null)[]> => {
      calls.push(ids.length);
      return store.getSecuritiesByIds(ids);
    },
  });
  return out;
}

describe("per-request loaders", () => {
  const ids = [1, 2, 3, 4, 5, 2];

  it("one call per batch when the source has no limit", async () => {
    const calls: number[] = [];
    const rows = await createLoaders(limited(undefined, calls)).security.loadMany(ids);
    expect(calls).toEqual([5]);
    expect(rows.map((r) => (r instanceof Error ? r : r?.id))).toEqual(ids);
  });

  it("split into calls of at most the source's maxBatchSize, answers in request order", async () => {
    const calls: number[] = [];
    const rows = await createLoaders(limited(2, calls)).security.loadMany(ids);
    expect(calls).toEqual([2, 2, 1]);
    expect(rows.map((r) => (r instanceof Error ? r : r?.id))).toEqual(ids);
  });
});
