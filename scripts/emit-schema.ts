import "reflect-metadata";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withScopeTable } from "../src/http/graphql/graphql.scopes";
import { getSchema } from "../src/http/graphql/schema";
import { printSchemaSdl } from "../src/http/graphql/schema.print";

/**
 * Writes schema/schema.graphql from the TypeGraphQL classes, and the table of scopes into docs/contract.md; a test
 * fails when either committed file differs.
 */
const out = join(__dirname, "..", "schema", "schema.graphql");
writeFileSync(out, printSchemaSdl());
console.log(`wrote ${out}`);
const contract = join(__dirname, "..", "docs", "contract.md");
writeFileSync(contract, withScopeTable(readFileSync(contract, "utf8"), getSchema()));
console.log(`wrote the scope table in ${contract}`);
