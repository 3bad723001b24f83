import "reflect-metadata";
import { ensureSampleStore } from "../src/tools/sample/sample.store";
import { TEST_ANCHOR, TEST_SCALE, TEST_SEED, TEST_STORE_PATH } from "./helpers/constants";

/**
 * Builds the shared test store when no store of this generator version
 * exists (built under a scratch name and renamed into place, so runs that
 * overlap never see a half-built file).
 */
export default async function globalSetup(): Promise<void> {
  process.env.TZ = "UTC";
  process.env.MDG_TEST_STORE_PATH = TEST_STORE_PATH;
  await ensureSampleStore(TEST_STORE_PATH, {
    seed: TEST_SEED,
    anchorDate: TEST_ANCHOR,
    scale: TEST_SCALE,
    log: () => undefined,
  });
}
