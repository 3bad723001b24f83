import { etaText } from "../../../src/tools/sample/sample.store";

/** The build's progress bar on a terminal: the time left from the average rate since the start, never "INF". */
describe("the sample build's time left", () => {
  it("says it is estimating until 5 % and 3 s have passed", () => {
    expect(etaText(10_000, 4, 100)).toBe("estimating the time left");
    expect(etaText(2_000, 50, 100)).toBe("estimating the time left");
    expect(etaText(10_000, 0, 100)).toBe("estimating the time left");
  });

  it("extrapolates the average rate: half done in 40 s leaves about 40 s", () => {
    expect(etaText(40_000, 50, 100)).toBe("about 40 s left");
    expect(etaText(30_000, 20, 100)).toBe("about 2 min 00 s left");
    expect(etaText(30_000, 100, 100)).toBe("about 0 s left");
  });

  it("moves smoothly where the rate of the last updates swings a hundredfold", () => {
    // A slow stage (1 % in 10 s), then a fast one (40 % in 1 s): the estimate stays in minutes, never hours or INF.
    const shown = [
      [10_000, 10],
      [20_000, 11],
      [21_000, 51],
      [30_000, 52],
    ].map(([ms, done]) => etaText(ms!, done!, 100));
    expect(shown).toEqual(["about 1 min 30 s left", "about 2 min 42 s left", "about 20 s left", "about 28 s left"]);
  });
});
