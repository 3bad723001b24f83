import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import type { ApiKeyService } from "../../platform/auth/auth.service";
import type { Principal } from "../../platform/auth/auth.types";
import { ForbiddenError, InternalError, InvalidArgumentError, NotFoundError } from "../../platform/errors";
import type { LiveAllowance } from "../../domain/live/live.allowance";
import type { LiveHub, LiveSubscription } from "../../domain/live/live.hub";
import { isLiveResolution, type LiveChannel, type LiveEvent, type LiveResolution } from "../../domain/live/live.types";
import { actionTarget, aliasValue, RESOLUTION_NAMES } from "../rest/rest.aliases";
import type { AppDeps } from "../http.context";
import { urlPath } from "../http.send";
import { mapError, type MappedError } from "../rest/rest.errors";
import type { RestRouter } from "../rest/rest.router";
import type { ApiVersion } from "../rest/rest.route";
import { livePayloads } from "./ws.payloads";
import {
  describeMs,
  KEY_GONE,
  keyStillValid,
  refuseUpgrade,
  requireDataScope,
  sweepEvery,
  tooManyConnections,
  upgradeRequestId,
} from "./ws.upgrade";

export interface WsDoorOptions {
  deps: AppDeps;
  apiKeys: ApiKeyService;
  logger: Logger;
  /** The route table's calls (rest.router.ts): an action is answered exactly as its REST call. */
  call: RestRouter["call"];
  hub: LiveHub;
  /** Subscriptions and connections per key, shared with GraphQL's subscriptions. */
  allowance: LiveAllowance;
  /** How often idle sockets are looked for: a tenth of the idle timeout, at most 30 s, by default. */
  sweepMs?: number;
}

/** The WebSocket door at `/v0` and `/v1` (docs/live.md). */
export interface WsDoor {
  /** Takes the upgrade of `/v0` or `/v1` (answering a refusal itself) and returns true; false for any other path. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** SIGTERM: every later upgrade is refused with the contract's 500 body. */
  refuse(): void;
  /** Closes every socket with 1001; resolves once all are closed, or after `graceMs` (then they are cut). */
  close(graceMs: number): Promise<void>;
  /** Open sockets. */
  readonly size: number;
}

/** Actions the door answers itself; any other is a path of the route table. */
const SUBSCRIBE = "subscribe";
const UNSUBSCRIBE = "unsubscribe";

interface Connection {
  ws: WebSocket;
  principal: Principal;
  /** The key as sent, to check it again on every action (a revoked key is refused from then on); never logged. */
  key: string;
  version: ApiVersion;
  /** Epoch milliseconds of the service clock: the last frame either way. */
  lastActivity: number;
  subscriptions: Map<string, LiveSubscription>;
  closing: boolean;
}

/** What an action's RateLimit fields would be written on: the socket has no headers, so they are dropped. */
const NO_FIELDS = { setHeader: () => undefined, removeHeader: () => undefined };

const VERSION_PATH = /^\/v([01])\/?$/i;

/** RFC 6455's policy violation: the key the connection was opened with no longer holds. */
const CLOSE_POLICY = 1008;

