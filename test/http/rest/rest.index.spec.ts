import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generatedIndexes } from "../../../scripts/generate-index";

/**
 * The lists that gather every area (the REST declarations, the resolvers, the answers port's areas) are written by
 * `npm run generate` from the files that exist: a committed list that differs is a file added or removed since.
 */
describe("generated area lists", () => {
  const root = join(__dirname, "..", "..", "..");
  it.each(generatedIndexes(root).map((f) => [f.path, f.text]))(
    "%s is current (run `npm run generate`)",
    (path, text) => {
      expect(readFileSync(join(root, path), "utf8")).toBe(text);
    },
  );
});
