import type { IncomingMessage, ServerResponse } from "node:http";
import { sendBody } from "./http.compress";

/**
 * The path of a request URL as Node gives it (`/v1/quote?x=1` → `/v1/quote`), and its query string with the `?` (or
 * "").
 */
export function splitUrl(req: IncomingMessage): { path: string; search: string } {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return q < 0 ? { path: url, search: "" } : { path: url.slice(0, q), search: url.slice(q) };
}

/** `splitUrl(req).path` without the object: the doors' and the metrics' hot path. */
export function urlPath(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
}

/**
 * A JSON answer with its length, in one write of the head; `headers` go first (content type and length win).
 * Compressed when large enough and the client accepts it (http.compress.ts).
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const head = headers === undefined ? { "content-type": JSON_TYPE } : { ...headers, "content-type": JSON_TYPE };
  sendBody(res, status, JSON.stringify(body), head);
}

const JSON_TYPE = "application/json; charset=utf-8";
