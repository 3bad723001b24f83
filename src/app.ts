import { randomUUID } from "node:crypto";
import type { RequestListener } from "node:http";
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
import { CompiledOperations, jitExecutionPlugin } from "./http/graphql/graphql.executor";
import { GraphqlFastPath, type DirectHooks } from "./http/graphql/graphql.fast-path";
import { persistedQueries } from "./http/graphql/graphql.persisted";
import {
  graphqlLimitsCheck,
  graphqlLimitsPlugin,
  graphqlParseOptions,
  holdsHeavySlot,
} from "./http/graphql/graphql.operation-limits";
import {
  chargeGraphql,
  chargeGraphqlOperation,
  refundGraphqlCharge,
  refundRefusedGraphqlFields,
  type GraphqlCharge,
} from "./http/graphql/graphql.quota";
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
import { markStale, staleExtensionsPlugin } from "./http/graphql/graphql.stale";
import type { MarketDataSource } from "./domain/ports/source.capabilities";
import { cacheInstruments, type CachedSource } from "./sources/source.cache";

export interface AppParts {
  /** The whole service as one request listener: REST, then POST /graphql, then Express for everything else. */
  app: RequestListener;
  apollo: ApolloServer<Context>;
  /** The per-key rate and quota counters the app uses (closed by `apollo.stop()`). */
  rateLimiter: RateLimiter;
  /** The instrument lookups cached across requests (src/sources/source.cache.ts). */
  instrumentCache: CachedSource<MarketDataSource>;
}

export interface AppOptions {
  /**
   * POST /graphql's fast path for single queries already validated (src/http/graphql/graphql.fast-path.ts); on by
   * default. Off, Apollo answers every operation: the differential test compares the two.
   */
  graphqlFastPath?: boolean;
  /**
   * The fast path's direct form of this app's plugins for operations graphql-jit compiled (graphql.fast-path.ts); on
   * by default. Off, the fast path replays Apollo's plugin protocol for every operation.
   */
  graphqlDirect?: boolean;
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
  const restDoor = restRouter({ deps, schema, apiKeys, logger });
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

  // The plugins with a per-request part, kept by name: the fast path's direct forms below stand for exactly these.
  const limitsOptions = {
    schema,
    limits: deps.config.graphql,
    searchDefault: deps.config.sizes.searchResults,
  };
  const metricsPlugin = metrics?.graphqlPlugin();
  // Depth, aliases, root fields and cost before execution, then the key's rate and quota (docs/operations.md
  // "Limits and hardening").
  const limitsPlugin = graphqlLimitsPlugin({ ...limitsOptions, afterLimits: chargeGraphqlOperation(rateLimiter) });
  // A field refused for its scope gives its units back (docs/operations.md "Limits and hardening").
  const refundPlugin = refundRefusedGraphqlFields(rateLimiter);
  // Gateway mode: a response with an answer served stale says so (docs/contract.md section 9).
  const stalePlugin = staleExtensionsPlugin();
  // Operations clients repeat run compiled by graphql-jit (src/http/graphql/graphql.executor.ts).
  const jitOperations = new CompiledOperations(schema);
  const jitPlugin = jitExecutionPlugin<Context>(schema, jitOperations);
  const apolloOptions: ApolloServerOptions<Context> = {
    schema,
    formatError: formatGraphqlError((err) => logger.error({ err }, "graphql resolver failed")),
    // The service serves its own offline GraphiQL on GET; Apollo's landing page would load from the internet.
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      // No cache hints are used; the default cache-control plugin would wrap every field resolver to collect them.
      ApolloServerPluginCacheControlDisabled(),
      // Apollo's default federated-trace plugin acts only on a subgraph schema, which this is not: disabled, it is no
      // per-request hook the fast path would have to replay (graphql.fast-path.ts, DirectHooks).
      ApolloServerPluginInlineTraceDisabled(),
      ...(metricsPlugin ? [metricsPlugin] : []),
      limitsPlugin,
      refundPlugin,
      { serverWillStart: async () => ({ serverWillStop: () => rateLimiter.close() }) },
      stalePlugin,
      // Last: it answers the operation, after every other plugin's hooks before execution.
      jitPlugin,
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
  // After start: the plugin list then holds the plugins Apollo adds itself, which the fast path calls too.
  // The same plugins' work in direct form (the functions they are built on), for operations graphql-jit compiled.
  const checkLimits = graphqlLimitsCheck(limitsOptions);
  const directHooks: DirectHooks<Context, GraphqlCharge> = {
    plugins: [...(metricsPlugin ? [metricsPlugin] : []), limitsPlugin, refundPlugin, stalePlugin, jitPlugin],
    compiled: (document, operationName) => jitOperations.peek(document, operationName),
    admits: (document, operation, variables, ctx) =>
      !holdsHeavySlot(ctx, checkLimits(document, operation, variables, ctx).cost),
    charge: (ctx, document, operation, variables, head) =>
      ctx.principal ? chargeGraphql(rateLimiter, ctx.principal, document, operation, variables, head) : undefined,
    refund: (charge, errors, head) => refundGraphqlCharge(rateLimiter, charge, errors, head),
    ...(metrics && {
      observe: (name: string | null | undefined, failed: boolean, seconds: number) =>
        metrics.observeGraphqlOperation(name, failed, seconds),
    }),
    stale: markStale,
  };
  // Operation types and the bounds of each document, checked before anything validates it (the fast path parses
  // through it; src/http/graphql/graphql.document-bounds.ts).
  const gate = new DocumentGate(apolloOptions.parseOptions!, deps.config.graphql);
  const fastPath =
    options.graphqlFastPath === false
      ? null
      : GraphqlFastPath.create(apollo, apolloOptions, options.graphqlDirect === false ? null : directHooks, gate);
  const context = graphqlContext(deps, apiKeys);
  // POST /graphql with a plain JSON body skips Express, as REST does (src/http/graphql/graphql.http.ts); Apollo runs it
  // all the same, or for a single query already validated, the fast path does with Apollo's plugins.
  const gqlDoor = graphqlDoor({ apollo, context, bodyBytes: deps.config.sizes.bodyBytes, logger, gate, fastPath });

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
  return { app: service, apollo, rateLimiter, instrumentCache };
}
