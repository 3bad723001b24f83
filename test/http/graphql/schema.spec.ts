import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { withScopeTable } from "../../../src/http/graphql/graphql.scopes";
import { getSchema } from "../../../src/http/graphql/schema";
import { printSchemaSdl } from "../../../src/http/graphql/schema.print";

const root = join(__dirname, "..", "..", "..");

describe("generated files", () => {
  it("schema/schema.graphql matches the TypeGraphQL classes (run `npm run generate`)", () => {
    expect(readFileSync(join(root, "schema", "schema.graphql"), "utf8")).toBe(printSchemaSdl());
  });

  it("docs/contract.md's table of scopes matches the fields' guards (run `npm run schema:emit`)", () => {
    const contract = readFileSync(join(root, "docs", "contract.md"), "utf8");
    expect(contract).toBe(withScopeTable(contract, getSchema()));
  });

  it("the typed REST operations match schema/operations (run `npm run generate`)", () => {
    // Code Generator's check mode exits non-zero when a generated file would change.
    // The package's exports hide cjs/bin.js from require.resolve; find it beside its package.json.
    const bin = join(dirname(require.resolve("@graphql-codegen/cli/package.json")), "cjs", "bin.js");
    expect(() =>
      execFileSync(process.execPath, [bin, "--config", "codegen.yml", "--check"], { cwd: root, stdio: "pipe" }),
    ).not.toThrow();
  });
});
