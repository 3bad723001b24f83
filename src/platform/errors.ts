/**
 * Typed errors raised inside the service. They carry no HTTP status: the two
 * doors (REST and GraphQL) map them once, in rest/rest.errors.ts and
 * graphql/graphql.errors.ts.
 */

export type ErrorCode =
  | "UNAUTHENTICATED"
  | "FORBIDDEN"
  | "QUOTA_EXCEEDED"
  | "INVALID_ARGUMENT"
  | "NOT_FOUND"
  | "NOT_AVAILABLE"
  | "ENDPOINT_REMOVED"
  | "UPSTREAM_UNAVAILABLE"
  | "BUSY"
  | "INTERNAL";

export interface ErrorDetail {
  field: string;
  issue: string;
}

export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  constructor(message: string, details?: ErrorDetail[]) {
    super(message);
    this.details = details;
  }
}

export class UnauthenticatedError extends AppError {
  override name = "UnauthenticatedError";
  readonly code = "UNAUTHENTICATED";
  constructor() {
    // One message for missing, unknown, revoked and expired keys: the answer must not tell them apart.
    super("a valid x-api-key header is required");
  }
}

export class ForbiddenError extends AppError {
  override name = "ForbiddenError";
  readonly code = "FORBIDDEN";
}

/** A refusal that ends by itself: the answer carries `Retry-After` with these seconds. */
export abstract class RetryLaterError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export class QuotaExceededError extends RetryLaterError {
  override name = "QuotaExceededError";
  readonly code = "QUOTA_EXCEEDED";
}

export class InvalidArgumentError extends AppError {
  override name = "InvalidArgumentError";
  readonly code = "INVALID_ARGUMENT";
}

export class NotFoundError extends AppError {
  override name = "NotFoundError";
  readonly code = "NOT_FOUND";
}

export class SymbolNotFoundError extends NotFoundError {
  override name = "SymbolNotFoundError";
  constructor(identifier: string, what = "security") {
    super(`no ${what} found for ${JSON.stringify(identifier)}`);
  }
}

/**
 * The configured data source does not serve this kind of data at all (an
 * upstream without fund data, say): not the client's mistake, and not a
 * missing security either. `capability` names what is missing.
 */
export class NotAvailableError extends AppError {
  override name = "NotAvailableError";
  readonly code = "NOT_AVAILABLE";
  constructor(
    message: string,
    readonly capability: string,
  ) {
    super(message);
  }
}

export class EndpointRemovedError extends AppError {
  override name = "EndpointRemovedError";
  readonly code = "ENDPOINT_REMOVED";
  constructor(
    readonly path: string,
    readonly removedOn: string,
    readonly replacement: string | null,
  ) {
    super(`${path} was removed on ${removedOn}${replacement ? `; use ${replacement}` : ""}`);
  }
}

/** A fault of the service or its store; the client never sees this message. */
export class InternalError extends AppError {
  override name = "InternalError";
  readonly code = "INTERNAL";
}

/**
 * Gateway mode: the upstream API could not answer (timeout, 5xx, refused connection, malformed JSON, an open
 * circuit breaker, or its 401/403, which means our own configuration is wrong). A 500 with the request id, never
 * the client's fault; the message names no host, key or upstream body.
 */
export class UpstreamUnavailableError extends AppError {
  override name = "UpstreamUnavailableError";
  readonly code = "UPSTREAM_UNAVAILABLE";
}

/**
 * The process's capacity for heavy operations (MDG_HEAVY_CAPACITY) stayed spent for as long as one may wait for it
 * (MDG_HEAVY_QUEUE_MS): the service's state, not the client's fault, so a 500, with `Retry-After`.
 */
export class BusyError extends RetryLaterError {
  override name = "BusyError";
  readonly code = "BUSY";
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/**
 * A reason the service cannot start that the operator can fix (a port in use, a store that is not SQLite, a
 * wrong setting). Not a door's error: main prints its message, one line that names the variable or the path and
 * what is wrong, and exits 1 without a stack.
 */
export class StartupError extends Error {
  override name = "StartupError";
}
