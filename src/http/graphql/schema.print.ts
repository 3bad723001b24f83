import { lexicographicSortSchema, printSchema } from "graphql";
import { getSchema } from "./schema";

const HEADER = "# Emitted from the TypeGraphQL classes by `npm run schema:emit`. Do not edit by hand.\n\n";

/** The SDL as committed in schema/schema.graphql: sorted, so diffs show real changes only. */
export function printSchemaSdl(): string {
  return HEADER + printSchema(lexicographicSortSchema(getSchema())) + "\n";
}
