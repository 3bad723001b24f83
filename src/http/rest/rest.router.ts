import type { IncomingMessage, ServerResponse } from "node:http";
import type { GraphQLSchema } from "graphql";
import type { Logger } from "pino";
import { requireScope } from "../../domain/instrument/instrument.access";
import { bulkRoute } from "../bulk/bulk.routes";
import type { ApiKeyService } from "../../platform/auth/auth.service";
import { EndpointRemovedError, NotFoundError } from "../../platform/errors";
import { sendJson, sendJsonInTurns, urlPath } from "../http.send";
import { createContext, type AppDeps } from "../http.context";
import { BULK_PATH, restCost } from "../../platform/quotas/quota.cost";
import type { LimitDecision } from "../../platform/quotas/quota.types";
import type { HeaderSink } from "../../platform/quotas/quota.service";
import { heldHeaders } from "../http.held";
import { RestAdmission } from "./rest.admission";
import { parseBody } from "./rest.body";
import { jsonBodyReader } from "./rest.body-reader";
import { mapError, type MappedError } from "./rest.errors";
import { assertOperationsValid, executeRouteNow } from "./rest.execute";
import { rateLimitHeaders } from "../../platform/quotas/quota.headers";
import type { ApiVersion, HandlerRoute, HttpMethod, RouteEntry } from "./rest.route";
import { SERVICE_ROUTES } from "./routes/status.routes";
import { ROUTES } from "./rest.routes";
import { getCacheControl, queryShapeOf, queryToBody, type QueryShape } from "./rest.query";
import { isRemoved, versionHeaders } from "./rest.versions";

export interface RestDeps {
  deps: AppDeps;
  schema: GraphQLSchema;
  apiKeys: ApiKeyService;
  logger: Logger;
  routes?: readonly RouteEntry[];
}

/**
 * `POST /v0/<path>` and `/v1/<path>` for every entry of the route table.
 * Order of checks: the key is valid (401 before anything about the path or
 * the body; OPTIONS excepted), the path exists, the method is POST, the
 * endpoint is not removed, the key has the scope, then the body; then one
 * GraphQL operation runs.
 */
