import { spawnSync, type ChildProcess } from "node:child_process";
import { isDeepStrictEqual } from "node:util";
import { readFileSync } from "node:fs";
import autocannon from "autocannon";
import { installPeers } from "./peers.install";

/**
 * The peer comparison of `npm run bench`: the service's two doors against servers over the same schema,
 * context factory and store (scripts/bench/peers/peer.server.ts), in one run, as CPU µs per request of each server
 * process. For each operation, every server runs once per round in an order rotated from round to round, so a drift
 * of the shared machine spreads over all of them; a server's figure is its CPU over all rounds divided by its
 * requests.
 */
export const PEER_TARGETS = { restToMercurius: 0.85, graphqlToMercurius: 1.0, restToBare: 3.5 };

export type PeerKind = "bare" | "mercurius" | "sofa" | "yoga";
export const PEER_KINDS: readonly PeerKind[] = ["bare", "mercurius", "sofa", "yoga"];

export interface PeerOperation {
  /** The REST entry (`quote`, `crypto/price`, `etf/profile`). */
  path: string;
  /** The root field SOFA's route is named after; null: no SOFA row (its generated operation is not comparable). */
  sofaPath: string | null;
  /** The REST entry's own GraphQL operation, printed. */
  query: string;
  symbols: readonly string[];
}

export interface PeerServer {
  name: string;
  /** What `row` names the server in the report. */
  label: string;
  kind: "rest" | "graphql" | PeerKind;
  port: number;
  pid: number;
}

export interface PeerRow {
  server: PeerServer;
  rps: number;
  requests: number;
  bad: number;
  cpuUs: number;
  /** Each round's CPU µs per request. */
  rounds: number[];
}

export interface PeerResult {
  operation: PeerOperation;
  rows: PeerRow[];
  /** Bytes the bare server answered: the mean of the service's answers to this operation. */
  bareBytes: number;
  /** CPU µs per call of the REST entry's operation alone, in process, without HTTP (hotpath.probe.ts); null: failed. */
  operationUs: number | null;
}

interface Options {
  key: string;
  warmupRequests: (bodies: number) => number;
  seconds: number;
  rounds: number;
  log: (msg: string) => void;
}

const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

function bodiesFor(server: PeerServer, op: PeerOperation): { path: string; bodies: string[] } {
  const rest = op.symbols.map((symbol) => JSON.stringify({ symbol }));
  if (server.kind === "rest" || server.kind === "bare") return { path: `/v1/${op.path}`, bodies: rest };
  if (server.kind === "sofa") return { path: `/sofa/${op.sofaPath}`, bodies: rest };
  return {
    path: "/graphql",
    bodies: op.symbols.map((symbol) => JSON.stringify({ query: op.query, variables: { symbol } })),
  };
}

function load(server: PeerServer, op: PeerOperation, key: string, limit: { seconds?: number; amount?: number }) {
  const { path, bodies } = bodiesFor(server, op);
  let i = 0;
  return autocannon({
    url: `http://127.0.0.1:${server.port}`,
    connections: 50,
    pipelining: 1,
    ...(limit.amount ? { amount: limit.amount } : { duration: limit.seconds ?? 1 }),
    requests: [
      {
        method: "POST",
        path,
        headers: {
          "content-type": "application/json",
          "accept-encoding": "gzip, deflate, br",
          "x-api-key": key,
        },
        setupRequest: (req) => ({ ...req, body: bodies[i++ % bodies.length] }),
      },
    ],
  });
}

