import { API_KEY_PATTERN, hashApiKey } from "../../../src/platform/auth/auth.keys";
import { ApiKeyService } from "../../../src/platform/auth/auth.service";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, main } from "../../../src/application/cli/keys.cli";
import { FakeKeyStore, ManualClock } from "./fakes";

const NOW = "2026-03-02T10:00:00Z";

function harness() {
  const store = new FakeKeyStore();
  const clock = new ManualClock(NOW);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out = { log: (line: string) => void stdout.push(line), error: (line: string) => void stderr.push(line) };
  const run = async (...argv: string[]) => {
    stdout.length = 0;
    stderr.length = 0;
    const code = await main(argv, { source: store, clock, out });
    return { code, stdout: stdout.join("\n"), stderr: stderr.join("\n") };
  };
  return { store, clock, run };
}

function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** The one secret in a create output. */
function secretIn(text: string): string {
  const found = text.match(/mdg_[A-Za-z0-9_-]{43}/g) ?? [];
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe("mdg-keys create", () => {
  it("prints the secret exactly once, with the id and a warning that it cannot be shown again", async () => {
    const { store, run } = harness();

    const { code, stdout, stderr } = await run(
      "create",
      "--name",
      "reporting",
      "--scopes",
      "crypto,etf",
      "--expires",
      "2027-01-01",
      "--rate",
      "120",
      "--quota",
      "5000",
    );

    expect(code).toBe(EXIT_OK);
    expect(stderr).toBe("");
    const secret = secretIn(stdout);
    expect(secret).toMatch(API_KEY_PATTERN);
    expect(occurrences(stdout, secret)).toBe(1);
    expect(stdout).toMatch(/cannot be shown again/);
    const [row] = [...store.rows.values()];
    expect(row).toMatchObject({
      name: "reporting",
      scopes: ["crypto", "etf"],
      expiresAt: Date.parse("2027-01-02T00:00:00Z") / 1000,
      revokedAt: null,
      ratePerMinute: 120,
      dailyQuota: 5000,
      hash: hashApiKey(secret),
    });
    expect(stdout).toContain(row!.id);
    expect(stdout).not.toContain(row!.hash);
  });

  it("makes a key the service then accepts, with the defaults when no limits are given", async () => {
    const { store, clock, run } = harness();
    const { stdout } = await run("create", "--name=ci", "--scopes=*");

    const principal = await new ApiKeyService(store, clock).authenticate(secretIn(stdout));

    expect(principal).toMatchObject({ name: "ci", ratePerMinute: 600, dailyQuota: 100_000 });
    expect([...principal.scopes]).toEqual(["*"]);
    expect(stdout).toMatch(/expires\s+never/);
  });

  it("--expires YYYY-MM-DD keeps the key working through the end of that day, UTC (today included)", async () => {
    const { store, clock, run } = harness();
    const created = await run("create", "--name", "k", "--scopes", "*", "--expires", "2026-03-02");
    expect(created.code).toBe(EXIT_OK);
    expect(created.stdout).toMatch(/expires\s+2026-03-03T00:00:00Z \(usable through 2026-03-02, UTC\)/);
    const secret = secretIn(created.stdout);
    const service = new ApiKeyService(store, clock, { cacheTtlMs: 0 });
    clock.advance(Date.parse("2026-03-02T23:59:59Z") - clock.now().getTime());
    expect(await service.authenticate(secret)).toMatchObject({ name: "k" });
    clock.advance(1_000);
    await expect(service.authenticate(secret)).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
  });

  it("names a command that exists in every hint it prints: npm run keys -- ...", async () => {
    const { store, run } = harness();
    const help = await run("help");
    expect(help.stdout).toMatch(/^Usage: npm run keys -- <command>/);
    expect(help.stdout).toMatch(/through the end of that day \(UTC\)/);
    expect((await run("list")).stdout).toMatch(/Create one with: npm run keys -- create --name/);
    const created = await run("create", "--name", "k", "--scopes", "etf");
    const [row] = [...store.rows.values()];
    expect(created.stdout).toContain(`If it is lost or leaked: npm run keys -- revoke ${row!.id}`);
    expect((await run("rotate")).stderr).toContain('Run "npm run keys -- help" for usage.');
    for (const out of [help.stdout, created.stdout]) expect(out).not.toMatch(/mdg-keys/);
  });

  it("accepts an ISO date-time with zone for --expires", async () => {
    const { store, run } = harness();
    const { code } = await run("create", "--name", "k", "--scopes", "etf", "--expires", "2026-03-02T12:30:00+02:00");
    expect(code).toBe(EXIT_OK);
    expect([...store.rows.values()][0]!.expiresAt).toBe(Date.parse("2026-03-02T10:30:00Z") / 1000);
  });

  it.each([
    ["an unknown scope", ["--name", "k", "--scopes", "etf,options"], /unknown scope "options"/],
    ["no scope", ["--name", "k", "--scopes", ","], /at least one scope/],
    ["a missing --scopes", ["--name", "k"], /--scopes is required/],
    ["a missing --name", ["--scopes", "etf"], /--name is required/],
    ["an empty name", ["--name", " ", "--scopes", "etf"], /name: expected a non-empty string/],
    ["an option without its value", ["--name", "--scopes", "etf"], /--name is missing its value/],
    [
      "a date that is no calendar day",
      ["--name", "k", "--scopes", "etf", "--expires", "2027-02-30"],
      /--expires: expected YYYY-MM-DD/,
    ],
    [
      "a date in another format",
      ["--name", "k", "--scopes", "etf", "--expires", "01/02/2027"],
      /--expires: expected YYYY-MM-DD/,
    ],
    ["a date-time without zone", ["--name", "k", "--scopes", "etf", "--expires", "2027-01-01T10:00"], /--expires/],
    ["a date in the past", ["--name", "k", "--scopes", "etf", "--expires", "2026-03-01"], /not in the future/],
    ["a zero rate", ["--name", "k", "--scopes", "etf", "--rate", "0"], /--rate: expected a positive whole number/],
    [
      "a fractional quota",
      ["--name", "k", "--scopes", "etf", "--quota", "1.5"],
      /--quota: expected a positive whole number/,
    ],
    ["an unknown option", ["--name", "k", "--scopes", "etf", "--owner", "me"], /unknown option/],
    ["a stray argument", ["--name", "k", "--scopes", "etf", "extra"], /unexpected argument/],
  ])("refuses %s with exit code 2, a clear message and nothing stored", async (_label, args, message) => {
    const { store, run } = harness();

    const { code, stdout, stderr } = await run("create", ...args);

    expect(code).toBe(EXIT_USAGE);
    expect(stderr).toMatch(message);
    expect(stderr).toMatch(/"npm run keys -- help"/);
    expect(stdout).not.toMatch(/mdg_/);
    expect(store.rows.size).toBe(0);
  });

  it("does not echo a secret pasted as a stray argument or a scope", async () => {
    const { run } = harness();
    const leaked = "mdg_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

    for (const args of [
      ["create", "--name", "k", "--scopes", "etf", leaked],
      ["create", "--name", "k", "--scopes", leaked],
      ["revoke", leaked],
      [leaked],
    ]) {
      const { code, stdout, stderr } = await run(...args);
      expect(code).toBe(EXIT_USAGE);
      expect(stdout + stderr).not.toContain("AAAAAAAA");
    }
  });
});

describe("mdg-keys list", () => {
  it("prints a table of id, name, scopes, dates, status and limits, never a secret or a hash", async () => {
    const { store, clock, run } = harness();
    const first = secretIn(
      (await run("create", "--name", "alpha", "--scopes", "etf,fund", "--expires", "2026-03-03")).stdout,
    );
    clock.advance(1_000);
    const second = secretIn(
      (await run("create", "--name", "beta", "--scopes", "*", "--rate", "60", "--quota", "1000")).stdout,
    );
    const [a, b] = [...store.rows.values()];
    await run("revoke", b!.id);
    clock.advance(2 * 86_400_000);

    const { code, stdout } = await run("list");

    expect(code).toBe(EXIT_OK);
    const lines = stdout.split("\n");
    expect(lines[0]).toMatch(/^ID\s+NAME\s+SCOPES\s+STATUS\s+CREATED\s+EXPIRES\s+REVOKED\s+RATE\/MIN\s+QUOTA\/DAY$/);
    expect(lines[2]).toMatch(
      new RegExp(
        `^${a!.id}\\s+alpha\\s+etf,fund\\s+expired\\s+` +
          "2026-03-02T10:00:00Z\\s+2026-03-04T00:00:00Z\\s+-\\s+600\\s+100000$",
      ),
    );
    expect(lines[3]).toMatch(
      new RegExp(
        `^${b!.id}\\s+beta\\s+\\*\\s+revoked\\s+2026-03-02T10:00:01Z\\s+-\\s+2026-03-02T10:00:01Z\\s+60\\s+1000$`,
      ),
    );
    for (const secret of [first, second]) {
      expect(stdout).not.toContain(secret);
      expect(stdout).not.toContain(hashApiKey(secret));
      expect(stdout).not.toContain(hashApiKey(secret).slice(0, 16));
    }
  });

  it("says so when there are no keys", async () => {
    const { run } = harness();
    const { code, stdout } = await run("list");
    expect(code).toBe(EXIT_OK);
    expect(stdout).toMatch(/No API keys yet/);
  });

  it("takes no arguments", async () => {
    const { run } = harness();
    expect((await run("list", "--all")).code).toBe(EXIT_USAGE);
  });
});

describe("mdg-keys revoke", () => {
  it("revokes by id, after which the service refuses the key", async () => {
    const { store, clock, run } = harness();
    const secret = secretIn((await run("create", "--name", "k", "--scopes", "etf")).stdout);
    const [row] = [...store.rows.values()];

    const { code, stdout } = await run("revoke", row!.id);

    expect(code).toBe(EXIT_OK);
    expect(stdout).toContain(`Revoked ${row!.id}`);
    expect(store.rows.get(row!.id)!.revokedAt).toBe(Date.parse(NOW) / 1000);
    await expect(new ApiKeyService(store, clock).authenticate(secret)).rejects.toThrow(
      "a valid x-api-key header is required",
    );
  });

  it("fails with exit code 1 for an unknown or already revoked id", async () => {
    const { store, run } = harness();
    await run("create", "--name", "k", "--scopes", "etf");
    const [row] = [...store.rows.values()];
    await run("revoke", row!.id);

    const again = await run("revoke", row!.id);
    const unknown = await run("revoke", "key_000000000000");

    expect(again.code).toBe(EXIT_FAILURE);
    expect(again.stderr).toMatch(/no active key/);
    expect(unknown.code).toBe(EXIT_FAILURE);
  });

  it("wants exactly one id", async () => {
    const { run } = harness();
    expect((await run("revoke")).code).toBe(EXIT_USAGE);
    expect((await run("revoke", "key_a", "key_b")).code).toBe(EXIT_USAGE);
  });
});

describe("mdg-keys", () => {
  it("prints usage for help, and exit code 2 for no or an unknown command", async () => {
    const { run } = harness();
    const help = await run("help");
    expect(help.code).toBe(EXIT_OK);
    expect(help.stdout).toMatch(/create --name NAME --scopes SCOPES/);
    expect((await run()).code).toBe(EXIT_USAGE);
    const unknown = await run("rotate");
    expect(unknown.code).toBe(EXIT_USAGE);
    expect(unknown.stderr).toMatch(/unknown command "rotate"/);
  });

  it("reports a failing store with exit code 1", async () => {
    const { store, run } = harness();
    store.failWith = new Error("SQLITE_CANTOPEN: unable to open database file");

    const created = await run("create", "--name", "k", "--scopes", "etf");
    const listed = await run("list");

    expect(created.code).toBe(EXIT_FAILURE);
    expect(created.stderr).toMatch(/unable to open database file/);
    expect(created.stdout + created.stderr).not.toMatch(/mdg_[A-Za-z0-9_-]{43}/);
    expect(listed.code).toBe(EXIT_FAILURE);
  });
});
