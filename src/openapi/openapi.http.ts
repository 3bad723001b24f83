/**
 * `GET /openapi.json` (the generated document) and `GET /docs` (an API
 * reference rendered from it by Swagger UI), both without a key: they describe
 * the API and hold no data. The page is served entirely by this service from
 * the `swagger-ui-dist` package, so it works with no internet: it references
 * no outside host, Swagger UI's online validator badge is off, and the page's
 * Content-Security-Policy forbids the browser to reach anywhere else.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { Router, type Request, type Response } from "express";
import type { OpenApiDocument } from "./openapi.document";

export const OPENAPI_PATH = "/openapi.json";
export const DOCS_PATH = "/docs";
const ASSETS_PATH = "/docs/assets";

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets inline styles and draws its icons as data: SVG.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  // The document, and "Try it out" calls to this same service.
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

interface Asset {
  urlPath: string;
  contentType: string;
  body: Buffer;
  hash: string;
  gzipped?: Promise<Buffer>;
}

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";
const gzipAsync = promisify(gzip);

function asset(name: string, body: Buffer, contentType: string): Asset {
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 16);
  return { urlPath: `${ASSETS_PATH}/${hash}/${name}`, contentType, body, hash };
}

function swaggerFile(file: string, contentType: string): Asset {
  const root = path.dirname(require.resolve("swagger-ui-dist/package.json"));
  return asset(file, readFileSync(path.join(root, file)), contentType);
}

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
  const css = swaggerFile("swagger-ui.css", CSS);
  const bundle = swaggerFile("swagger-ui-bundle.js", JS);
  const init = asset("docs-init.js", Buffer.from(INIT_SCRIPT, "utf8"), JS);
  cachedAssets = { css, bundle, init, list: [css, bundle, init] };
  return cachedAssets;
}

function compressed(a: Asset): Promise<Buffer> {
  a.gzipped ??= gzipAsync(a.body, { level: 9 });
  return a.gzipped;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function renderPage(baseUrl: string, assets: ReturnType<typeof loadAssets>): string {
  const url = (a: Asset) => escapeHtml(baseUrl + a.urlPath);
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
<div id="swagger-ui"><noscript>The API reference needs JavaScript; the document itself is at <a href="${escapeHtml(baseUrl + OPENAPI_PATH)}">${escapeHtml(OPENAPI_PATH)}</a>.</noscript></div>
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
  const byPath = new Map(assets.list.map((a) => [a.urlPath, a]));
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
    for (const a of assets.list) void compressed(a).catch(() => undefined);
    res.set({
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-cache",
      "Content-Security-Policy": CONTENT_SECURITY_POLICY,
      "Referrer-Policy": "no-referrer",
      "X-Content-Type-Options": "nosniff",
    });
    res.send(renderPage(req.baseUrl, assets));
  });

  router.get(`${ASSETS_PATH}/*file`, async (req: Request, res: Response, next) => {
    const a = byPath.get(req.path);
    if (a === undefined) return next();
    const gzipped = req.acceptsEncodings("gzip", "identity") === "gzip" ? await compressed(a).catch(() => undefined) : undefined;
    res.set({
      "Content-Type": a.contentType,
      // The URL carries a hash of the content.
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
      Vary: "Accept-Encoding",
      ETag: gzipped ? `"${a.hash}-gzip"` : `"${a.hash}"`,
    });
    if (gzipped) res.set("Content-Encoding", "gzip");
    res.send(gzipped ?? a.body);
  });

  return router;
}
