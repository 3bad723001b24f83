import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The path of a request URL as Node gives it (`/v1/quote?x=1` → `/v1/quote`), and its query string with the `?` (or
 * "").
 */
export function splitUrl(req: IncomingMessage): { path: string; search: string } {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return q < 0 ? { path: url, search: "" } : { path: url.slice(0, q), search: url.slice(q) };
}

/** A JSON answer with its length, in one write of the head; `headers` go first (content type and length win). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(payload),
  });
  res.end(payload);
}
