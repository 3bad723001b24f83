/**
 * A small typed GraphQL client for market-data-gateway, as a frontend would
 * write one: plain `fetch`, the API key in `x-api-key`, and documents typed by
 * GraphQL Code Generator (`generated.ts`, from `operations/*.graphql`), so the
 * variables and the result of every call are checked by the compiler.
 *
 *   const client = createClient({ url: "http://localhost:4000/graphql", apiKey });
 *   const { etf } = await client.request(EtfCardDocument, { symbol });
 *   etf.profile?.expenseRatio; // number (null without a profile)
 *
 * Add an operation: write it in operations/, run `npm run generate`, import its
 * `...Document` from ./generated.
 */
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { print } from "graphql";

export interface GraphQLErrorEntry {
  message: string;
  path?: (string | number)[];
  /** `UNAUTHENTICATED`, `FORBIDDEN`, `NOT_FOUND`, `BAD_USER_INPUT`, `INTERNAL_SERVER_ERROR`… */
  extensions?: { code?: string; [key: string]: unknown };
}

/** The call answered errors (or no data): `errors[0].extensions.code` says why. */
export class GraphQLRequestError extends Error {
  override name = "GraphQLRequestError";
  constructor(
    readonly status: number,
    readonly errors: GraphQLErrorEntry[],
  ) {
    super(errors.map((e) => `${e.extensions?.code ?? "ERROR"}: ${e.message}`).join("; ") || `HTTP ${status}`);
  }
}

export interface ClientOptions {
  /** The GraphQL endpoint, e.g. http://localhost:4000/graphql */
  url: string;
  /** Sent as `x-api-key` on every call. */
  apiKey: string;
  /** Another fetch (tests, a proxy agent); the global one by default. */
  fetch?: typeof fetch;
}

export interface Client {
  /** Runs one typed operation; resolves with its data, rejects with GraphQLRequestError on any error. */
  request<TResult, TVariables extends Record<string, unknown>>(
    document: TypedDocumentNode<TResult, TVariables>,
    variables: TVariables,
  ): Promise<TResult>;
}

export function createClient({ url, apiKey, fetch: fetchImpl = fetch }: ClientOptions): Client {
  // Each document is printed once; its text is what goes over the wire.
  const printed = new WeakMap<object, string>();
  const text = (document: TypedDocumentNode<unknown, never>) => {
    let t = printed.get(document);
    if (t === undefined) {
      t = print(document);
      printed.set(document, t);
    }
    return t;
  };

  return {
    async request(document, variables) {
      const res = await fetchImpl(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/graphql-response+json, application/json",
          "x-api-key": apiKey,
        },
        body: JSON.stringify({ query: text(document as TypedDocumentNode<unknown, never>), variables }),
      });
      let body: { data?: unknown; errors?: GraphQLErrorEntry[] };
      try {
        body = (await res.json()) as typeof body;
      } catch {
        throw new GraphQLRequestError(res.status, [{ message: `HTTP ${res.status}: the answer is not JSON` }]);
      }
      if (body.errors?.length || body.data == null) throw new GraphQLRequestError(res.status, body.errors ?? []);
      return body.data as never;
    },
  };
}