export function restRouter({ deps, schema, apiKeys, logger, routes = ROUTES }: RestDeps): RestRouter {
  assertOperationsValid(schema, routes, deps.config.graphql);
  const byPath = new Map<string, RouteEntry | HandlerRoute>(routes.map((r) => [r.path, r]));
  // Bulk names entries of the table and runs their operations for many symbols at once.
  const bulk = bulkRoute(schema, routes, logger);
  const admission = new RestAdmission(schema);
  byPath.set(bulk.path, bulk as HandlerRoute);
  // Status and quota: about the service and the key, not market data (src/http/rest/routes/status.routes.ts).
  for (const r of SERVICE_ROUTES) byPath.set(r.path, r);
  // Entries whose body is flat also answer GET with the body in the query string (rest.query.ts).
  const queryShapes = new Map<string, QueryShape>();
  for (const r of routes) {
    const shape = queryShapeOf(r.body);
    if (shape) queryShapes.set(r.path, shape);
  }
  const readBody = jsonBodyReader(deps.config.sizes.bodyBytes);

  /**
   * One call of the route table, whatever carried it (a REST request, a WebSocket action): the key, the path, the
   * method, removal, the scope, the body, the key's rate and quota, the operation, and the one error mapping.
   */
  async function call(c: TableCall): Promise<TableAnswer> {
    const { version, path, requestId, limitFields } = c;
    const entry = byPath.get(path);
    let charged: { decision: LimitDecision; units: number } | undefined;
    try {
      // The key first, even for a path that does not exist, so paths cannot be probed without one (spec section 5).
      // A CORS preflight carries no key by design: it is answered without one.
      const checked = c.key === NO_KEY ? null : apiKeys.authenticateNow(c.key);
      const principal = checked instanceof Promise ? await checked : checked;
      if (!entry || (!entry.versions.includes(version) && !entry.removedOn)) {
        throw new NotFoundError(`no endpoint POST /${version}/${path}`);
      }
      const methods = ("methods" in entry && entry.methods) || (queryShapes.has(path) ? GET_OR_POST : POST_ONLY);
      // No principal: an OPTIONS request that CORS did not answer, which no route takes.
      if (!methods.includes(c.method as HttpMethod) || !principal) {
        throw new NotFoundError(`/${version}/${path} answers ${methods.join(" or ")} only`);
      }
      if (isRemoved(entry.removedOn, version, deps.clock.now())) {
        throw new EndpointRemovedError(`/${version}/${path}`, entry.removedOn!, entry.replacement ?? null);
      }
      const ctx = createContext(deps, requestId, principal);
      if (entry.scope) requireScope(ctx, entry.scope);
      // The key's rate and quota (src/platform/quotas/): one unit per call, one per security for bulk; an unreadable
      // body costs one. A route that is not counted (quota) only reads them, for its answer and its RateLimit fields.
      const counted = !("counted" in entry) || entry.counted !== false;
      let raw: unknown;
      try {
        raw = c.readBody();
        if (raw instanceof Promise) raw = await raw;
      } catch (e) {
        if (counted) await deps.rateLimiter?.charge(principal, 1, limitFields);
        throw e;
      }
      let limits: LimitDecision | null = null;
      if (counted) {
        const units = restCost(path, raw, deps.config.sizes.bulkMaxSymbols);
        const charging = deps.rateLimiter?.chargeNow(principal, units, limitFields);
        const decision = charging instanceof Promise ? await charging : charging;
        if (decision) charged = { decision, units };
        limits = decision ?? null;
      } else if (deps.rateLimiter) {
        limits = await deps.rateLimiter.peek(principal);
        for (const [name, value] of Object.entries(rateLimitHeaders(limits))) limitFields.setHeader(name, value);
      }
      const variables = parseBody(entry.body, raw);
      let data: unknown;
      if ("run" in entry) data = await entry.run(variables, ctx, version, { limits });
      else {
        // A long range makes a call heavy: it takes one of the key's heavy slots while it runs (rest.admission.ts).
        let release = admission.admitSingle(entry, variables as Record<string, unknown>, ctx);
        if (release instanceof Promise) release = await release;
        try {
          data = executeRouteNow(schema, entry, variables as Record<string, unknown>, ctx, version);
          if (data instanceof Promise) data = await data;
        } finally {
          release?.();
        }
      }
      // Bulk items refused for their scope (a quote of a crypto pair with a stock-only key) count nothing either.
      const refused = charged && path === BULK_PATH ? scopeRefusedItems(data) : 0;
      if (refused > 0) await deps.rateLimiter!.giveBack(charged!.decision, refused, limitFields);
      // Gateway mode: an answer the upstream could not refresh says so, with the age of its oldest part.
      return { ok: true, data, entry, staleAgeSeconds: ctx.freshness.staleAgeSeconds };
    } catch (e) {
      const mapped = mapError(e, requestId);
      // A scope known only once the security was looked up (quote, candle): the refused call counts nothing.
      if (charged && mapped.body.code === "FORBIDDEN") {
        await deps.rateLimiter!.giveBack(charged.decision, charged.units, limitFields);
      }
      if (mapped.internal)
        logger.error({ err: mapped.internal, requestId, path: `/${version}/${path}` }, "request failed");
      return { ok: false, error: mapped, entry };
    }
  }

  async function handle(
    version: ApiVersion,
    subpath: string,
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
  ): Promise<void> {
    const path = plainSubpath(subpath) ? subpath.slice(1) : subpath.replace(/^\/+|\/+$/g, "");
    const query = req.method === "GET" ? queryShapes.get(path) : undefined;
    // The RateLimit fields are held with the request id for the answer's one writeHead (http.held.ts).
    const limitFields: HeaderSink = heldHeaders(res) ?? res;
    const answer = await call({
      version,
      path,
      method: req.method,
      key: req.method === "OPTIONS" ? NO_KEY : req.headers["x-api-key"],
      requestId,
      limitFields,
      // Parsed JSON is never undefined: undefined says the body is still to be read.
      readBody: () =>
        query
          ? queryToBody(req.url!.slice(req.url!.indexOf("?") + 1), query)
          : (readBody.now(req) ?? readBody(req, res)),
    });
    const { entry } = answer;
    const headers = versionHeaders(version, path, entry?.replacement);
    if (!answer.ok) {
      const { status, body } = answer.error;
      const refused = { ...headers, ...answer.error.headers };
      if (query) refused["cache-control"] = getCacheControl(entry!, status);
      sendJson(res, status, body, refused);
      return;
    }
    const { data, staleAgeSeconds: staleAge } = answer;
    const answered = query ? { ...headers, "cache-control": getCacheControl(entry!, 200) } : headers;
    const head = staleAge === null ? answered : { ...answered, ...staleHeaders(staleAge) };
    // A bulk answer may hold megabytes of series: serialised an item a turn, not in one block (http.send.ts).
    if (path === BULK_PATH && Array.isArray((data as { results?: unknown } | null)?.results)) {
      await sendJsonInTurns(res, 200, data as { results: unknown[] }, head);
    } else sendJson(res, 200, data, head);
  }

  // A prefix match, not an Express Router: this is the hot path, and a Router's mount-path rewriting costs more than
  // the match. Same paths as `router.use("/v0")`: case-insensitive, the query string ignored.
  const door: RestDoor = (req, res, requestId) => {
    const pathname = urlPath(req);
    const m = VERSION_PREFIX.exec(pathname);
    if (!m) return false;
    handle(m[1] === "0" ? "v0" : "v1", pathname.slice(3), req, res, requestId).catch((e: unknown) => {
      // handle() answers every error itself; this is only a failure to write that answer.
      logger.error({ err: e, requestId }, "REST answer could not be written");
      if (!res.headersSent) sendJson(res, 500, mapError(e, requestId).body);
      else res.destroy();
    });
    return true;
  };
  return { door, call };
}