async function post(port: number, path: string, body: string, key: string): Promise<unknown> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body,
  });
  if (res.status !== 200) throw new Error(`${path} on port ${port} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/**
 * The peers answer what the service answers: the same `data` from every GraphQL server for the first bodies, and from
 * SOFA the same values for the fields the operation asks (SOFA asks every field of the type).
 */
async function checkAnswers(servers: readonly PeerServer[], op: PeerOperation, key: string): Promise<void> {
  const ours = servers.find((s) => s.kind === "graphql")!;
  for (const symbol of op.symbols.slice(0, 20)) {
    const body = JSON.stringify({ query: op.query, variables: { symbol } });
    const expected = (await post(ours.port, "/graphql", body, key)) as { data: Record<string, unknown> };
    for (const s of servers) {
      if (s.kind === "mercurius" || s.kind === "yoga") {
        const got = await post(s.port, "/graphql", body, key);
        if (!isDeepStrictEqual(got, expected))
          throw new Error(`${s.name} answered ${JSON.stringify(got)} for ${symbol}, not ${JSON.stringify(expected)}`);
      }
      if (s.kind === "sofa" && op.sofaPath) {
        const got = (await post(s.port, `/sofa/${op.sofaPath}`, JSON.stringify({ symbol }), key)) as Record<
          string,
          unknown
        >;
        const want = Object.values(expected.data)[0] as Record<string, unknown>;
        for (const [field, value] of Object.entries(want)) {
          if (!isDeepStrictEqual(got[field], value) && typeof value !== "object")
            throw new Error(`${s.name} answered ${field} ${JSON.stringify(got[field])} for ${symbol}`);
        }
      }
    }
  }
}

/** Mean bytes of the service's REST answers to the operation (the first 50 bodies). */
export async function answerBytes(port: number, op: PeerOperation, key: string): Promise<number> {
  let bytes = 0;
  const symbols = op.symbols.slice(0, 50);
  for (const symbol of symbols)
    bytes += JSON.stringify(await post(port, `/v1/${op.path}`, `{"symbol":"${symbol}"}`, key)).length;
  return Math.round(bytes / symbols.length);
}

/** Starts one peer process and waits until it answers. */
export async function startPeer(
  kind: PeerKind | "sofa-jit",
  port: number,
  env: NodeJS.ProcessEnv,
  start: (name: string, args: string[], env: NodeJS.ProcessEnv) => ChildProcess,
): Promise<ChildProcess> {
  const child = start(`peer ${kind}`, ["-r", "@swc-node/register", "scripts/bench/peers/peer.server.ts", kind], {
    ...env,
    PORT: String(port),
  });
  const until = Date.now() + 300_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`peer ${kind} exited (${child.exitCode})`);
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      return child;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error(`peer ${kind} did not listen within 300 s`);
}

/** One operation against every server, in rotated rounds. */
export async function comparePeers(
  op: PeerOperation,
  servers: readonly PeerServer[],
  options: Options,
): Promise<PeerRow[]> {
  const active = servers.filter((s) => s.kind !== "sofa" || op.sofaPath !== null);
  await checkAnswers(active, op, options.key);
  for (const s of active) await load(s, op, options.key, { amount: options.warmupRequests(op.symbols.length) });
  const acc = new Map<PeerServer, { cpu: number; requests: number; rps: number[]; bad: number; rounds: number[] }>();
  for (const s of active) acc.set(s, { cpu: 0, requests: 0, rps: [], bad: 0, rounds: [] });
  for (let k = 0; k < options.rounds; k++) {
    const order = active.map((_, j) => active[(j + k) % active.length]!);
    for (const s of order) {
      const c0 = cpuSeconds(s.pid);
      const r = await load(s, op, options.key, { seconds: options.seconds });
      const cpu = cpuSeconds(s.pid) - c0;
      const a = acc.get(s)!;
      a.cpu += cpu;
      a.requests += r.requests.total;
      a.rps.push(r.requests.average);
      a.bad += r.non2xx + r.errors + r.timeouts;
      a.rounds.push((cpu * 1e6) / Math.max(1, r.requests.total));
    }
  }
  const rows = active.map((s) => {
    const a = acc.get(s)!;
    return {
      server: s,
      rps: a.rps.reduce((x, y) => x + y, 0) / a.rps.length,
      requests: a.requests,
      bad: a.bad,
      cpuUs: (a.cpu * 1e6) / Math.max(1, a.requests),
      rounds: a.rounds,
    };
  });
  options.log(`peers ${op.path}: ` + rows.map((r) => `${r.server.name} ${r.cpuUs.toFixed(0)} µs/req`).join(", "));
  return rows;
}

export interface PeerSectionInput {
  servicePort: number;
  servicePid: number;
  /** The service's environment: the peers open the same store with the same key. */
  env: NodeJS.ProcessEnv;
  firstPeerPort: number;
  operations: PeerOperation[];
  start: (name: string, args: string[], env: NodeJS.ProcessEnv) => ChildProcess;
  options: Options;
}

export interface PeerSection {
  results: PeerResult[];
  /** The report's lines (markdown) and the targets missed. */
  lines: string[];
  misses: string[];
}

const fmt = (n: number, d = 0) => n.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });

/** Starts the peers, runs every operation against every server, stops the peers, and writes the report's section. */
export async function peerSection(input: PeerSectionInput): Promise<PeerSection> {
  const { options } = input;
  installPeers(options.log);
  const bytes: Record<string, number> = {};
  for (const op of input.operations) bytes[`/v1/${op.path}`] = await answerBytes(input.servicePort, op, options.key);
  const children: ChildProcess[] = [];
  const servers: PeerServer[] = [
    {
      name: "our REST",
      label: "our REST `POST /v1/<path>`",
      kind: "rest",
      port: input.servicePort,
      pid: input.servicePid,
    },
    {
      name: "our /graphql",
      label: "our `POST /graphql`",
      kind: "graphql",
      port: input.servicePort,
      pid: input.servicePid,
    },
  ];
  const labels: Record<PeerKind, string> = {
    bare: "bare `node:http`, precomputed bytes (the limit)",
    mercurius: "mercurius 16 on fastify 5, `jit: 1`",
    sofa: "SOFA (`sofa-api` 0.18), graphql-js",
    yoga: "graphql-yoga 5 on `node:http`",
  };
  try {
    // One at a time: each builds the search index and opens the store, which on two shared cores is slow enough.
    for (const [k, kind] of PEER_KINDS.entries()) {
      const port = input.firstPeerPort + k;
      const env = kind === "bare" ? { ...input.env, BENCH_BARE_BYTES: JSON.stringify(bytes) } : input.env;
      const child = await startPeer(kind, port, env, input.start);
      children.push(child);
      servers.push({ name: kind, label: labels[kind], kind, port, pid: child.pid! });
    }
    const results: PeerResult[] = [];
    for (const op of input.operations) {
      options.log(`peers: ${op.path} on ${servers.length} servers, ${options.rounds} rotated rounds`);
      results.push({
        operation: op,
        rows: await comparePeers(op, servers, options),
        bareBytes: bytes[`/v1/${op.path}`]!,
        operationUs: null,
      });
    }
    // The operation alone, after the rounds (the servers idle): what every GraphQL server and REST pay in common.
    const alone = operationAlone(input.env.MDG_SQLITE_PATH!, input.operations, options.log);
    for (const r of results) r.operationUs = alone.get(r.operation.path) ?? null;
    return { results, ...report(results, options) };
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
  }
}

/**
 * CPU µs per call of each REST entry's operation in process, without HTTP: the body through its zod schema, a fresh
 * context, the jit-compiled operation, the response shape, every instrument cached (scripts/bench/hotpath.probe.ts,
 * one call per turn of the event loop). A failed probe leaves its operations out of the breakdown, not the run.
 */
function operationAlone(
  store: string,
  operations: readonly PeerOperation[],
  log: (msg: string) => void,
): Map<string, number> {
  const out = new Map<string, number>();
  const probe = spawnSync(
    process.execPath,
    ["-r", "@swc-node/register", "scripts/bench/hotpath.probe.ts", store, ...operations.map((o) => o.path)],
    { encoding: "utf8", env: { ...process.env, PROBE_CALLS: "20000" }, timeout: 600_000 },
  );
  for (const line of probe.stdout.split("\n")) {
    const m = /^(\S+)\s+([\d.]+) µs CPU\/call/.exec(line);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  if (probe.status !== 0) log(`peers: the operation probe failed (${probe.status}): ${probe.stderr.slice(-500)}`);
  return out;
}

/**
 * Each server's CPU per request split into what the bare server pays (Node's HTTP: the socket's read and write,
 * parsing, the request and response objects), the operation alone, and the rest: the door (routing, body, context
 * and key, answer writing, and for our doors limits, metrics, request ids and the access log). The REST target is met
 * only if REST's door costs at most `budget`; the floor is what REST would cost with a door of nothing.
 */
function breakdown(results: readonly PeerResult[]): string[] {
  const t = PEER_TARGETS;
  const lines = [
    "**Where the CPU goes** (same run): each server's CPU µs per request less the bare server's (Node's HTTP, " +
      "the socket's read and write) and less the operation alone in process (scripts/bench/hotpath.probe.ts: the " +
      "body through the route's schema, a fresh context, the jit-compiled operation and the response shape, every " +
      "instrument cached, no HTTP; run after the rounds) is its door: routing, body, context and key, answer " +
      "writing, and for our doors the rate limit, metrics, request id, timeout and access log. The floor is REST " +
      `with a door that costs nothing; the budgets are what our doors may cost to meet ≤ ${t.restToMercurius}× and ` +
      `≤ ${fmt(t.graphqlToMercurius, 1)}× mercurius.`,
    "",
    "| operation | bare | operation alone | door: mercurius + fastify | door: our REST | door: our `/graphql` | " +
      `floor ÷ mercurius | REST door budget (≤ ${t.restToMercurius}×) | \`/graphql\` door budget ` +
      `(≤ ${fmt(t.graphqlToMercurius, 1)}×) |`,
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of results) {
    const cpu = (kind: PeerServer["kind"]) => r.rows.find((x) => x.server.kind === kind)?.cpuUs;
    const [bare, merc, rest, gql, op] = [cpu("bare"), cpu("mercurius"), cpu("rest"), cpu("graphql"), r.operationUs];
    if (bare === undefined || merc === undefined || rest === undefined || gql === undefined || op === null) continue;
    const door = (x: number) => fmt(x - bare - op);
    lines.push(
      `| ${r.operation.path} | ${fmt(bare)} | ${fmt(op, 1)} | ${door(merc)} | ${door(rest)} | ${door(gql)} ` +
        `| ${fmt((bare + op) / merc, 2)} | ${fmt(t.restToMercurius * merc - bare - op)} ` +
        `| ${fmt(t.graphqlToMercurius * merc - bare - op)} |`,
    );
  }
  return lines;
}

