import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The test store: a small but complete generated data set, built by global-setup when missing. */
export const TEST_SEED = 7;
export const TEST_ANCHOR = "2026-11-20";
export const TEST_SCALE = 0.03;
export const BOOTSTRAP_KEY = "test-bootstrap-key-0123456789";

const ROOT = join(__dirname, "..", "..");

/**
 * The store's file name carries a hash of the generator and the schema, so a
 * change to either builds a new store while concurrent runs share one.
 */
function generatorHash(): string {
  const h = createHash("sha256");
  for (const dir of ["src/tools/sample", "src/sources/sample", "src/sources/sqlite"]) {
    for (const f of readdirSync(join(ROOT, dir))
      .filter((n) => n.endsWith(".ts"))
      .sort())
      h.update(f).update(readFileSync(join(ROOT, dir, f)));
  }
  return h.digest("hex").slice(0, 12);
}

/** Fixed by global-setup for the whole run (workers inherit it), so an edit mid-run cannot point tests elsewhere. */
export const TEST_STORE_PATH =
  process.env.MDG_TEST_STORE_PATH ??
  join(ROOT, "test-artifacts", `store-${TEST_SEED}-${TEST_ANCHOR}-${TEST_SCALE}-${generatorHash()}.db`);
