import { mapLimited } from "../../src/platform/concurrency";

/** A task that ends when the test says so, recording when it started. */
function gate() {
  const started: number[] = [];
  const ends = new Map<number, { resolve(v: string): void; reject(e: unknown): void }>();
  const fn = (item: number) =>
    new Promise<string>((resolve, reject) => {
      started.push(item);
      ends.set(item, { resolve, reject });
    });
  const settle = () => new Promise((r) => setImmediate(r));
  return { started, ends, fn, settle };
}

describe("mapLimited", () => {
  it("keeps at most the limit in flight and answers in the items' order, whatever order they end in", async () => {
    const g = gate();
    const all = mapLimited([1, 2, 3, 4, 5], 2, g.fn);
    await g.settle();
    expect(g.started).toEqual([1, 2]);
    g.ends.get(2)!.resolve("two");
    await g.settle();
    expect(g.started).toEqual([1, 2, 3]);
    g.ends.get(3)!.resolve("three");
    g.ends.get(1)!.resolve("one");
    await g.settle();
    expect(g.started).toEqual([1, 2, 3, 4, 5]);
    g.ends.get(5)!.resolve("five");
    g.ends.get(4)!.resolve("four");
    await expect(all).resolves.toEqual(["one", "two", "three", "four", "five"]);
  });

  it("after a failure starts nothing more, waits for the ones in flight, then throws the first failure", async () => {
    const g = gate();
    let done = false;
    const all = mapLimited([1, 2, 3, 4], 2, g.fn).finally(() => (done = true));
    const caught = all.catch((e: unknown) => e);
    await g.settle();
    g.ends.get(1)!.reject(new Error("first"));
    await g.settle();
    expect(g.started).toEqual([1, 2]);
    expect(done).toBe(false);
    g.ends.get(2)!.reject(new Error("second"));
    await expect(caught).resolves.toEqual(new Error("first"));
    expect(g.started).toEqual([1, 2]);
  });

  it("answers an empty list at once", async () => {
    await expect(mapLimited([], 4, () => Promise.resolve(1))).resolves.toEqual([]);
  });
});
