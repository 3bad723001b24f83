import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import { brotliCompress, constants, gzip, type BrotliOptions, type ZlibOptions } from "node:zlib";
import { addHeld } from "./http.held";

/**
 * Compression of the service's answers (REST, /graphql, /metrics,
 * /openapi.json): brotli when the client accepts it, else gzip, for answers of
 * COMPRESS_MIN_BYTES and more. Smaller answers go as they are: their headers
 * would outweigh the saving.
 *
 * The answers written here are whole bodies, so the encoded body is built in
 * one piece on libuv's thread pool (the event loop never waits for it) and
 * goes out with its own Content-Length, as the plain answer would.
 */

export type Encoding = "br" | "gzip";

/** Answers under 1 KiB go uncompressed. */
export const COMPRESS_MIN_BYTES = 1024;

/**
 * Per-answer compression costs CPU on every call, so a fast setting: brotli
 * quality 4 (what the `compression` package uses) is both quicker and smaller
 * than gzip's default level on our JSON.
 */
export const BROTLI_OPTIONS: BrotliOptions = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
};
export const GZIP_OPTIONS: ZlibOptions = { level: 6 };

/** Answers of one Accept-Encoding value; clients send a handful of distinct values, bounded anyway. */
const negotiated = new Map<string, Encoding | null>();
const NEGOTIATED_MAX = 64;

/**
 * The encoding to answer in for an `Accept-Encoding` header: the one with the
 * higher q-value of br and gzip (`*` stands for either when not named), br on
 * a tie, null when neither is acceptable (no header, `identity`, `br;q=0`, …).
 */
export function negotiateEncoding(header: string | string[] | undefined): Encoding | null {
  if (header === undefined || header === "") return null;
  const value = Array.isArray(header) ? header.join(",") : header;
  const known = negotiated.get(value);
  if (known !== undefined) return known;
  const result = parseAcceptEncoding(value);
  if (negotiated.size >= NEGOTIATED_MAX) negotiated.clear();
  negotiated.set(value, result);
  return result;
}

function parseAcceptEncoding(value: string): Encoding | null {
  let br: number | undefined;
  let gz: number | undefined;
  let star: number | undefined;
  for (const part of value.split(",")) {
    const [rawName, ...params] = part.split(";");
    const name = rawName!.trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      // A q-value that does not parse makes the coding unacceptable rather than preferred.
      if (m) q = Number(m[1]);
      else if (/^\s*q\s*=/i.test(p)) q = 0;
    }
    if (!Number.isFinite(q)) q = 0;
    if (name === "br") br = q;
    else if (name === "gzip" || name === "x-gzip") gz = Math.max(gz ?? 0, q);
    else if (name === "*") star = q;
  }
  const brQ = br ?? star ?? 0;
  const gzQ = gz ?? star ?? 0;
  if (brQ <= 0 && gzQ <= 0) return null;
  return brQ >= gzQ ? "br" : "gzip";
}

/** Compresses `body` in one piece, off the event loop. */
export function compressBody(body: Buffer | string, encoding: Encoding, level?: "max"): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, out: Buffer) => (err ? reject(err) : resolve(out));
    if (encoding === "br") {
      const params = level === "max" ? { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } : {};
      const size = typeof body === "string" ? Buffer.byteLength(body) : body.length;
      brotliCompress(
        body,
        { params: { ...BROTLI_OPTIONS.params, ...params, [constants.BROTLI_PARAM_SIZE_HINT]: size } },
        done,
      );
    } else gzip(body, level === "max" ? { level: 9 } : GZIP_OPTIONS, done);
  });
}

const VARIES_BY_ENCODING = /(^|,)\s*(accept-encoding|\*)\s*(,|$)/i;

/**
 * Adds `Accept-Encoding` to whatever Vary the answer already carries, in
 * `headers` or set on `res` earlier (CORS's `Origin`, GraphiQL's `Accept`),
 * which writeHead would otherwise replace. Header names in `headers` are
 * lowercase, as everywhere in this code base (a scan for other spellings
 * cost more than the rest of the function). Changes and returns `headers`.
 */
export function varyAcceptEncoding(res: ServerResponse, headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const given = headers.vary ?? res.getHeader("vary");
  if (given === undefined) headers.vary = "Accept-Encoding";
  else {
    const current = Array.isArray(given) ? given.join(", ") : String(given).trim();
    headers.vary =
      current === "" ? "Accept-Encoding" : VARIES_BY_ENCODING.test(current) ? current : `${current}, Accept-Encoding`;
  }
  return headers;
}

/**
 * Writes a whole answer: compressed when it is COMPRESS_MIN_BYTES or more and
 * the request accepts br or gzip, as it is otherwise; `Vary:
 * Accept-Encoding` either way, and a Content-Length of the bytes sent.
 *
 * A compressed answer goes out once its body is ready. By then the request
 * may have been answered otherwise (the timeout's answer,
 * MDG_REQUEST_TIMEOUT_MS) or abandoned by the client: then nothing is
 * written. writeHead and end are taken when the answer is given, because the
 * timeout silences them right after giving its own answer
 * (server.request-timeout.ts): were that answer ever large enough to
 * compress, it must still get out.
 *
 * The fields held for the request (its id, its RateLimit fields: http.held.ts) join `headers` when the head is
 * written, so an answer with nothing set on `res` before goes out in Node's one-object `writeHead`.
 *
 * `headers` is the caller's to give away: it is completed in place, one object per answer.
 */
export function sendBody(
  res: ServerResponse,
  status: number,
  body: Buffer | string,
  headers: OutgoingHttpHeaders = {},
): void {
  const length = typeof body === "string" ? Buffer.byteLength(body) : body.length;
  const encoding =
    length >= COMPRESS_MIN_BYTES && res.req?.method !== "HEAD"
      ? negotiateEncoding(res.req?.headers["accept-encoding"])
      : null;
  const head = varyAcceptEncoding(res, headers);
  if (encoding === null) {
    head["content-length"] = length;
    addHeld(res, head);
    res.writeHead(status, head);
    res.end(body);
    return;
  }
  const { writeHead, end } = res;
  compressBody(body, encoding).then(
    (encoded) => {
      if (res.headersSent || res.destroyed) return;
      head["content-encoding"] = encoding;
      head["content-length"] = encoded.length;
      addHeld(res, head);
      writeHead.call(res, status, head);
      (end as (chunk: Buffer) => void).call(res, encoded);
    },
    () => {
      // zlib failing on a buffer in memory is not expected; the plain answer is still right.
      if (res.headersSent || res.destroyed) return;
      head["content-length"] = length;
      addHeld(res, head);
      writeHead.call(res, status, head);
      (end as (chunk: Buffer | string) => void).call(res, body);
    },
  );
}
