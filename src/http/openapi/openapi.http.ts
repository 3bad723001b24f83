/**
 * `GET /openapi.json` (the generated document) and `GET /docs` (an API
 * reference rendered from it by Swagger UI), both without a key: they describe
 * the API and hold no data. The page is served entirely by this service from
 * the `swagger-ui-dist` package, so it works with no internet: it references
 * no outside host, Swagger UI's online validator badge is off, and the page's
 * Content-Security-Policy forbids the browser to reach anywhere else.
 */
import { createHash } from "node:crypto";
import type { OutgoingHttpHeaders } from "node:http";
import { Router, type Request, type Response } from "express";
import { compressBody, negotiateEncoding, varyAcceptEncoding, type Encoding } from "../http.compress";
import {
  contentAsset,
  CSS,
  escapeHtml,
  JS,
  jsonForScript,
  packageAsset,
  PAGE_HEADERS,
  precompress,
  serveAssets,
  type Asset,
} from "../http.static-assets";
import type { OpenApiDocument } from "./openapi.document";

export const OPENAPI_PATH = "/openapi.json";
export const DOCS_PATH = "/docs";
const ASSETS_PATH = "/docs/assets";

/**
 * Runs in the browser; a file rather than inline so the policy keeps
 * `script-src 'self'`. Lists every operation by tag (collapsed), with a
 * filter box; the key goes into "Authorize" and is never stored.
 *
 * Swagger UI colours an answer token by token, one element each: a calendar's
 * 366 KB answer kept Chromium's tab busy for over a minute before anything
 * showed. An answer over 64 KB is shown as plain text, at once; "Download"
 * and copying work as before.
 */
const INIT_SCRIPT = `(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("docs-config").textContent);
  var PLAIN_PAST = 65536;
  function plainLargeAnswers(system) {
    return {
      wrapComponents: {
        SyntaxHighlighter: function (Original) {
          return function (props) {
            var text = props.children;
            if (typeof text !== "string" || text.length <= PLAIN_PAST) {
              return system.React.createElement(Original, props);
            }
            var Plain = system.getComponent("PlainTextViewer");
            return system.React.createElement(Plain, { className: props.className }, text);
          };
        }
      }
    };
  }
  window.ui = SwaggerUIBundle({
    plugins: [plainLargeAnswers],
    url: config.specUrl,
    dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    deepLinking: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    filter: true,
    persistAuthorization: false,
    validatorUrl: null,
    withCredentials: false
  });
})();
`;

let cachedAssets: { css: Asset; bundle: Asset; init: Asset; list: Asset[] } | undefined;

function loadAssets() {
  if (cachedAssets) return cachedAssets;
  const css = packageAsset(ASSETS_PATH, "swagger-ui-dist", "swagger-ui.css", CSS);
  const bundle = packageAsset(ASSETS_PATH, "swagger-ui-dist", "swagger-ui-bundle.js", JS);
  const init = contentAsset(ASSETS_PATH, "docs-init.js", Buffer.from(INIT_SCRIPT, "utf8"), JS);
  cachedAssets = { css, bundle, init, list: [css, bundle, init] };
  return cachedAssets;
}

function renderPage(baseUrl: string, assets: ReturnType<typeof loadAssets>): string {
  const url = (a: Asset) => escapeHtml(baseUrl + a.urlPath);
  const documentLink = `<a href="${escapeHtml(baseUrl + OPENAPI_PATH)}">${escapeHtml(OPENAPI_PATH)}</a>`;
  const noScript =
    "<noscript>The API reference needs JavaScript; " + `the document itself is at ${documentLink}.</noscript>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · market-data-gateway</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${url(assets.css)}">
<style>body { margin: 0; } .swagger-ui .info { margin: 30px 0 20px; }</style>
</head>
<body>
<div id="swagger-ui">${noScript}</div>
<script type="application/json" id="docs-config">${jsonForScript({ specUrl: baseUrl + OPENAPI_PATH })}</script>
<script src="${url(assets.bundle)}"></script>
<script src="${url(assets.init)}"></script>
</body>
</html>
`;
}

interface Variant {
  body: Buffer;
  /** Strong, one per encoding: the bytes differ, so the tags do (as the docs page's assets do). */
  etag: string;
  encoding?: Encoding;
}

interface ServedDocument {
  identity: Variant;
  encoded(encoding: Encoding): Promise<Variant>;
}

const servedDocuments = new WeakMap<OpenApiDocument, ServedDocument>();

/**
 * The document's bytes and its tag, made once per document (every app built on one schema shares it); each
 * compressed form made once, at the highest setting, on its first request rather than at start-up, which would pay
 * for an encoding no client may ask for.
 */
function servedDocument(document: OpenApiDocument): ServedDocument {
  const known = servedDocuments.get(document);
  if (known) return known;
  const body = Buffer.from(JSON.stringify(document), "utf8");
  const hash = createHash("sha256").update(body).digest("base64url").slice(0, 32);
  const made = new Map<Encoding, Promise<Variant>>();
  const served: ServedDocument = {
    identity: { body, etag: `"${hash}"` },
    encoded(encoding) {
      let variant = made.get(encoding);
      if (!variant) {
        variant = compressBody(body, encoding, "max").then((out) => ({
          body: out,
          etag: `"${hash}-${encoding}"`,
          encoding,
        }));
        // A failure is not kept: the next request tries again (and this one gets the plain document).
        variant.catch(() => made.delete(encoding));
        made.set(encoding, variant);
      }
      return variant;
    },
  };
  servedDocuments.set(document, served);
  return served;
}

/** Whether `If-None-Match` names `etag` (or is `*`); a weak comparison, as RFC 9110 has it for this header. */
function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  for (const raw of header.split(",")) {
    const tag = raw.trim();
    if (tag === "*" || tag === etag || tag === `W/${etag}`) return true;
  }
  return false;
}

/** Serves the document and the docs page; mount anywhere before the 404 handler. */
export function openApiRouter(document: OpenApiDocument): Router {
  const assets = loadAssets();
  const router = Router();

  const served = servedDocument(document);
  router.get(OPENAPI_PATH, async (req: Request, res: Response) => {
    const encoding = req.method === "HEAD" ? null : negotiateEncoding(req.headers["accept-encoding"]);
    const variant = encoding === null ? served.identity : await served.encoded(encoding).catch(() => served.identity);
    const headers: OutgoingHttpHeaders = {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-cache",
      etag: variant.etag,
      // Tools (editors, code generators) may read it from another origin; it holds no secret.
      "access-control-allow-origin": "*",
    };
    varyAcceptEncoding(res, headers);
    if (variant.encoding) headers["content-encoding"] = variant.encoding;
    if (ifNoneMatch(req.headers["if-none-match"], variant.etag)) {
      delete headers["content-type"];
      delete headers["content-encoding"];
      res.writeHead(304, headers);
      res.end();
      return;
    }
    headers["content-length"] = variant.body.length;
    res.writeHead(200, headers);
    res.end(variant.body);
  });

  router.get([DOCS_PATH, `${DOCS_PATH}/`], (req: Request, res: Response) => {
    precompress(assets.list);
    res.set(PAGE_HEADERS);
    res.send(renderPage(req.baseUrl, assets));
  });

  serveAssets(router, ASSETS_PATH, assets.list);

  return router;
}
