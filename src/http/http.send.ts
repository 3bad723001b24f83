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

/**
 * `sendJson` for an answer whose `results` are many and large (bulk: up to 100 items, ten-year series among them):
 * the items are serialised one per turn of the event loop, so the other requests' work runs between them instead of
 * waiting out one `JSON.stringify` of megabytes (9 ETF metrics series, 2.7 MB: 9-15 ms in one block). The bytes are
 * `JSON.stringify(body)`'s: the items take the place `results` has in the object.
 */
export async function sendJsonInTurns(
  res: ServerResponse,
  status: number,
  body: { results: readonly unknown[] },
  headers?: Record<string, string>,
): Promise<void> {
  // The shell holds no client data (the bulk answer's other fields are the service's), so the mark is found once.
  const shell = JSON.stringify({ ...body, results: RESULTS_MARK });
  const items: string[] = new Array(body.results.length);
  for (let i = 0; i < body.results.length; i++) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    // As inside an array: what JSON.stringify leaves out (undefined, a function) is null there.
    items[i] = JSON.stringify(body.results[i]) ?? "null";
  }
  if (res.destroyed) return;
  const text = shell.replace(QUOTED_RESULTS_MARK, () => `[${items.join(",")}]`);
  const head = headers === undefined ? { "content-type": JSON_TYPE } : { ...headers, "content-type": JSON_TYPE };
  sendBody(res, status, text, head);
}

const RESULTS_MARK = "\u0000results\u0000";
const QUOTED_RESULTS_MARK = JSON.stringify(RESULTS_MARK);
