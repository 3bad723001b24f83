import { Router, type Request, type Response } from "express";
import type { GraphQLSchema } from "graphql";
import type { Logger } from "pino";
import { requireScope } from "../auth/auth.scope-of";
import type { ApiKeyService } from "../auth/auth.service";
import { EndpointRemovedError, NotFoundError } from "../common/errors";
import { createContext, type AppDeps } from "../context";
import { parseBody } from "./rest.body";
import { jsonBodyReader } from "./rest.body-reader";
import { mapError } from "./rest.errors";
import { assertOperationsValid, executeRoute } from "./rest.execute";
import type { ApiVersion, RouteEntry } from "./rest.route";
import { ROUTES } from "./rest.routes";
import { isRemoved, versionHeaders } from "./rest.versions";

export interface RestDeps {
  deps: AppDeps;
  schema: GraphQLSchema;
  apiKeys: ApiKeyService;
  logger: Logger;
  routes?: readonly RouteEntry[];
}

export function sendJson(res: Response, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(payload),
  });
  res.end(payload);
}

/**
 * `POST /v0/<path>` and `/v1/<path>` for every entry of the route table.
 * Order of checks: the path exists, the method is POST, the key is valid
 * (401 before anything about the body), the endpoint is not removed, the key
 * has the scope, then the body; then one GraphQL operation runs.
 */
export function restRouter({ deps, schema, apiKeys, logger, routes = ROUTES }: RestDeps): Router {
  assertOperationsValid(schema, routes);
  const byPath = new Map(routes.map((r) => [r.path, r]));
  const readBody = jsonBodyReader(deps.config.limits.bodyBytes);

  async function handle(version: ApiVersion, req: Request, res: Response): Promise<void> {
    const requestId = res.locals.requestId as string;
    const path = req.path.replace(/^\/+|\/+$/g, "");
    const entry = byPath.get(path);
    const headers = versionHeaders(version, path, entry?.replacement);
    try {
      if (!entry || (!entry.versions.includes(version) && !entry.removedOn)) {
        throw new NotFoundError(`no endpoint POST /${version}/${path}`);
      }
      if (req.method !== "POST") throw new NotFoundError(`/${version}/${path} answers POST only`);
      const principal = await apiKeys.authenticate(req.headers["x-api-key"]);
      if (isRemoved(entry.removedOn, version, deps.clock.now())) {
        throw new EndpointRemovedError(`/${version}/${path}`, entry.removedOn!, entry.replacement ?? null);
      }
      const ctx = createContext(deps, requestId, principal);
      if (entry.scope) requireScope(ctx, entry.scope);
      const variables = parseBody(entry.body, await readBody(req, res));
      const data = await executeRoute(schema, entry, variables, ctx, version);
      sendJson(res, 200, data, headers);
    } catch (e) {
      const mapped = mapError(e, requestId);
      if (mapped.internal) logger.error({ err: mapped.internal, requestId, path: req.path }, "request failed");
      sendJson(res, mapped.status, mapped.body, { ...headers, ...mapped.headers });
    }
  }

  const router = Router();
  router.use("/v0", (req, res) => handle("v0", req, res));
  router.use("/v1", (req, res) => handle("v1", req, res));
  return router;
}
