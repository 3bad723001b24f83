import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { HeaderMap, type ApolloServer, type HTTPGraphQLResponse } from "@apollo/server";
import { GraphQLError } from "graphql";
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "pino";
import type { ApiKeyService } from "../../platform/auth/auth.service";
import { AppError } from "../../platform/errors";
import { sendBody } from "../http.compress";
import { releaseHeld } from "../http.held";
import { sendJson, splitUrl } from "../http.send";
import { createContext, type AppDeps, type Context } from "../http.context";
import { plainSmallBody, readPlainSoon } from "../rest/rest.body-reader";
import type { DocumentGate } from "./graphql.document-bounds";
import type { GraphqlPipeline } from "./graphql.pipeline";

/**
 * The context of one /graphql request, from its key: a key that is missing or does not authenticate throws
 * UNAUTHENTICATED (HTTP 401), which the doors answer before anything of the request's body or documents is read.
 */
export function graphqlContext(deps: AppDeps, apiKeys: ApiKeyService) {
  // Without a promise where the key check needs none (the bootstrap key, a key in the cache, a refusal: thrown).
  return (req: IncomingMessage, requestId: string): Context | Promise<Context> => {
    let principal: ReturnType<ApiKeyService["authenticateNow"]>;
    try {
      principal = apiKeys.authenticateNow(req.headers["x-api-key"]);
    } catch (e) {
      throw unauthenticated(e);
    }
    if (!(principal instanceof Promise)) return createContext(deps, requestId, principal);
    return principal.then(
      (p) => createContext(deps, requestId, p),
      (e: unknown) => {
        throw unauthenticated(e);
      },
    );
  };
}

/** A key that does not authenticate fails the whole request with HTTP 401; anything else as it is. */
function unauthenticated(e: unknown): unknown {
  if (!(e instanceof AppError)) return e;
  return new GraphQLError(e.message, { extensions: { code: "UNAUTHENTICATED", http: { status: 401 } } });
}

/**
 * Apollo's own answer to a request refused before Apollo sees it (a key that fails, a document the gate refuses):
 * its answer to a failed context, with the same error normalisation, `formatError`, status and content type by
 * `accept`. The request Apollo is handed is a bare POST that carries only `accept`: nothing of the refused request's
 * body or query string reaches it, so nothing is parsed.
 */
export function apolloRefusal(
  apollo: ApolloServer<Context>,
  accept: string | undefined,
  error: unknown,
): Promise<HTTPGraphQLResponse> {
  const headers = new HeaderMap([["content-type", "application/json"]]);
  if (accept !== undefined) headers.set("accept", accept);
  return apollo.executeHTTPGraphQLRequest({
    httpGraphQLRequest: { method: "POST", headers, search: "", body: {} },
    context: () => Promise.reject(error),
  });
}

export interface GraphqlDoorOptions {
  apollo: ApolloServer<Context>;
  context: (req: IncomingMessage, requestId: string) => Context | Promise<Context>;
  bodyBytes: number;
  logger: Logger;
  /** Operation types and bounds of the documents, checked before anything validates them. */
  gate: DocumentGate;
  /** The common case answered without Apollo's generic set-up (graphql.pipeline.ts); null: Apollo answers all. */
  pipeline?: GraphqlPipeline | null;
}

/**
 * `POST /graphql` with a plain JSON body, handed to Apollo Server without
 * Express: what `express.json()` and the Express integration do for such a
 * request (read the body, parse it, build Apollo's request, write its
 * answer) done directly, because Express's router, body-parser and
 * `res.send` cost more than the operation itself (BENCHMARKS.md). The key
 * is checked first, before the body is read: without a valid one the answer
 * is 401. A single valid query runs on the service's own pipeline
 * (graphql.pipeline.ts: the same stages, errors and bytes as Apollo's
 * answer); any other text passes the gate (operation types and bounds,
 * graphql.document-bounds.ts) and Apollo runs it: same parsing, validation,
 * stages, limits, errors and status codes.
 *
 * Returns false, touching nothing, for any other request, and for the rare
 * POST that is not plain JSON (another or no content type, a charset other
 * than UTF-8, compressed, chunked, over the size limit): those go through
 * Express and body-parser as they always did, so their answers stay the same.
 */
