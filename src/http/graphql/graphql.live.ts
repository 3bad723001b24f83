import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import {
  getOperationAST,
  GraphQLError,
  OperationTypeNode,
  parse,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from "graphql";
import { CloseCode, GRAPHQL_TRANSPORT_WS_PROTOCOL, makeServer, type ExecutionResult } from "graphql-ws";
import type { Logger } from "pino";
import { WebSocketServer, type WebSocket } from "ws";
import type { LiveAllowance } from "../../domain/live/live.allowance";
import type { LiveHub } from "../../domain/live/live.hub";
import { liveEvents, type LiveTopic } from "../../domain/live/live.iterator";
import type { LiveEvent } from "../../domain/live/live.types";
import { Quote } from "../../domain/quote/quote.types";
import type { ApiKeyService } from "../../platform/auth/auth.service";
import type { Principal } from "../../platform/auth/auth.types";
import { AppError, ForbiddenError, InternalError, NotFoundError, UnauthenticatedError } from "../../platform/errors";
import type { RateLimiter } from "../../platform/quotas/quota.service";
import { createContext, type AppDeps, type Context, type LiveStreams } from "../http.context";
import { urlPath } from "../http.send";
import { mapError } from "../rest/rest.errors";
import {
  describeMs,
  KEY_GONE,
  keyStillValid,
  refuseUpgrade,
  requireDataScope,
  sweepEvery,
  tooManyConnections,
  upgradeRequestId,
} from "../ws/ws.upgrade";
import { checkDocumentBounds } from "./graphql.document-bounds";
import { checkOperation, costEstimator, graphqlParseOptions } from "./graphql.operation-limits";

/** Close codes of a refused `connection_init` (the graphql-ws protocol's Unauthorized and Forbidden). */
export const CLOSE_UNAUTHORIZED = CloseCode.Unauthorized;
export const CLOSE_FORBIDDEN = CloseCode.Forbidden;
/** A client that stops reading: the WebSocket door's code (docs/live.md). */
const CLOSE_SLOW = 1013;
const CLOSE_GOING_AWAY = 1001;
/** Changes waiting for one operation's consumer past which the connection is closed as a slow consumer. */
const MAX_QUEUED_CHANGES = 1_000;
/** A close reason is at most 123 bytes (RFC 6455): longer messages are cut. */
const MAX_REASON = 120;

export interface GraphqlLiveOptions {
  deps: AppDeps;
  schema: GraphQLSchema;
  apiKeys: ApiKeyService;
  rateLimiter: RateLimiter;
  hub: LiveHub;
  allowance: LiveAllowance;
  logger: Logger;
  /** Formats an error as /graphql's HTTP answers do (graphql.errors.ts). */
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  /** How often idle sockets and revoked keys are looked for (the WebSocket door's default). */
  sweepMs?: number;
}

/** GraphQL subscriptions over graphql-ws on `/graphql` (docs/live.md "GraphQL subscriptions"). */
export interface GraphqlLive {
  /** Takes the upgrade of `/graphql` and returns true; false for any other path. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** SIGTERM: later upgrades are refused. */
  refuse(): void;
  /** Closes every socket with 1001; resolves once all are closed, or after `graceMs` (then they are cut). */
  close(graceMs: number): Promise<void>;
  readonly size: number;
}

/** What a connection carries from `connection_init` on. */
interface Extra {
  socket: WebSocket;
  request: IncomingMessage;
  principal?: Principal;
  /** The key as sent in connection_init, checked again on every sweep; never logged. */
  key?: string;
  /** Epoch milliseconds of the service clock: the last frame either way. */
  lastActivity: number;
}

const GRAPHQL_PATH = /^\/graphql\/?$/;

/** The key of a `connection_init` payload: `x-api-key` (as the HTTP header is named) or `apiKey`. */
function keyOf(payload: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const key = payload?.["x-api-key"] ?? payload?.apiKey;
  return typeof key === "string" && key !== "" ? key : undefined;
}

const reason = (message: string) => (message.length <= MAX_REASON ? message : `${message.slice(0, MAX_REASON - 1)}…`);

/**
 * The server side of graphql-ws on `/graphql`, on the service's one port: `graphql-transport-ws` only. The key comes
 * in `connection_init` (browsers cannot set headers on a WebSocket), refused with 4401 (missing or bad) or 4403 (no
 * data scope) and a reason. Each `subscribe` passes `/graphql`'s checks before it runs: the token limit, the document
 * bounds, validation, then depth, aliases, root fields and cost; only subscriptions are served here (queries go by
 * HTTP). The stream of each field then checks its symbols, holds the key's subscriptions and charges its units
 * (`events`).
 *
 * Built on graphql-ws's `makeServer` rather than its `useServer`: the service resolves modules the classic way, which
 * does not see graphql-ws's `use/ws` subpath, and the bound on what waits for a slow reader needs the socket itself.
 */
export function createGraphqlLive(opts: GraphqlLiveOptions): GraphqlLive {
  const { deps, schema, apiKeys, rateLimiter, hub, allowance, logger, formatError } = opts;
  const limits = deps.config.graphql;
  const live = deps.config.live;
  const parseOptions = graphqlParseOptions(limits);
  const estimator = costEstimator(schema, deps.config.sizes.searchResults);
  const sockets = new Map<WebSocket, Extra>();
  let refusing = false;
  const now = () => deps.clock.now().getTime();

  // As the WebSocket door's: a connection with no frame either way for MDG_WS_IDLE_TIMEOUT_MS is closed (graphql-ws
  // clients keep theirs with `keepAlive` pings), and one whose key was revoked or expired since connection_init.
  const idleReason = `idle for ${describeMs(live.idleTimeoutMs)} (MDG_WS_IDLE_TIMEOUT_MS)`;
  const sweep = setInterval(
    () => {
      const at = now();
      for (const [ws, extra] of sockets) {
        if (ws.readyState !== ws.OPEN) continue;
        if (at - extra.lastActivity >= live.idleTimeoutMs) ws.close(1000, idleReason);
        else if (extra.key !== undefined) {
          void keyStillValid(apiKeys, extra.key).then((valid) => valid || ws.close(CLOSE_UNAUTHORIZED, KEY_GONE));
        }
      }
    },
    opts.sweepMs ?? sweepEvery(live.idleTimeoutMs),
  );
  sweep.unref();

  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    maxPayload: 4 * live.maxMessageBytes,
    // graphql-transport-ws or nothing: graphql-ws closes a socket with another protocol (4406).
    handleProtocols: (protocols) =>
      protocols.has(GRAPHQL_TRANSPORT_WS_PROTOCOL) ? GRAPHQL_TRANSPORT_WS_PROTOCOL : false,
  });

  // As /graphql's HTTP answers: formatted, and without `extensions.http` (a status means nothing on a socket).
  const format = (errors: readonly GraphQLError[]): GraphQLFormattedError[] =>
    errors.map((e) => {
      const formatted = formatError(e.toJSON(), e);
      if (!formatted.extensions?.http) return formatted;
      const { http: _http, ...extensions } = formatted.extensions;
      return { ...formatted, extensions };
    });

  /** The subscription's checks before it runs; its errors, or the arguments to run it with. */
  function prepare(query: string, operationName: string | null | undefined, variables: unknown, ctx: Context) {
    let document: DocumentNode;
    try {
      document = parse(query, parseOptions);
    } catch (e) {
      return [e instanceof GraphQLError ? e : new GraphQLError(String(e))];
    }
    const other = document.definitions.find((d) => d.kind === "OperationDefinition" && d.operation !== "subscription");
    if (other) {
      return [
        new GraphQLError("only subscriptions are served over the WebSocket; send queries by POST /graphql", {
          extensions: { code: "BAD_REQUEST" },
        }),
      ];
    }
    try {
      checkDocumentBounds(document, limits);
    } catch (e) {
      if (e instanceof GraphQLError) return [e];
      throw e;
    }
    const invalid = validate(schema, document);
    if (invalid.length > 0) return invalid;
    const operation = getOperationAST(document, operationName);
    if (!operation || operation.operation !== OperationTypeNode.SUBSCRIPTION) {
      return [
        new GraphQLError("name the subscription to run (operationName)", { extensions: { code: "BAD_REQUEST" } }),
      ];
    }
    const variableValues = (variables ?? undefined) as Record<string, unknown> | undefined;
    try {
      checkOperation(schema, limits, estimator, document, operation, variableValues, ctx);
    } catch (e) {
      if (e instanceof GraphQLError) return [e];
      throw e;
    }
    const args: ExecutionArgs = {
      schema,
      document,
      operationName: operationName ?? undefined,
      variableValues,
      contextValue: ctx,
    };
    return args;
  }

  /** A connection's streams: each subscription field's topics, checked, held and charged, as the hub's changes. */
  function streamsOf(socket: WebSocket, principal: Principal): LiveStreams {
    return {
      async events(ctx: Context, topics: readonly LiveTopic[]): Promise<AsyncIterable<LiveEvent>> {
        const keyId = principal.keyId;
        if (!allowance.take(keyId, topics.length)) {
          const held = allowance.heldBy(keyId);
          throw new ForbiddenError(
            `this API key holds ${held} subscriptions and may hold ${allowance.maxPerKey} (MDG_WS_MAX_SUBSCRIPTIONS)`,
            [{ field: "symbols", issue: "too many subscriptions" }],
          );
        }
        let streaming = false;
        try {
          // Each symbol as `quotes` answers it: the scope of its security's type, its canonical form; an unknown one
          // refuses the whole subscription.
          const quotes = await ctx.answers.quote.getMany(
            ctx,
            topics.map((t) => t.symbol),
          );
          const checked = topics.map((t, i) => {
            const q = quotes[i];
            if (q instanceof Error) throw q;
            if (!(q instanceof Quote)) throw new NotFoundError(`unknown symbol ${t.symbol}`);
            return { ...t, symbol: q.symbol };
          });
          // One unit per subscription, as the WebSocket door's subscribe; a refused one counts nothing.
          const charged = rateLimiter.chargeNow(principal, topics.length, NO_HEADERS);
          if (charged instanceof Promise) await charged;
          if (socket.readyState !== socket.OPEN) throw new ForbiddenError("the connection closed");
          const stream = liveEvents(hub, unique(checked), {
            maxQueued: MAX_QUEUED_CHANGES,
            onOverflow: () => {
              logger.warn({ keyId }, "live: slow GraphQL subscriber disconnected");
              socket.close(CLOSE_SLOW, `slow consumer: over ${MAX_QUEUED_CHANGES} changes waiting to be sent`);
            },
            onEnd: () => allowance.release(keyId, topics.length),
          });
          streaming = true;
          return stream;
        } finally {
          if (!streaming) allowance.release(keyId, topics.length);
        }
      },
    };
  }

  const server = makeServer<Record<string, unknown> | undefined, Extra>({
    schema,
    connectionInitWaitTimeout: 10_000,
    async onConnect(ctx) {
      const { socket } = ctx.extra;
      const key = keyOf(ctx.connectionParams);
      try {
        if (key === undefined) throw new UnauthenticatedError();
        const checked = apiKeys.authenticateNow(key);
        const principal = checked instanceof Promise ? await checked : checked;
        requireDataScope(principal);
        if (!allowance.connect(principal.keyId)) throw tooManyConnections(allowance.connectionsOf(principal.keyId));
        ctx.extra.principal = principal;
        ctx.extra.key = key;
        return true;
      } catch (e) {
        const unauthenticated = e instanceof AppError && e.code === "UNAUTHENTICATED";
        const forbidden = e instanceof AppError && e.code === "FORBIDDEN";
        if (!unauthenticated && !forbidden) logger.error({ err: e }, "live: GraphQL connection check failed");
        // The key travels in connection_init here, not in a header: the message says where it goes.
        const message = unauthenticated
          ? 'a valid API key is required in connection_init: {"x-api-key": "<key>"}'
          : forbidden
            ? (e as AppError).message
            : "the key could not be checked";
        socket.close(forbidden ? CLOSE_FORBIDDEN : CLOSE_UNAUTHORIZED, reason(message));
        return false;
      }
    },
    onSubscribe(ctx, _id, payload) {
      const principal = ctx.extra.principal!;
      const context: Context = {
        ...createContext(deps, randomUUID(), principal),
        live: streamsOf(ctx.extra.socket, principal),
      };
      const prepared = prepare(payload.query, payload.operationName, payload.variables, context);
      return prepared;
    },
    onError(_ctx, _id, _payload, errors) {
      return format(errors);
    },
    onNext(_ctx, _id, _payload, _args, result) {
      if (!result.errors) return undefined;
      return { ...result, errors: format(result.errors) } as unknown as ExecutionResult;
    },
  });

  function accept(ws: WebSocket, req: IncomingMessage): void {
    const extra: Extra = { socket: ws, request: req, lastActivity: now() };
    sockets.set(ws, extra);
    const closed = server.opened(
      {
        protocol: ws.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            if (ws.readyState !== ws.OPEN) return resolve();
            // The socket's own bound, as the WebSocket door's: a reader this far behind is cut off.
            if (ws.bufferedAmount + data.length > live.maxBufferedBytes) {
              ws.close(CLOSE_SLOW, `slow consumer: over ${live.maxBufferedBytes} bytes waiting to be sent`);
              return resolve();
            }
            extra.lastActivity = now();
            ws.send(data, (err) => (err ? reject(err) : resolve()));
          }),
        close: (code, why) => {
          if (ws.readyState === ws.OPEN) ws.close(code, why);
        },
        onMessage: (cb) =>
          ws.on("message", (data) => {
            extra.lastActivity = now();
            cb(String(data)).catch((err: unknown) => {
              logger.error({ err }, "live: GraphQL message failed");
              ws.close(CloseCode.InternalServerError, "internal error");
            });
          }),
      },
      extra,
    );
    ws.on("error", (err) => logger.debug({ err: { message: err.message } }, "live: GraphQL socket error"));
    ws.once("close", (code, why) => {
      sockets.delete(ws);
      if (extra.principal) allowance.disconnect(extra.principal.keyId);
      void closed(code, String(why));
    });
  }

  return {
    upgrade(req, socket, head) {
      if (!GRAPHQL_PATH.test(urlPath(req))) return false;
      if (refusing) {
        // As the WebSocket door refuses while shutting down: the contract's 500 body, before the upgrade completes.
        const mapped = mapError(new InternalError("the service is shutting down"), upgradeRequestId(req));
        mapped.body.message = "the service is shutting down; connect again";
        refuseUpgrade(socket, mapped);
        return true;
      }
      wss.handleUpgrade(req, socket, head, (ws) => accept(ws, req));
      return true;
    },
    refuse() {
      refusing = true;
    },
    async close(graceMs) {
      refusing = true;
      clearInterval(sweep);
      const open = [...sockets.keys()];
      const closed = Promise.all(open.map((ws) => new Promise<void>((r) => ws.once("close", () => r()))));
      for (const ws of open) ws.close(CLOSE_GOING_AWAY, "the service is shutting down; connect again");
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
      for (const ws of sockets.keys()) ws.terminate();
    },
    get size() {
      return sockets.size;
    },
  };
}

/** Subscribing the same topic twice in one field is one subscription of it. */
function unique(topics: readonly LiveTopic[]): LiveTopic[] {
  const seen = new Set<string>();
  return topics.filter((t) => {
    const name = `${t.channel} ${t.symbol} ${t.resolution ?? ""}`;
    if (seen.has(name)) return false;
    seen.add(name);
    return true;
  });
}

/** A socket has no headers for the RateLimit fields. */
const NO_HEADERS = { setHeader: () => undefined, removeHeader: () => undefined };
