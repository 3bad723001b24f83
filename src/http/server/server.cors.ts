import type { IncomingMessage, ServerResponse } from "node:http";
import { ForbiddenError } from "../../platform/errors";
import { releaseHeld } from "../http.held";
import { sendJson, splitUrl } from "../http.send";
import { mapError } from "../rest/rest.errors";

/**
 * What a page on another origin may send: the key, JSON, a caller's request id, and what Apollo Client, urql and
 * Apollo Server's CSRF rule name (`apollo-require-preflight`, `x-apollo-operation-name`, the client-awareness pair).
 * `accept` needs no listing: browsers send every value the GraphQL clients use without a preflight.
 */
const ALLOW_HEADERS = [
  "content-type",
  "x-api-key",
  "x-request-id",
  "apollo-require-preflight",
  "x-apollo-operation-name",
  "apollographql-client-name",
  "apollographql-client-version",
].join(", ");

/** Response headers a script on another origin may read besides the CORS-safelisted ones. */
const EXPOSE_HEADERS = ["x-request-id", "RateLimit", "RateLimit-Policy", "Retry-After"].join(", ");

/** GraphQL queries may come as GET (urql's default, persisted queries); REST is POST (GET for status and quota). */
const ALLOW_METHODS = "GET, POST";

/** Seconds a browser may reuse a preflight's answer (Chromium caps it at 7200). */
const MAX_AGE_SECONDS = 600;

/** The paths a page may call: /graphql and everything under /v0 and /v1 (as the doors match them). */
const CORS_PATH = /^(?:\/graphql\/?|\/v[01](?:\/.*)?)$/i;

/**
 * Applies the CORS policy to one request, before any door sees it. Returns true when it answered the request itself
 * (a preflight of /graphql, /v0 or /v1); false when the request goes on, with the CORS headers its answer needs
 * already set, so errors (401, 403, 404, 500) are readable by the calling page too.
 */
export type CorsHandler = (req: IncomingMessage, res: ServerResponse, requestId: string) => boolean;

/**
 * The CORS policy of MDG_CORS_ORIGINS (src/platform/config.ts): `*` lets any origin in, a list only those (exact
 * match on the `Origin` header). Null for an empty list: no cross-origin access at all, and no work per request.
 *
 * A refused preflight (an origin not in the list) answers 403 FORBIDDEN with the contract's error body, never a
 * status outside docs/contract.md section 2; the browser then refuses the page's request.
 */
export function corsHandler(origins: "*" | readonly string[]): CorsHandler | null {
  if (origins !== "*" && origins.length === 0) return null;
  const allowed = origins === "*" ? () => true : (origin: string) => origins.includes(origin);
  // A list answers each origin differently, so caches must key on it; `*` answers all alike, and says so all the same.
  const allowOrigin = (origin: string) => (origins === "*" ? "*" : origin);

  return (req, res, requestId) => {
    res.setHeader("vary", "Origin");
    const origin = req.headers.origin;
    if (origin === undefined) return false;
    const ok = allowed(origin);
    if (req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined) {
      if (!CORS_PATH.test(splitUrl(req).path)) return false;
      if (!ok) {
        const refusal = new ForbiddenError(
          `origin ${origin.slice(0, 200)} may not call this service (MDG_CORS_ORIGINS)`,
          [{ field: "origin", issue: "not allowed" }],
        );
        sendJson(res, 403, mapError(refusal, requestId).body);
        return true;
      }
      // Written here, not by sendBody: the request id held for the answer goes on the response first.
      releaseHeld(res);
      res.writeHead(200, {
        "access-control-allow-origin": allowOrigin(origin),
        "access-control-allow-methods": ALLOW_METHODS,
        "access-control-allow-headers": ALLOW_HEADERS,
        "access-control-max-age": String(MAX_AGE_SECONDS),
        "content-length": "0",
      });
      res.end();
      return true;
    }
    if (ok) {
      res.setHeader("access-control-allow-origin", allowOrigin(origin));
      res.setHeader("access-control-expose-headers", EXPOSE_HEADERS);
    }
    return false;
  };
}
