import type { Config } from "./platform/config";
import {
  openSources as openSourcesWith,
  type OpenSourcesOptions,
  type SampleBuilder,
  type Sources,
} from "./sources/source.factory";

export * from "./sources/source.factory";

/** The generator, loaded only when a store must be built: nothing that serves a request imports it. */
const buildSample: SampleBuilder = async (file, opts) => {
  const { ensureSampleStore } = await import("./tools/sample/sample.store");
  return ensureSampleStore(file, opts);
};

/**
 * The REST route table's single-security paths, which a gateway batches as the upstream's bulk. Loaded only for a
 * gateway: the table's GraphQL types need the metadata polyfill, which main.ts loads only once the store is there.
 */
async function bulkPaths(): Promise<ReadonlySet<string>> {
  await import("reflect-metadata");
  const [{ ROUTES }, { bulkPathsOf }] = await Promise.all([
    import("./http/rest/rest.routes"),
    import("./sources/upstream/upstream.client"),
  ]);
  return bulkPathsOf(ROUTES);
}

/**
 * `MDG_DATA_SOURCE` turned into sources, wired with what the adapters may not import themselves: the sample
 * generator (a tool) and, for a gateway, the REST route table's bulk paths. Used by main.ts, the benchmarks and the
 * tests.
 */
export async function openSources(config: Config, opts: OpenSourcesOptions = {}): Promise<Sources> {
  const wiring: OpenSourcesOptions = { sampleBuilder: buildSample };
  if (config.dataSource === "upstream") wiring.bulkPaths = await bulkPaths();
  return openSourcesWith(config, { ...wiring, ...opts });
}
