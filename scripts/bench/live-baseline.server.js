"use strict";
/**
 * The fan-out benchmark's reference server (scripts/bench/live.bench.ts): a bare `ws` server that does the least a
 * live-price server can. A client sends `{"symbol"}` once; the server listens to that symbol's Redis channel (the
 * channels the service's replicas use) and sends every message on it to the symbol's sockets, as one JSON text. No
 * key, no limits, no shapes: whatever the service costs beyond this is the service's own cost.
 */
const { createServer } = require("node:http");
const Redis = require("ioredis");
const { WebSocketServer } = require("ws");

const port = Number(process.env.PORT || 4182);
const prefix = process.env.MDG_REDIS_KEY_PREFIX || "mdg:";
const listener = new Redis(process.env.REDIS_URL);
const bySymbol = new Map();

listener.on("message", (channel, text) => {
  const symbol = channel.slice(prefix.length + "live:".length);
  const sockets = bySymbol.get(symbol);
  if (!sockets) return;
  const wire = JSON.parse(text);
  const out = JSON.stringify({ channel: "quote", symbol, data: wire.quote });
  for (const ws of sockets) ws.send(out);
});

const server = createServer((_req, res) => res.end("ok"));
const wss = new WebSocketServer({ server });
wss.on("connection", (ws) => {
  ws.once("message", (data) => {
    const { symbol } = JSON.parse(String(data));
    let sockets = bySymbol.get(symbol);
    if (!sockets) {
      bySymbol.set(symbol, (sockets = new Set()));
      listener.subscribe(`${prefix}live:${symbol}`);
    }
    sockets.add(ws);
    ws.on("close", () => sockets.delete(ws));
    ws.send(JSON.stringify({ subscribed: symbol }));
  });
});
server.listen(port, "127.0.0.1");
