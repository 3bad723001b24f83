import { Writable } from "node:stream";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import type { OutgoingHttpHeaders } from "node:http";
import fc from "fast-check";
import pino from "pino";
import { VERSIONS } from "../../src/http/rest/rest.route";
import { ROUTES } from "../../src/http/rest/rest.routes";
import { createHttpServer } from "../../src/http/server/server.http";
import { createTestApp, type TestApp } from "../helpers/app";
import { BOOTSTRAP_KEY } from "../helpers/constants";
import { listen, send, type RawResponse } from "../helpers/http";

/**
 * docs/contract.md section 2, proven by generation: every REST path of both
 * versions (the route table, bulk, unknown paths), every method, any body,
 * content type, encoding, key and odd header answers one of 200, 401, 403,
 * 404 with the contract's error body; never 500 (all of this is client
 * input), never a hang; and the process stays up and logs no fault.
 */
/**
 * Fixed in `npm test`; FUZZ_SEED and FUZZ_RUNS explore further by hand (`FUZZ_SEED=7 FUZZ_RUNS=20000 npx jest
 * test/http/fuzz`).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_120);
const RUNS = Number(process.env.FUZZ_RUNS ?? 2_400);
const BODY_LIMIT = 100 * 1024;

const REASON: Record<number, string> = {
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  500: "Internal Server Error",
};
const CODES: Record<number, string[]> = {
  401: ["UNAUTHENTICATED"],
  403: ["FORBIDDEN", "QUOTA_EXCEEDED"],
  404: ["INVALID_ARGUMENT", "NOT_FOUND", "ENDPOINT_REMOVED", "NOT_AVAILABLE"],
};

const PATHS = [...ROUTES.map((r) => ({ path: r.path, versions: r.versions })), { path: "bulk", versions: VERSIONS }];
const SINGLE = ROUTES.filter((r) => r.singleSecurity).map((r) => r.path);
/** Identifiers of the test store (seed 7): each type once, by symbol and ISIN, and crypto spellings. */
const SAMPLE_IDS = [
  "BTC-USD",
  "BTC",
  "btcusd",
  "BTC/USD",
  "9049.T",
  "JP3401580000",
  "QUEU",
  "US0646236069",
  "IE0004770248",
  "EURUSD",
];
const FIELDS = [
  "symbol",
  "isin",
  "from",
  "to",
  "resolution",
  "currency",
  "query",
  "limit",
  "cursor",
  "types",
  "endpoint",
  "symbols",
  "params",
  "__proto__",
  "constructor",
];

let t: TestApp;
let port: number;
let closeServer: () => Promise<void>;
const logLines: { level: number; msg: string }[] = [];
let revokedKey = "";
let etfKey = "";

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split("\n").filter(Boolean)) logLines.push(JSON.parse(line));
      cb();
    },
  });
  const logger = pino({ level: "warn" }, sink);
  t = await createTestApp({ logger });
  const server = createHttpServer(t.app, logger);
  ({ port, close: closeServer } = await listen(server));
  const revoked = await t.apiKeys.create({ name: "fuzz-revoked", scopes: ["*"] });
  await t.apiKeys.revoke(revoked.row.id);
  revokedKey = revoked.key;
  etfKey = (
    await t.apiKeys.create({ name: "fuzz-etf", scopes: ["etf"], ratePerMinute: 1_000_000, dailyQuota: 1_000_000 })
  ).key;
});

afterAll(async () => {
  await closeServer();
  await t.close();
});

// ---------- generators ----------

const headerSafe = (s: string) => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, "");

const huge = fc.integer({ min: 1_000, max: 120_000 }).map((n) => "x".repeat(n));
const oddString = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.string({ unit: "grapheme" }),
  fc.string().map((s) => `${s}\u0000${s}`),
  fc.constantFrom(
    "\ud800",
    "\udfff",
    "\ufeff",
    "𝕏-USD",
    "БТС",
    "' OR 1=1 --",
    "%",
    "_",
    "*",
    "..",
    "/v1/quote",
    "null",
    "NaN",
    " ",
    "",
  ),
  fc.constantFrom(
    "2026-11-20",
    "2026-02-30",
    "20261120",
    "1735689599",
    "9999-12-31",
    "D",
    "W",
    "M",
    "1",
    "60",
    "d",
    "X",
  ),
);
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SAMPLE_IDS) },
  { weight: 3, arbitrary: oddString },
  { weight: 1, arbitrary: huge },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.integer(),
      fc.double(),
      fc.constantFrom(1e308, -1e308, 2 ** 53, 2 ** 31, -1, 0, 1.5, 1e11, 1_735_689_599),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
  {
    weight: 1,
    arbitrary: fc.array(fc.oneof(oddString, fc.integer(), fc.record({ symbol: oddString })), { maxLength: 4 }),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);
