import "reflect-metadata";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { getSchema } from "../src/http/graphql/schema";
import { createOpenApiDocument, serializeOpenApi } from "../src/http/openapi/openapi.routes";

/** Writes docs/openapi.json from the route table; a test fails when the committed file differs. */
const out = join(__dirname, "..", "docs", "openapi.json");
writeFileSync(out, serializeOpenApi(createOpenApiDocument(getSchema())));
console.log(`wrote ${out}`);
