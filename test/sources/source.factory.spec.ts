import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { loadConfig } from "../../src/platform/config";
import { StartupError } from "../../src/platform/errors";
import { CAPABILITY_NAMES } from "../../src/domain/ports/source.capabilities";
import { openSources } from "../../src/app.sources";
import { TEST_STORE_PATH } from "../helpers/constants";
import { runKeysCli } from "../helpers/keys-cli";
import { ROW_STORE_ANSWERS } from "../../src/domain/answers";

const ROOT = join(__dirname, "..", "..");
// Gateway mode needs its upstream's URL and key to pass the config; the factory then decides.
const UPSTREAM_ENV = { MDG_UPSTREAM_URL: "http://127.0.0.1:9", MDG_UPSTREAM_API_KEY: "upstream-test-key" };
const configFor = (env: NodeJS.ProcessEnv) =>
  loadConfig({ LOG_LEVEL: "silent", MDG_SQLITE_PATH: TEST_STORE_PATH, ...UPSTREAM_ENV, ...env });
const NO_DATABASE_URL =
  "invalid configuration: DATABASE_URL: unset; MDG_DATA_SOURCE=postgres needs " +
  "postgres://[user[:password]@]host[:port]/database";

describe("openSources (MDG_DATA_SOURCE)", () => {
  it.each(["sqlite", "postgres", "upstream"])("the config accepts %s: the factory decides", (value) => {
    const url = value === "postgres" ? { DATABASE_URL: "postgres://u@db.example/x" } : {};
    expect(configFor({ MDG_DATA_SOURCE: value, ...url }).dataSource).toBe(value);
  });

  it("postgres needs DATABASE_URL, a postgres:// URL, and never repeats its value", () => {
    expect(() => configFor({ MDG_DATA_SOURCE: "postgres" })).toThrow(NO_DATABASE_URL);
    expect(() => configFor({ MDG_DATA_SOURCE: "postgres", DATABASE_URL: "" })).toThrow(NO_DATABASE_URL);
    const secret = "mysql://user:s3cret@db.example/x";
    expect(() => configFor({ MDG_DATA_SOURCE: "postgres", DATABASE_URL: secret })).toThrow(/DATABASE_URL: not a valid/);
    try {
      configFor({ MDG_DATA_SOURCE: "postgres", DATABASE_URL: secret });
    } catch (e) {
      expect((e as Error).message).not.toContain("s3cret");
    }
    const config = configFor({ MDG_DATA_SOURCE: "postgres", DATABASE_URL: "postgresql://u@db.example:5433/x" });
    expect(config.postgres).toEqual({
      url: "postgresql://u@db.example:5433/x",
      poolSize: 10,
      statementTimeoutMs: 5000,
    });
  });

  it("the config still refuses anything else", () => {
    expect(() => configFor({ MDG_DATA_SOURCE: "mysql" })).toThrow(/MDG_DATA_SOURCE/);
  });

  it("postgres that cannot be reached: one StartupError naming DATABASE_URL, never its password", async () => {
    const url = "postgres://someone:s3cret-pw@127.0.0.1:1/nowhere";
    const opened = openSources(configFor({ MDG_DATA_SOURCE: "postgres", DATABASE_URL: url }));
    await expect(opened).rejects.toBeInstanceOf(StartupError);
    await expect(opened).rejects.toThrow(/^DATABASE_URL: cannot open the PostgreSQL store: .*ECONNREFUSED/);
    await opened.catch((e: Error) => expect(e.message).not.toContain("s3cret"));
  });

  it("sqlite opens the store's market data and its API keys apart; builds nothing for an existing store", async () => {
    const sources = await openSources(configFor({ MDG_DATA_SOURCE: "sqlite" }), { readonly: true });
    try {
      expect(sources.sampleBuilt).toBeUndefined();
      expect(sources.market.kind).toBe("sqlite");
      expect([...sources.market.capabilities].sort()).toEqual([...CAPABILITY_NAMES].sort());
      expect("findApiKeyByHash" in sources.market).toBe(false);
      expect(await sources.keys.findApiKeyByHash("0".repeat(64))).toBeNull();
      const [row] = await sources.market.getInstrumentsByIsins!(["NOPE"]);
      expect(row).toBeNull();
    } finally {
      await sources.close();
      await sources.close();
    }
  });
});

