import express from "express";
import type { Request, Response } from "express";
import { InvalidArgumentError } from "../common/errors";

type BodyParserError = Error & { type?: string; status?: number; limit?: number };

/**
 * Reads the body whatever its content type (clients send JSON as text/plain,
 * or no content type at all) and parses it as JSON. An empty body is `{}`:
 * the dividend calendar is called with none. Everything body-parser would
 * answer with 400, 413 or 415 becomes INVALID_ARGUMENT here.
 */
export function jsonBodyReader(limitBytes: number) {
  const raw = express.raw({ type: () => true, limit: limitBytes });
  return async function readJsonBody(req: Request, res: Response): Promise<unknown> {
    try {
      await new Promise<void>((resolve, reject) => raw(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
    } catch (e) {
      const err = e as BodyParserError;
      if (err.type === "entity.too.large") {
        throw new InvalidArgumentError(`body: larger than the limit of ${limitBytes} bytes`, [{ field: "body", issue: "too large" }]);
      }
      throw new InvalidArgumentError(`body: could not be read (${err.type ?? "malformed request"})`, [{ field: "body", issue: "unreadable" }]);
    }
    const buf = req.body as unknown;
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
  };
}
