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
  return createHash("sha256").update(key, "utf8").digest("hex");
}

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
