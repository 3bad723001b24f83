import express from "express";
import type { IncomingMessage, ServerResponse } from "node:http";
import { InvalidArgumentError } from "../../platform/errors";

type BodyParserError = Error & { type?: string; status?: number; limit?: number };
/** body-parser leaves what it read on `req.body`; the plain path does the same. */
type WithBody = IncomingMessage & { body?: unknown };

/**
 * Reads the body whatever its content type (clients send JSON as text/plain,
 * or no content type at all) and parses it as JSON. An empty body is `{}`:
 * the dividend calendar is called with none. Everything body-parser would
 * answer with 400, 413 or 415 becomes INVALID_ARGUMENT here.
 */
export function jsonBodyReader(limitBytes: number): JsonBodyReader {
  const raw = express.raw({ type: () => true, limit: limitBytes });
  /** What body-parser (or the plain path) refused, as the call's INVALID_ARGUMENT. */
  const refused = (e: unknown): InvalidArgumentError => {
    const err = e as BodyParserError;
    if (err.type === "entity.too.large") {
      return new InvalidArgumentError(`body: larger than the limit of ${limitBytes} bytes`, [
        { field: "body", issue: "too large" },
      ]);
    }
    return unreadable(err.type ?? "malformed request");
  };
  async function readJsonBody(req: WithBody, res: ServerResponse): Promise<unknown> {
    try {
      if (plainSmallBody(req, limitBytes)) {
        req.body = await readPlainSoon(req, Number(req.headers["content-length"]));
      } else {
        await new Promise<void>((resolve, reject) =>
          raw(req as never, res as never, (err?: unknown) => (err ? reject(err) : resolve())),
        );
      }
    } catch (e) {
      throw refused(e);
    }
    return parseJson(req.body);
  }
  /**
   * The body parsed at once when the whole request has already arrived (pipelined requests; a body that came in the
   * packet of its headers is parsed by Node only after the door returns, which `readJsonBody` waits for): no promise,
   * no listeners. Undefined when it has not, or when it is not the plain case; `readJsonBody` then reads it. Throws
   * what `readJsonBody` would reject with.
   */
  readJsonBody.now = (req: WithBody): unknown => {
    if (!req.complete || !plainSmallBody(req, limitBytes)) return undefined;
    const expected = Number(req.headers["content-length"]);
    if (expected === 0 || req.readableEnded) return {};
    let buf: Buffer | undefined;
    try {
      buf = takeWhole(req, expected);
    } catch (e) {
      throw refused(e);
    }
    if (buf === undefined) return undefined;
    req.body = buf;
    return parseJson(buf);
  };
  return readJsonBody;
}

/** Reads and parses a request body: `now` when it is all there, the promise otherwise. */
export interface JsonBodyReader {
  (req: IncomingMessage, res: ServerResponse): Promise<unknown>;
  now(req: IncomingMessage): unknown;
}

function unreadable(type: string): InvalidArgumentError {
  return new InvalidArgumentError(`body: could not be read (${type})`, [{ field: "body", issue: "unreadable" }]);
}

function parseJson(buf: unknown): unknown {
  if (!Buffer.isBuffer(buf) || buf.length === 0) return {};
  let text = buf.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    const why = e instanceof Error ? e.message.replace(/\s+/g, " ").slice(0, 120) : "syntax error";
    throw new InvalidArgumentError(`body: not valid JSON (${why})`, [{ field: "body", issue: "malformed JSON" }]);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new InvalidArgumentError("body: expected a JSON object", [{ field: "body", issue: "not an object" }]);
  }
  return parsed;
}

/**
 * The common case (a Content-Length within the limit, no Content-Encoding, not
 * chunked) is read straight from the stream: body-parser's machinery costs
 * more than the read on the hot path. Everything else (compressed, chunked,
 * too large) goes through body-parser, so its answers stay exactly as before.
 */
export function plainSmallBody(req: IncomingMessage, limitBytes: number): boolean {
  const length = req.headers["content-length"];
  const encoding = req.headers["content-encoding"];
  return (
    length !== undefined &&
    DIGITS.test(length) &&
    Number(length) <= limitBytes &&
    req.headers["transfer-encoding"] === undefined &&
    (encoding === undefined || encoding.toLowerCase() === "identity")
  );
}

const DIGITS = /^\d{1,9}$/;

/**
 * `readPlain` at the next check phase of the event loop. Node runs the door as soon as a request's headers are
 * parsed, and a body that came in the same packet is parsed only after the door (and the microtasks it queued)
 * returned: by the next check phase it is there, and one `read()` takes it, which costs less than the stream's
 * listeners and flowing mode. Anything not all there by then is read by `readPlain`, with its checks.
 */
export function readPlainSoon(req: IncomingMessage, expected: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    setImmediate(() => {
      let buf: Buffer | undefined;
      try {
        buf = expected > 0 ? takeWhole(req, expected) : undefined;
      } catch (e) {
        reject(e);
        return;
      }
      if (buf !== undefined) resolve(buf);
      else readPlain(req, expected).then(resolve, reject);
    });
  });
}

/**
 * The body, taken with one `read()`, when Node has already parsed all of it; undefined when it has not. Node's
 * parser takes exactly Content-Length bytes before it marks a request complete, so anything else read is refused as
 * `readPlain` refuses it.
 */
function takeWhole(req: IncomingMessage, expected: number): Buffer | undefined {
  if (!req.complete || req.readableEnded || req.readableLength !== expected) return undefined;
  const buf = req.read() as Buffer | null;
  if (buf === null || buf.length !== expected) throw sizeMismatch();
  return buf;
}

const sizeMismatch = (): BodyParserError =>
  Object.assign(new Error("request size did not match content length"), { type: "request.size.invalid" });

/** Reads exactly `expected` bytes; a body that ends short, runs long or is aborted is a malformed request. */
export function readPlain(req: IncomingMessage, expected: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    const finish = (err: BodyParserError | null) => {
      if (done) return;
      done = true;
      req.removeListener("data", onData);
      req.removeListener("end", onEnd);
      req.removeListener("error", onError);
      req.removeListener("close", onClose);
      if (err) {
        // Like body-parser: stop reading what is left; the answer ends the exchange.
        req.unpipe();
        req.pause();
        reject(err);
      } else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > expected) return finish(sizeMismatch());
      chunks.push(chunk);
    };
    const onEnd = () => finish(received === expected ? null : sizeMismatch());
    const onError = (e: Error) => finish(Object.assign(e, { type: (e as BodyParserError).type ?? "request.aborted" }));
    const onClose = () => finish(Object.assign(new Error("request aborted"), { type: "request.aborted" }));
    if (expected === 0 || req.readableEnded) return resolve(Buffer.alloc(0));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}
