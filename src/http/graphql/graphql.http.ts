import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { HeaderMap, type ApolloServer, type HTTPGraphQLResponse } from "@apollo/server";
import { GraphQLError } from "graphql";
import type { Logger } from "pino";
import type { ApiKeyService } from "../../platform/auth/auth.service";
import { AppError } from "../../platform/errors";
import { sendBody } from "../http.compress";
import { releaseHeld } from "../http.held";
import { sendJson, splitUrl } from "../http.send";
import { createContext, type AppDeps, type Context } from "../../context";
import { plainSmallBody, readPlainSoon } from "../rest/rest.body-reader";
import type { GraphqlFastPath } from "./graphql.fast-path";

/**
 * The context of one /graphql operation. Without a key every field answers
 * UNAUTHENTICATED (so GraphiQL and introspection still load); a key that
 * does not authenticate fails the whole request with HTTP 401.
 */
export function graphqlContext(deps: AppDeps, apiKeys: ApiKeyService) {
  // Without a promise where the key check needs none (the bootstrap key, a key in the cache, a refusal: thrown).
  return (req: IncomingMessage, requestId: string): Context | Promise<Context> => {
    const header = req.headers["x-api-key"];
    if (header === undefined) return createContext(deps, requestId, null);
    let principal: ReturnType<ApiKeyService["authenticateNow"]>;
    try {
      principal = apiKeys.authenticateNow(header);
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

export interface GraphqlDoorOptions {
  apollo: ApolloServer<Context>;
  context: (req: IncomingMessage, requestId: string) => Context | Promise<Context>;
  bodyBytes: number;
  logger: Logger;
  /** The common case answered without Apollo's generic set-up (graphql.fast-path.ts); null: Apollo answers all. */
  fastPath?: GraphqlFastPath<Context> | null;
}

/**
 * `POST /graphql` with a plain JSON body, handed to Apollo Server without
 * Express: what `express.json()` and the Express integration do for such a
 * request (read the body, parse it, build Apollo's request, write its
 * answer) done directly, because Express's router, body-parser and
 * `res.send` cost more than the operation itself (BENCHMARKS.md). A single
 * query whose text was seen valid before runs on the fast path
 * (graphql.fast-path.ts: Apollo's pipeline for that case, same plugins,
 * errors and bytes); everything else Apollo runs exactly as before: same
 * parsing, validation, plugins, limits, errors and status codes.
 *
 * Returns false, touching nothing, for any other request, and for the rare
 * POST that is not plain JSON (another or no content type, a charset other
 * than UTF-8, compressed, chunked, over the size limit): those go through
 * Express and body-parser as they always did, so their answers stay the same.
 */
export function graphqlDoor({ apollo, context, bodyBytes, logger, fastPath = null }: GraphqlDoorOptions) {
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
    let body: unknown;
    try {
      body = parseJson(await readPlainSoon(req, Number(req.headers["content-length"])));
    } catch (e) {
      // As the Express path answers what body-parser refuses: 400, Apollo's error shape.
      const message = e instanceof SyntaxError ? e.message : "request body could not be read";
      sendJson(res, 400, { errors: [{ message, extensions: { code: "BAD_REQUEST" } }] });
      return;
    }
    // A single query whose text is known valid runs on the fast path; the key is checked first, as Apollo does, and
    // a key that fails is answered by Apollo from the same failed check (no second look-up).
    const prepared = fastPath?.prepare(body, req.headers) ?? null;
    let failed: { error: unknown } | undefined;
    if (prepared) {
      let ready: Context | undefined;
      try {
        const made = context(req, requestId);
        ready = made instanceof Promise ? await made : made;
      } catch (error) {
        // Apollo answers the failed check below, from the same error (no second look-up).
        failed = { error };
      }
      if (ready) {
        const answer = await fastPath!.answer(prepared, ready);
        sendBody(res, answer.status ?? 200, answer.body, headObject(answer.headers));
        return;
      }
    }
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(", ") : value);
    }
    const answer = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: "POST", headers, search, body },
      // Thrown inside Apollo's own try, which answers it as a failed context.
      context: async () => {
        if (failed) throw failed.error;
        return context(req, requestId);
      },
    });
    await write(res, answer);
  }
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
