import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderConfigReference } from "../src/platform/config.reference";

/** Writes docs/configuration.md from the config schema; a test fails when the committed file differs. */
const out = join(__dirname, "..", "docs", "configuration.md");
writeFileSync(out, renderConfigReference());
console.log(`wrote ${out}`);
