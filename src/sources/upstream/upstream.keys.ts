import { createHash } from "node:crypto";
import type { UpstreamRequest } from "./upstream.types";

/** JSON with object keys sorted at every depth: `{a, b}` and `{b, a}` are one request. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const k of Object.keys(obj).sort()) {
    if (obj[k] === undefined) continue;
    parts.push(`${JSON.stringify(k)}:${canonicalJson(obj[k])}`);
  }
  return `{${parts.join(",")}}`;
}

/** The key of the cache and of coalescing: the path and the canonical body. */
export function requestKey(req: Pick<UpstreamRequest, "path" | "body">): string {
  return `${req.path} ${canonicalJson(req.body)}`;
}

/** A fixed-length Redis key part: bodies may be long, and a symbol in a key name is nobody's business. */
export function hashedKey(key: string): string {
  return createHash("sha256").update(key).digest("base64url");
}

/** `/v0/etf/profile` → `{version: "v0", endpoint: "etf/profile"}`; null for a path outside `/v0` and `/v1`. */
export function splitVersion(path: string): { version: string; endpoint: string } | null {
  const m = /^\/(v[01])\/(.+?)\/?$/.exec(path);
  return m ? { version: m[1]!, endpoint: m[2]! } : null;
}
