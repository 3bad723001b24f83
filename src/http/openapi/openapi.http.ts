/**
 * `GET /openapi.json` (the generated document) and `GET /docs` (an API
 * reference rendered from it by Swagger UI), both without a key: they describe
 * the API and hold no data. The page is served entirely by this service from
 * the `swagger-ui-dist` package, so it works with no internet: it references
 * no outside host, Swagger UI's online validator badge is off, and the page's
 * Content-Security-Policy forbids the browser to reach anywhere else.
 */
import { Router, type Request, type Response } from "express";
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
 */
const INIT_SCRIPT = `(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("docs-config").textContent);
  window.ui = SwaggerUIBundle({
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

/** Serves the document and the docs page; mount anywhere before the 404 handler. */
export function openApiRouter(document: OpenApiDocument): Router {
  const json = Buffer.from(JSON.stringify(document), "utf8");
  const assets = loadAssets();
  const router = Router();

  router.get(OPENAPI_PATH, (_req: Request, res: Response) => {
    res.writeHead(200, {
      "content-type": "application/json; charset=utf-8",
      "content-length": json.length,
      "cache-control": "no-cache",
      // Tools (editors, code generators) may read it from another origin; it holds no secret.
      "access-control-allow-origin": "*",
    });
    res.end(json);
  });

  router.get([DOCS_PATH, `${DOCS_PATH}/`], (req: Request, res: Response) => {
    precompress(assets.list);
    res.set(PAGE_HEADERS);
    res.send(renderPage(req.baseUrl, assets));
  });

  serveAssets(router, ASSETS_PATH, assets.list);

  return router;
}
