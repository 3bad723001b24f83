import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_STORE_PATH } from "../../helpers/constants";
import { spawnEntry } from "../../helpers/entry";

/**
 * The real entry (`node -r @swc-node/register src/main.ts`) refuses to start with exit code 1 and one line on stderr
 * that names the variable or the path and what is wrong: no stack, no "Unhandled 'error' event".
 */
const STORE = process.env.MDG_TEST_STORE_PATH ?? TEST_STORE_PATH;

async function start(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string[] }> {
  const child = spawnEntry({ LOG_LEVEL: "silent", MDG_SQLITE_PATH: STORE, ...env }, ["ignore", "ignore", "pipe"]);
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  const timer = setTimeout(() => child.kill("SIGKILL"), 50_000);
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stderr: stderr.split("\n").filter((l) => l.trim() !== "") };
}

async function expectRefusal(env: NodeJS.ProcessEnv, line: RegExp): Promise<string> {
  const { code, stderr } = await start(env);
  expect(stderr).toHaveLength(1);
  expect(stderr[0]).toMatch(line);
  expect(code).toBe(1);
  return stderr[0]!;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mdg-startup-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the HTTP port and address", () => {
  let taken: Server;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  });
  afterAll(() => new Promise((resolve) => taken.close(resolve)));

  it("refuses a PORT already in use", async () => {
    const port = (taken.address() as AddressInfo).port;
    const line = new RegExp(`^PORT: ${port} is already in use on 127\\.0\\.0\\.1 \\(EADDRINUSE\\); `);
    await expectRefusal({ PORT: String(port) }, line);
  });

  it("refuses a HOST that does not resolve", async () => {
    const line = /^HOST: "nonsense\.invalid" does not resolve to an address \((ENOTFOUND|EAI_AGAIN)\); set HOST/;
    await expectRefusal({ HOST: "nonsense.invalid" }, line);
  });

  it("refuses a HOST that is not an address of this machine", async () => {
    // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never assigned to a real interface.
    const line = /^HOST: "192\.0\.2\.1" is not an address of this machine \(EADDRNOTAVAIL\)/;
    await expectRefusal({ HOST: "192.0.2.1" }, line);
  });

  // Other values of PORT (a word, out of range) are config.spec.ts's, without a process.
  it("refuses an empty PORT (it used to listen on a random port)", async () => {
    await expectRefusal({ PORT: "" }, /^invalid configuration: PORT: empty; expected an integer from 0 to 65535/);
  });
});

describe("other settings", () => {
  it("refuses MDG_REQUEST_TIMEOUT_MS=99999999999", async () => {
    const line = /^invalid configuration: MDG_REQUEST_TIMEOUT_MS: "99999999999" is out of range/;
    await expectRefusal({ MDG_REQUEST_TIMEOUT_MS: "99999999999" }, line);
  });

  it("refuses REDIS_URL=redis://:abc without echoing it", async () => {
    const line = await expectRefusal(
      { REDIS_URL: "redis://:abc" },
      /^invalid configuration: REDIS_URL: not a valid redis:\/\/ URL \(/,
    );
    expect(line).not.toContain("abc");
  });
});

describe("the store (MDG_SQLITE_PATH)", () => {
  it("refuses a file that is not SQLite", async () => {
    const path = join(dir, "notes.db");
    writeFileSync(path, "these are not the bytes of a SQLite database\n");
    await expectRefusal({ MDG_SQLITE_PATH: path }, new RegExp(`^MDG_SQLITE_PATH: ${path} is not a SQLite database$`));
  });

  it("refuses a folder", async () => {
    const path = join(dir, "folder.db");
    mkdirSync(path);
    await expectRefusal(
      { MDG_SQLITE_PATH: path },
      new RegExp(`^MDG_SQLITE_PATH: ${path} is a folder, not a SQLite file$`),
    );
  });

  it("refuses a path under a regular file (it can be neither opened nor created)", async () => {
    const file = join(dir, "plain");
    writeFileSync(file, "x");
    const path = join(file, "sub", "market.db");
    await expectRefusal(
      { MDG_SQLITE_PATH: path },
      new RegExp(`^MDG_SQLITE_PATH: ${path} cannot be created: ${file} is a file, not a folder$`),
    );
  });
});
