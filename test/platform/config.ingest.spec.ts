import { ConfigError, INGEST_PROVIDERS, loadConfig } from "../../src/platform/config";
import { PROVIDERS } from "../../src/sources/providers/provider.registry";

/** MDG_INGEST is read at start: a job that could never run is a start-up error naming its entry. */
function refusal(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe("MDG_INGEST", () => {
  it("reads provider[:dataset]=<cron>[@zone] entries, UTC when no zone is named", () => {
    const config = loadConfig({
      MDG_INGEST: " ecb=30 16 * * 1-5@Europe/Berlin ; sec:tickers=0 6 * * *@UTC;ecb:daily=*/15 * * * *;",
      MDG_SEC_USER_AGENT: "Example Corp admin@example.com",
    });
    expect(config.ingest.jobs).toEqual([
      { name: "ecb", provider: "ecb", dataset: undefined, cron: "30 16 * * 1-5", timezone: "Europe/Berlin" },
      { name: "sec:tickers", provider: "sec", dataset: "tickers", cron: "0 6 * * *", timezone: "UTC" },
      { name: "ecb:daily", provider: "ecb", dataset: "daily", cron: "*/15 * * * *", timezone: "UTC" },
    ]);
    expect(config.ingest).toMatchObject({ retries: 3, retryBaseMs: 60_000 });
    expect(loadConfig({}).ingest.jobs).toEqual([]);
    expect(loadConfig({ MDG_INGEST: "" }).ingest.jobs).toEqual([]);
  });

  it.each([
    ["yahoo=0 6 * * *", 'MDG_INGEST: "yahoo=0 6 * * *": unknown provider "yahoo"; expected ecb, sec'],
    [
      "ecb:weekly=0 6 * * *",
      'MDG_INGEST: "ecb:weekly=0 6 * * *": unknown dataset "weekly" of ecb; expected hist, daily',
    ],
    ["ecb=61 6 * * *", '"ecb=61 6 * * *": bad cron expression "61 6 * * *" (Invalid value for minute: 61)'],
    ["ecb=0 6 * *", '"ecb=0 6 * *": bad cron expression "0 6 * *"'],
    ["ecb=0 0 6 * * *", "expected five fields: minute hour day-of-month month day-of-week"],
    ["ecb=0 6 * * *@Mars/Olympus", '"ecb=0 6 * * *@Mars/Olympus": unknown time zone "Mars/Olympus"'],
    ["ecb 0 6 * * *", '"ecb 0 6 * * *": no "="'],
    ["ecb=", '"ecb=": no cron expression'],
    ["ecb=0 6 * * *;ecb=0 7 * * *", '"ecb" is scheduled twice'],
  ])("refuses %s, naming the entry", (value, expected) => {
    const message = refusal({ MDG_INGEST: value });
    expect(message).toContain("MDG_INGEST");
    expect(message).toContain(expected);
  });

  it("names every bad entry of the list at once, and only those", () => {
    const message = refusal({ MDG_INGEST: "ecb=0 6 * * *;fred=0 6 * * *;ecb:hist=0 99 * * *" });
    expect(message).toContain('"fred=0 6 * * *"');
    expect(message).toContain('"ecb:hist=0 99 * * *"');
    expect(message).not.toContain('"ecb=0 6 * * *"');
  });

  it("refuses a sec job without MDG_SEC_USER_AGENT, and any job in gateway mode", () => {
    expect(refusal({ MDG_INGEST: "sec:tickers=0 6 * * *" })).toContain(
      "MDG_INGEST: a sec job needs MDG_SEC_USER_AGENT",
    );
    const gateway = refusal({
      MDG_DATA_SOURCE: "upstream",
      MDG_UPSTREAM_URL: "http://127.0.0.1:1",
      MDG_UPSTREAM_API_KEY: "k",
      MDG_INGEST: "ecb=0 6 * * *",
    });
    expect(gateway).toContain("MDG_INGEST: MDG_DATA_SOURCE=upstream (gateway mode) has no store of its own");
  });

  it("knows exactly the registry's providers and datasets", () => {
    const registry = Object.fromEntries(Object.values(PROVIDERS).map((p) => [p.name, [...p.datasets]]));
    expect(registry).toEqual(INGEST_PROVIDERS);
  });
});
