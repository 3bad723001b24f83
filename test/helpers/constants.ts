import { join } from "node:path";

/** The test store: a small but complete generated data set, built once per `npm test` by global-setup. */
export const TEST_SEED = 7;
export const TEST_ANCHOR = "2026-11-20";
export const TEST_SCALE = 0.03;
export const TEST_STORE_PATH = join(__dirname, "..", "..", "test-artifacts", `store-${TEST_SEED}-${TEST_ANCHOR}-${TEST_SCALE}.db`);
export const BOOTSTRAP_KEY = "test-bootstrap-key-0123456789";
