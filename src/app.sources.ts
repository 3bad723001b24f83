import { ROUTES } from "./http/rest/rest.routes";
import {
  openSources as openSourcesWith,
  type OpenSourcesOptions,
  type SampleBuilder,
  type Sources,
} from "./sources/source.factory";
import { bulkPathsOf } from "./sources/upstream/upstream.client";
import type { Config } from "./platform/config";

export * from "./sources/source.factory";

/** The generator, loaded only when a store must be built: nothing that serves a request imports it. */
const buildSample: SampleBuilder = async (file, opts) => {
  const { ensureSampleStore } = await import("./tools/sample/sample.store");
  return ensureSampleStore(file, opts);
};

/**
 * `MDG_DATA_SOURCE` turned into sources, wired with what the adapters may not import themselves: the sample
 * generator (a tool) and the REST route table's bulk paths (the gateway batches those). Used by main.ts, the
 * benchmarks and the tests.
 */
export function openSources(config: Config, opts: OpenSourcesOptions = {}): Promise<Sources> {
  return openSourcesWith(config, { sampleBuilder: buildSample, bulkPaths: bulkPathsOf(ROUTES), ...opts });
}
