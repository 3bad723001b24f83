import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import type { z } from "zod";
import type { Scope } from "../auth/auth.scopes";

export type ApiVersion = "v0" | "v1";
export const VERSIONS: readonly ApiVersion[] = ["v0", "v1"];

/**
 * One REST endpoint: which versions have it, the scope it needs, how its body
 * becomes the variables of one GraphQL operation, and how that operation's
 * data becomes the contract's response shape. The router, bulk, removal
 * answers and docs all read this table, so they cannot disagree.
 */
export interface RouteEntry<TData = unknown, TVars extends Record<string, unknown> = Record<string, unknown>> {
  path: string;
  summary: string;
  versions: readonly ApiVersion[];
  /** Checked before execution; null where the resolver decides (quote: by the security's type). */
  scope: Scope | null;
  /** Validates the parsed JSON body and returns the operation's variables. */
  body: z.ZodType<TVars>;
  operation: TypedDocumentNode<TData, TVars>;
  shape: (data: TData, version: ApiVersion) => unknown;
  /** Names one security (`symbol`): may be named by bulk. */
  singleSecurity: boolean;
  /** After this day (`YYYY-MM-DD`, UTC, inclusive of the whole day) the endpoint answers ENDPOINT_REMOVED. */
  removedOn?: string;
  replacement?: string;
}

/** Keeps each entry's data and variable types tied to its operation while the table holds them all. */
export function route<TData, TVars extends Record<string, unknown>>(entry: RouteEntry<TData, TVars>): RouteEntry {
  return entry as unknown as RouteEntry;
}

/** `undefined` and `null` both become `null`: GraphQL variables want one spelling of "absent". */
export const optionalNullable = <T extends z.ZodType>(t: T) => t.optional().transform((v) => v ?? null);
