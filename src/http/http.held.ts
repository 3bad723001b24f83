import type { OutgoingHttpHeaders, ServerResponse } from "node:http";

/**
 * The header fields every answer of a request carries whoever writes it (its
 * request id; on REST, the key's RateLimit fields), held beside the response
 * instead of set on it. Node's `writeHead` takes its slow path as soon as one
 * header was set before it (each field of its object set one by one, with
 * validation each time); held fields join the answer's own object instead,
 * so the common answer is written in one `writeHead` of one object.
 *
 * No answer may lose them: `sendBody` (http.compress.ts) adds them to every
 * answer it writes, and every other writer (Express and what runs behind it,
 * an incremental GraphQL answer, the CORS preflight) gets them set on the
 * response by `releaseHeld` before it takes over. `setHeader` and
 * `removeHeader` let the rate limiter write its fields here as it would on a
 * response (quota.service.ts's HeaderSink).
 */
export class HeldHeaders {
  ratelimitPolicy: string | undefined = undefined;
  ratelimit: string | undefined = undefined;

  constructor(readonly requestId: string) {}

  setHeader(name: string, value: string): void {
    if (name === "ratelimit") this.ratelimit = value;
    else if (name === "ratelimit-policy") this.ratelimitPolicy = value;
    // Only the fields above are ever held: any other name is a programming error, never to be dropped silently.
    else throw new Error(`header ${name} cannot be held`);
  }

  removeHeader(name: string): void {
    if (name === "ratelimit") this.ratelimit = undefined;
    else if (name === "ratelimit-policy") this.ratelimitPolicy = undefined;
  }
}

const HELD = Symbol("mdg.heldHeaders");
type Holding = ServerResponse & { [HELD]?: HeldHeaders };

/** Holds `held` for `res`: from now on its fields reach the client with whatever answer is written. */
export function holdHeaders(res: ServerResponse, held: HeldHeaders): void {
  (res as Holding)[HELD] = held;
}

/** The fields held for `res`, if any are still held (not yet released onto it). */
export function heldHeaders(res: ServerResponse): HeldHeaders | undefined {
  return (res as Holding)[HELD];
}

/** Adds the held fields to the head object of the answer about to be written (`head` is the writer's own). */
export function addHeld(res: ServerResponse, head: OutgoingHttpHeaders): void {
  const held = (res as Holding)[HELD];
  if (held === undefined) return;
  head["x-request-id"] = held.requestId;
  if (held.ratelimitPolicy !== undefined) head["ratelimit-policy"] = held.ratelimitPolicy;
  if (held.ratelimit !== undefined) head["ratelimit"] = held.ratelimit;
}

/**
 * Sets the held fields on `res` itself and holds nothing more, for a writer that is not `sendBody` (Express and its
 * middleware, an answer written in parts, a bare `writeHead`). A field set later goes on `res` directly.
 */
export function releaseHeld(res: ServerResponse): void {
  const held = (res as Holding)[HELD];
  if (held === undefined) return;
  (res as Holding)[HELD] = undefined;
  if (res.headersSent) return;
  res.setHeader("x-request-id", held.requestId);
  if (held.ratelimitPolicy !== undefined) res.setHeader("ratelimit-policy", held.ratelimitPolicy);
  if (held.ratelimit !== undefined) res.setHeader("ratelimit", held.ratelimit);
}