const fields = fc.dictionary(
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...FIELDS) }, { weight: 1, arbitrary: fc.string() }),
  value,
  { maxKeys: 6 },
);
const bulkShaped = fc.record(
  {
    endpoint: fc.oneof(
      fc.constantFrom(...SINGLE, "/v0/etf/profile", "v1/quote/", "bulk", "nope", "ETF/PROFILE"),
      value,
    ),
    symbols: fc.oneof(
      { weight: 4, arbitrary: fc.array(fc.oneof(fc.record({ symbol: value }), value), { maxLength: 130 }) },
      { weight: 1, arbitrary: value },
    ),
    params: fc.oneof(fields, value),
  },
  { requiredKeys: [] },
);

/** A body as bytes: shaped objects, random JSON, broken JSON, deep nesting, duplicate keys, oversized, binary. */
const body: fc.Arbitrary<Buffer | undefined> = fc.oneof(
  { weight: 5, arbitrary: fc.oneof(fields, bulkShaped).map((o) => Buffer.from(JSON.stringify(o))) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? "")) },
  { weight: 1, arbitrary: fc.tuple(fields, fc.nat()).map(([o, n]) => Buffer.from(JSON.stringify(o).slice(0, n % 40))) },
  { weight: 1, arbitrary: fc.string().map((s) => Buffer.from(s)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom("[", '{"a":', '{"symbol":['), fc.integer({ min: 1, max: 60_000 }), fc.boolean())
      .map(([open, depth, closed]) => {
        const close = open === "[" ? "]" : open === '{"a":' ? "}" : "]}";
        return Buffer.from(open.repeat(depth) + (open === "[" ? "" : "1") + (closed ? close.repeat(depth) : ""));
      }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...SAMPLE_IDS), value)
      .map(([id, v]) =>
        Buffer.from(`{"symbol":${JSON.stringify(id)},"symbol":${JSON.stringify(v)},"isin":1,"isin":"x"}`),
      ),
  },
  { weight: 1, arbitrary: fields.map((o) => Buffer.from(JSON.stringify([o]))) },
  { weight: 1, arbitrary: fields.map((o) => Buffer.from(`\ufeff${JSON.stringify(o)}`)) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: BODY_LIMIT - 50, max: BODY_LIMIT + 200_000 })
      .map((n) => Buffer.from(JSON.stringify({ symbol: "BTC-USD", pad: "y".repeat(n) }))),
  },
);

const method = fc.oneof(
  { weight: 6, arbitrary: fc.constant("POST") },
  { weight: 3, arbitrary: fc.constantFrom("GET", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS") },
  { weight: 1, arbitrary: fc.constantFrom("TRACE", "PURGE", "PROPFIND", "SEARCH", "LINK", "MKCOL", "FOO", "QUERY") },
);

type KeyKind = "valid" | "etf" | "none" | "empty" | "garbage" | "revoked" | "huge" | "twice";
const keyKind = fc.constantFrom<KeyKind>(
  "valid",
  "valid",
  "valid",
  "etf",
  "none",
  "empty",
  "garbage",
  "revoked",
  "huge",
  "twice",
);

const path = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .tuple(fc.constantFrom(...PATHS), fc.constantFrom(...VERSIONS), fc.constantFrom("", "/", "?x=1"))
      .map(([p, v, tail]) => ({ url: `/${v}/${p.path}${tail}`, known: p.versions.includes(v) })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          "/v0/",
          "/v1/",
          "/v2/",
          "/",
          "/V1/",
          "/v1//",
          "/graphql/x",
          "/graphiql-assets/",
          "/healthz/",
          "//v1/",
        ),
        fc.oneof(
          fc.webPath(),
          fc.constantFrom(...PATHS.map((p) => p.path)).map((p) => p.toUpperCase()),
          fc.constantFrom(
            "%00",
            "%ZZ",
            "..%2f..",
            "quote%20",
            "a".repeat(5_000),
            "%F0%9F%92%A9",
            "crypto/price/../price",
          ),
        ),
      )
      .map(([prefix, rest]) => ({ url: encodeURI(decodeSafe(prefix + rest)).replace(/%25/g, "%"), known: false })),
  },
);

function decodeSafe(s: string): string {
  try {
    return decodeURI(s);
  } catch {
    return s;
  }
}

