import { loadConfig } from "../../../src/platform/config";

/** MDG_SAMPLE_SCALE: the size of the sample store built on first start (docs/sample.md "First start"). */
describe("MDG_SAMPLE_SCALE", () => {
  it("defaults to the documented data set", () => {
    expect(loadConfig({}).sample.scale).toBe(1);
  });

  it("takes a fraction up to 1", () => {
    expect(loadConfig({ MDG_SAMPLE_SCALE: "0.005" }).sample.scale).toBe(0.005);
    expect(loadConfig({ MDG_SAMPLE_SCALE: "1" }).sample.scale).toBe(1);
  });

  it.each([
    ["", "empty"],
    ["0", '"0" is out of range'],
    ["-0.5", '"-0.5" is out of range'],
    ["1.5", '"1.5" is out of range'],
    ["half", '"half" is not a number'],
  ])("refuses %s with a clear message", (value, message) => {
    expect(() => loadConfig({ MDG_SAMPLE_SCALE: value })).toThrow(`MDG_SAMPLE_SCALE: ${message}`);
  });
});
