import { readFileSync } from "node:fs";
import { join } from "node:path";
import { envSchema, loadConfig } from "../../src/platform/config";
import { renderConfigReference } from "../../src/platform/config.reference";

const committed = () => readFileSync(join(__dirname, "..", "..", "docs", "configuration.md"), "utf8");

describe("the configuration reference (docs/configuration.md)", () => {
  it("is up to date with the schema (run `npm run config:docs`)", () => {
    const lines = committed().split("\n");
    const current = renderConfigReference().split("\n");
    const at = current.findIndex((l, i) => l !== lines[i]);
    if (at >= 0 || lines.length !== current.length) {
      const i = at >= 0 ? at : Math.min(lines.length, current.length);
      throw new Error(
        "docs/configuration.md is stale: run `npm run config:docs` and commit it. " +
          `First difference at line ${i + 1}:\n` +
          `  committed: ${lines[i] ?? "(end of file)"}\n  generated: ${current[i] ?? "(end of file)"}`,
      );
    }
  });

  it("names every variable the schema reads, once", () => {
    const named = [...committed().matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(named).toEqual(Object.keys(envSchema.shape));
  });

  it("shows the default the service really starts with", () => {
    const config = loadConfig({});
    const row = (name: string) =>
      committed()
        .match(new RegExp(`^\\| \`${name}\` \\| ([^|]+) \\|`, "m"))![1]!
        .trim();
    expect(row("PORT")).toBe(`\`${config.port}\``);
    expect(row("MDG_REQUEST_TIMEOUT_MS")).toBe(`\`${config.requestTimeoutMs}\``);
    expect(row("MDG_DATA_SOURCE")).toBe(`\`${config.dataSource}\``);
    expect(row("MDG_INSTRUMENT_CACHE_MB")).toBe(`\`${config.instrumentCacheBytes / 2 ** 20}\``);
  });
});
