"use strict";
/**
 * The benchmark's reference server. Plain JavaScript, started as `node
 * scripts/bench/baseline.server.js`, the same way the service starts (`node
 * dist/main.js`): same node, same flags, same environment.
 *
 * - `POST /baseline`: a minimal Express 5 route that parses the JSON body with
 *   `express.json()` and answers precomputed bytes of the size of the
 *   service's single-security answers (BENCH_BASELINE_BYTES). Whatever the
 *   service costs beyond this is the service's own cost.
 * - `POST /like/search`: the naive way to search the store, a full-table
 *   `LIKE '%query%'` scan joined to primary listings, top 20 by rank: the
 *   comparison for the service's in-memory search index.
 */
const { createServer } = require("node:http");
const Database = require("better-sqlite3");
const express = require("express");

const port = Number(process.env.PORT || 4100);
const bytes = Number(process.env.BENCH_BASELINE_BYTES || 600);
const storePath = process.env.MDG_SQLITE_PATH;

// A valid JSON document of exactly `bytes` bytes.
const BODY = Buffer.from(JSON.stringify({ pad: "x".repeat(Math.max(0, bytes - '{"pad":""}'.length)) }));

const app = express();
app.disable("x-powered-by");
app.set("etag", false);

app.post("/baseline", express.json(), (_req, res) => {
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": BODY.length });
  res.end(BODY);
});

if (storePath) {
  const db = new Database(storePath, { readonly: true, fileMustExist: true });
  const like = db.prepare(
    `SELECT s.id, s.name, s.isin, s.type, s.currency, s.market_cap AS marketCapitalization, l.symbol, l.exchange
     FROM securities s JOIN listings l ON l.security_id = s.id AND l.is_primary = 1
     WHERE s.name LIKE '%' || @q || '%' OR l.symbol LIKE @q || '%' OR s.isin = upper(@q)
     ORDER BY s.rank IS NULL, s.rank, s.id LIMIT 20`,
  );
  app.post("/like/search", express.json(), (req, res) => {
    const query = String((req.body && req.body.query) || "").trim();
    const payload = JSON.stringify({ statusCode: 200, query, results: like.all({ q: query }) });
    res.writeHead(200, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(payload),
    });
    res.end(payload);
  });
}

const server = createServer(app);
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1", () => process.stdout.write(`baseline listening on ${port} (${BODY.length} bytes)\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
