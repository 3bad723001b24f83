import { HeaderMap } from "@apollo/server";
import { unwrapResolverError } from "@apollo/server/errors";
import { GraphQLError, type GraphQLFormattedError } from "graphql";
import { redactKeys } from "../../platform/auth/auth.keys";
import { AppError, type ErrorCode, type RetryLaterError } from "../../platform/errors";

/** docs/contract.md section 8: the codes GraphQL clients see. */
const GRAPHQL_CODE: Record<ErrorCode, string> = {
  UNAUTHENTICATED: "UNAUTHENTICATED",
  FORBIDDEN: "FORBIDDEN",
  QUOTA_EXCEEDED: "FORBIDDEN",
  INVALID_ARGUMENT: "BAD_USER_INPUT",
  NOT_FOUND: "NOT_FOUND",
  // The source does not serve this kind of data: NOT_FOUND for GraphQL clients, `reason` says which.
  NOT_AVAILABLE: "NOT_FOUND",
  ENDPOINT_REMOVED: "NOT_FOUND",
  // The upstream failed (gateway mode): the service's fault, with `reason` saying whose.
  UPSTREAM_UNAVAILABLE: "INTERNAL_SERVER_ERROR",
  // The heavy capacity stayed spent: a code of its own, so a client knows that retrying later helps.
  BUSY: "BUSY",
  INTERNAL: "INTERNAL_SERVER_ERROR",
};

/** HTTP status of a /graphql answer refused before execution for this code (the REST door's, for BUSY). */
const REFUSAL_STATUS: Partial<Record<ErrorCode, number>> = { QUOTA_EXCEEDED: 403, BUSY: 500 };

/**
 * A refusal of the whole operation before it runs (the key's heavy slots, the process's heavy capacity), as the
 * GraphQLError Apollo answers with: `extensions.code` and `reason` as formatGraphqlError gives them, the status and
 * `Retry-After` in `extensions.http`.
 */
export function admissionRefusal(e: RetryLaterError): GraphQLError {
  return new GraphQLError(e.message, {
    extensions: {
      code: GRAPHQL_CODE[e.code],
      reason: e.code,
      http: {
        status: REFUSAL_STATUS[e.code] ?? 500,
        headers: new HeaderMap([["retry-after", String(e.retryAfterSeconds)]]),
      },
    },
  });
}

/**
 * Apollo's formatError hook: typed errors get their code (and the REST
 * `reason` code, for clients that want the finer one); anything untyped from
 * a resolver is masked, and reported through `onInternal` with its stack.
 */
export function formatGraphqlError(onInternal: (err: unknown) => void) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    if (original instanceof AppError) {
      const internal = original.code === "INTERNAL";
      if (internal) onInternal(original);
      return {
        message: internal ? "internal error" : redactKeys(original.message),
        locations: formatted.locations,
        path: formatted.path,
        extensions: {
          code: GRAPHQL_CODE[original.code],
          reason: original.code,
          ...(original.details ? { details: original.details } : {}),
        },
      };
    }
    const code = formatted.extensions?.code;
    // Errors Apollo raised itself (parse, validation, bad variables) are safe to show as they are.
    // (A key pasted into a variable or argument is never repeated back: `redactKeys`.)
    if (typeof code === "string" && code !== "INTERNAL_SERVER_ERROR")
      return { ...formatted, message: redactKeys(formatted.message) };
    // Apollo's own refusals of the request without a code (a persisted query whose hash does not match its text, an
    // unsupported persisted query version): the client's fault, said as Apollo says it.
    if (clientRefusal(error)) {
      return { message: redactKeys(formatted.message), extensions: { code: "BAD_REQUEST" } };
    }
    onInternal(original);
    return {
      message: "internal error",
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: "INTERNAL_SERVER_ERROR" },
    };
  };
}

/** A GraphQLError Apollo raised about the request itself (no resolver's error inside) with a 4xx HTTP status. */
function clientRefusal(error: unknown): boolean {
  if (!(error instanceof GraphQLError) || error.originalError !== undefined || error.path !== undefined) return false;
  const status = (error.extensions.http as { status?: unknown } | undefined)?.status;
  return typeof status === "number" && status >= 400 && status < 500;
}