export function createWsDoor(opts: WsDoorOptions): WsDoor {
  const { deps, apiKeys, logger, call, hub, allowance } = opts;
  const live = deps.config.live;
  const clock = deps.clock;
  const now = () => clock.now().getTime();
  // Frames up to four times the message limit are read and answered with an error; ws closes larger ones (1009).
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4 * live.maxMessageBytes, clientTracking: false });
  const connections = new Set<Connection>();
  const payloads = livePayloads(deps);
  let refusing = false;

  const sweepMs = opts.sweepMs ?? sweepEvery(live.idleTimeoutMs);
  const idleReason = `idle for ${describeMs(live.idleTimeoutMs)} (MDG_WS_IDLE_TIMEOUT_MS)`;
  const sweep = setInterval(() => {
    const at = now();
    for (const c of connections) {
      if (c.closing) continue;
      if (at - c.lastActivity >= live.idleTimeoutMs) closeWith(c, 1000, idleReason);
      // A key revoked (or expired) since the upgrade: its subscriptions stop with the connection, not only its next
      // action. The check is the doors' own, from the key cache while it is fresh.
      else void keyStillValid(apiKeys, c.key).then((valid) => valid || closeWith(c, CLOSE_POLICY, KEY_GONE));
    }
  }, sweepMs);
  sweep.unref();

  function closeWith(c: Connection, code: number, reason: string): void {
    if (c.closing) return;
    c.closing = true;
    c.ws.close(code, reason);
  }

  /** Sends one message unless the socket is behind: past the bound it is closed as a slow consumer (1013). */
  function send(c: Connection, text: string): void {
    if (c.closing) return;
    if (c.ws.bufferedAmount + text.length > live.maxBufferedBytes) {
      logger.warn({ keyId: c.principal.keyId, buffered: c.ws.bufferedAmount }, "live: slow consumer disconnected");
      closeWith(c, 1013, `slow consumer: over ${live.maxBufferedBytes} bytes waiting to be sent`);
      return;
    }
    c.lastActivity = now();
    c.ws.send(text);
  }

  function answer(c: Connection, action: string | null, id: unknown, status: number, data: unknown): void {
    send(c, JSON.stringify(withId({ action, status, data }, id)));
  }

  function refuse(c: Connection, action: string | null, id: unknown, mapped: MappedError): void {
    const retry = mapped.headers["retry-after"];
    const body = { action, status: mapped.status, error: mapped.body, ...(retry && { retryAfter: Number(retry) }) };
    send(c, JSON.stringify(withId(body, id)));
  }

  function refuseError(c: Connection, action: string | null, id: unknown, err: unknown): void {
    const mapped = mapError(err, randomUUID());
    if (mapped.internal) logger.error({ err: mapped.internal, requestId: mapped.body.requestId }, "live action failed");
    refuse(c, action, id, mapped);
  }

  async function onMessage(c: Connection, data: RawData): Promise<void> {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (bytes.length > live.maxMessageBytes) {
      const message = `a message may hold at most ${live.maxMessageBytes} bytes (MDG_WS_MAX_MESSAGE_BYTES)`;
      return refuseError(
        c,
        null,
        undefined,
        new InvalidArgumentError(message, [{ field: "message", issue: "too large" }]),
      );
    }
    let msg: unknown;
    try {
      msg = JSON.parse(bytes.toString("utf8"));
    } catch {
      const err = new InvalidArgumentError("a message must be a JSON object", [
        { field: "message", issue: "not JSON" },
      ]);
      return refuseError(c, null, undefined, err);
    }
    if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
      const err = new InvalidArgumentError("a message must be a JSON object", [
        { field: "message", issue: "not an object" },
      ]);
      return refuseError(c, null, undefined, err);
    }
    const { action, id, ...body } = msg as Record<string, unknown>;
    if (typeof action !== "string" || action === "") {
      const err = new InvalidArgumentError('a message needs "action", a string', [
        { field: "action", issue: "required" },
      ]);
      return refuseError(c, null, id, err);
    }
    if (action === "ping") return answer(c, "pong", id, 200, { time: Math.floor(now() / 1000) });
    if (action === SUBSCRIBE) return subscribe(c, action, id, body);
    if (action === UNSUBSCRIBE) return unsubscribe(c, id, body);
    // The Bavest SDKs' action names (rest.aliases.ts; docs/contract.md section 10's table).
    const target = actionTarget(action);
    if (target.kind === "subscribe") return subscribe(c, action, id, { ...body, channel: target.channel });
    const result = await call({
      version: c.version,
      path: target.path,
      method: "POST",
      key: c.key,
      requestId: randomUUID(),
      limitFields: NO_FIELDS,
      readBody: () => body,
    });
    if (result.ok) answer(c, action, id, 200, result.data);
    else refuse(c, action, id, result.error);
  }

  /** The subscription a message names, checked: its channel, symbol and (for candles) resolution. */
  function topicOf(
    action: string,
    body: Record<string, unknown>,
  ): { channel: LiveChannel; symbol: string; resolution: LiveResolution | null } {
    const { channel, symbol } = body;
    if (channel !== "quote" && channel !== "candle") {
      throw new InvalidArgumentError('channel: expected "quote" or "candle"', [{ field: "channel", issue: "invalid" }]);
    }
    if (typeof symbol !== "string" || symbol.trim() === "" || symbol.length > 64) {
      throw new InvalidArgumentError("symbol: expected a non-empty string", [{ field: "symbol", issue: "required" }]);
    }
    if (channel === "quote") return { channel, symbol: symbol.trim(), resolution: null };
    // The Dart SDK's realtime/candle names no resolution: minutes then. The Python SDK's names are read too.
    const asked = body.resolution ?? (actionTarget(action).kind === "subscribe" ? "1" : undefined);
    const resolution = aliasValue(RESOLUTION_NAMES, typeof asked === "number" ? String(asked) : asked);
    if (!isLiveResolution(resolution)) {
      throw new InvalidArgumentError('resolution: expected "1", "5" or "D" for live candles', [
        { field: "resolution", issue: "invalid" },
      ]);
    }
    return { channel, symbol: symbol.trim(), resolution };
  }

  async function subscribe(c: Connection, action: string, id: unknown, body: Record<string, unknown>): Promise<void> {
    let topic: ReturnType<typeof topicOf>;
    try {
      topic = topicOf(action, body);
    } catch (e) {
      return refuseError(c, action, id, e);
    }
    const keyId = c.principal.keyId;
    // Held while the check runs, so concurrent subscribes cannot pass the limit together.
    if (!allowance.take(keyId, 1)) {
      const held = allowance.heldBy(keyId);
      const message = `this API key holds ${held} subscriptions, the most it may (MDG_WS_MAX_SUBSCRIPTIONS)`;
      return refuseError(
        c,
        action,
        id,
        new ForbiddenError(message, [{ field: "symbol", issue: "too many subscriptions" }]),
      );
    }
    let kept = false;
    try {
      // The symbol's quote, as REST answers it: the key (again), the scope of the security's type, the symbol, and
      // the one unit a subscription costs. Its answer is the subscription's first value.
      const result = await call({
        version: c.version,
        path: "quote",
        method: "POST",
        key: c.key,
        requestId: randomUUID(),
        limitFields: NO_FIELDS,
        readBody: () => ({ symbol: topic.symbol }),
      });
      if (!result.ok) return refuse(c, action, id, result.error);
      const quote = result.data as { symbol: string };
      const symbol = quote.symbol;
      const name = subscriptionName(topic.channel, symbol, topic.resolution);
      const confirmed = { channel: topic.channel, symbol, ...(topic.resolution && { resolution: topic.resolution }) };
      if (c.closing) return;
      if (!c.subscriptions.has(name)) {
        const subscription = hub.subscribe(topic.channel, symbol, topic.resolution, (event) => push(c, event));
        c.subscriptions.set(name, subscription);
        kept = true;
      }
      answer(c, action, id, 200, topic.channel === "quote" ? { ...confirmed, quote } : confirmed);
    } finally {
      if (!kept) allowance.release(keyId, 1);
    }
  }

  function unsubscribe(c: Connection, id: unknown, body: Record<string, unknown>): void {
    let topic: ReturnType<typeof topicOf>;
    try {
      topic = topicOf(UNSUBSCRIBE, body);
    } catch (e) {
      return refuseError(c, UNSUBSCRIBE, id, e);
    }
    // The symbol as subscribed (its canonical form), or as sent: `btc-usd` and `BTC-USD` are one subscription.
    const wanted = topic.symbol.toUpperCase();
    for (const [name, s] of c.subscriptions) {
      if (s.channel !== topic.channel || s.resolution !== topic.resolution || s.symbol.toUpperCase() !== wanted)
        continue;
      s.close();
      c.subscriptions.delete(name);
      allowance.release(c.principal.keyId, 1);
      const done = { channel: s.channel, symbol: s.symbol, ...(s.resolution && { resolution: s.resolution }) };
      return answer(c, UNSUBSCRIBE, id, 200, done);
    }
    const err = new NotFoundError(`no subscription to ${topic.channel} ${topic.symbol} on this connection`);
    refuseError(c, UNSUBSCRIBE, id, err);
  }

  function push(c: Connection, event: LiveEvent): void {
    send(c, payloads.of(event, c.version));
  }

  function accept(ws: WebSocket, principal: Principal, key: string, version: ApiVersion): void {
    const c: Connection = {
      ws,
      principal,
      key,
      version,
      lastActivity: now(),
      subscriptions: new Map(),
      closing: false,
    };
    connections.add(c);
    ws.on("message", (data) => {
      c.lastActivity = now();
      onMessage(c, data).catch((e: unknown) => refuseError(c, null, undefined, e));
    });
    ws.on("ping", () => (c.lastActivity = now()));
    ws.on("error", (err) => logger.debug({ err: { message: err.message } }, "live: socket error"));
    ws.on("close", () => {
      connections.delete(c);
      allowance.disconnect(principal.keyId);
      for (const s of c.subscriptions.values()) s.close();
      allowance.release(principal.keyId, c.subscriptions.size);
      c.subscriptions.clear();
      c.closing = true;
    });
  }

  async function upgradeChecked(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    version: ApiVersion,
  ): Promise<void> {
    const requestId = upgradeRequestId(req);
    try {
      if (refusing) throw new InternalError("the service is shutting down");
      const raw = req.headers["x-api-key"];
      const checked = apiKeys.authenticateNow(raw);
      const principal = checked instanceof Promise ? await checked : checked;
      requireDataScope(principal);
      if (refusing) throw new InternalError("the service is shutting down");
      if (!allowance.connect(principal.keyId)) throw tooManyConnections(allowance.connectionsOf(principal.keyId));
      wss.handleUpgrade(req, socket, head, (ws) => accept(ws, principal, raw as string, version));
    } catch (e) {
      const mapped = mapError(e, requestId);
      // Shutting down is the service's state, said as such (the contract's 500 body with its own message).
      if (refusing && mapped.status === 500) mapped.body.message = "the service is shutting down; connect again";
      else if (mapped.internal) logger.error({ err: mapped.internal, requestId }, "live: upgrade failed");
      refuseUpgrade(socket, mapped);
    }
  }

  return {
    upgrade(req, socket, head) {
      const m = VERSION_PATH.exec(urlPath(req));
      if (!m) return false;
      void upgradeChecked(req, socket, head, m[1] === "0" ? "v0" : "v1");
      return true;
    },
    refuse() {
      refusing = true;
    },
    async close(graceMs) {
      refusing = true;
      clearInterval(sweep);
      const open = [...connections];
      const closed = Promise.all(open.map((c) => new Promise<void>((r) => c.ws.once("close", () => r()))));
      for (const c of open) closeWith(c, 1001, "the service is shutting down; connect again");
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
      for (const c of connections) c.ws.terminate();
    },
    get size() {
      return connections.size;
    },
  };
}

function withId<T extends object>(body: T, id: unknown): T & { id?: unknown } {
  return typeof id === "string" || typeof id === "number" ? { ...body, id } : body;
}

function subscriptionName(channel: LiveChannel, symbol: string, resolution: LiveResolution | null): string {
  return resolution ? `${channel} ${symbol} ${resolution}` : `${channel} ${symbol}`;
}
