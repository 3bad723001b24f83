import "reflect-metadata";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { printSchemaSdl } from "../src/http/graphql/schema.print";

/** Writes schema/schema.graphql from the TypeGraphQL classes; a test fails when the committed file differs. */
const out = join(__dirname, "..", "schema", "schema.graphql");
writeFileSync(out, printSchemaSdl());
console.log(`wrote ${out}`);