const contentType = fc.oneof(
  fc.constantFrom(
    undefined,
    "application/json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
  ),
  fc.constantFrom(
    "application/json; charset=utf-16le",
    "application/json; charset=bogus",
    "application/json; charset",
    "*/*",
    ";;;",
    "application/graphql",
  ),
  fc.string().map(headerSafe),
);
const encoding = fc.constantFrom(
  undefined,
  undefined,
  undefined,
  "gzip",
  "deflate",
  "br",
  "gzip-garbage",
  "identity",
  "bogus",
  "gzip, br",
);

const oddHeaders = fc.record(
  {
    "x-big": fc.integer({ min: 1_000, max: 20_000 }).map((n) => "b".repeat(n)),
    expect: fc.constantFrom("100-continue", "200-ok", "x"),
    accept: fc.oneof(fc.constantFrom("text/plain", "application/xml", "*/*", ""), fc.string().map(headerSafe)),
    "x-request-id": fc.string().map(headerSafe),
    "accept-charset": fc.constantFrom("utf-7", "bogus", "*"),
    "transfer-encoding": fc.constant("chunked"),
  },
  { requiredKeys: [] },
);

const chaos = fc.record({ method, path, key: keyKind, body, contentType, encoding, odd: oddHeaders });

/**
 * Requests that get past the key and method checks: a real endpoint, POST, a
 * valid key, JSON, and the endpoint's own fields, mostly plausible with odd
 * values mixed in, so generated input reaches validation, the resolvers and
 * the store.
 */
const mostly = <T>(good: fc.Arbitrary<T>) => fc.oneof({ weight: 5, arbitrary: good }, { weight: 1, arbitrary: value });
const id = mostly(fc.constantFrom(...SAMPLE_IDS));
const instant = mostly(
  fc.constantFrom("2026-11-20", "2026-01-02", "2025-11-20", "2020-02-29", 1_763_596_800, 1_700_000_000, 0),
);
const resolution = mostly(fc.constantFrom("D", "W", "M", "1", "5", "15", "60", "d"));
const currency = mostly(fc.constantFrom("EUR", "USD", "JPY", "GBP", "XXX"));
const limit = mostly(fc.integer({ min: 0, max: 1_100 }));
const endpoint = mostly(fc.constantFrom(...SINGLE, "/v0/quote", "v1/etf/holdings/", "bulk", "nope"));
const BODY_OF: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  candle: fc.record({ symbol: id, from: instant, to: instant, resolution, currency }, { requiredKeys: ["symbol"] }),
  "etf/metrics": fc.record(
    { symbol: id, from: instant, to: instant, resolution, currency },
    { requiredKeys: ["symbol"] },
  ),
  search: fc.record(
    {
      query: mostly(fc.constantFrom("btc", "ETF", "bank", "US0", "9049", "qu", "a", "Eur")),
      limit,
      types: mostly(fc.constantFrom(["stock"], ["etf", "fund"], ["crypto", "forex"], [])),
    },
    { requiredKeys: ["query"] },
  ),
  list: fc.record({ limit, cursor: oddString }, { requiredKeys: [] }),
  "calendar/dividends": fc.record({ from: instant, to: instant, symbol: id, limit }, { requiredKeys: [] }),
  bulk: fc.record({
    endpoint,
    symbols: fc.array(mostly(fc.record({ symbol: id })), { minLength: 1, maxLength: 110 }),
    params: fc.record({ resolution, from: instant, to: instant, currency }, { requiredKeys: [] }),
  }),
  single: fc.oneof(fc.record({ symbol: id, currency }, { requiredKeys: ["symbol"] }), fc.record({ isin: id })),
};
const bodyFor = (path: string) =>
  BODY_OF[path] ??
  BODY_OF[path.replace(/^stock\/candle$/, "candle")] ??
  (path.startsWith("list/") ? BODY_OF.list! : path.startsWith("search") ? BODY_OF.search! : BODY_OF.single!);

const nearValid = fc.tuple(fc.constantFrom(...PATHS), fc.constantFrom(...VERSIONS)).chain(([p, v]) =>
  fc.record({
    method: fc.constant("POST"),
    path: fc.constant({ url: `/${v}/${p.path}`, known: p.versions.includes(v) }),
    key: fc.constantFrom<KeyKind>("valid", "valid", "valid", "valid", "etf"),
    body: bodyFor(p.path).map((o) => Buffer.from(JSON.stringify(o)) as Buffer | undefined),
    contentType: fc.constantFrom("application/json", "text/plain", undefined),
    encoding: fc.constantFrom(undefined, undefined, undefined, "gzip"),
    odd: fc.constant({} as Record<string, string>),
  }),
);

