import type { ProvidersConfig } from "../../platform/config";
import { ECB_PER_SECOND, ecbProvider } from "./ecb/ecb.provider";
import { ProviderHttp } from "./provider.http";
import type { Provider } from "./provider.types";

/** The providers `npm run ingest` knows, by name. */
export const PROVIDERS: Readonly<Record<string, Provider>> = { ecb: ecbProvider };

/** The HTTP client of one provider: its base URL from the configuration, its published rate limit. */
export function providerHttp(name: string, config: ProvidersConfig): ProviderHttp {
  switch (name) {
    case "ecb":
      return new ProviderHttp({
        provider: "ecb",
        baseUrl: config.urls.ecb,
        timeoutMs: config.timeoutMs,
        retries: config.retries,
        perSecond: ECB_PER_SECOND,
      });
    default:
      throw new Error(`no HTTP client for the provider ${name}`);
  }
}
