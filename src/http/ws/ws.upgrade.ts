import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { SCOPES, WILDCARD_SCOPE } from "../../platform/auth/auth.scopes";
import type { Principal } from "../../platform/auth/auth.types";
import type { ApiKeyService } from "../../platform/auth/auth.service";
import { AppError, ForbiddenError } from "../../platform/errors";
import type { MappedError } from "../rest/rest.errors";

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The upgrade's request id: a sane incoming `x-request-id` is kept, as on every other request. */
export function upgradeRequestId(req: IncomingMessage): string {
  const incoming = req.headers["x-request-id"];
  return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

const REASON: Record<number, string> = {
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  500: "Internal Server Error",
};

/**
 * Answers an upgrade request with an ordinary HTTP answer, the contract's error body, and closes the connection: the
 * upgrade never completes, so a client sees the status as it would on REST (docs/contract.md section 10).
 */
export function refuseUpgrade(socket: Duplex, mapped: MappedError): void {
  const text = JSON.stringify(mapped.body);
  const head = [
    `HTTP/1.1 ${mapped.status} ${REASON[mapped.status] ?? "Error"}`,
    "content-type: application/json; charset=utf-8",
    `content-length: ${Buffer.byteLength(text)}`,
    `x-request-id: ${mapped.body.requestId}`,
    ...Object.entries(mapped.headers).map(([name, value]) => `${name}: ${value}`),
    "connection: close",
  ];
  socket.on("error", () => socket.destroy());
  if (!socket.writable) return void socket.destroy();
  socket.end(`${head.join("\r\n")}\r\n\r\n${text}`);
}

/** The scopes that read market data: every scope but `bulk`, which only says a key may call bulk. */
const DATA_SCOPES = SCOPES.filter((s) => s !== "bulk" && s !== WILDCARD_SCOPE);

/** Throws FORBIDDEN for a key whose scopes name no data scope: it could subscribe to nothing and ask for nothing. */
export function requireDataScope(principal: Principal): void {
  if (principal.scopes.has(WILDCARD_SCOPE) || DATA_SCOPES.some((s) => principal.scopes.has(s))) return;
  throw new ForbiddenError(`this API key has no data scope; a live connection needs one of ${DATA_SCOPES.join(", ")}`, [
    { field: "x-api-key", issue: "no data scope" },
  ]);
}

/** A key past MDG_WS_MAX_CONNECTIONS_PER_KEY, on either door. */
export function tooManyConnections(open: number): ForbiddenError {
  return new ForbiddenError(
    `this API key has ${open} live connections open, the most it may (MDG_WS_MAX_CONNECTIONS_PER_KEY)`,
    [{ field: "x-api-key", issue: "too many connections" }],
  );
}

/** How often idle sockets and revoked keys are looked for: a tenth of the idle timeout, between 1 and 30 s. */
export const sweepEvery = (idleTimeoutMs: number) => Math.min(30_000, Math.max(1_000, Math.floor(idleTimeoutMs / 10)));

/** A timeout as a close reason names it: `15 min`, `30 s`, `250 ms`. */
export function describeMs(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${ms} ms`;
}

/** The reason a socket closes with once its key was revoked or expired, on either door. */
export const KEY_GONE = "the API key was revoked or has expired";

/**
 * Whether a connection's key still holds, as the doors check it (from the key cache while it is fresh): false only
 * for a key refused as unauthenticated; a store failing to answer is not the key's fault, and the next sweep asks
 * again.
 */
export async function keyStillValid(apiKeys: ApiKeyService, key: string): Promise<boolean> {
  try {
    await apiKeys.authenticateNow(key);
    return true;
  } catch (e) {
    return !(e instanceof AppError && e.code === "UNAUTHENTICATED");
  }
}
