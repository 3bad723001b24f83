import { randomUUID } from "node:crypto";
import { ApolloServer } from "@apollo/server";
import { ApolloServerPluginLandingPageDisabled } from "@apollo/server/plugin/disabled";
import { expressMiddleware } from "@as-integrations/express5";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import { GraphQLError } from "graphql";
import type { Logger } from "pino";
import type { ApiKeyService } from "./auth/auth.service";
import { AppError, NotFoundError } from "./common/errors";
import { createContext, type AppDeps, type Context } from "./context";
import { graphiqlHandler } from "./graphql/graphiql";
import { formatGraphqlError } from "./graphql/graphql.errors";
import { getSchema } from "./graphql/schema";
import { mapError } from "./rest/rest.errors";
import { restRouter, sendJson } from "./rest/rest.router";

export interface AppParts {
  app: Express;
  apollo: ApolloServer<Context>;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Builds the whole HTTP surface: health, GraphiQL, /graphql, REST. Call `apollo.stop()` on shutdown. */
export async function createApp(deps: AppDeps, apiKeys: ApiKeyService, logger: Logger): Promise<AppParts> {
  const schema = getSchema();
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);

  // Every response carries a request id; a sane incoming one is kept so traces line up across hops.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers["x-request-id"];
    const id = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = id;
    res.setHeader("x-request-id", id);
    next();
  });

  app.get("/healthz", (_req, res) => sendJson(res, 200, { status: "ok" }));
  app.get("/readyz", async (_req, res) => {
    try {
      await deps.source.ping();
      sendJson(res, 200, { status: "ready", dataSource: deps.source.kind, securities: deps.searchIndex.size });
    } catch (e) {
      logger.error({ err: e }, "readiness check failed");
      sendJson(res, 500, { status: "unavailable" });
    }
  });

  app.use(restRouter({ deps, schema, apiKeys, logger }));

  const apollo = new ApolloServer<Context>({
    schema,
    formatError: formatGraphqlError((err) => logger.error({ err }, "graphql resolver failed")),
    // The service serves its own offline GraphiQL on GET; Apollo's landing page would load from the internet.
    plugins: [ApolloServerPluginLandingPageDisabled()],
    introspection: true,
    includeStacktraceInErrorResponses: false,
  });
  await apollo.start();

  // Before Apollo: a browser GET of /graphql gets the page; everything else falls through.
  app.use(graphiqlHandler({ endpoint: "/graphql" }));
  app.use(
    "/graphql",
    express.json({ limit: deps.config.limits.bodyBytes }),
    expressMiddleware(apollo, {
      context: async ({ req, res }) => {
        const requestId = res.locals.requestId as string;
        const header = req.headers["x-api-key"];
        if (header === undefined) return createContext(deps, requestId, null);
        try {
          return createContext(deps, requestId, await apiKeys.authenticate(header));
        } catch (e) {
          if (e instanceof AppError) {
            throw new GraphQLError(e.message, { extensions: { code: "UNAUTHENTICATED", http: { status: 401 } } });
          }
          throw e;
        }
      },
    }),
  );
  app.use((req: Request, res: Response) => {
    const requestId = res.locals.requestId as string;
    sendJson(res, 404, mapError(new NotFoundError(`no route ${req.method} ${req.path}`), requestId).body);
  });

  // Last resort: errors raised by middleware before a handler took over (body parsing of /graphql).
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const requestId = (res.locals.requestId as string | undefined) ?? randomUUID();
    const status = (err as { status?: number }).status;
    if (res.headersSent) return;
    if (req.path.startsWith("/graphql") && typeof status === "number" && status >= 400 && status < 500) {
      sendJson(res, status, { errors: [{ message: (err as Error).message, extensions: { code: "BAD_REQUEST" } }] });
      return;
    }
    const mapped = mapError(err, requestId);
    logger.error({ err, requestId }, "unhandled error");
    sendJson(res, mapped.status, mapped.body);
  });

  return { app, apollo };
}