describe("MDG_DATA_SOURCE=upstream (gateway mode)", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "mdg-factory-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("opens a row-less source, the upstream answers and a keys-only SQLite file; builds no sample", async () => {
    const path = join(dir, "keys.sqlite");
    const sources = await openSources(configFor({ MDG_DATA_SOURCE: "upstream", MDG_SQLITE_PATH: path }));
    try {
      expect(sources.sampleBuilt).toBeUndefined();
      expect(sources.market.kind).toBe("upstream");
      expect([...sources.market.capabilities]).toEqual([]);
      // Every area of the answers port, as the row store answers it.
      expect(Object.keys(sources.answers!).sort()).toEqual(Object.keys(ROW_STORE_ANSWERS).sort());
      expect(Object.keys(sources.answers!)).toContain("fx");
      expect(sources.upstreamState!()).toEqual({ breaker: "closed" });
      expect(await sources.keys.findApiKeyByHash("0".repeat(64))).toBeNull();
      expect(existsSync(path)).toBe(true);
    } finally {
      await sources.close();
      await sources.close();
    }
  });

  it("the keys CLI creates and lists the gateway's own keys in that file", () => {
    const env = {
      ...process.env,
      ...UPSTREAM_ENV,
      MDG_DATA_SOURCE: "upstream",
      MDG_SQLITE_PATH: join(dir, "keys.sqlite"),
      LOG_LEVEL: "silent",
    };
    const cli = (...args: string[]) => runKeysCli(env, ...args);
    const created = cli("create", "--name", "gateway-client", "--scopes", "stock,etf");
    expect(created.status).toBe(0);
    const listed = cli("list");
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain("gateway-client");
  });
});

describe("the service refuses to start without its source", () => {
  // The real entry point, as `npm start` runs it: exit code 1 and the factory's message on stderr.
  it("MDG_DATA_SOURCE=postgres without DATABASE_URL: exit 1 naming the variable", () => {
    const env = { ...process.env, MDG_DATA_SOURCE: "postgres", DATABASE_URL: "", LOG_LEVEL: "silent" };
    const run = spawnSync(process.execPath, ["-r", "@swc-node/register", "src/main.ts"], {
      cwd: ROOT,
      env,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(NO_DATABASE_URL);
  });

  it("the keys CLI refuses it too, as the configuration mistake it is (exit 2, the same message)", () => {
    const env = { ...process.env, MDG_DATA_SOURCE: "postgres", DATABASE_URL: "", LOG_LEVEL: "silent" };
    const run = runKeysCli(env, "list");
    expect(run.status).toBe(2);
    expect(run.stderr.trim()).toBe(`keys: ${NO_DATABASE_URL}`);
  });
});

describe("the sample generator is off the request path", () => {
  /** Every import of a TypeScript file: static `from "..."`, `import("...")` and `require("...")`. */
  function importsOf(file: string): string[] {
    const text = readFileSync(file, "utf8");
    const out: string[] = [];
    const statement = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;
    for (const m of text.matchAll(statement)) out.push(m[1]!);
    return out;
  }
  function filesUnder(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && e.name.endsWith(".ts"))
      .map((e) => join(e.parentPath, e.name));
  }

  it("only the composition root and the sample CLI reach src/tools/, the root only when a store must be built", () => {
    const reaching: string[] = [];
    for (const file of filesUnder(join(ROOT, "src"))) {
      const from = relative(ROOT, file);
      if (from.startsWith("src/tools/")) continue;
      for (const spec of importsOf(file)) {
        if (!spec.startsWith(".")) continue;
        const target = relative(ROOT, join(file, "..", spec));
        if (target.startsWith("src/tools/")) reaching.push(`${from} -> ${target}`);
      }
    }
    expect(reaching.sort()).toEqual([
      "src/app.sources.ts -> src/tools/sample/sample.store",
      "src/application/cli/sample.cli.ts -> src/tools/sample/sample.store",
    ]);
    // The root's is a dynamic import(), inside the builder it hands the source factory…
    const root = readFileSync(join(ROOT, "src/app.sources.ts"), "utf8");
    expect(root).toMatch(/await import\("\.\/tools\/sample\/sample\.store"\)/);
    // …and the sample adapter's read-time price paths are required once a store's meta row says it is the sample.
    const synthetic = readFileSync(join(ROOT, "src/sources/sqlite/sqlite.synthetic.ts"), "utf8");
    expect(synthetic).toMatch(/function seriesModule\(\)[^}]*require\("\.\.\/sample\/sample\.series"\)/);
    expect(synthetic).toMatch(/meta\.has\(SERIES_META_KEY\) \? seriesModule\(\) : null/);
  });
});
