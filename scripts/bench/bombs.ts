import { readFileSync } from "node:fs";
import autocannon from "autocannon";

/**
 * The validation bombs of `npm run bench` (`BENCH_ONLY=bombs` alone): GraphQL documents whose validation by
 * graphql-js would cost time quadratic in same-named fields, each refused by the document bounds before `validate()`
 * (src/http/graphql/graphql.document-bounds.ts), and without a key before anything is read. Measured: the service's
 * process CPU per request of each shape, with the key and without, against a light GraphQL quote in the same run.
 * Each keyed request sends a text never seen before (a comment numbered per request), so no verdict or document
 * kept by text helps: the cost of a client that varies its bomb.
 */

const BTC = 'quote(symbol: "BTC-USD")';
const copies = (n: number, text: (i: number) => string) => Array.from({ length: n }, (_, i) => text(i)).join(" ");

/** Each shape stays under the default token limit (5,000) and passes one bound. */
export const BOMB_SHAPES: { name: string; query: string }[] = [
  { name: "1,240 copies of one field", query: `{ ${BTC} { ${copies(1240, () => "historicalPrice { day }")} } }` },
  {
    name: "800 aliased copies",
    query: `{ ${BTC} { ${copies(800, (i) => `a${i}: historicalPrice { day }`)} } }`,
  },
  {
    name: "500 copies in inline fragments",
    query: `{ ${BTC} { ${copies(500, () => "... on Quote { historicalPrice { day } }")} } }`,
  },
  {
    name: "a fragment of 60 copies spread 40 times",
    query:
      `{ ${BTC} { historicalPrice { ${copies(40, () => "...D")} } } } ` +
      `fragment D on HistoricalPrice { ${copies(60, () => "day")} }`,
  },
  {
    name: "60 same-named parents of 8 children each",
    query: `{ ${BTC} { ${copies(60, () => "historicalPrice { day day day day day day day day }")} } }`,
  },
  {
    name: "1,000 spreads of one fragment",
    query: `{ ${BTC} { ${copies(1000, () => "...Q")} } } fragment Q on Quote { c }`,
  },
  {
    name: "a fragment bomb (2^13 fields)",
    query:
      `{ ${BTC} { ...F0 } } ` +
      copies(13, (i) => `fragment F${i} on Quote { ...F${i + 1} ...F${i + 1} }`) +
      " fragment F13 on Quote { c }",
  },
];

/** The 1,240-field shape: the heavy-neighbour run's extra neighbour. */
export const VALIDATION_BOMB = BOMB_SHAPES[0]!.query;

/** A POST /graphql body of `query` made new by a numbered comment, so no cache keyed by its text knows it. */
export function freshBody(query: string, n: number): string {
  return JSON.stringify({ query: `# ${n}\n${query}` });
}

const LIGHT_QUERY = `query Light($s: String!) { quote(symbol: $s) { symbol c d dp currency } }`;

/** Process CPU (every thread), milliseconds, from /proc: it ticks every 10 ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) / 100) * 1000;
}

export interface BombRow {
  name: string;
  /** Service CPU per request, µs, and the status the service answered. */
  keyed: { cpuUs: number; status: string };
  anonymous: { cpuUs: number; status: string };
}

export interface BombResult {
  light: { cpuUs: number; status: string };
  rows: BombRow[];
  requests: number;
}

/** `requests` calls of `body(n)` on 4 connections; the service's CPU per call and the statuses answered. */
async function cpuPerRequest(
  base: string,
  pid: number,
  headers: Record<string, string>,
  body: (n: number) => string,
  requests: number,
): Promise<{ cpuUs: number; status: string }> {
  let n = 0;
  const statuses = new Map<number, number>();
  const c0 = cpuMs(pid);
  await autocannon({
    url: base,
    connections: 4,
    amount: requests,
    requests: [
      {
        method: "POST",
        path: "/graphql",
        headers,
        setupRequest: (req) => ({ ...req, body: body(n++) }),
        onResponse: (statusCode) => void statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1),
      },
    ],
  });
  // Let the last tick of /proc's CPU counters land.
  await new Promise((r) => setTimeout(r, 30));
  const cpu = cpuMs(pid) - c0;
  const status = [...statuses].map(([s, k]) => (statuses.size > 1 ? `${s}×${k}` : String(s))).join(", ");
  return { cpuUs: (cpu * 1000) / requests, status };
}

export async function bombCpu(opts: {
  port: number;
  pid: number;
  key: string;
  /** Symbols for the light quote's variables. */
  symbols: string[];
  /** Calls of each shape; the light quote gets 5 times as many (it costs far less, and /proc counts in 10 ms). */
  requests: number;
}): Promise<BombResult> {
  const base = `http://127.0.0.1:${opts.port}`;
  const json = { "content-type": "application/json" };
  const keyed = { ...json, "x-api-key": opts.key };
  const lightBody = (n: number) =>
    JSON.stringify({ query: LIGHT_QUERY, variables: { s: opts.symbols[n % opts.symbols.length] } });
  // Warm: the light quote's text validated and compiled once, as in any running service.
  await cpuPerRequest(base, opts.pid, keyed, lightBody, 200);
  const light = await cpuPerRequest(base, opts.pid, keyed, lightBody, opts.requests * 5);
  const rows: BombRow[] = [];
  for (const shape of BOMB_SHAPES) {
    rows.push({
      name: shape.name,
      keyed: await cpuPerRequest(base, opts.pid, keyed, (n) => freshBody(shape.query, n), opts.requests),
      anonymous: await cpuPerRequest(base, opts.pid, json, (n) => freshBody(shape.query, n), opts.requests),
    });
  }
  return { light, rows, requests: opts.requests };
}

/** The bomb table of BENCHMARKS.md: µs of the service's CPU per request, and the ratio to the light quote. */
export function bombLines(r: BombResult): string[] {
  const fmt = (x: number) => x.toLocaleString("en-US", { maximumFractionDigits: 0 });
  const ratio = (x: number) => (x / r.light.cpuUs).toFixed(1);
  const rows = r.rows.map(
    (row) =>
      `| ${row.name} | ${row.keyed.status} | ${fmt(row.keyed.cpuUs)} (${ratio(row.keyed.cpuUs)}×) ` +
      `| ${row.anonymous.status} | ${fmt(row.anonymous.cpuUs)} (${ratio(row.anonymous.cpuUs)}×) |`,
  );
  return [
    `Service process CPU per request (all threads, from /proc, over ${r.requests} requests of each shape on 4 ` +
      "connections, each text new). The light quote: `POST /graphql` `{ quote(symbol) { symbol c d dp currency } }` " +
      `with the key, ${r.requests * 5} requests: **${fmt(r.light.cpuUs)} µs** (status ${r.light.status}). ` +
      "No target: shown for comparison (the bombs' cost before the bounds was hundreds of milliseconds each).",
    "",
    "| shape | status with key | CPU µs with key (× light) | status without | CPU µs without (× light) |",
    "|---|---|---|---|---|",
    ...rows,
  ];
}
