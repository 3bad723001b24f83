import { readdirSync, readFileSync } from "node:fs";
import type { TestApp } from "../helpers/app";
import { createTestApp } from "../helpers/app";
import { BOOTSTRAP_KEY } from "../helpers/constants";
import { loadConfig } from "../../src/platform/config";
import { workerPoolStats } from "../../src/platform/workers/worker.pool";
import { BOOTSTRAP_KEY_ID } from "../../src/platform/auth/auth.service";
import { heavyGate } from "../../src/platform/quotas/quota.heavy";

/**
 * Issue 13: one key's heavy operation must not freeze the service for the
 * others. The heavy operations here are the costliest of their kind the
 * defaults accept on the test store; the light one is another key's quote.
 * The issue's latency bound (100 ms) is a speed target, so it is measured in
 * the benchmark (scripts/bench/heavy-neighbour.ts); here the order is what is
 * checked: the light answer arrives while the heavy operation still runs.
 */
let t: TestApp;
let lightKey: string;

const FROM_2016 = 1_451_606_400;
const ETFS_SQL = `SELECT l.symbol FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
  WHERE s.type = 'etf' ORDER BY l.symbol`;
const etfSymbols = () => (t.source.db.prepare(ETFS_SQL).all() as { symbol: string }[]).map((r) => r.symbol);

/**
 * Ten-year daily metrics as asked here cost 310 an ETF, and the operation 100: 31 ETFs (9,710) is the most the
 * default limit accepts.
 */
const MOST = 31;
/** Ten years of metrics with their daily series cost about 1,000 a bulk item: 9 of them is the most a bulk may ask. */
const BULK_MOST = 9;
const HEAVY_GQL = `query($s: [String!]!) { etfs(symbols: $s) { symbol
  metrics(from: ${FROM_2016}, resolution: "D") { totalReturn sharpeRatio maxDrawdown { value } } } }`;

const gql = (query: string, variables: unknown, key?: string) => {
  let r = t.http.post("/graphql").set("content-type", "application/json");
  if (key) r = r.set("x-api-key", key);
  return r.send({ query, variables });
};

/**
 * Sends a light request of the other key once `heavy` is under way, and checks
 * it was answered while the heavy one was still running: a blocked event loop
 * would answer it only after the heavy one.
 */
async function lightWhile(heavy: Promise<unknown>): Promise<void> {
  let heavyDone = false;
  const done = heavy.then(() => (heavyDone = true));
  await new Promise((r) => setTimeout(r, 30));
  const res = await t.post("/v1/quote", { symbol: "BTC-USD" }, lightKey);
  expect(res.status).toBe(200);
  expect(heavyDone).toBe(false);
  await done;
}

beforeAll(async () => {
  // Room for every heavy operation these tests run at once: what they check is each key's own bound, not the
  // process's capacity (test/platform/quotas/quota.heavy-capacity.spec.ts).
  t = await createTestApp({ env: { MDG_HEAVY_CAPACITY: "8" } });
  lightKey = (await t.apiKeys.create({ name: "fairness-light", scopes: ["crypto"] })).key;
  // A key's first request verifies its hash (deliberately slow); later ones hit the key cache, as in service.
  expect((await t.post("/v1/quote", { symbol: "BTC-USD" }, lightKey)).status).toBe(200);
  // The worker threads start on the first heavy job: start them before anything is timed.
  const warm = await gql(HEAVY_GQL, { s: etfSymbols().slice(0, 2) }, BOOTSTRAP_KEY);
  expect(warm.body.data.etfs).toHaveLength(2);
});
afterAll(() => t.close());

describe("a heavy operation of one key next to a light request of another", () => {
  it("GraphQL: the light request is answered while the heavy one runs; the heavy one completes", async () => {
    const symbols = etfSymbols().slice(0, MOST);
    let heavyStatus = 0;
    const heavy = gql(HEAVY_GQL, { s: symbols }, BOOTSTRAP_KEY).then((r) => {
      heavyStatus = r.status;
      expect(r.body.errors).toBeUndefined();
      expect(r.body.data.etfs).toHaveLength(symbols.length);
    });
    await lightWhile(heavy);
    expect(heavyStatus).toBe(200);
    // It is the costliest of its kind: one ETF more is refused.
    const more = await gql(HEAVY_GQL, { s: etfSymbols().slice(0, MOST + 1) }, BOOTSTRAP_KEY);
    expect(more.body.errors[0].extensions.reason).toBe("QUERY_TOO_COSTLY");
  });

  it("bulk: the light request is answered while the heavy one runs; the heavy one completes", async () => {
    // The costliest bulk of etf/metrics the default limit accepts: ten years with their daily series.
    const symbols = etfSymbols()
      .slice(0, BULK_MOST)
      .map((symbol) => ({ symbol }));
    let heavyStatus = 0;
    const body = { endpoint: "etf/metrics", symbols, params: { from: FROM_2016, resolution: "D" } };
    const heavy = t.post("/v1/bulk", body).then((r) => {
      heavyStatus = r.status;
      expect(r.body.results.map((x: { statusCode: number }) => x.statusCode)).toEqual(symbols.map(() => 200));
    });
    await lightWhile(heavy);
    expect(heavyStatus).toBe(200);
  });
});