const fuzzRequest = fc.oneof(chaos, nearValid);
type FuzzRequest = typeof chaos extends fc.Arbitrary<infer T> ? T : never;

function build(r: FuzzRequest): { method: string; path: string; headers: OutgoingHttpHeaders; body?: Buffer } {
  const headers: OutgoingHttpHeaders = { ...r.odd };
  if (headers["x-request-id"] === "") delete headers["x-request-id"];
  const keys: Record<KeyKind, string | string[] | undefined> = {
    valid: BOOTSTRAP_KEY,
    etf: etfKey,
    none: undefined,
    empty: "",
    garbage: "mdg_garbage-" + "Z".repeat(30),
    revoked: revokedKey,
    huge: "k".repeat(9_000),
    twice: [BOOTSTRAP_KEY, BOOTSTRAP_KEY],
  };
  const key = keys[r.key];
  if (key !== undefined) headers["x-api-key"] = key;
  if (r.contentType !== undefined) headers["content-type"] = r.contentType;
  let payload = r.body;
  if (r.encoding && payload !== undefined) {
    headers["content-encoding"] = r.encoding;
    if (r.encoding === "gzip") payload = gzipSync(payload);
    else if (r.encoding === "deflate") payload = deflateSync(payload);
    else if (r.encoding === "br") payload = brotliCompressSync(payload);
    else if (r.encoding === "gzip-garbage") headers["content-encoding"] = "gzip";
  }
  if (payload !== undefined && headers["transfer-encoding"] === undefined) headers["content-length"] = payload.length;
  if (payload === undefined) delete headers["transfer-encoding"];
  return { method: r.method, path: r.path.url, headers, body: payload };
}

function checkAnswer(r: FuzzRequest, res: RawResponse): void {
  const answer = res.body.toString("utf8").slice(0, 200);
  const label = `${r.method} ${r.path.url.slice(0, 60)} key=${r.key} → ${res.status} ${answer}`;
  // The five statuses, and never 500: everything here is the client's doing.
  if (![200, 401, 403, 404].includes(res.status)) throw new Error(`status outside the contract: ${label}`);
  if (typeof res.headers["x-request-id"] !== "string") throw new Error(`no x-request-id: ${label}`);
  if (r.method === "HEAD") return;
  if (!/^application\/json/.test(String(res.headers["content-type"]))) throw new Error(`not JSON: ${label}`);
  if (res.json === undefined) throw new Error(`body is not JSON: ${label}`);
  if (res.status === 200) return;
  const b = res.json as Record<string, unknown>;
  const ok =
    b.statusCode === res.status &&
    b.error === REASON[res.status] &&
    CODES[res.status]!.includes(String(b.code)) &&
    typeof b.message === "string" &&
    b.message.length > 0 &&
    b.requestId === res.headers["x-request-id"] &&
    b.stack === undefined;
  if (!ok) throw new Error(`not the contract's error body: ${label}`);
  // Order of checks: a real endpoint called with POST and no valid key is 401, whatever the body.
  const validKey = r.key === "valid" || r.key === "etf";
  const oversizedHeaders = (r.odd["x-big"]?.length ?? 0) + (r.key === "huge" ? 9_000 : 0) > 16_000;
  if (r.path.known && r.method === "POST" && !validKey && !oversizedHeaders && res.status !== 401)
    throw new Error(`expected 401: ${label}`);
  if (validKey && res.status === 401) throw new Error(`valid key refused: ${label}`);
}

describe("the five-status rule under fuzzing", () => {
  it(`answers ${RUNS} generated requests (seed ${SEED}) with 200/401/403/404 and the contract error body`, async () => {
    let count = 0;
    const statuses: Record<number, number> = {};
    await fc.assert(
      fc.asyncProperty(fuzzRequest, async (r) => {
        count++;
        const res = await send(port, { ...build(r as FuzzRequest), timeoutMs: 15_000 });
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        checkAnswer(r as FuzzRequest, res);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: false },
    );
    if (process.env.FUZZ_VERBOSE) console.log({ count, statuses });
    expect(count).toBeGreaterThanOrEqual(Math.min(RUNS, 2_000));
    // The generator reaches every status but 500, so the assertions above are not vacuous.
    expect(Object.keys(statuses).sort()).toEqual(["200", "401", "403", "404"]);

    // The process is up, and nothing it logged is a fault.
    const health = await send(port, { method: "GET", path: "/healthz" });
    expect(health.status).toBe(200);
    expect(logLines.filter((l) => l.level >= 50)).toEqual([]);
  }, 120_000);
});