function report(results: readonly PeerResult[], options: Options): { lines: string[]; misses: string[] } {
  const t = PEER_TARGETS;
  const misses: string[] = [];
  const verdict = (ok: boolean, miss: string) => {
    if (!ok) misses.push(miss);
    return ok ? "met" : "**missed**";
  };
  const lines: string[] = [
    "Same run, same store file, schema (src/http/graphql/schema.ts), context factory (`createContext` of " +
      "src/http/http.context.ts, the principal from the same ApiKeyService) and instrument cache; " +
      "each peer is its own process " +
      "(scripts/bench/peers/peer.server.ts, run with `-r @swc-node/register`; the service runs its `tsc` build). " +
      "The GraphQL servers run the REST entry's own operation (schema/operations) with the symbol as a variable; " +
      "SOFA runs the operation it generates for the root field (every field of the type, one level deep), so it " +
      "asks more than the others, and has no ETF row (its operation would add holdings and metrics). " +
      "The peers leave out what they lack: rate limits and quotas, operation limits, metrics, request ids and the " +
      "access log; our doors keep all of them. " +
      `Per operation: ${options.rounds} rounds of ${options.seconds} s at 50 connections, every server once per ` +
      "round, the order rotated each round, after a warm-up of twice the inputs per server (every instrument " +
      "cached). CPU µs/req: the server process's user + system time over its rounds divided by its requests; " +
      "in brackets each round's.",
    "",
    "| operation | server | req/s (mean of rounds) | CPU µs/req | × bare | × mercurius | targets |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const r of results) {
    const by = (kind: PeerServer["kind"]) => r.rows.find((x) => x.server.kind === kind);
    const bare = by("bare");
    const merc = by("mercurius");
    for (const row of r.rows) {
      const checks: string[] = [];
      if (row.bad) checks.push(verdict(false, `${r.operation.path} ${row.server.name}: ${row.bad} answers not 2xx`));
      const toMerc = merc ? row.cpuUs / merc.cpuUs : NaN;
      const toBare = bare ? row.cpuUs / bare.cpuUs : NaN;
      if (row.server.kind === "rest") {
        checks.push(
          `≤ ${t.restToMercurius}× mercurius: ` +
            verdict(
              toMerc <= t.restToMercurius,
              `REST ${r.operation.path}: ${fmt(toMerc, 2)}× mercurius's CPU per request ` +
                `(target ≤ ${t.restToMercurius})`,
            ),
        );
        checks.push(
          `≤ ${t.restToBare}× bare: ` +
            verdict(
              toBare <= t.restToBare,
              `REST ${r.operation.path}: ${fmt(toBare, 2)}× the bare node:http CPU per request ` +
                `(target ≤ ${t.restToBare})`,
            ),
        );
      }
      if (row.server.kind === "graphql") {
        checks.push(
          `≤ ${fmt(t.graphqlToMercurius, 1)}× mercurius: ` +
            verdict(
              toMerc <= t.graphqlToMercurius,
              `POST /graphql ${r.operation.path}: ${fmt(toMerc, 2)}× mercurius's CPU per request ` +
                `(target ≤ ${t.graphqlToMercurius})`,
            ),
        );
      }
      lines.push(
        `| ${r.operation.path}${row.server.kind === "bare" ? ` (${r.bareBytes} bytes)` : ""} | ${row.server.label} ` +
          `| ${fmt(row.rps)} | ${fmt(row.cpuUs)} (${row.rounds.map((x) => fmt(x)).join(", ")}) ` +
          `| ${fmt(toBare, 2)} | ${fmt(toMerc, 2)} | ${checks.join("; ") || "reference"} |`,
      );
    }
  }
  lines.push("", ...breakdown(results));
  lines.push(
    "",
    misses.length === 0
      ? "**Every peer target met.**"
      : `**Peer targets missed (${misses.length}):**\n\n${misses.map((m) => `- ${m}`).join("\n")}`,
  );
  return { lines, misses };
}
