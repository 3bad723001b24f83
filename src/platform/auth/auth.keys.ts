import * as crypto from "node:crypto";
import { createHash, randomBytes } from "node:crypto";

/** Every secret starts with this, so a leaked key is recognisable (secret scanners, log filters). */
export const API_KEY_PREFIX = "mdg_";
/** 32 random bytes: 256 bits of entropy, twice the 128 the contract asks for. */
export const API_KEY_RANDOM_BYTES = 32;
/** The public identifier of a key: safe to print, to log and to pass to `revoke`. */
export const KEY_ID_PREFIX = "key_";
const KEY_ID_RANDOM_BYTES = 6;

/** `mdg_` + 43 base64url characters. */
export const API_KEY_PATTERN = /^mdg_[A-Za-z0-9_-]{43}$/;
/** `key_` + 12 hex digits. */
export const KEY_ID_PATTERN = /^key_[0-9a-f]{12}$/;

/** A new secret API key: `mdg_` + base64url of 32 random bytes. Shown once, never stored. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(API_KEY_RANDOM_BYTES).toString("base64url");
}

/**
 * A new public key id (48 random bits). It only has to be unique among the
 * keys of one deployment, and it grants nothing: knowing it is harmless.
 */
export function generateKeyId(): string {
  return KEY_ID_PREFIX + randomBytes(KEY_ID_RANDOM_BYTES).toString("hex");
}

/**
 * The stored form of a key: sha256, hex. A fast hash is right here, unlike
 * for passwords: our keys are 256-bit random tokens, so there is no
 * dictionary to try and brute force over the key space is hopeless whatever
 * the hash costs. A slow hash (bcrypt, scrypt) would only add its cost to
 * every request, since each one authenticates, and it would rule out finding
 * the key by an indexed lookup of its hash. (A short bootstrap key chosen by
 * a person is the one exception; it lives in memory only, never in the store.)
 */
export function hashApiKey(key: string): string {
  // Every request hashes its key: the one-shot `crypto.hash` (Node 20.12+) skips the Hash object's set-up.
  return oneShot ? oneShot("sha256", key, "hex") : createHash("sha256").update(key, "utf8").digest("hex");
}

const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

/** Length of a sha256 digest in bytes. */
export const HASH_BYTES = 32;

/**
 * Quotes a value a person typed for an error message, unless it could be a
 * secret (it carries the key prefix, or is long enough to be one), in which
 * case it is not repeated: a key pasted in the wrong place must not end up in
 * a terminal's scrollback or a CI log.
 */
export function describeArgument(value: string): string {
  if (value.toLowerCase().includes(API_KEY_PREFIX) || value.length > 32) return "(value not shown)";
  return JSON.stringify(value);
}

/** Anything shaped like one of our keys, anywhere in a text. */
const KEY_IN_TEXT = /mdg_[A-Za-z0-9_-]{43}/g;
export const REDACTED_KEY = "mdg_[redacted]";

/**
 * The text with every key-shaped token replaced. Clients paste keys where
 * they do not belong (a symbol, a path, a query string); whatever the service
 * repeats in an error message or a log line goes through this first, so a
 * key never travels further than the request that carried it.
 */
export function redactKeys(text: string): string {
  return text.includes(API_KEY_PREFIX) ? text.replace(KEY_IN_TEXT, REDACTED_KEY) : text;
}

/** `redactKeys` over the strings of a plain value (objects and arrays, a few levels deep): for log lines. */
export function redactKeysDeep<T>(value: T, depth = 4): T {
  if (typeof value === "string") return redactKeys(value) as T;
  if (depth === 0 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redactKeysDeep(v, depth - 1)) as T;
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value)) {
    const r = redactKeysDeep(v, depth - 1);
    if (r !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = r;
  }
  return (out ?? value) as T;
}

/**
 * How a reader runs the keys CLI (src/application/cli/keys.cli.ts), in every hint the service and the CLI print:
 * the npm script works in a checkout with no global install (the package's `mdg-keys` bin is on the PATH only once
 * installed or linked).
 */
export const KEYS_COMMAND = "npm run keys --";