/** docs/contract.md section 9: `x-data-stale` and the standard `Age` (RFC 9111 section 5.1) of the oldest part. */
export function staleHeaders(ageSeconds: number): Record<string, string> {
  return { "x-data-stale": "true", age: String(ageSeconds) };
}

/** `/quote`: one leading slash and none at the end, which the trimming regular expression would leave as it is. */
function plainSubpath(subpath: string): boolean {
  const last = subpath.length - 1;
  return (
    last > 0 && subpath.charCodeAt(0) === SLASH && subpath.charCodeAt(1) !== SLASH && subpath.charCodeAt(last) !== SLASH
  );
}

const SLASH = 0x2f;

/** Items of a bulk answer refused for a missing scope. */
function scopeRefusedItems(data: unknown): number {
  const results = (data as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return 0;
  type Item = { statusCode?: unknown; error?: { code?: unknown } };
  return results.filter((r: Item) => r.statusCode === 403 && r.error?.code === "FORBIDDEN").length;
}

/** The REST door, and the route table's calls for the other doors that carry them (the WebSocket's actions). */
export interface RestRouter {
  door: RestDoor;
  call(c: TableCall): Promise<TableAnswer>;
}

/** A call without a key at all: a CORS preflight that CORS did not answer, which no route takes. */
export const NO_KEY = Symbol("no key");

/** One call of the route table, as a door received it. */
export interface TableCall {
  version: ApiVersion;
  /** The endpoint's path after the version, without a slash at either end (`etf/profile`). */
  path: string;
  method: string | undefined;
  /** The `x-api-key` value as received (checked first, whatever the path). */
  key: string | string[] | undefined | typeof NO_KEY;
  requestId: string;
  /** Where the key's RateLimit fields are written. */
  limitFields: HeaderSink;
  /** The parsed body, or a promise of it; a throw is a body that cannot be read (404, one unit). */
  readBody(): unknown;
}

/** What a call answered: its data (and how stale), or the contract's error mapped once. */
export type TableAnswer =
  | { ok: true; data: unknown; staleAgeSeconds: number | null; entry: RouteEntry | HandlerRoute | undefined }
  | { ok: false; error: MappedError; entry: RouteEntry | HandlerRoute | undefined };

/**
 * Answers the request when its path is under `/v0` or `/v1` and returns true;
 * returns false, touching nothing, for any other path.
 */
export type RestDoor = (req: IncomingMessage, res: ServerResponse, requestId: string) => boolean;

const VERSION_PREFIX = /^\/v([01])(?=\/|$)/i;
const POST_ONLY: readonly HttpMethod[] = ["POST"];
const GET_OR_POST: readonly HttpMethod[] = ["GET", "POST"];
