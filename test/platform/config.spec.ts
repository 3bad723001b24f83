import { ConfigError, loadConfig } from "../../src/platform/config";
import { StartupError } from "../../src/platform/errors";

/**
 * The environment is validated once at start: every number has a range, an empty value is a mistake (not 0), and
 * each refusal is one line that names the variable and says what to write instead.
 */
function refusal(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    expect(e).toBeInstanceOf(StartupError);
    const message = (e as Error).message;
    expect(message).not.toContain("\n");
    return message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

const NUMBERS = [
  "PORT",
  "MDG_SAMPLE_SEED",
  "MDG_BODY_LIMIT_BYTES",
  "MDG_BULK_MAX_SYMBOLS",
  "MDG_SEARCH_LIMIT",
  "MDG_LIST_MAX_LIMIT",
  "MDG_INSTRUMENT_CACHE_MB",
  "MDG_RISK_FREE_RATE",
  "MDG_REQUEST_TIMEOUT_MS",
  "MDG_SHUTDOWN_TIMEOUT_MS",
  "MDG_GRAPHQL_MAX_DEPTH",
  "MDG_GRAPHQL_MAX_ALIASES",
  "MDG_GRAPHQL_MAX_ROOT_FIELDS",
  "MDG_GRAPHQL_MAX_TOKENS",
  "MDG_GRAPHQL_MAX_COST",
  "MDG_GRAPHQL_MAX_SAME_NAME_FIELDS",
  "MDG_GRAPHQL_MAX_SELECTION_FIELDS",
  "MDG_GRAPHQL_MAX_FRAGMENT_SPREADS",
  "MDG_GRAPHQL_MAX_FIELDS",
  "MDG_REDIS_TIMEOUT_MS",
  "MDG_REDIS_COOLDOWN_MS",
  "MDG_UPSTREAM_TIMEOUT_MS",
  "MDG_UPSTREAM_BULK_MAX",
  "MDG_UPSTREAM_CONCURRENCY",
  "MDG_UPSTREAM_RETRIES",
  "MDG_UPSTREAM_RETRY_BASE_MS",
  "MDG_UPSTREAM_RETRY_MAX_MS",
  "MDG_UPSTREAM_RETRY_BUDGET_PERCENT",
  "MDG_UPSTREAM_RETRY_MIN_PER_SEC",
  "MDG_UPSTREAM_BREAKER_FAILURE_PERCENT",
  "MDG_UPSTREAM_BREAKER_MIN_CALLS",
  "MDG_UPSTREAM_BREAKER_WINDOW_MS",
  "MDG_UPSTREAM_BREAKER_OPEN_MS",
  "MDG_UPSTREAM_TTL_QUOTE_S",
  "MDG_UPSTREAM_TTL_BARS_S",
  "MDG_UPSTREAM_TTL_REFERENCE_S",
  "MDG_UPSTREAM_STALE_S",
  "MDG_UPSTREAM_CACHE_MB",
];

describe("numeric variables", () => {
  it.each(NUMBERS)("%s: refuses an empty value, a word and a value out of range, naming the variable", (name) => {
    expect(refusal({ [name]: "" })).toMatch(new RegExp(`^invalid configuration: ${name}: empty; expected .* from `));
    expect(refusal({ [name]: "  " })).toMatch(new RegExp(`${name}: empty;`));
    expect(refusal({ [name]: "lots" })).toMatch(new RegExp(`${name}: "lots" is not a number; expected`));
    expect(refusal({ [name]: "99999999999" })).toMatch(new RegExp(`${name}: "99999999999" is out of range; expected`));
    expect(refusal({ [name]: "-1000" })).toMatch(new RegExp(`${name}: "-1000" is out of range`));
  });

  it("keeps every default when nothing is set", () => {
    const c = loadConfig({});
    expect(c.port).toBe(4000);
    expect(c.requestTimeoutMs).toBe(10_000);
    expect(c.shutdownTimeoutMs).toBe(20_000);
    expect(c.sizes).toEqual({
      bodyBytes: 102_400,
      bulkMaxSymbols: 100,
      portfolioMaxItems: 100,
      searchResults: 20,
      listMaxLimit: 1000,
    });
    expect(c.rateLimit).toEqual({
      redisUrl: undefined,
      redisKeyPrefix: "mdg:",
      redisTimeoutMs: 250,
      redisCooldownMs: 5_000,
    });
    expect(c.sample.seed).toBe(42);
    expect(c.riskFreeRatePercent).toBe(0);
  });

  it("takes PORT=0 (a free port) only when written, and refuses an empty PORT", () => {
    expect(loadConfig({ PORT: "0" }).port).toBe(0);
    expect(loadConfig({ PORT: "65535" }).port).toBe(65535);
    expect(refusal({ PORT: "" })).toBe(
      "invalid configuration: PORT: empty; expected an integer from 0 to 65535 (unset it for the default, 4000)",
    );
    expect(refusal({ PORT: "65536" })).toMatch(/^invalid configuration: PORT: "65536" is out of range/);
    expect(refusal({ PORT: "80.5" })).toMatch(/PORT: "80.5" is not a whole number/);
  });

  it("caps MDG_REQUEST_TIMEOUT_MS at 10 minutes (Node clamps a larger timer to 1 ms, warning on every request)", () => {
    expect(loadConfig({ MDG_REQUEST_TIMEOUT_MS: "600000" }).requestTimeoutMs).toBe(600_000);
    expect(refusal({ MDG_REQUEST_TIMEOUT_MS: "99999999999" })).toBe(
      'invalid configuration: MDG_REQUEST_TIMEOUT_MS: "99999999999" is out of range; expected an integer from 1 to ' +
        "600000 milliseconds (unset it for the default, 10000)",
    );
  });

  it("takes fractions where they mean something, and lists every problem on the one line", () => {
    expect(loadConfig({ MDG_RISK_FREE_RATE: "2.5", MDG_INSTRUMENT_CACHE_MB: "0.5" }).riskFreeRatePercent).toBe(2.5);
    const message = refusal({ PORT: "", MDG_GRAPHQL_MAX_COST: "x" });
    expect(message).toMatch(/PORT: empty.*; MDG_GRAPHQL_MAX_COST: "x" is not a number/);
  });

  it("reads MDG_REDIS_COOLDOWN_MS", () => {
    expect(loadConfig({ MDG_REDIS_COOLDOWN_MS: "250" }).rateLimit.redisCooldownMs).toBe(250);
  });
});

describe("REDIS_URL", () => {
  it.each(["redis://127.0.0.1:6379", "rediss://user:secret@cache.example:6380/2", "redis://localhost"])(
    "takes %s",
    (url) => {
      expect(loadConfig({ REDIS_URL: url }).rateLimit.redisUrl).toBe(url);
    },
  );

  it("treats empty as unset (counters in memory)", () => {
    expect(loadConfig({ REDIS_URL: "" }).rateLimit.redisUrl).toBeUndefined();
  });

  it.each([
    ["redis://:abc", "it does not parse"],
    ["redis://:s3cr3t-pw@", "it does not parse"],
    ["http://user:s3cr3t-pw@cache:6379", "the scheme must be redis: or rediss:"],
    ["127.0.0.1:6379", "it does not parse"],
    ["redis://:s3cr3t-pw@cache:6379/zero", "the path must be a database number"],
  ])("refuses %s (%s) without echoing it", (url, why) => {
    const message = refusal({ REDIS_URL: url });
    expect(message).toMatch(/^invalid configuration: REDIS_URL: not a valid redis:\/\/ URL \(/);
    expect(message).toContain(why);
    expect(message).not.toContain("abc");
    expect(message).not.toContain("s3cr3t");
  });
});

describe("gateway mode (MDG_UPSTREAM_*)", () => {
  const gateway = { MDG_DATA_SOURCE: "upstream", MDG_UPSTREAM_URL: "https://api.example.com/base" };

  it("needs the URL and the key only when MDG_DATA_SOURCE=upstream", () => {
    expect(loadConfig({}).upstream.url).toBeUndefined();
    expect(refusal({ MDG_DATA_SOURCE: "upstream" })).toBe(
      "invalid configuration: MDG_UPSTREAM_URL: required when MDG_DATA_SOURCE=upstream; " +
        "MDG_UPSTREAM_API_KEY: required when MDG_DATA_SOURCE=upstream",
    );
    expect(refusal({ ...gateway, MDG_UPSTREAM_API_KEY: "  " })).toMatch(/MDG_UPSTREAM_API_KEY: required/);
  });

  it("keeps the gateway defaults taken from Envoy, Finagle and opossum", () => {
    const c = loadConfig({ ...gateway, MDG_UPSTREAM_API_KEY: "k-123" }).upstream;
    expect(c).toEqual({
      url: "https://api.example.com/base",
      apiKey: "k-123",
      timeoutMs: 2_000,
      bulkMax: 100,
      concurrency: 16,
      retry: { max: 2, baseMs: 25, maxMs: 250, budgetPercent: 20, minPerSecond: 10 },
      breaker: { failurePercent: 50, minCalls: 10, windowMs: 10_000, openMs: 30_000 },
      ttlSeconds: { quote: 5, bars: 86_400, reference: 3_600 },
      staleSeconds: 86_400,
      cacheBytes: 64 * 2 ** 20,
    });
  });

  it.each([
    ["ftp://user:s3cr3t-pw@host", "not an http(s) URL"],
    ["api.example.com", "it does not parse"],
    ["https://s3cr3t-pw@api.example.com/?key=s3cr3t-pw", "no query or fragment"],
  ])("refuses MDG_UPSTREAM_URL=%s (%s) without echoing it", (url, why) => {
    const message = refusal({ ...gateway, MDG_UPSTREAM_URL: url, MDG_UPSTREAM_API_KEY: "k-123" });
    expect(message).toMatch(/^invalid configuration: MDG_UPSTREAM_URL: not/);
    expect(message).toContain(why);
    expect(message).not.toContain("s3cr3t");
  });

  it("never echoes the key, even beside another refusal", () => {
    const message = refusal({ ...gateway, MDG_UPSTREAM_API_KEY: "s3cr3t-key", MDG_UPSTREAM_TIMEOUT_MS: "0" });
    expect(message).toMatch(/MDG_UPSTREAM_TIMEOUT_MS: "0" is out of range/);
    expect(message).not.toContain("s3cr3t");
  });
});

describe("provider base URLs", () => {
  it("default to the provider's real address, and take a mirror's base path without its trailing slash", () => {
    expect(loadConfig({}).providers.urls.ecb).toBe("https://www.ecb.europa.eu");
    expect(loadConfig({ MDG_PROVIDER_ECB_URL: "" }).providers.urls.ecb).toBe("https://www.ecb.europa.eu");
    expect(loadConfig({ MDG_PROVIDER_ECB_URL: "http://mirror.local:8080/ecb/" }).providers.urls.ecb).toBe(
      "http://mirror.local:8080/ecb",
    );
  });

  it.each(["ftp://mirror.local", "mirror.local", "https://mirror.local/?token=s3cr3t"])(
    "refuses MDG_PROVIDER_ECB_URL=%s without echoing it",
    (url) => {
      const message = refusal({ MDG_PROVIDER_ECB_URL: url });
      expect(message).toMatch(/^invalid configuration: MDG_PROVIDER_ECB_URL: not .*of the provider\)?$/);
      expect(message).not.toContain("mirror.local");
    },
  );
});
