import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Kind, parse, print } from "graphql";
import pino from "pino";
import { CompiledOperations } from "../../../src/http/graphql/graphql.compiled";
import { GraphqlPipeline } from "../../../src/http/graphql/graphql.pipeline";
import { createHttpServer } from "../../../src/http/server/server.http";
import { createTestApp, type TestApp } from "../../helpers/app";
import { BOOTSTRAP_KEY } from "../../helpers/constants";
import { listen, send, type RawResponse } from "../../helpers/http";
import { primarySymbols } from "../../helpers/stock-samples";

/**
 * POST /graphql's own pipeline (src/http/graphql/graphql.pipeline.ts) must answer exactly as Apollo does with the
 * same stages: two apps over the same store, one with the pipeline and one without, get the same list of requests
 * in the same order, and every answer must be byte-identical (status, headers but the date and request id, body).
 * Each app has its own rate limiter, so the RateLimit headers (and the 403s of a spent key) show its counters moving
 * the same way; the metrics of GraphQL operations must count the same. From an operation's third run on, both run
 * it compiled by graphql-jit where that answers without errors: the cases say which must.
 */
// Introspection off, as in production (Apollo then hides suggestions in validation errors).
const ENV = {
  MDG_METRICS_ENABLED: "true",
  MDG_GRAPHQL_MAX_ALIASES: "3",
  MDG_GRAPHQL_MAX_DEPTH: "6",
  MDG_GRAPHQL_INTROSPECTION: "false",
};
const OPERATIONS_DIR = join(__dirname, "..", "..", "..", "schema", "operations");

let fast: TestApp;
let slow: TestApp;
const ports: { fast: number; slow: number } = { fast: 0, slow: 0 };
const closers: (() => Promise<void>)[] = [];
const keys: Record<string, string> = {};

beforeAll(async () => {
  fast = await createTestApp({ env: ENV });
  slow = await createTestApp({ env: ENV, app: { graphqlFastPath: false } });
  for (const [name, t] of [
    ["fast", fast],
    ["slow", slow],
  ] as const) {
    const { port, close } = await listen(createHttpServer(t.app, pino({ level: "silent" })));
    ports[name] = port;
    closers.push(close);
  }
  // Keys live in the shared store: both apps authenticate the same ones, each counting them in its own limiter.
  keys.etfOnly = (await fast.apiKeys.create({ name: "fast-path-etf", scopes: ["etf"] })).key;
  keys.spent = (await fast.apiKeys.create({ name: "fast-path-spent", scopes: ["*"], ratePerMinute: 4 })).key;
});
afterAll(async () => {
  for (const close of closers) await close();
  await fast?.close();
  await slow?.close();
});

interface Case {
  title: string;
  /** Whether the fast path answers it (else it is left to Apollo on both apps). */
  fast?: boolean;
  /** Whether the operation runs compiled from its third run on (an answer with errors is then run by graphql-js). */
  direct?: boolean;
  body: unknown;
  key?: string | null;
  headers?: Record<string, string>;
}

async function post(port: number, c: Case): Promise<RawResponse> {
  const bytes = Buffer.from(typeof c.body === "string" ? c.body : JSON.stringify(c.body));
  const key = c.key === undefined ? BOOTSTRAP_KEY : c.key;
  return send(port, {
    method: "POST",
    path: "/graphql",
    headers: {
      "content-type": "application/json",
      "content-length": bytes.length,
      ...(key === null ? {} : { "x-api-key": key }),
      ...c.headers,
    },
    body: bytes,
  });
}

function comparable(res: RawResponse) {
  const { date: _date, "x-request-id": _id, ...headers } = res.headers;
  return { status: res.status, headers, body: res.body.toString("latin1") };
}

