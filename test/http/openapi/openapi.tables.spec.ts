import "reflect-metadata";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getSchema } from "../../../src/http/graphql/schema";
import { documentedRoutes } from "../../../src/http/openapi/openapi.routes";
import {
  emptyAnswerTableMarkdown,
  endpointTableMarkdown,
  withEndpointTables,
} from "../../../src/http/openapi/openapi.tables";

/** The docs' tables of endpoints are written from the declarations the router serves (openapi.tables.ts). */
describe("tables of endpoints in the docs", () => {
  const root = join(__dirname, "..", "..", "..");
  const routes = documentedRoutes(getSchema());

  it("the README's and docs/contract.md's tables match the declarations (run `npm run openapi`)", () => {
    const docs = {
      readme: readFileSync(join(root, "README.md"), "utf8"),
      contract: readFileSync(join(root, "docs", "contract.md"), "utf8"),
    };
    expect(withEndpointTables(docs, routes)).toEqual(docs);
  });

  it("lists every path the router serves, with the max-age its GET answers with", () => {
    const table = endpointTableMarkdown(routes);
    for (const r of routes) expect(table).toContain(`| \`${r.path}\` |`);
    expect(table).toMatch(/^\| `quote` \|.*\| 5 \|/m);
    expect(table).toMatch(/^\| `etf\/profile` \|.*\| 3600 \|/m);
  });

  it("says, for every endpoint that names one security, what it answers for a security without the data", () => {
    const table = emptyAnswerTableMarkdown(routes);
    const named = routes.filter((r) => r.singleSecurity && !r.removedOn);
    expect(named.length).toBeGreaterThan(10);
    for (const r of named) expect(table).toMatch(new RegExp(`^\\| [^|]*\`${r.path}\`[^|]*\\| \\S`, "m"));
    expect(table).toMatch(/^\| `etf\/holdings`, `fund\/holding` \| `atDate: null`, `holdings: \[\]` \|$/m);
  });
});
