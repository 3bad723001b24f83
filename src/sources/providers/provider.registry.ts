import type { IngestProviderName, ProvidersConfig } from "../../platform/config";
import { ECB_PER_SECOND, ecbProvider } from "./ecb/ecb.provider";
import { KRAKEN_PER_SECOND, krakenProvider } from "./kraken/kraken.provider";
import { ProviderHttp } from "./provider.http";
import type { Provider } from "./provider.types";
import { SEC_PER_SECOND, secProvider } from "./sec/sec.provider";
import { TIINGO_PER_SECOND, tiingoProvider } from "./tiingo/tiingo.provider";

/** The providers `npm run ingest` and `MDG_INGEST` know, by name: exactly those of the config's table. */
export const PROVIDERS: Readonly<Record<string, Provider>> = {
  ecb: ecbProvider,
  sec: secProvider,
  tiingo: tiingoProvider,
  kraken: krakenProvider,
} satisfies Record<IngestProviderName, Provider>;

/** What the configuration lacks for a provider: said before any call. */
export class ProviderSetupError extends Error {
  override name = "ProviderSetupError";
}

/** The HTTP client of one provider: its base URL from the configuration, its published rate limit. */
export function providerHttp(name: string, config: ProvidersConfig): ProviderHttp {
  const common = { timeoutMs: config.timeoutMs, retries: config.retries };
  switch (name) {
    case "ecb":
      return new ProviderHttp({ ...common, provider: "ecb", baseUrl: config.urls.ecb, perSecond: ECB_PER_SECOND });
    case "sec":
      if (config.secUserAgent === undefined) {
        throw new ProviderSetupError(
          "sec: the SEC requires a User-Agent naming who calls: set MDG_SEC_USER_AGENT " +
            '(for example "Example Corp admin@example.com")',
        );
      }
      return new ProviderHttp({
        ...common,
        provider: "sec",
        baseUrl: config.urls.sec,
        hosts: { data: config.urls.secData },
        perSecond: SEC_PER_SECOND,
        headers: { "user-agent": config.secUserAgent },
      });
    case "kraken":
      return new ProviderHttp({
        ...common,
        provider: "kraken",
        baseUrl: config.urls.kraken,
        perSecond: KRAKEN_PER_SECOND,
      });
    case "tiingo": {
      const key = config.keys.tiingo;
      if (key === undefined) {
        throw new ProviderSetupError("tiingo: set MDG_PROVIDER_TIINGO_KEY (Tiingo answers only with a key)");
      }
      return new ProviderHttp({
        ...common,
        provider: "tiingo",
        baseUrl: config.urls.tiingo,
        perSecond: TIINGO_PER_SECOND,
        key,
        secrets: [key],
      });
    }
    default:
      throw new ProviderSetupError(`no HTTP client for the provider ${name}`);
  }
}

/** Every configured provider key: what no message of a run (log, `/v1/status`) may hold. */
export function providerSecrets(config: ProvidersConfig): string[] {
  return Object.values(config.keys).filter((k): k is string => k !== undefined);
}
