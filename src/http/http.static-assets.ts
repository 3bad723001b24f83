/**
 * What the service's own browser pages (GraphiQL at /graphql, the API
 * reference at /docs) share: files from npm packages served under a URL that
 * carries a hash of their content, gzipped once on first need, and a
 * Content-Security-Policy that lets a page reach only this origin, so both
 * pages work with no internet and can never load from elsewhere.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { NextFunction, Request, Response, Router } from "express";

export interface Asset {
  /** Path under the router's mount point: `<prefix>/<hash>/<name>`. */
  urlPath: string;
  contentType: string;
  body: Buffer;
  hash: string;
  gzipped?: Promise<Buffer>;
}

export const JS = "text/javascript; charset=utf-8";
export const CSS = "text/css; charset=utf-8";

/** Only this origin: assets, API calls, inline styles (both UIs set them) and data: fonts and images. */
export const PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers of an HTML page built on these assets. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-cache",
  "Content-Security-Policy": PAGE_CONTENT_SECURITY_POLICY,
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
};

export function contentAsset(prefix: string, name: string, body: Buffer, contentType: string): Asset {
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 16);
  return { urlPath: `${prefix}/${hash}/${name}`, contentType, body, hash };
}

/** A file of an installed package (found through its package.json, which every package exports). */
export function packageAsset(prefix: string, pkg: string, file: string, contentType: string): Asset {
  const root = path.dirname(require.resolve(`${pkg}/package.json`));
  return contentAsset(prefix, path.basename(file), readFileSync(path.join(root, file)), contentType);
}

const gzipAsync = promisify(gzip);

/** Bundles are megabytes as shipped: compressed once, on first need. */
export function compressed(asset: Asset): Promise<Buffer> {
  asset.gzipped ??= gzipAsync(asset.body, { level: 9 });
  return asset.gzipped;
}

/** Starts compressing while the browser still parses the page that will ask for them. */
export function precompress(assets: readonly Asset[]): void {
  for (const a of assets) void compressed(a).catch(() => undefined);
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that cannot close the script element it sits in. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Adds `GET <prefix>/*` serving `assets`; other paths under the prefix fall through. */
export function serveAssets(router: Router, prefix: string, assets: readonly Asset[]): void {
  const byPath = new Map(assets.map((a) => [a.urlPath, a]));
  router.get(`${prefix}/*file`, async (req: Request, res: Response, next: NextFunction) => {
    const asset = byPath.get(req.path);
    if (asset === undefined) return next();
    const gzipped =
      req.acceptsEncodings("gzip", "identity") === "gzip" ? await compressed(asset).catch(() => undefined) : undefined;
    res.set({
      "Content-Type": asset.contentType,
      // The URL carries a hash of the content, so the content behind a URL never changes.
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
      Vary: "Accept-Encoding",
      // Set here so Express does not hash megabytes on every response; one tag per encoding.
      ETag: gzipped ? `"${asset.hash}-gzip"` : `"${asset.hash}"`,
    });
    if (gzipped) res.set("Content-Encoding", "gzip");
    res.send(gzipped ?? asset.body);
  });
}
