import "reflect-metadata";
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import Fastify from "fastify";
import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";
import { execute, type DocumentNode, type ExecutionArgs, type ExecutionResult } from "graphql";
import mercurius from "mercurius";
import { createContext, type AppDeps, type Context } from "../../../src/http/http.context";
import { SearchIndex } from "../../../src/domain/search/search.index";
import { getSchema } from "../../../src/http/graphql/schema";
import { ApiKeyService } from "../../../src/platform/auth/auth.service";
import { systemClock } from "../../../src/platform/clock";
import { loadConfig } from "../../../src/platform/config";
import { cacheInstruments } from "../../../src/sources/source.cache";
import { openSources } from "../../../src/app.sources";
import { ROW_STORE_ANSWERS } from "../../../src/domain/answers";

/**
 * The peers, one per process: `node -r @swc-node/register scripts/bench/peers/peer.server.ts <kind>`
 * with PORT and the service's own environment (MDG_SQLITE_PATH, MDG_BOOTSTRAP_API_KEY, ...). Bench-only: nothing in
 * src/ imports this file, and the peer libraries are this folder's own package (package.json here, installed by the
 * bench, see peers.install.ts), so the root tsconfig leaves this file out and this folder's tsconfig checks it.
 *
 * Each GraphQL peer runs over what the service runs over: the schema of src/http/graphql/schema.ts, the context of
 * src/http/http.context.ts (createContext) with the principal of the same ApiKeyService, and the store opened by the
 * same source
 * factory, wrapped in the same instrument cache (src/sources/source.cache.ts) and its default budget. What the peers
 * leave out is what they lack: rate limits and quotas, operation limits, metrics, request ids and the access log.
 *
 * - bare: node:http reading the body and answering precomputed bytes of the service's answer size (the limit);
 * - mercurius: fastify + mercurius with `jit: 1`, POST /graphql;
 * - sofa: sofa-api's REST routes generated from the schema (POST /sofa/<field>), graphql-js, or graphql-jit with
 *   `sofa-jit`;
 * - yoga: graphql-yoga on node:http, POST /graphql.
 */
type Kind = "bare" | "mercurius" | "sofa" | "sofa-jit" | "yoga";
const KINDS: readonly Kind[] = ["bare", "mercurius", "sofa", "sofa-jit", "yoga"];

async function main(): Promise<void> {
  const kind = process.argv[2] as Kind;
  if (!KINDS.includes(kind)) throw new Error(`peer kind: one of ${KINDS.join(", ")}`);
  const port = Number(process.env.PORT ?? 4090);
  if (kind === "bare")
    return listenBare(port, JSON.parse(process.env.BENCH_BARE_BYTES ?? "{}") as Record<string, number>);

  const config = loadConfig();
  const sources = await openSources(config, { log: () => undefined });
  const searchIndex = await SearchIndex.build(sources.market);
  const deps: AppDeps = {
    config,
    source: cacheInstruments(sources.market, config.instrumentCacheBytes).source,
    clock: systemClock,
    searchIndex,
    answers: ROW_STORE_ANSWERS,
  };
  const apiKeys = new ApiKeyService(sources.keys, systemClock, { bootstrapKey: config.bootstrapApiKey });
  let requests = 0;
  // The service's context factory, with the key checked as the service checks it (an invalid key: no principal).
  const contextOf = async (apiKey: string | string[] | undefined | null): Promise<Context> => {
    const principal = await apiKeys.authenticate(apiKey ?? undefined).catch(() => null);
    return createContext(deps, String(++requests), principal);
  };
  const schema = getSchema();

  if (kind === "mercurius") {
    const app = Fastify({ logger: false });
    await app.register(mercurius, {
      schema,
      jit: 1,
      graphiql: false,
      context: (req) => contextOf(req.headers["x-api-key"]),
    });
    await app.listen({ port, host: "127.0.0.1" });
    return;
  }

  if (kind === "yoga") {
    const yoga = createYoga({
      schema,
      graphqlEndpoint: "/graphql",
      graphiql: false,
      landingPage: false,
      logging: false,
      context: ({ request }) => contextOf(request.headers.get("x-api-key")),
    });
    createServer(yoga).listen(port, "127.0.0.1");
    return;
  }

  // SOFA: its routes take the body's fields as the operation's variables. Query fields are GET by default; the
  // service's single-security routes are POST, so these are too.
  const post = { method: "POST" as const };
  const sofa = useSofa({
    basePath: "/sofa",
    schema,
    routes: { "Query.quote": post, "Query.cryptoPrice": post, "Query.etf": post },
    context: ({ request }) => contextOf(request.headers.get("x-api-key")),
    ...(kind === "sofa-jit" ? { execute: jitExecute } : {}),
  });
  createServer(sofa).listen(port, "127.0.0.1");
}

/**
 * graphql-yoga and sofa-api, typed only as far as used here: sofa-api's typings widen graphql-js's error extensions
 * for the whole program (an `http.headers` record), which src/ must then not see.
 */
function createYoga(options: {
  schema: unknown;
  graphqlEndpoint: string;
  graphiql: boolean;
  landingPage: boolean;
  logging: boolean;
  context: (initial: { request: Request }) => Promise<Context>;
}): RequestListener {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require("graphql-yoga") as { createYoga(o: typeof options): RequestListener }).createYoga(options);
}

function useSofa(options: {
  basePath: string;
  schema: unknown;
  routes: Record<string, { method: "POST" }>;
  context: (initial: { request: Request }) => Promise<Context>;
  execute?: typeof jitExecute;
}): RequestListener {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require("sofa-api") as { useSofa(o: typeof options): RequestListener }).useSofa(options);
}

/** graphql-jit behind graphql-js's `execute` signature, compiled once per document (SOFA's are fixed per route). */
const compiled = new WeakMap<DocumentNode, CompiledQuery>();
function jitExecute(args: ExecutionArgs): Promise<ExecutionResult> | ExecutionResult {
  let query = compiled.get(args.document);
  if (!query) {
    const result = compileQuery(args.schema, args.document, args.operationName ?? undefined);
    if (!isCompiledQuery(result)) return execute(args);
    compiled.set(args.document, (query = result));
  }
  return query.query(args.rootValue, args.contextValue, args.variableValues ?? {});
}

/**
 * The limit: read the request's body, answer precomputed bytes. BENCH_BARE_BYTES maps a path to the size of the
 * answer (the service's mean answer to that path), `{"/v1/quote": 382, ...}`; other paths get 400 bytes.
 */
function listenBare(port: number, sizes: Record<string, number>): void {
  const answer = (bytes: number) =>
    Buffer.from(JSON.stringify({ pad: "x".repeat(Math.max(0, bytes - 10)) }).slice(0, Math.max(10, bytes)));
  const bodies = new Map(Object.entries(sizes).map(([path, bytes]) => [path, answer(bytes)]));
  const fallback = answer(400);
  createServer((req: IncomingMessage, res: ServerResponse) => {
    const body = bodies.get(req.url ?? "") ?? fallback;
    req.on("data", () => undefined);
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
      res.end(body);
    });
  }).listen(port, "127.0.0.1");
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});
