import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generate } from "@graphql-codegen/cli";
import { printSchemaSdl } from "../src/graphql/schema.print";

const root = join(__dirname, "..");

describe("generated files", () => {
  it("schema/schema.graphql matches the TypeGraphQL classes (run `npm run generate`)", () => {
    expect(readFileSync(join(root, "schema", "schema.graphql"), "utf8")).toBe(printSchemaSdl());
  });

  it("the typed REST operations match schema/operations (run `npm run generate`)", async () => {
    const cwd = process.cwd();
    process.chdir(root);
    try {
      const files = (await generate({ configFilePath: join(root, "codegen.yml"), silent: true } as never, false)) as { filename: string; content: string }[];
      for (const f of files) expect(readFileSync(join(root, f.filename), "utf8")).toBe(f.content);
      expect(files.length).toBeGreaterThan(0);
    } finally {
      process.chdir(cwd);
    }
  });
});