/** Sends `c` to both apps, `times` times each (jit compiles an operation on its third run), and compares. */
async function same(c: Case, times = 4): Promise<RawResponse> {
  let last: RawResponse | undefined;
  for (let i = 0; i < times; i++) {
    const a = await post(ports.fast, c);
    const b = await post(ports.slow, c);
    expect({ title: c.title, run: i, ...comparable(a) }).toEqual({ title: c.title, run: i, ...comparable(b) });
    last = a;
  }
  return last!;
}

/** Counts the pipeline's answers, and the compiled operations the schema's cache gave either app, until `done`. */
function tally() {
  const answer = jest.spyOn(GraphqlPipeline.prototype, "answer");
  const get = jest.spyOn(CompiledOperations.prototype, "get");
  return {
    answers: () => answer.mock.calls.length,
    compiled: () => get.mock.results.filter((r) => !!r.value).length,
    done: () => {
      answer.mockRestore();
      get.mockRestore();
    },
  };
}

/** Variables for an operation of schema/operations by the names it declares. */
function variablesFor(file: string, names: string[]): Record<string, unknown> {
  const db = fast.source.db;
  const symbolOf: Record<string, () => string> = {
    "crypto.graphql": () => "BTC-USD",
    "etf.graphql": () => primarySymbols(db, "etf", 1)[0]!,
    "fund.graphql": () => primarySymbols(db, "fund", 1)[0] ?? "NOPE",
    "indices.graphql": () => "SPX",
  };
  const symbol = (symbolOf[file] ?? (() => primarySymbols(db, "stock", 1)[0]!))();
  const values: Record<string, unknown> = { symbol, query: symbol.slice(0, 2), limit: 2 };
  return Object.fromEntries(names.filter((n) => n in values).map((n) => [n, values[n]]));
}