/** A thread's nice value, from /proc (the 19th field of its stat). */
const niceOf = (tid: number) =>
  Number(readFileSync(`/proc/self/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ")[19 - 3]);
const onLinux = process.platform === "linux" ? it : it.skip;
/** The main thread's nice value before the service ran anything. */
const MAIN_NICE = process.platform === "linux" ? niceOf(process.pid) : 0;

describe("the worker threads' priority (MDG_WORKER_NICE)", () => {
  onLinux("heavy work runs on threads niced 19 above the main thread, whose own priority stays as it was", async () => {
    const res = await gql(HEAVY_GQL, { s: etfSymbols().slice(0, 2) }, BOOTSTRAP_KEY);
    expect(res.status).toBe(200);
    const nices = readdirSync("/proc/self/task")
      .map(Number)
      .filter((tid) => tid !== process.pid)
      .map(niceOf);
    expect(workerPoolStats().threads).toBeGreaterThan(0);
    // At least this pool's threads: pools of the test files run before this one in the process may still be there.
    expect(nices.filter((n) => n === Math.min(19, MAIN_NICE + 19)).length).toBeGreaterThanOrEqual(
      workerPoolStats().threads,
    );
    expect(niceOf(process.pid)).toBe(MAIN_NICE);
  });

  it("defaults to 19 and refuses what is not an integer from 0 to 19 at start", () => {
    expect(loadConfig({}).workerNice).toBe(19);
    expect(loadConfig({ MDG_WORKER_NICE: "0" }).workerNice).toBe(0);
    for (const bad of ["-1", "20", "1.5", "low"]) {
      expect(() => loadConfig({ MDG_WORKER_NICE: bad })).toThrow(/MDG_WORKER_NICE/);
    }
  });
});

describe("the request timeout while heavy work runs", () => {
  it("answers 500 on time and aborts the request's worker jobs", async () => {
    // Well below what the operation takes even warm: 90-110 ms on this machine once the tests above have run it, so
    // a 100 ms timeout sometimes lost the race and the answer was a 200.
    const slow = await createTestApp({ env: { MDG_REQUEST_TIMEOUT_MS: "20" } });
    try {
      const symbols = etfSymbols().slice(0, MOST);
      const started = performance.now();
      const res = await slow.http
        .post("/graphql")
        .set("content-type", "application/json")
        .set("x-api-key", BOOTSTRAP_KEY)
        .send({ query: HEAVY_GQL, variables: { s: symbols } });
      const took = performance.now() - started;
      expect(res.status).toBe(500);
      expect(res.body.errors[0].extensions.reason).toBe("TIMEOUT");
      // A bound for a hang, not a speed target.
      expect(took).toBeLessThan(5_000);
      await new Promise((r) => setTimeout(r, 50));
      expect(workerPoolStats().requests).toBe(0);
    } finally {
      await slow.close();
    }
  });
});

describe("MDG_MAX_HEAVY_PER_KEY (default 2)", () => {
  it("refuses a key's third concurrent heavy GraphQL operation with 403 QUOTA_EXCEEDED and Retry-After", async () => {
    const symbols = etfSymbols().slice(0, MOST);
    const key = BOOTSTRAP_KEY;
    const answers = await Promise.all([0, 1, 2].map(() => gql(HEAVY_GQL, { s: symbols }, key)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 403]);
    const refused = answers.find((r) => r.status === 403)!;
    expect(refused.body.errors[0].extensions).toMatchObject({ code: "FORBIDDEN", reason: "QUOTA_EXCEEDED" });
    expect(refused.headers["retry-after"]).toBe("1");
    // Slots are released with the answers: the next one runs.
    expect((await gql(HEAVY_GQL, { s: symbols }, key)).status).toBe(200);
  });

  it("refuses a key's third concurrent heavy bulk with 403 QUOTA_EXCEEDED and Retry-After", async () => {
    const symbols = etfSymbols()
      .slice(0, 3)
      .map((symbol) => ({ symbol }));
    const body = { endpoint: "etf/metrics", symbols, params: { from: FROM_2016, resolution: "D" } };
    const answers = await Promise.all([0, 1, 2].map(() => t.post("/v1/bulk", body)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 403]);
    const refused = answers.find((r) => r.status === 403)!;
    expect(refused.body.code).toBe("QUOTA_EXCEEDED");
    expect(refused.headers["retry-after"]).toBe("1");
  });
});

describe("single REST calls over long ranges", () => {
  it("count as heavy: with two heavy operations of the key running, a ten-year etf/metrics gets 403", async () => {
    const [symbol] = etfSymbols();
    const body = { symbol, from: FROM_2016, resolution: "D" };
    const gate = heavyGate(t.deps.config);
    // Two heavy GraphQL operations of the same key hold both slots (REST, bulk and /graphql share them).
    let running = true;
    const heavy = Promise.all([0, 1].map(() => gql(HEAVY_GQL, { s: etfSymbols().slice(0, MOST) }, BOOTSTRAP_KEY)));
    const done = heavy.then((answers) => ((running = false), answers));
    for (let i = 0; i < 200 && gate.inFlight(BOOTSTRAP_KEY_ID) < 2; i++) await new Promise((r) => setTimeout(r, 5));
    const refused = await t.post("/v1/etf/metrics", body);
    expect(running).toBe(true);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("QUOTA_EXCEEDED");
    expect(refused.headers["retry-after"]).toBe("1");
    expect((await done).map((r) => r.status)).toEqual([200, 200]);
    // The slots are released with the answers, and the REST call's own slot with its answer.
    expect(gate.inFlight(BOOTSTRAP_KEY_ID)).toBe(0);
    expect((await t.post("/v1/etf/metrics", body)).status).toBe(200);
    expect(gate.inFlight(BOOTSTRAP_KEY_ID)).toBe(0);
  });

  it("are not heavy over a short range, and quotes are never priced", async () => {
    const [symbol] = etfSymbols();
    const month = { symbol, from: 1_760_000_000, to: 1_762_600_000, resolution: "D" };
    const answers = await Promise.all([0, 1, 2, 3].map(() => t.post("/v1/etf/metrics", month)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const quotes = await Promise.all([0, 1, 2, 3].map(() => t.post("/v1/quote", { symbol })));
    expect(quotes.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });
});

describe("MDG_MAX_HEAVY_PER_KEY validation", () => {
  it("defaults to 2 and refuses what is not a positive integer at start", () => {
    expect(loadConfig({}).maxHeavyPerKey).toBe(2);
    expect(loadConfig({ MDG_MAX_HEAVY_PER_KEY: "5" }).maxHeavyPerKey).toBe(5);
    for (const bad of ["0", "-1", "1.5", "two"]) {
      expect(() => loadConfig({ MDG_MAX_HEAVY_PER_KEY: bad })).toThrow(/MDG_MAX_HEAVY_PER_KEY/);
    }
  });
});

describe("bulk over the cost limit", () => {
  it("answers 404 INVALID_ARGUMENT with the cost and the limit, running nothing", async () => {
    const symbols = etfSymbols()
      .slice(0, BULK_MOST + 1)
      .map((symbol) => ({ symbol }));
    const { result: res, queries } = await t.countQueries(() =>
      t.post("/v1/bulk", { endpoint: "etf/metrics", symbols, params: { from: FROM_2016, resolution: "D" } }),
    );
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("INVALID_ARGUMENT");
    expect(res.body.message).toMatch(
      new RegExp(
        `^symbols: this call costs (\\d+) \\(100 \\+ ${BULK_MOST + 1} × \\d+ for etf/metrics\\); at most 10000 `,
      ),
    );
    const cost = Number(/costs (\d+)/.exec(res.body.message)![1]);
    expect(cost).toBeGreaterThan(10_000);
    expect(res.body.details).toEqual([{ field: "symbols", issue: `cost ${cost} over the limit 10000` }]);
    // The instrument lookup of the route's own checks is all the store saw.
    expect(queries).toBeLessThanOrEqual(1);
  });
});
