import { randomUUID } from "node:crypto";
import type { IncomingMessage, RequestListener } from "node:http";
import type { Duplex } from "node:stream";
import { ApolloServer, type ApolloServerOptions } from "@apollo/server";
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
} from "@apollo/server/plugin/disabled";
import { expressMiddleware } from "@as-integrations/express5";
import compression from "compression";
import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import type { ApiKeyService } from "./platform/auth/auth.service";
import { InvalidArgumentError, NotFoundError } from "./platform/errors";
import { sendJson } from "./http/http.send";
import { releaseHeld } from "./http/http.held";
import { BROTLI_OPTIONS, COMPRESS_MIN_BYTES, GZIP_OPTIONS } from "./http/http.compress";
import type { AppDeps, Context } from "./http/http.context";
import { graphiqlHandler } from "./http/graphql/graphiql";
import { expressContext, graphqlContext, graphqlDoor, graphqlExpressChecks } from "./http/graphql/graphql.http";
import { DocumentGate } from "./http/graphql/graphql.document-bounds";
import { formatGraphqlError } from "./http/graphql/graphql.errors";
import { compiledOperations } from "./http/graphql/graphql.compiled";
import { apolloStages, GraphqlPipeline, observingStage, type GraphqlStage } from "./http/graphql/graphql.pipeline";
import { persistedQueries } from "./http/graphql/graphql.persisted";
import { graphqlParseOptions, limitsStage } from "./http/graphql/graphql.operation-limits";
import { quotaStage } from "./http/graphql/graphql.quota";
import { createRateLimiter, type RateLimiter } from "./platform/quotas/quota.service";
import { corsHandler } from "./http/server/server.cors";
import { requestEssentials } from "./http/server/server.essentials";
import { getSchema } from "./http/graphql/schema";
import { Metrics } from "./platform/metrics/metrics";
import { metricsHandler, requestObserver, routeLabeler } from "./http/server/server.metrics";
import { openApiRouter } from "./http/openapi/openapi.http";
import { createOpenApiDocument } from "./http/openapi/openapi.routes";
import { exampleSecurities } from "./http/openapi/openapi.examples";
import { mapError } from "./http/rest/rest.errors";
import { restRouter } from "./http/rest/rest.router";
import { staleStage } from "./http/graphql/graphql.stale";
import type { MarketDataSource } from "./domain/ports/source.capabilities";
import { cacheInstruments, type CachedSource } from "./sources/source.cache";
import { configureWorkerPool } from "./platform/workers/worker.pool";
import { LiveHub } from "./domain/live/live.hub";
import type { Quote } from "./domain/quote/quote.types";
import { createWsDoor, type WsDoor } from "./http/ws/ws.door";
import { createGraphqlLive, type GraphqlLive } from "./http/graphql/graphql.live";
import { LiveAllowance } from "./domain/live/live.allowance";
import { refuseUpgrade, upgradeRequestId } from "./http/ws/ws.upgrade";
import { RedisLiveRelay } from "./sources/live/live.redis";
import { StoreQuoteWatch } from "./domain/live/live.store";
import { QuotePoll } from "./domain/live/live.poll";
import type { Principal } from "./platform/auth/auth.types";
import { createContext } from "./http/http.context";

export interface AppParts {
  /** The whole service as one request listener: REST, then POST /graphql, then Express for everything else. */
  app: RequestListener;
  apollo: ApolloServer<Context>;
  /** The per-key rate and quota counters the app uses (closed by `apollo.stop()`). */
  rateLimiter: RateLimiter;
  /** The instrument lookups cached across requests (src/sources/source.cache.ts). */
  instrumentCache: CachedSource<MarketDataSource>;
  /** The server's `upgrade` listener: the WebSocket doors (`/v0`, `/v1`); any other path is refused. */
  upgrade: UpgradeListener;
  /**
   * The live prices: their hub (what feeds publish to), the WebSocket door and GraphQL's subscriptions (both closed on
   * shutdown).
   */
  live: { hub: LiveHub; ws: WsDoor; graphql: GraphqlLive };
}