describe("POST /graphql, fast path against Apollo's", () => {
  it("answers every operation of every domain (alone, and by name in its file) byte for byte alike", async () => {
    const counted = tally();
    const files = readdirSync(OPERATIONS_DIR).filter((f) => f.endsWith(".graphql"));
    expect(files.length).toBeGreaterThan(5);
    let cases = 0;
    let answered = 0;
    for (const file of files) {
      const text = readFileSync(join(OPERATIONS_DIR, file), "utf8");
      const definitions = parse(text).definitions;
      const fragments = definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
      for (const op of definitions) {
        if (op.kind !== Kind.OPERATION_DEFINITION || !op.name) continue;
        const variables = variablesFor(
          file,
          (op.variableDefinitions ?? []).map((d) => d.variable.name.value),
        );
        const title = `${file} ${op.name.value}`;
        // Alone: with the fragments it spreads (fragments do not spread others in these files).
        const alone = [print(op), ...fragments.filter((f) => print(op).includes(`...${f.name.value}`)).map(print)];
        const answer = await same({ title, body: { query: alone.join("\n"), variables } });
        if (answer.status === 200 && (answer.json as { data?: unknown }).data) answered += 1;
        cases += 4 + 3;
        await same(
          { title: `${title} in its file`, body: { query: text, variables, operationName: op.name.value } },
          3,
        );
      }
    }
    // Every run of those on the fast app took the fast path (the first run of a text too); none of the slow app's did.
    expect(counted.answers()).toBe(cases);
    // The third and fourth run of each alone, on both apps, ran compiled.
    expect(counted.compiled()).toBeGreaterThanOrEqual((cases / 7 - 2) * 2 * 2);
    counted.done();
    // Most operations answer data with these variables (some need variables of their own, and answer errors).
    expect(answered).toBeGreaterThan(cases / 7 / 2);
  });

  const crypto = "query P($s: String!) { cryptoPrice(symbol: $s) { symbol currency price } }";
  const cases: Case[] = [
    {
      title: "no variables, literal argument",
      fast: true,
      direct: true,
      body: { query: '{ cryptoPrice(symbol: "BTC-USD") { symbol } }' },
    },
    {
      title: "null variables and operation name",
      fast: true,
      direct: true,
      body: { query: crypto, variables: { s: "ETH-USD" }, operationName: null },
    },
    {
      title: "variables null",
      fast: true,
      direct: true,
      body: { query: '{ cryptoPrice(symbol: "BTC-USD") { symbol } }', variables: null },
    },
    {
      title: "NOT_FOUND from a resolver",
      fast: true,
      direct: true,
      body: { query: crypto, variables: { s: "NOPE-USD" } },
    },
    {
      title: "partial data with an error",
      fast: true,
      direct: true,
      body: { query: '{ a: cryptoPrice(symbol: "BTC-USD") { symbol } b: cryptoPrice(symbol: "NOPE-USD") { symbol } }' },
    },
    { title: "a variable of the wrong type", fast: true, direct: true, body: { query: crypto, variables: { s: 5 } } },
    { title: "a required variable missing", fast: true, direct: true, body: { query: crypto, variables: {} } },
    {
      title: "an unknown variable",
      fast: true,
      direct: true,
      body: { query: crypto, variables: { s: "BTC-USD", t: 1 } },
    },
    {
      title: "no key: 401 before the document is read",
      body: { query: crypto, variables: { s: "BTC-USD" } },
      key: null,
    },
    {
      title: "a key that does not authenticate: 401",
      body: { query: crypto, variables: { s: "BTC-USD" } },
      key: "nope",
    },
    {
      title: "a field refused for its scope, refunded",
      fast: true,
      direct: true,
      body: { query: crypto, variables: { s: "BTC-USD" } },
      key: "etfOnly",
    },
    {
      title: "too many aliases",
      fast: true,
      body: {
        query: `{ ${["a", "b", "c", "d"].map((a) => `${a}: cryptoPrice(symbol: "BTC-USD") { symbol }`).join(" ")} }`,
      },
    },
    { title: "too costly", fast: true, body: { query: "{ listStocks(limit: 1000000) { results { symbol } } }" } },
    { title: "an unknown field", body: { query: '{ cryptoPrice(symbol: "BTC-USD") { nope } }' } },
    { title: "a syntax error", body: { query: "{ cryptoPrice(" } },
    { title: "an unknown operation name", body: { query: crypto, variables: { s: "BTC-USD" }, operationName: "Q" } },
    { title: "an empty query", body: { query: "" } },
    { title: "no query", body: { variables: {} } },
    { title: "variables as a string", body: { query: crypto, variables: '{"s":"BTC-USD"}' } },
    { title: "__typename", fast: true, direct: true, body: { query: "{ __typename }" } },
    { title: "introspection", body: { query: "{ __schema { queryType { name } } }" } },
    { title: "a batch", body: [{ query: crypto, variables: { s: "BTC-USD" } }] },
    { title: "a persisted query hash", body: { extensions: { persistedQuery: { version: 1, sha256Hash: "ab" } } } },
    {
      title: "other extensions",
      fast: true,
      direct: true,
      body: { query: crypto, variables: { s: "BTC-USD" }, extensions: { x: 1 } },
    },
    { title: "a subscription", body: { query: "subscription { x }" } },
    { title: "a mutation", body: { query: "mutation { x }" } },
    {
      title: "accept: graphql-response+json",
      fast: true,
      direct: true,
      body: { query: crypto, variables: { s: "BTC-USD" } },
      headers: { accept: "application/graphql-response+json" },
    },
    {
      title: "accept: */*",
      fast: true,
      direct: true,
      body: { query: crypto, variables: { s: "BTC-USD" } },
      headers: { accept: "*/*" },
    },
    {
      title: "accept: text/plain",
      body: { query: crypto, variables: { s: "BTC-USD" } },
      headers: { accept: "text/plain" },
    },
    {
      title: "the first of two operations by name",
      fast: true,
      direct: true,
      body: {
        query: `${crypto} query Q { cryptoPrice(symbol: "BTC-USD") { price } }`,
        variables: { s: "BTC-USD" },
        operationName: "P",
      },
    },
    {
      title: "the second of two operations by name",
      fast: true,
      direct: true,
      body: { query: `${crypto} query Q { cryptoPrice(symbol: "BTC-USD") { price } }`, operationName: "Q" },
    },
    {
      title: "two operations and no name",
      body: { query: `${crypto} query Q { cryptoPrice(symbol: "BTC-USD") { price } }`, variables: { s: "BTC-USD" } },
    },
    {
      title: "a variable that does not coerce, once compiled",
      fast: true,
      direct: true,
      body: { query: crypto, variables: { s: { no: 1 } } },
    },
    {
      title: "two fields refused for their scope, all refunded (no RateLimit fields)",
      fast: true,
      direct: true,
      body: { query: '{ a: cryptoPrice(symbol: "BTC-USD") { symbol } b: cryptoPrice(symbol: "ETH-USD") { symbol } }' },
      key: "etfOnly",
    },
    {
      title: "one field of two refused for its scope, its unit refunded",
      fast: true,
      direct: true,
      body: { query: '{ c: cryptoPrice(symbol: "BTC-USD") { symbol } l: listEtfs(limit: 1) { results { symbol } } }' },
      key: "etfOnly",
    },
    {
      title: "compressed answer",
      fast: true,
      direct: true,
      body: { query: "{ listStocks(limit: 40) { results { symbol name } } }" },
      headers: { "accept-encoding": "gzip, br" },
    },
  ];
  it.each(cases)("$title", async (c) => {
    const counted = tally();
    try {
      await same({ ...c, key: c.key === "etfOnly" ? keys.etfOnly : c.key }, 6);
      expect(counted.answers()).toBe(c.fast ? 6 : 0);
      // Compiled on its third run, on both apps: runs three to six of each ran compiled.
      if (c.direct) expect(counted.compiled()).toBeGreaterThanOrEqual(8);
    } finally {
      counted.done();
    }
  });

  it("spends a key's rate alike, then refuses it alike (403, Retry-After), compiled too", async () => {
    const counted = tally();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const last = await same(
        { title: "spent key", body: { query: crypto, variables: { s: "BTC-USD" } }, key: keys.spent },
        1,
      );
      statuses.push(last.status);
    }
    // The key's four calls a minute run (compiled: the operation ran before), then 403 before anything runs.
    expect(counted.answers()).toBe(6);
    expect(counted.compiled()).toBe(8);
    counted.done();
    expect(statuses).toEqual([200, 200, 200, 200, 403, 403]);
  });

  it("refuses a compiled operation the limits refuse for its variables alike (400)", async () => {
    const counted = tally();
    try {
      const query = "query L($n: Int) { listStocks(limit: $n) { results { symbol } } }";
      await same({ title: "cheap", body: { query, variables: { n: 1 } } }, 4);
      const refused = await same({ title: "too costly", body: { query, variables: { n: 1_000_000 } } }, 2);
      expect(refused.status).toBe(400);
      expect(counted.answers()).toBe(6);
    } finally {
      counted.done();
    }
  });

  it("answers an operation that holds a heavy slot alike", async () => {
    const counted = tally();
    try {
      await same({ title: "heavy", body: { query: "{ listStocks(limit: 1500) { results { symbol } } }" } }, 5);
      expect(counted.answers()).toBe(5);
    } finally {
      counted.done();
    }
  });

  it("counts the operations in the metrics alike", async () => {
    const counts = async (port: number) => {
      const res = await send(port, { method: "GET", path: "/metrics" });
      return res.body
        .toString("utf8")
        .split("\n")
        .filter((l) => l.startsWith("mdg_graphql_operation_duration_seconds_count"));
    };
    const a = await counts(ports.fast);
    expect(a.length).toBeGreaterThan(3);
    expect(a).toEqual(await counts(ports.slow));
  });
});
