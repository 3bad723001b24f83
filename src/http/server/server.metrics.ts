import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Logger } from "pino";
import { sendBody } from "../http.compress";
import { urlPath } from "../http.send";
import type { Metrics } from "../../platform/metrics/metrics";

/** Paths of the service outside the REST table, labelled as themselves. */
const SERVICE_PATHS = ["/graphql", "/healthz", "/readyz", "/metrics", "/openapi.json", "/docs"];
/** Asset trees, each one label. */
const ASSET_PREFIXES = ["/graphiql-assets/", "/docs/assets/"];

/**
 * Maps a request to its route label: the REST path as documented
 * (`/v1/etf/profile`, trailing slashes as the router treats them), a service
 * path, an asset tree, or `unmatched`: never the raw URL, so the label set is
 * bounded whatever clients send.
 */
export function routeLabeler(restPaths: readonly string[]): (path: string) => string {
  const known = new Map<string, string>();
  for (const p of [...restPaths, ...SERVICE_PATHS]) {
    known.set(p, p);
    known.set(`${p}/`, p);
  }
  return (path) => {
    const hit = known.get(path);
    if (hit !== undefined) return hit;
    for (const prefix of ASSET_PREFIXES) if (path.startsWith(prefix)) return prefix.slice(0, -1);
    return "unmatched";
  };
}

interface ObserverOptions {
  /** Null when MDG_METRICS_ENABLED=false. */
  metrics: Metrics | null;
  logger: Logger;
  /** The route label of a request path (no query string). */
  label: (path: string) => string;
}

/** Records one answered request; `ms` from its start to the last byte written. */
export type RequestObserver = (req: IncomingMessage, res: ServerResponse, requestId: string, ms: number) => void;

/**
 * The metrics and the access log line (`request`: request id, method, route,
 * path without query, status, ms) of one answered request. The log line
 * holds no header at all, so no key; the logger redacts keys anyway. Null
 * when there is nothing to record (LOG_LEVEL above info and metrics off).
 */
export function requestObserver({ metrics, logger, label }: ObserverOptions): RequestObserver | null {
  const log = logger.isLevelEnabled("info");
  if (!metrics && !log) return null;
  return (req, res, requestId, ms) => {
    const path = urlPath(req);
    const route = label(path);
    metrics?.observeHttp(route, res.statusCode, ms / 1000);
    if (log) {
      logger.info(
        { requestId, method: req.method, route, path, status: res.statusCode, ms: Math.round(ms * 1000) / 1000 },
        "request",
      );
    }
  };
}

/**
 * `GET /metrics` in the Prometheus text format. No API key (Prometheus has
 * none of ours); with MDG_METRICS_TOKEN set it needs `Authorization: Bearer
 * <token>`, else 404 as if absent.
 */
export function metricsHandler(metrics: Metrics, token: string | undefined): RequestHandler {
  const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
  return async (req: Request, res: Response, next: NextFunction) => {
    if (expected) {
      const given = Buffer.from(req.headers.authorization ?? "");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return next();
    }
    try {
      const body = await metrics.render();
      // Compressed when the scraper accepts it (Prometheus sends `Accept-Encoding: gzip`): the text is tens of KiB.
      sendBody(res, 200, body, { "content-type": metrics.contentType, "cache-control": "no-store" });
    } catch (e) {
      next(e);
    }
  };
}
