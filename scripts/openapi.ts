import "reflect-metadata";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getSchema } from "../src/http/graphql/schema";
import { createOpenApiDocument, documentedRoutes, serializeOpenApi } from "../src/http/openapi/openapi.routes";
import { withEndpointTables } from "../src/http/openapi/openapi.tables";

/**
 * Writes docs/openapi.json from the route table, and the tables of endpoints in the README and docs/contract.md
 * section 1; a test fails when a committed file differs.
 */
const root = join(__dirname, "..");
const out = join(root, "docs", "openapi.json");
writeFileSync(out, serializeOpenApi(createOpenApiDocument(getSchema())));
console.log(`wrote ${out}`);
const readmePath = join(root, "README.md");
const contractPath = join(root, "docs", "contract.md");
const tables = withEndpointTables(
  { readme: readFileSync(readmePath, "utf8"), contract: readFileSync(contractPath, "utf8") },
  documentedRoutes(getSchema()),
);
writeFileSync(readmePath, tables.readme);
writeFileSync(contractPath, tables.contract);
console.log(`wrote the tables of endpoints in ${readmePath} and ${contractPath}`);
