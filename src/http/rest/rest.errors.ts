import { GraphQLError } from "graphql";
import { redactKeys } from "../../platform/auth/auth.keys";
import {
  AppError,
  BusyError,
  EndpointRemovedError,
  InvalidArgumentError,
  RetryLaterError,
  type ErrorCode,
  type ErrorDetail,
} from "../../platform/errors";

/** The five statuses of the contract; nothing else ever leaves the REST door. */
export type RestStatus = 200 | 401 | 403 | 404 | 500;

const STATUS_OF: Record<ErrorCode, RestStatus> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  QUOTA_EXCEEDED: 403,
  INVALID_ARGUMENT: 404,
  NOT_FOUND: 404,
  NOT_AVAILABLE: 404,
  ENDPOINT_REMOVED: 404,
  UPSTREAM_UNAVAILABLE: 500,
  BUSY: 500,
  INTERNAL: 500,
};

const REASON: Record<RestStatus, string> = {
  200: "OK",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  500: "Internal Server Error",
};

export interface ErrorBody {
  statusCode: RestStatus;
  error: string;
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
  requestId: string;
  removedOn?: string;
  replacement?: string | null;
}

export interface MappedError {
  status: RestStatus;
  body: ErrorBody;
  headers: Record<string, string>;
  /** A fault of ours, to be logged with the request id; never shown to the client. */
  internal?: unknown;
}

/** Finds the typed error inside what GraphQL execution or a handler raised. */
export function unwrap(e: unknown): unknown {
  let cur = e;
  while (cur instanceof GraphQLError && cur.originalError) cur = cur.originalError;
  return cur;
}

/**
 * The one mapping from anything thrown on the REST path to a status and the
 * contract's error body. A GraphQLError without a typed cause is a request
 * error (variables that do not coerce): the client's input, so 404.
 */
export function mapError(e: unknown, requestId: string): MappedError {
  let err = unwrap(e);
  if (err instanceof GraphQLError) {
    err = new InvalidArgumentError(err.message);
  }
  if (err instanceof AppError) {
    const status = STATUS_OF[err.code];
    const headers: Record<string, string> = {};
    if (err instanceof RetryLaterError) {
      headers["retry-after"] = String(err.retryAfterSeconds);
    }
    // A key pasted into a symbol or a path is never repeated back (auth.keys.ts `redactKeys`).
    const body: ErrorBody = {
      statusCode: status,
      error: REASON[status],
      code: err.code,
      message: redactKeys(err.message),
      requestId,
    };
    if (err.details?.length)
      body.details = err.details.map((d) => ({ field: redactKeys(d.field), issue: redactKeys(d.issue) }));
    if (err instanceof EndpointRemovedError) {
      body.removedOn = err.removedOn;
      body.replacement = err.replacement;
    }
    // BUSY is the service's state, not a fault: its message (how long to wait) is shown and nothing is logged.
    if (err instanceof BusyError) return { status, body, headers };
    if (status === 500) return { status, body: { ...body, message: "internal error" }, headers, internal: e };
    return { status, body, headers };
  }
  return {
    status: 500,
    body: { statusCode: 500, error: REASON[500], code: "INTERNAL", message: "internal error", requestId },
    headers: {},
    internal: e,
  };
}
