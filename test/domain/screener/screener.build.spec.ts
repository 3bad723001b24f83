import { BusyError } from "../../../src/platform/errors";
import { ScreenerIndex } from "../../../src/domain/screener/screener.index";
import { indexWithin } from "../../../src/domain/screener/screener.service";

/**
 * The first build of the screener's index reads every stock: on the generated sample it takes longer than a request
 * may, so a request waits a bounded time and is then told to come back (BUSY, Retry-After), while the build goes on.
 */
describe("the screener's first build", () => {
  it("is waited for while it takes less than the bound", async () => {
    const index = await ScreenerIndex.build([], []);
    await expect(indexWithin(Promise.resolve(index), 50)).resolves.toBe(index);
  });

  it("answers BUSY with the seconds to wait once the bound is past, and the build's end still serves", async () => {
    let finish!: (i: ScreenerIndex) => void;
    const building = new Promise<ScreenerIndex>((resolve) => (finish = resolve));
    const refused = await indexWithin(building, 50).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BusyError);
    expect(refused).toMatchObject({ code: "BUSY", retryAfterSeconds: 1 });
    const index = await ScreenerIndex.build([], []);
    finish(index);
    await expect(indexWithin(building, 50)).resolves.toBe(index);
  });
});