export function graphqlDoor({ apollo, context, bodyBytes, logger, gate, pipeline = null }: GraphqlDoorOptions) {
  return function door(req: IncomingMessage, res: ServerResponse, requestId: string): boolean {
    if (req.method !== "POST") return false;
    const { path, search } = splitUrl(req);
    if (path !== "/graphql" && path !== "/graphql/") return false;
    if (!isPlainJson(req.headers["content-type"]) || !plainSmallBody(req, bodyBytes)) return false;
    run(req, res, requestId, search).catch((e: unknown) => {
      logger.error({ err: e, requestId }, "graphql request failed");
      if (!res.headersSent)
        sendJson(res, 500, {
          errors: [{ message: "Internal server error", extensions: { code: "INTERNAL_SERVER_ERROR" } }],
        });
      else res.destroy();
    });
    return true;
  };

  async function run(req: IncomingMessage, res: ServerResponse, requestId: string, search: string): Promise<void> {
    // The key first: a request without a valid key is answered before its body is read or parsed.
    let ready: Context;
    try {
      const made = context(req, requestId);
      ready = made instanceof Promise ? await made : made;
    } catch (error) {
      await write(res, await apolloRefusal(apollo, req.headers.accept, error));
      return;
    }
    let body: unknown;
    try {
      body = parseJson(await readPlainSoon(req, Number(req.headers["content-length"])));
    } catch (e) {
      // As the Express path answers what body-parser refuses: 400, Apollo's error shape.
      const message = e instanceof SyntaxError ? e.message : "request body could not be read";
      sendJson(res, 400, { errors: [{ message, extensions: { code: "BAD_REQUEST" } }] });
      return;
    }
    // A single valid query (within the gate's bounds) runs on the pipeline.
    const prepared = pipeline?.prepare(body, req.headers) ?? null;
    if (prepared) {
      const answer = await pipeline!.answer(prepared, ready);
      sendBody(res, answer.status ?? 200, answer.body, headObject(answer.headers));
      return;
    }
    const refused = gate.requestRefusal("POST", body, search);
    if (refused) {
      await write(res, await apolloRefusal(apollo, req.headers.accept, refused));
      return;
    }
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(", ") : value);
    }
    const answer = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: "POST", headers, search, body },
      context: async () => ready,
    });
    await write(res, answer);
  }
}

/**
 * The Express route's checks before body-parser and Apollo (GET operations, POSTs the door leaves to body-parser):
 * the key, before the body is read; then, once body-parser has read it, the gate. The context made from the key is
 * the one Apollo gets (`expressContext`).
 */
export function graphqlExpressChecks({
  apollo,
  context,
  gate,
}: Pick<GraphqlDoorOptions, "apollo" | "context" | "gate">): {
  keyFirst: (req: Request, res: Response, next: NextFunction) => Promise<void>;
  documents: (req: Request, res: Response, next: NextFunction) => Promise<void>;
} {
  return {
    async keyFirst(req, res, next) {
      try {
        res.locals.graphqlContext = await context(req, res.locals.requestId as string);
      } catch (error) {
        sendApollo(res, await apolloRefusal(apollo, req.headers.accept, error));
        return;
      }
      next();
    },
    async documents(req, res, next) {
      const refused = gate.requestRefusal(req.method, (req as { body?: unknown }).body, splitUrl(req).search);
      if (!refused) return next();
      sendApollo(res, await apolloRefusal(apollo, req.headers.accept, refused));
    },
  };
}

/** The context `graphqlExpressChecks` made for this request. */
export function expressContext({ res }: { res: Response }): Promise<Context> {
  return Promise.resolve(res.locals.graphqlContext as Context);
}

/** A complete answer of Apollo's, written as the Express integration writes it (the route compresses it). */
function sendApollo(res: Response, answer: HTTPGraphQLResponse): void {
  for (const [key, value] of answer.headers) res.setHeader(key, value);
  res.status(answer.status ?? 200);
  res.send(answer.body.kind === "complete" ? answer.body.string : "");
}

/** `application/json`, with no parameter or only `charset=utf-8`: what express.json() reads without further checks. */
function isPlainJson(contentType: string | undefined): boolean {
  if (contentType === "application/json") return true;
  if (contentType === undefined) return false;
  const [type, ...params] = contentType.split(";");
  if (type!.trim().toLowerCase() !== "application/json") return false;
  return params.every((p) => /^\s*charset\s*=\s*"?utf-8"?\s*$/i.test(p));
}

/** As body-parser's strict JSON: an empty body is `{}`, and only an object or array is JSON here. */
function parseJson(buf: Buffer): unknown {
  const text = buf.toString("utf8");
  // The first character that is not white space (as /\S/ finds it); a plain body starts with "{" at once.
  let i = 0;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  if (i === text.length) return {};
  const first = text[i]!;
  if (first !== "{" && first !== "[")
    throw new SyntaxError(`Unexpected token ${JSON.stringify(first)}, the body is not a JSON object or array`);
  return JSON.parse(text);
}

/** What /\s/ matches: ASCII white space, and Unicode's space separators, line and paragraph separators and BOM. */
function isSpace(code: number): boolean {
  if (code === 0x7b) return false;
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return code >= 0x80 && /\s/.test(String.fromCharCode(code));
}

/**
 * An answer's header fields as the object `sendBody` writes in one `writeHead`: set on the response one by one, they
 * would send Node's `writeHead` down its merging path (http.held.ts).
 */
function headObject(headers: ReadonlyMap<string, string>): OutgoingHttpHeaders {
  const head: OutgoingHttpHeaders = {};
  headers.forEach((value, key) => (head[key] = value));
  return head;
}

async function write(res: ServerResponse, answer: HTTPGraphQLResponse): Promise<void> {
  if (answer.body.kind === "complete") {
    // Compressed when large enough and accepted, as REST answers are (http.compress.ts).
    sendBody(res, answer.status ?? 200, answer.body.string, headObject(answer.headers));
    return;
  }
  for (const [key, value] of answer.headers) res.setHeader(key, value);
  // An incremental answer (multipart, each part due as soon as it is ready) goes as it is: a compressor would hold
  // parts back until it had enough to emit.
  res.statusCode = answer.status ?? 200;
  // Not written by sendBody: the request id held for the answer goes on the response before the first part.
  releaseHeld(res);
  for await (const chunk of answer.body.asyncIterator) res.write(chunk);
  res.end();
}
