import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp, type TestApp } from "../helpers/app";
import { gql } from "../helpers/graphql";

/**
 * The README and docs/api.md, followed literally: every shell block that calls the service (curl, or the `post` and
 * `gql` helpers docs/api.md defines) runs in one bash, in order, as written, against a real listening test app, from
 * a folder whose `data/dev-key` holds a key (as a first start writes it). The commands address
 * `localhost:${PORT:-4000}`: bash gets the test's port in `PORT`, so they run exactly as written. Lines that start
 * the service (`npm …`) are left out: the test's server stands in for them. Every answer must be a 200 without
 * errors. Every GraphQL block runs too.
 */
const ROOT = join(__dirname, "..", "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const PAGES = [README, readFileSync(join(ROOT, "docs", "api.md"), "utf8")];

interface Block {
  lang: string;
  text: string;
}

function blocksOf(text: string): Block[] {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, text: m[2]! }));
}

const blocks = (): Block[] => PAGES.flatMap(blocksOf);

/** Lines that print one line each: the calls, and the `echo` of the symbols the examples picked. */
const CALLS = /^(curl|post|gql|echo) /;

function runnableShell(): string[] {
  return blocks()
    .filter((b) => b.lang === "sh" && /(^|\s)(curl|post|gql) /m.test(b.text))
    .map((b) =>
      b.text
        .split("\n")
        .filter((line) => !/^npm /.test(line))
        .join("\n"),
    );
}

let t: TestApp;
let server: Server;
let dir: string;
let port: number;
beforeAll(async () => {
  t = await createTestApp();
  server = createServer(t.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  dir = mkdtempSync(join(tmpdir(), "mdg-readme-"));
  mkdirSync(join(dir, "data"));
  const { key } = await t.apiKeys.create({
    name: `readme-${process.pid}`,
    scopes: ["*"],
    ratePerMinute: 10_000,
    dailyQuota: 100_000,
  });
  writeFileSync(join(dir, "data", "dev-key"), `${key}\n`, { mode: 0o600 });
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("README", () => {
  it("its first two commands are npm start and a data call with the key a first start writes", () => {
    const [first, second] = blocksOf(README).filter((b) => b.lang === "sh");
    expect(first!.text).toMatch(/^npm install && npm start/);
    expect(second!.text).toMatch(/^curl .*x-api-key: \$\(cat data\/dev-key\)/);
    expect(README).not.toMatch(/MDG_BOOTSTRAP_API_KEY=local-trial-key|mdg-keys /);
  });

  it("runs every curl, post and gql example as written: each answers 200 without errors", async () => {
    const script = runnableShell().join("\n");
    const calls = script.split("\n").filter((line) => CALLS.test(line));
    expect(calls.length).toBeGreaterThan(20);
    // Every command follows PORT: none names the default port alone.
    expect(script).not.toMatch(/localhost:4000\b/);
    // Asynchronously: the server answering the calls runs in this process.
    const run = await new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        "bash",
        ["-e", "-c", script],
        { cwd: dir, env: { ...process.env, PORT: String(port) }, encoding: "utf8", timeout: 120_000 },
        (err, stdout, stderr) => resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    // Today's sample gives its first stock no quarterly financials (a fuller sample is coming): its TTM then answers
    // the README's documented 404 ("a stock without four reported quarters"), and only then.
    const stock = (await t.post("/v1/list/stocks", { limit: 1 })).body.results[0].symbol as string;
    const quarters = t.source.db
      .prepare(
        `SELECT count(*) FROM quarterly_financials f JOIN listings l ON l.security_id = f.security_id
         WHERE l.symbol = ?`,
      )
      .pluck()
      .get(stock) as number;
    const documented404 = (call: string, line: string) =>
      quarters < 4 && /financials\/ttm|financialsTtm/.test(call) && /NOT_FOUND/.test(line) && /4/.test(line);
    const answers = run.stdout.split("\n").filter((l) => l.trim() !== "");
    expect(answers).toHaveLength(calls.length);
    answers.forEach((line, i) => {
      if (calls[i]!.startsWith("echo ")) {
        // The first stock, ETF and fund the examples use.
        expect(line.split(" ")).toHaveLength(3);
        expect(line).not.toMatch(/undefined|null/);
        return;
      }
      let body: { statusCode?: number; code?: string; errors?: unknown };
      try {
        body = JSON.parse(line);
      } catch {
        throw new Error(`${calls[i]}\nanswered what is not JSON: ${line.slice(0, 300)}`);
      }
      const failed = body.errors !== undefined || (body.statusCode !== undefined && body.statusCode !== 200);
      if (failed && !documented404(calls[i]!, line)) throw new Error(`${calls[i]}\nanswered ${line.slice(0, 500)}`);
    });
  });

  it("is at most 200 lines", () => {
    expect(README.split("\n").length).toBeLessThanOrEqual(200);
  });

  it("runs every GraphQL block as written (none needs variables it does not show)", async () => {
    const graphql = blocks().filter((b) => b.lang === "graphql");
    expect(graphql.length).toBeGreaterThan(0);
    for (const b of graphql) {
      expect(b.text).not.toContain("$");
      const res = await gql(t, b.text);
      expect({ query: b.text, status: res.status, errors: res.body.errors }).toEqual({
        query: b.text,
        status: 200,
        errors: undefined,
      });
    }
  });
});