/**
 * What the service's own readers of the store act as (the live prices' store watch, the tick simulator): every scope,
 * no limits, no client behind them. Never a key: no request can present it.
 */
export const SERVICE_PRINCIPAL: Principal = Object.freeze({
  keyId: "service",
  name: "the service itself",
  scopes: new Set(["*"] as const),
  ratePerMinute: 0,
  dailyQuota: 0,
});

export type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

export interface AppOptions {
  /**
   * POST /graphql's own pipeline for single queries already validated (src/http/graphql/graphql.pipeline.ts); on by
   * default. Off, Apollo answers every operation: the differential test compares the two.
   */
  graphqlFastPath?: boolean;
  /** How often the WebSocket door looks for idle sockets (tests move an injected clock and sweep often). */
  wsSweepMs?: number;
}

/** Builds the whole HTTP surface: health, GraphiQL, /graphql, REST. Call `apollo.stop()` on shutdown. */
export async function createApp(
  appDeps: AppDeps,
  apiKeys: ApiKeyService,
  logger: Logger,
  options: AppOptions = {},
): Promise<AppParts> {
  const schema = getSchema();
  // Per-key rate and quota counters (src/platform/quotas/): in memory, or in Redis when REDIS_URL is set. Closed by
  // apollo.stop().
  const deps: AppDeps = {
    ...appDeps,
    rateLimiter: appDeps.rateLimiter ?? createRateLimiter(appDeps.config.rateLimit, appDeps.clock, logger),
  };
  const rateLimiter = deps.rateLimiter!;
  // Heavy work's threads, made on its first job (src/platform/workers/worker.pool.ts).
  configureWorkerPool({ nice: deps.config.workerNice });
  // Prometheus metrics (MDG_METRICS_ENABLED): per-route latency, GraphQL operations, store calls, key cache
  // (src/platform/metrics/).
  const metrics = deps.config.metrics.enabled ? new Metrics({ keyCache: apiKeys.cacheStats }) : null;
  if (metrics) deps.source = metrics.instrumentSource(deps.source);
  if (metrics && deps.metricsRegistry) metrics.include(deps.metricsRegistry);
  // Above the metrics wrapper: a lookup answered from the cache is not a store call.
  const instrumentCache = cacheInstruments(deps.source, deps.config.instrumentCacheBytes);
  deps.source = instrumentCache.source;
  metrics?.observeInstrumentCache(instrumentCache.stats);
  if (rateLimiter.redisUp !== null) metrics?.observeRateLimitRedis(() => rateLimiter.redisUp === true);
  // The docs page's examples name this store's first securities, so its "Try it out" answers 200 on it.
  const openApi = createOpenApiDocument(schema, undefined, exampleSecurities(deps.searchIndex));
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);

  // Request id, timeout, metrics and access log (src/http/server/server.essentials.ts), for every request on either
  // door.
  const essentials = requestEssentials({
    timeoutMs: deps.config.requestTimeoutMs,
    logger,
    observe: requestObserver({ metrics, logger, label: routeLabeler(Object.keys(openApi.paths)) }),
  });
  // REST answers every /v0 and /v1 path itself (wrong methods included) before Express: it is the hot path, and
  // Express's per-request set-up and router cost more than all of REST's own work.
  const rest = restRouter({ deps, schema, apiKeys, logger });
  const restDoor = rest.door;
  // The WebSocket door runs every action through the same route table (docs/live.md).
  const hub = deps.liveHub ?? new LiveHub();
  // With REDIS_URL, changes fan out to the other replicas, one channel per symbol someone here subscribes to.
  const relay = deps.config.rateLimit.redisUrl
    ? new RedisLiveRelay({
        url: deps.config.rateLimit.redisUrl,
        prefix: deps.config.rateLimit.redisKeyPrefix,
        deliver: (change) => hub.deliver(change),
        changedInStore: (symbol) => void storeWatch?.refresh([symbol]),
        onState: (up, err) =>
          up
            ? logger.info("live: Redis fan-out is back")
            : logger.warn(
                { err: { message: err?.message } },
                "live: Redis fan-out down; local subscribers still served",
              ),
      })
    : undefined;
  if (relay) hub.connect(relay);
  // Imports and provider runs (other processes, or this one's jobs) commit to the store: while someone is subscribed,
  // each commit re-reads the subscribed quotes and publishes those that changed (src/domain/live/live.store.ts).
  const original = appDeps.source;
  const readSubscribedQuotes = async (symbols: readonly string[], requestId: string) => {
    const ctx = createContext(deps, requestId, SERVICE_PRINCIPAL);
    const max = deps.config.sizes.bulkMaxSymbols;
    const out: (Quote | Error | null)[] = [];
    for (let i = 0; i < symbols.length; i += max) {
      out.push(...(await deps.answers.quote.getMany(ctx, symbols.slice(i, i + max))));
    }
    return out;
  };
  const storeWatch =
    typeof original.dataVersion === "function"
      ? new StoreQuoteWatch(hub, {
          pollMs: deps.config.live.storePollMs,
          dataVersion: () => original.dataVersion!(),
          readQuotes: (symbols) => readSubscribedQuotes(symbols, "live-store"),
          onError: (err) => logger.warn({ err }, "live: reading changed quotes failed"),
        })
      : undefined;
  storeWatch?.start();
  // Gateway mode: the upstream pushes nothing; while someone here subscribes, its quotes of the subscribed symbols are
  // read every MDG_UPSTREAM_POLL_MS through its bulk, and the changes published (src/domain/live/live.poll.ts).
  const upstreamPoll =
    deps.config.dataSource === "upstream"
      ? new QuotePoll(hub, {
          pollMs: deps.config.live.upstreamPollMs,
          readQuotes: (symbols) => readSubscribedQuotes(symbols, "live-upstream"),
          onError: (err) => logger.warn({ err }, "live: reading the upstream's quotes failed"),
        })
      : undefined;
  // MDG_WS_MAX_SUBSCRIPTIONS and MDG_WS_MAX_CONNECTIONS_PER_KEY count a key's subscriptions and connections on both
  // doors together.
  const allowance = new LiveAllowance(deps.config.live.maxSubscriptionsPerKey, deps.config.live.maxConnectionsPerKey);
  const wsDoor = createWsDoor({ deps, apiKeys, logger, call: rest.call, hub, allowance, sweepMs: options.wsSweepMs });
  const formatError = formatGraphqlError((err) => logger.error({ err }, "graphql resolver failed"));
  // Subscriptions over graphql-ws on /graphql's upgrades, fed by the same hub (src/http/graphql/graphql.live.ts).
  const graphqlLive = createGraphqlLive({
    deps,
    schema,
    apiKeys,
    rateLimiter,
    hub,
    allowance,
    logger,
    formatError,
    sweepMs: options.wsSweepMs,
  });
  const upgrade: UpgradeListener = (req, socket, head) => {
    if (wsDoor.upgrade(req, socket, head) || graphqlLive.upgrade(req, socket, head)) return;
    // Any other path: the key first, then 404, as for any request (docs/contract.md section 2).
    const requestId = upgradeRequestId(req);
    Promise.resolve()
      .then(() => apiKeys.authenticate(req.headers["x-api-key"]))
      .then(() => {
        throw new NotFoundError(`no WebSocket at ${req.url?.split("?", 1)[0] ?? "/"}`);
      })
      .catch((e: unknown) => {
        const mapped = mapError(e, requestId);
        if (mapped.internal) logger.error({ err: mapped.internal, requestId }, "upgrade refused");
        refuseUpgrade(socket, mapped);
      });
  };
  // OPTIONS is a wrong method like any other (404 JSON), never Express's automatic "200 GET, HEAD"; CORS preflights
  // never get here (`cors` below answers them).
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method !== "OPTIONS") return next();
    sendJson(
      res,
      404,
      mapError(new NotFoundError(`no route ${req.method} ${req.path}`), res.locals.requestId as string).body,
    );
  });

  app.get("/healthz", (_req, res) => sendJson(res, 200, { status: "ok" }));
  app.get("/readyz", async (_req, res) => {
    try {
      await deps.source.ping();
      // Gateway mode: ready while the upstream is down (stale answers, clear errors); its state is reported beside.
      const upstream = deps.upstreamState?.();
      sendJson(res, 200, {
        status: "ready",
        dataSource: deps.source.kind,
        securities: deps.searchIndex.size,
        ...(upstream && { upstream }),
      });
    } catch (e) {
      logger.error({ err: e }, "readiness check failed");
      sendJson(res, 500, { status: "unavailable" });
    }
  });

  if (metrics) app.get("/metrics", metricsHandler(metrics, deps.config.metrics.token));
  // The OpenAPI document and the API reference page, generated from the route table (no key).
  app.use(openApiRouter(openApi));

  // The concerns of every /graphql request, written once (src/http/graphql/graphql.pipeline.ts, GraphqlStage): the
  // pipeline runs them for the requests it answers, and Apollo as one plugin for the ones it answers. In this order:
  // the operation metrics; depth, aliases, root fields and cost before execution, then the key's rate and quota
  // (docs/operations.md "Limits and hardening"); gateway mode's stale mark (docs/contract.md section 9); and, once
  // the answer is known, the units of fields refused for their scope given back.
  const stages: GraphqlStage[] = [
    ...(metrics
      ? [observingStage((name, failed, seconds) => metrics.observeGraphqlOperation(name, failed, seconds))]
      : []),
    limitsStage({ schema, limits: deps.config.graphql, searchDefault: deps.config.sizes.searchResults }),
    staleStage(),
    quotaStage(rateLimiter),
  ];
  // The schema's one cache of graphql-jit compiled operations, shared with REST and bulk (graphql.compiled.ts).
  const operations = compiledOperations(schema);
  const apolloOptions: ApolloServerOptions<Context> = {
    schema,
    formatError,
    // The service serves its own offline GraphiQL on GET; Apollo's landing page would load from the internet. The
    // stages are the one plugin with a per-request part: the pipeline answers as Apollo does by running the same.
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      // No cache hints are used; the default cache-control plugin would wrap every field resolver to collect them.
      ApolloServerPluginCacheControlDisabled(),
      // Apollo's default federated-trace plugin acts only on a subgraph schema, which this is not.
      ApolloServerPluginInlineTraceDisabled(),
      apolloStages(stages, operations),
      {
        serverWillStart: async () => ({
          serverWillStop: async () => {
            storeWatch?.stop();
            upstreamPoll?.stop();
            await rateLimiter.close();
            await relay?.close();
          },
        }),
      },
    ],
    parseOptions: graphqlParseOptions(deps.config.graphql),
    // Introspection and "did you mean" suggestions: off under NODE_ENV=production unless MDG_GRAPHQL_INTROSPECTION.
    introspection: deps.config.graphql.introspection,
    hideSchemaDetailsFromClientErrors: !deps.config.graphql.introspection,
    allowBatchedHttpRequests: deps.config.graphql.batching,
    // A GET query is accepted when it carries `x-api-key`: a header a browser sends cross-origin only after a CORS
    // preflight, which is the proof Apollo's CSRF prevention looks for (its own two headers stay accepted). Anything
    // else that a plain HTML form or <img> could send is still refused, and GET never runs a mutation.
    csrfPrevention: { requestHeaders: ["x-api-key", "apollo-require-preflight", "x-apollo-operation-name"] },
    // Automatic persisted queries, on GET and POST, in a bounded cache (src/http/graphql/graphql.persisted.ts).
    persistedQueries: persistedQueries(),
    // main.ts drains requests on SIGTERM, then stops Apollo; Apollo stopping itself first would fail them.
    stopOnTerminationSignals: false,
    includeStacktraceInErrorResponses: false,
  };
  const apollo = new ApolloServer<Context>(apolloOptions);
  await apollo.start();
  // Operation types and the bounds of each document, checked before anything validates it (the pipeline parses
  // through it; src/http/graphql/graphql.document-bounds.ts).
  const gate = new DocumentGate(apolloOptions.parseOptions!, deps.config.graphql);
  const pipeline =
    options.graphqlFastPath === false
      ? null
      : new GraphqlPipeline({ schema, stages, operations, formatError, gate, logger });
  const context = graphqlContext(deps, apiKeys);
  // POST /graphql with a plain JSON body skips Express, as REST does (src/http/graphql/graphql.http.ts): a single query
  // already validated runs on the pipeline, anything else on Apollo, both with the same stages.
  const gqlDoor = graphqlDoor({ apollo, context, bodyBytes: deps.config.sizes.bodyBytes, logger, gate, pipeline });

  // What reaches /graphql through Express (GET operations, the GraphiQL page, POSTs the door above leaves to
  // body-parser) is written by Apollo's integration and Express's res.send, not by sendBody: the `compression`
  // middleware gives those the same encodings, threshold and settings as the doors' answers (http.compress.ts).
  app.use(
    "/graphql",
    compression({ threshold: COMPRESS_MIN_BYTES, brotli: BROTLI_OPTIONS, level: GZIP_OPTIONS.level }),
  );
  // Before Apollo: a browser GET of /graphql gets the page; everything else falls through.
  app.use(graphiqlHandler({ endpoint: "/graphql" }));
  // Exactly /graphql (and /graphql/): a path below it is unknown, 404 like any other. The key before the body is
  // read, the documents before Apollo parses them, as on the door.
  const checks = graphqlExpressChecks({ apollo, context, gate });
  app.all(
    "/graphql",
    checks.keyFirst,
    express.json({ limit: deps.config.sizes.bodyBytes }),
    checks.documents,
    expressMiddleware(apollo, { context: expressContext }),
  );
  app.use(async (req: Request, res: Response) => {
    const requestId = res.locals.requestId as string;
    try {
      // The key before "no such path", so paths cannot be probed without one (spec section 5, docs/contract.md
      // section 2). The open paths (health, docs, GraphiQL) answered above; a CORS preflight carries no key, and
      // /metrics keeps its own 404 (disabled, or a wrong scrape token: it does not say it exists).
      if (req.method !== "OPTIONS" && req.path !== "/metrics") await apiKeys.authenticate(req.headers["x-api-key"]);
      throw new NotFoundError(`no route ${req.method} ${req.path}`);
    } catch (e) {
      const mapped = mapError(e, requestId);
      if (mapped.internal) logger.error({ err: mapped.internal, requestId }, "key check failed");
      sendJson(res, mapped.status, mapped.body, mapped.headers);
    }
  });

  // Last resort: errors raised by middleware before a handler took over (body parsing of /graphql).
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const requestId = (res.locals.requestId as string | undefined) ?? randomUUID();
    const status = (err as { status?: number }).status;
    if (res.headersSent) return;
    const clientFault = typeof status === "number" && status >= 400 && status < 500;
    if ((req.path === "/graphql" || req.path === "/graphql/") && clientFault) {
      sendJson(res, status, { errors: [{ message: (err as Error).message, extensions: { code: "BAD_REQUEST" } }] });
      return;
    }
    // Anything else Express or a parser refused as the client's fault (a path that does not decode, …) is a malformed
    // request: 404.
    const mapped = mapError(
      clientFault ? new InvalidArgumentError(`request: ${(err as Error).message}`) : err,
      requestId,
    );
    if (mapped.internal) logger.error({ err, requestId }, "unhandled error");
    sendJson(res, mapped.status, mapped.body);
  });

  // MDG_CORS_ORIGINS (src/http/server/server.cors.ts): answers preflights, grants every answer; null when off.
  const cors = corsHandler(deps.config.corsOrigins);
  const service: RequestListener = (req, res) => {
    const requestId = essentials(req, res);
    if (cors?.(req, res, requestId)) return;
    if (restDoor(req, res, requestId) || gqlDoor(req, res, requestId)) return;
    // Express and what runs behind it write answers their own way: the request id goes on the response now.
    releaseHeld(res);
    (res as unknown as Response).locals = Object.assign(Object.create(null) as Record<string, unknown>, { requestId });
    app(req, res);
  };
  return {
    app: service,
    apollo,
    rateLimiter,
    instrumentCache,
    upgrade,
    live: { hub, ws: wsDoor, graphql: graphqlLive },
  };
}
